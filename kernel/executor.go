package kernel

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/weft-mc/weft/kernel/wire"
)

// The kernel is two processes: the one Jupyter starts (the parent,
// supervise.go) binds the five sockets and relays every message; a child
// of it, the executor, runs everything else (dispatch, the engine, the
// cells). The engine keeps a cell from killing the session by every route
// it knows (guard.go, alloc.go, probe.go, compiled cells); if a cell
// still ends the executor's process (a fatal error of the Go runtime, the
// OOM killer), the parent answers the cell with an error that names each
// variable, function and type lost, and starts a new executor: the
// kernel, its connection and its client stay.

// executorEnv, set to 1, makes Run serve as an executor: messages in on
// file descriptor 3, out on 4.
const executorEnv = "WEFT_KERNEL_EXECUTOR"

// sessionChannel is the pseudo-channel of the executor's records of the
// session (sessionRecord), sent before each execute_reply.
const sessionChannel = wire.Channel(255)

// sessionRecord is what the executor tells its parent of the session
// after each cell: what a crash in the next cell would lose.
type sessionRecord struct {
	Names []string `json:"names"`
	Count int      `json:"count"`
}

// framePipe reads and writes (channel, frames) records on a pipe: a
// channel byte, a frame count, then each frame with its length (4-byte
// big-endian integers).
type framePipe struct {
	mu sync.Mutex
	w  io.Writer
	r  *bufio.Reader
}

func (p *framePipe) write(ch wire.Channel, frames [][]byte) error {
	var b []byte
	b = append(b, byte(ch))
	b = binary.BigEndian.AppendUint32(b, uint32(len(frames)))
	for _, f := range frames {
		b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.w.Write(b)
	return err
}

func (p *framePipe) read() (wire.Channel, [][]byte, error) {
	ch, err := p.r.ReadByte()
	if err != nil {
		return 0, nil, err
	}
	var n [4]byte
	if _, err := io.ReadFull(p.r, n[:]); err != nil {
		return 0, nil, err
	}
	frames := make([][]byte, binary.BigEndian.Uint32(n[:]))
	for i := range frames {
		if _, err := io.ReadFull(p.r, n[:]); err != nil {
			return 0, nil, err
		}
		frames[i] = make([]byte, binary.BigEndian.Uint32(n[:]))
		if _, err := io.ReadFull(p.r, frames[i]); err != nil {
			return 0, nil, err
		}
	}
	return wire.Channel(ch), frames, nil
}

// pipeTransport is the executor's Transport: messages go to the parent,
// signed, which sends them on its sockets. Before an execute_reply it
// sends the session's record.
type pipeTransport struct {
	p       *framePipe
	signer  wire.Signer
	session func() sessionRecord
}

func (t *pipeTransport) Send(ch wire.Channel, m *wire.Message) error {
	if m.Header.MsgType == "execute_reply" && t.session != nil {
		b, _ := json.Marshal(t.session())
		if err := t.p.write(sessionChannel, [][]byte{b}); err != nil {
			return err
		}
	}
	frames, err := t.signer.Encode(m)
	if err != nil {
		return err
	}
	return t.p.write(ch, frames)
}

// serveExecutor reads the parent's messages and hands each to h, one
// goroutine per channel as wire.Sockets.Serve does, until the pipe ends.
func serveExecutor(p *framePipe, signer wire.Signer, h wire.Handler, log io.Writer) error {
	queues := map[wire.Channel]chan *wire.Message{}
	for _, ch := range []wire.Channel{wire.Shell, wire.Control, wire.Stdin} {
		q := make(chan *wire.Message, 256)
		queues[ch] = q
		go func() {
			for m := range q {
				h(ch, m)
			}
		}()
	}
	defer func() {
		for _, q := range queues {
			close(q)
		}
	}()
	for {
		ch, frames, err := p.read()
		if errors.Is(err, io.EOF) {
			return errors.New("the kernel's parent process closed its pipe")
		}
		if err != nil {
			return fmt.Errorf("executor: read: %w", err)
		}
		m, err := signer.Decode(frames)
		q, ok := queues[ch]
		if err != nil || !ok {
			fmt.Fprintf(log, "weft kernel executor: dropped a message on %v: %v\n", ch, err)
			continue
		}
		q <- m
	}
}

// executorPipes are the executor's ends of its pipes to the parent.
func executorPipes() *framePipe {
	return &framePipe{r: bufio.NewReader(os.NewFile(3, "from-parent")), w: os.NewFile(4, "to-parent")}
}
