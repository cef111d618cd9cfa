package engine

import (
	"errors"
	"io"
	"sync"

	"github.com/weft-mc/weft/kernel/display"
)

// errNoCell is returned for output attempted between cells.
var errNoCell = errors.New("engine: no cell is running")

// cellIO routes the interpreter's standard streams and displays to the
// publisher of the running cell. Goroutines a cell leaves behind write to
// whichever cell runs later, as in other kernels.
type cellIO struct {
	mu             sync.Mutex
	pub            Publisher
	stdout, stderr io.Writer
	stdin          io.Reader
	pending        []byte // input read from the front end, not yet consumed
}

func newCellIO() *cellIO {
	c := &cellIO{}
	c.stdout = streamWriter{c, "stdout"}
	c.stderr = streamWriter{c, "stderr"}
	c.stdin = stdinReader{c}
	return c
}

func (c *cellIO) attach(p Publisher) {
	c.mu.Lock()
	c.pub, c.pending = p, nil
	c.mu.Unlock()
}

func (c *cellIO) detach() { c.attach(nil) }

func (c *cellIO) current() Publisher {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pub
}

// Display implements display.Output for the running cell.
func (c *cellIO) Display(d display.Data) error {
	p := c.current()
	if p == nil {
		return errNoCell
	}
	return p.Display(d)
}

// Update implements display.Output for the running cell.
func (c *cellIO) Update(id string, d display.Data) error {
	p := c.current()
	if p == nil {
		return errNoCell
	}
	return p.Update(id, d)
}

// Clear implements display.Clearer for the running cell.
func (c *cellIO) Clear(wait bool) error {
	p := c.current()
	if p == nil {
		return errNoCell
	}
	return p.Clear(wait)
}

type streamWriter struct {
	c    *cellIO
	name string
}

func (w streamWriter) Write(b []byte) (int, error) {
	if p := w.c.current(); p != nil {
		p.Stream(w.name, string(b))
	}
	return len(b), nil
}

type stdinReader struct{ c *cellIO }

// Read returns pending input, asking the front end for a line when none is left.
func (r stdinReader) Read(b []byte) (int, error) {
	r.c.mu.Lock()
	p, pending := r.c.pub, r.c.pending
	r.c.mu.Unlock()
	if p == nil {
		return 0, io.EOF
	}
	if len(pending) == 0 {
		line, err := p.Input("", false)
		if err != nil {
			return 0, io.EOF
		}
		pending = []byte(line + "\n")
	}
	n := copy(b, pending)
	r.c.mu.Lock()
	r.c.pending = pending[n:]
	r.c.mu.Unlock()
	return n, nil
}
