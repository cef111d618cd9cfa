package kernel

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/weft-mc/weft/kernel/wire"
)

// executorStopGrace is how long a stopped executor has to end its cell
// and its processes (interruptGrace and more) before it is killed.
const executorStopGrace = 10 * time.Second

// supervisor is the kernel's parent process: it owns the sockets and
// relays messages to and from its executor (executor.go).
type supervisor struct {
	socks  *wire.Sockets
	signer wire.Signer
	log    io.Writer

	mu       sync.Mutex
	ex       *executor
	inflight []*wire.Message // execute_requests not yet answered, in order
	session  sessionRecord   // the executor's last record
}

// executor is a running executor process.
type executor struct {
	cmd    *osexec.Cmd
	pipe   *framePipe
	ready  atomic.Bool   // it sent a message: it serves
	exited chan struct{} // closed once it exited and its output was read
	tail   *tailBuffer   // the end of its stderr
}

// supervise serves the kernel described by ci as Run documents, with the
// cells in an executor process it restarts if a cell kills it.
func supervise(ctx context.Context, ci wire.ConnectionInfo, log io.Writer) error {
	ctx, sigs, orphaned, stop := watchProcess(ctx, log)
	defer stop()
	signer, err := ci.Signer()
	if err != nil {
		return err
	}
	socks, err := wire.Listen(ctx, ci, log)
	if err != nil {
		return err
	}
	defer socks.Close()
	s := &supervisor{socks: socks, signer: signer, log: log}
	if s.ex, err = s.start(); err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- socks.Serve(ctx, s.forward) }()
	for {
		restart, err := s.watch(ctx, s.current(), errc, orphaned, sigs)
		if !restart || err != nil {
			return err
		}
	}
}

// current is the running executor.
func (s *supervisor) current() *executor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ex
}

// watch waits for the executor's end, a signal, the parent's death or a
// socket failure. restart is true if the executor died serving: its cells
// were answered and a new one is to be started.
func (s *supervisor) watch(ctx context.Context, ex *executor, errc <-chan error, orphaned <-chan string, sigs <-chan os.Signal) (restart bool, err error) {
	for {
		select {
		case <-ex.exited:
			if ex.cmd.ProcessState.Success() {
				killDescendants(false)
				return false, nil
			}
			if !ex.ready.Load() {
				return false, fmt.Errorf("kernel executor ended before serving (%s)", ex.why())
			}
			fmt.Fprintf(s.log, "weft kernel: the executor died (%s): starting another\n", ex.why())
			killDescendants(false) // what the dead executor started
			return true, s.restart(ex)
		case err := <-errc:
			s.terminate(ex)
			return false, err
		case why := <-orphaned:
			fmt.Fprintf(s.log, "weft kernel: %s: shutting down\n", why)
			s.terminate(ex)
			return false, nil
		case sig := <-sigs:
			if sig == os.Interrupt {
				ex.cmd.Process.Signal(os.Interrupt)
				continue
			}
			fmt.Fprintf(s.log, "weft kernel: %v: shutting down\n", sig)
			s.terminate(ex)
			return false, nil
		case <-ctx.Done():
			s.terminate(ex)
			return false, nil
		}
	}
}

// start starts an executor: this executable, with the kernel's arguments
// and executorEnv set.
func (s *supervisor) start() (*executor, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("kernel: the executor cannot be started: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	ex := &executor{
		cmd:    osexec.Command(exe, os.Args[1:]...),
		pipe:   &framePipe{w: inW, r: bufio.NewReader(outR)},
		exited: make(chan struct{}),
		tail:   &tailBuffer{},
	}
	ex.cmd.Env = append(os.Environ(), executorEnv+"=1")
	ex.cmd.Stdin, ex.cmd.Stdout = os.Stdin, os.Stdout
	ex.cmd.Stderr = io.MultiWriter(s.log, ex.tail)
	ex.cmd.ExtraFiles = []*os.File{inR, outW}
	err = ex.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("kernel: start the executor: %w", err)
	}
	go func() {
		s.relay(ex)
		ex.cmd.Wait()
		inW.Close()
		outR.Close()
		close(ex.exited)
	}()
	return ex, nil
}

// forward sends a client's message to the executor; execute_requests are
// remembered until the executor answers them.
func (s *supervisor) forward(ch wire.Channel, m *wire.Message) {
	frames, err := s.signer.Encode(m)
	if err != nil {
		fmt.Fprintf(s.log, "weft kernel: %v\n", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch == wire.Shell && m.Header.MsgType == "execute_request" {
		s.inflight = append(s.inflight, m)
	}
	if err := s.ex.pipe.write(ch, frames); err != nil {
		// The executor is dying: its answer comes from answerLost.
		fmt.Fprintf(s.log, "weft kernel: a %s for the executor was not delivered: %v\n", m.Header.MsgType, err)
	}
}

// relay sends the executor's messages on the sockets until its pipe ends.
func (s *supervisor) relay(ex *executor) {
	for {
		ch, frames, err := ex.pipe.read()
		if err != nil {
			return
		}
		if ch == sessionChannel {
			var rec sessionRecord
			if len(frames) == 1 && json.Unmarshal(frames[0], &rec) == nil {
				s.mu.Lock()
				s.session = rec
				s.mu.Unlock()
			}
			continue
		}
		m, err := s.signer.Decode(frames)
		if err != nil {
			fmt.Fprintf(s.log, "weft kernel: bad message from the executor: %v\n", err)
			continue
		}
		ex.ready.Store(true)
		if ch == wire.Shell && m.Header.MsgType == "execute_reply" {
			s.answered(m.Parent.MsgID)
		}
		if err := s.socks.Send(ch, m); err != nil {
			fmt.Fprintf(s.log, "weft kernel: send %s: %v\n", m.Header.MsgType, err)
		}
	}
}

// answered forgets the execute_request id.
func (s *supervisor) answered(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, m := range s.inflight {
		if m.Header.MsgID == id {
			s.inflight = append(s.inflight[:i], s.inflight[i+1:]...)
			return
		}
	}
}

// restart answers the execute_requests the dead executor left and starts
// another; requests that arrive meanwhile wait for it.
func (s *supervisor) restart(dead *executor) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answerLost(dead)
	ex, err := s.start()
	if err != nil {
		return err
	}
	s.ex = ex
	return nil
}

// answerLost answers the execute_requests the dead executor left: the
// first (the cell that was running) with why it died and every name of
// the session that was lost with it, the others as not run. s.mu is held.
func (s *supervisor) answerLost(ex *executor) {
	lost, rec := s.inflight, s.session
	s.inflight, s.session = nil, sessionRecord{}
	names := "none"
	if len(rec.Names) > 0 {
		names = strings.Join(rec.Names, ", ")
	}
	session := wire.NewID()
	for i, m := range lost {
		v := fmt.Sprintf("the kernel's executor process died running this cell (%s); a new one serves the kernel, and the session's names were lost with the old one: %s", ex.why(), names)
		if i > 0 {
			v = "not run: the kernel's executor process died running an earlier cell; a new one serves the kernel"
		}
		content := map[string]any{"status": "error", "ename": "SessionLost", "evalue": v,
			"traceback": []string{"SessionLost: " + v}, "execution_count": rec.Count + 1}
		publish := func(msgType string, content any) {
			out := wire.Reply(m, session, msgType, content)
			out.Identities = nil
			s.socks.Send(wire.IOPub, out)
		}
		publish("error", map[string]any{"ename": "SessionLost", "evalue": v, "traceback": []string{"SessionLost: " + v}})
		s.socks.Send(wire.Shell, wire.Reply(m, session, "execute_reply", content))
		publish("status", map[string]any{"execution_state": "idle"})
	}
}

// terminate asks the executor to end (SIGTERM: it stops its cell and its
// processes), kills it if it has not within executorStopGrace, and kills
// what is left under the kernel.
func (s *supervisor) terminate(ex *executor) {
	ex.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-ex.exited:
	case <-time.After(executorStopGrace):
		ex.cmd.Process.Kill()
		<-ex.exited
	}
	killDescendants(false)
}

// why says how the executor ended: the Go runtime's fatal error if its
// stderr shows one, else its exit status.
func (ex *executor) why() string {
	var lines []string
	for _, l := range strings.Split(ex.tail.String(), "\n") {
		if strings.HasPrefix(l, "fatal error: ") || strings.HasPrefix(l, "runtime: out of memory") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) > 0 {
		return strings.Join(lines, "; ")
	}
	if ex.cmd.ProcessState != nil {
		return ex.cmd.ProcessState.String()
	}
	return "it could not be started"
}

// tailBuffer keeps the last 64 KB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if n := len(t.buf) - 64<<10; n > 0 {
		t.buf = append([]byte(nil), t.buf[n:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
