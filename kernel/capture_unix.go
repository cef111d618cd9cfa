//go:build unix

package kernel

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// captureStdout points the process's file descriptor 1 at a pipe, so that
// output of compiled code (weft's packages, os.Stdout in cells, child
// processes) reaches the running cell as a stdout stream; between cells it
// goes to the original standard output. restore undoes the redirection.
func (k *Kernel) captureStdout() (restore func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	saved, err := unix.Dup(1)
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	if err := unix.Dup2(int(w.Fd()), 1); err != nil {
		r.Close()
		w.Close()
		unix.Close(saved)
		return nil, err
	}
	w.Close()
	orig := os.NewFile(uintptr(saved), "stdout")
	done := make(chan struct{})
	go func() {
		defer close(done)
		k.forward(r, orig)
	}()
	return func() {
		unix.Dup2(saved, 1) // closes the pipe's last writer: forward ends
		<-done
		r.Close()
		orig.Close()
	}, nil
}

// forward copies r to the running cell's stdout stream, or to orig.
func (k *Kernel) forward(r io.Reader, orig io.Writer) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 && !k.hostStream("stdout", string(buf[:n])) {
			orig.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}
