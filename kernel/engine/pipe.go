package engine

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"sync"
	"time"
)

// pipeMark is written to a pipeStream at the end of a cell; when the
// forwarder reads it, everything written before it has been delivered.
var pipeMark = []byte("\x00\x1bweft-pipe-sync\x1b\x00")

// pipeStream is an *os.File that cells see as os.Stderr: yaegi binds
// os.Stderr in interpreted code to its Stderr option only when that is an
// *os.File. A goroutine forwards what is written to out (the running
// cell's stderr stream), so writes from cells and from the goroutines they
// start arrive as stream messages, not on the kernel's terminal.
//
// yaegi writes one "line:col: panic: f(...)" line per interpreted frame a
// panic unwinds to its Stderr; those are kept as the panic's stack for
// the error's traceback instead of being shown as output.
type pipeStream struct {
	r, w   *os.File
	out    io.Writer
	synced chan struct{}
	done   chan struct{}

	mu     sync.Mutex
	frames []string // panic frames since the last takeFrames
}

// panicFrame matches the line yaegi writes for each frame of a panic.
var panicFrame = regexp.MustCompile(`^\d+:\d+: panic: [^ ]*\(\.\.\.\)$`)

// takeFrames returns and forgets the panic frames seen so far.
func (p *pipeStream) takeFrames() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.frames
	p.frames = nil
	return f
}

func newPipeStream(out io.Writer) (*pipeStream, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &pipeStream{r: r, w: w, out: out, synced: make(chan struct{}, 1), done: make(chan struct{})}
	go p.forward()
	return p, nil
}

// sync waits until what was written so far has been forwarded (or a
// second has passed).
func (p *pipeStream) sync() {
	if _, err := p.w.Write(pipeMark); err != nil {
		return
	}
	select {
	case <-p.synced:
	case <-time.After(time.Second):
	}
}

// Close ends the forwarder.
func (p *pipeStream) Close() error {
	err := p.w.Close()
	<-p.done
	p.r.Close()
	return err
}

func (p *pipeStream) forward() {
	defer close(p.done)
	buf := make([]byte, 32<<10)
	var pending []byte
	for {
		n, err := p.r.Read(buf)
		pending = p.deliver(append(pending, buf[:n]...))
		if err != nil {
			p.emit(pending)
			return
		}
	}
}

// deliver emits data up to each mark, signals the mark, and returns what
// must wait for more input (a possible start of a mark).
func (p *pipeStream) deliver(data []byte) []byte {
	for {
		i := bytes.Index(data, pipeMark)
		if i < 0 {
			break
		}
		p.emit(data[:i])
		data = data[i+len(pipeMark):]
		select {
		case p.synced <- struct{}{}:
		default:
		}
	}
	keep := 0
	for k := min(len(pipeMark)-1, len(data)); k > 0; k-- {
		if bytes.HasSuffix(data, pipeMark[:k]) {
			keep = k
			break
		}
	}
	p.emit(data[:len(data)-keep])
	return append([]byte(nil), data[len(data)-keep:]...)
}

func (p *pipeStream) emit(b []byte) {
	var keep []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if panicFrame.Match(bytes.TrimSuffix(line, []byte("\n"))) {
			p.mu.Lock()
			p.frames = append(p.frames, string(bytes.TrimSpace(line)))
			p.mu.Unlock()
			continue
		}
		keep = append(keep, line...)
	}
	if len(keep) > 0 {
		p.out.Write(keep)
	}
}
