//go:build unix

package kernel

import (
	"bytes"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// syncMark is written to file descriptor 1 at the end of a cell; when the
// forwarder reads it, everything the cell wrote before has been delivered.
var syncMark = []byte("\x00\x1bweft-stdout-sync\x1b\x00")

// stdoutCapture forwards what the process writes to file descriptor 1.
type stdoutCapture struct {
	k      *Kernel
	r      *os.File
	orig   *os.File
	saved  int
	synced chan struct{} // receives one value per syncMark read
	done   chan struct{}
}

// captureStdout points the process's file descriptor 1 at a pipe, so that
// output of compiled code (weft's packages, os.Stdout in cells, child
// processes) reaches the running cell as a stdout stream; between cells it
// goes to the original standard output.
func (k *Kernel) captureStdout() (restore func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	saved, err := unix.Dup(1)
	if err != nil {
		r.Close()
		return nil, err
	}
	if err := unix.Dup2(int(w.Fd()), 1); err != nil {
		r.Close()
		unix.Close(saved)
		return nil, err
	}
	c := &stdoutCapture{k: k, r: r, orig: os.NewFile(uintptr(saved), "stdout"), saved: saved,
		synced: make(chan struct{}, 1), done: make(chan struct{})}
	go c.forward()
	k.mu.Lock()
	k.stdoutSync = c.sync
	k.mu.Unlock()
	return c.restore, nil
}

func (c *stdoutCapture) restore() {
	c.k.mu.Lock()
	c.k.stdoutSync = nil
	c.k.mu.Unlock()
	unix.Dup2(c.saved, 1) // closes the pipe's last writer: forward ends
	// ... unless a process the kernel could not kill still holds it: the
	// kernel exits anyway.
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
	}
	c.r.Close()
	c.orig.Close()
}

// sync waits until everything written to file descriptor 1 so far has been
// forwarded (or a second has passed).
func (c *stdoutCapture) sync() {
	if _, err := unix.Write(1, syncMark); err != nil {
		return
	}
	select {
	case <-c.synced:
	case <-time.After(time.Second):
	}
}

// forward copies the pipe to the running cell's stdout stream, or to the
// original standard output, taking out sync marks.
func (c *stdoutCapture) forward() {
	defer close(c.done)
	buf := make([]byte, 32<<10)
	var pending []byte
	for {
		n, err := c.r.Read(buf)
		pending = append(pending, buf[:n]...)
		pending = c.deliver(pending)
		if err == io.EOF || err != nil && n == 0 {
			c.emit(pending)
			return
		}
	}
}

// deliver emits data up to each sync mark, signals the mark, and returns
// what must wait for more input (a possible start of a mark).
func (c *stdoutCapture) deliver(data []byte) []byte {
	for {
		i := bytes.Index(data, syncMark)
		if i < 0 {
			break
		}
		c.emit(data[:i])
		data = data[i+len(syncMark):]
		select {
		case c.synced <- struct{}{}:
		default:
		}
	}
	keep := 0
	for k := min(len(syncMark)-1, len(data)); k > 0; k-- {
		if bytes.HasSuffix(data, syncMark[:k]) {
			keep = k
			break
		}
	}
	c.emit(data[:len(data)-keep])
	return append([]byte(nil), data[len(data)-keep:]...)
}

func (c *stdoutCapture) emit(b []byte) {
	if len(b) > 0 && !c.k.hostStream("stdout", string(b)) {
		c.orig.Write(b)
	}
}
