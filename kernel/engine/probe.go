package engine

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// The compiler probe. yaegi's compiler (its type and control-flow passes)
// recurses on types and syntax, and on some shallow code it recurses
// without end (`type T [2]*T`): a Go stack overflow is fatal, so compiled
// in the kernel's process such a cell would end the kernel and every
// variable of the session. With Options.Probe set, every source the
// interpreter is given is first compiled (not run) by a probe process:
// another interpreter that has been given the same sources, in the same
// order. If the probe dies on a source, the kernel's interpreter never
// sees it: a cell of which nothing ran yet runs compiled (cellbuild.go),
// else it stops with an error; the session is kept either way. A new
// probe is started for the next source and given the earlier sources
// again. Without Options.Probe (tests of this package) sources are
// compiled in the kernel's process only, as before.

// probeProc is a running probe: the child and its request and reply pipes.
type probeProc struct {
	cmd  *exec.Cmd
	req  *os.File
	resp *bufio.Reader
}

// compilerCrash is a source the probe died compiling.
type compilerCrash struct{ how string }

func (c *compilerCrash) Error() string {
	return "the interpreter's compiler crashed on it in a probe process (" + c.how + "); the kernel's process never compiles it"
}

// probeCompile gives src to the probe. It returns a *compilerCrash if the
// probe died on it (or cannot be started), nil otherwise, whether or not
// src compiled: the kernel's interpreter reports its own errors.
func (e *Engine) probeCompile(ctx context.Context, src string) error {
	if e.probeCmd == nil {
		return nil
	}
	if e.probeBroken != "" {
		return &compilerCrash{how: e.probeBroken}
	}
	if e.probe == nil {
		if err := e.startProbe(ctx); err != nil {
			e.probeBroken = "the probe cannot be started again: " + err.Error()
			return &compilerCrash{how: e.probeBroken}
		}
	}
	if err := e.probe.compile(src); err != nil {
		e.stopProbe()
		if ctx.Err() != nil {
			return e.cellError(ctx, ctx.Err())
		}
		return &compilerCrash{how: err.Error()}
	}
	e.probeLog = append(e.probeLog, src)
	return nil
}

// startProbe starts a probe and gives it the sources of the session.
func (e *Engine) startProbe(ctx context.Context) error {
	cmd := e.probeCmd()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return err
	}
	cmd.ExtraFiles = []*os.File{reqR, respW}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	err = cmd.Start()
	reqR.Close()
	respW.Close()
	if err != nil {
		reqW.Close()
		respR.Close()
		return err
	}
	e.probe = &probeProc{cmd: cmd, req: reqW, resp: bufio.NewReader(respR)}
	for _, src := range e.probeLog {
		if err := e.probe.compile(src); err != nil {
			e.stopProbe()
			return fmt.Errorf("it died again on the session's earlier sources: %v", err)
		}
	}
	return nil
}

// compile sends one source and waits for the probe's reply.
func (p *probeProc) compile(src string) error {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(src)))
	if _, err := p.req.Write(append(n[:], src...)); err != nil {
		return p.died()
	}
	if _, err := p.resp.ReadByte(); err != nil {
		return p.died()
	}
	return nil
}

// died waits for the probe's end and says how it ended.
func (p *probeProc) died() error {
	p.req.Close()
	err := p.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("its process ended: %v", exit)
	}
	return fmt.Errorf("its process ended: %v", err)
}

// stopProbe ends the probe if it runs.
func (e *Engine) stopProbe() {
	if e.probe == nil {
		return
	}
	e.probe.req.Close()
	if e.probe.cmd.ProcessState == nil {
		e.probe.cmd.Process.Kill()
		e.probe.cmd.Wait()
	}
	e.probe = nil
}

// ServeProbe serves as a compiler probe (see Options.Probe): it reads
// sources from req (each a 4-byte big-endian length and the text),
// compiles each, without running it, in an engine made with opts, and
// answers each with one byte on resp. It returns at the end of req.
func ServeProbe(opts Options, req io.Reader, resp io.Writer) error {
	opts.Probe = nil
	e, err := New(opts)
	if err != nil {
		return err
	}
	defer e.Close()
	r := bufio.NewReader(req)
	for {
		var n [4]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		src := make([]byte, binary.BigEndian.Uint32(n[:]))
		if _, err := io.ReadFull(r, src); err != nil {
			return err
		}
		e.compile(string(src))
		if _, err := resp.Write([]byte{'.'}); err != nil {
			return err
		}
	}
}
