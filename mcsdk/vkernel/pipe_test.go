package vkernel

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// pipeStep is one call on a pipe in TestPipe: "r" reads n bytes, "w"
// writes n bytes (filler) or data, "size" is F_SETPIPE_SZ of n, "close
// r" and "close w" close an end's last description.
type pipeStep struct {
	op       string
	n        int
	data     string
	done     int // a write's bytes already moved (a retried blocking write)
	nonblock bool
	want     int    // bytes read or written, or the new size
	got      string // what a read returns, if checked
	err      error
	len      int    // bytes in the pipe after
	rev, wev uint32 // the read end's and the write end's poll masks after
}

const (
	rIn  = PollIn | PollRdNorm
	wOut = PollOut | PollWrNorm
)

// TestPipe runs sequences of calls on one pipe and checks each answer,
// the bytes left and both ends' poll masks, as pipe(7) and fcntl(2)
// (F_SETPIPE_SZ) describe them.
func TestPipe(t *testing.T) {
	const def = PipeDefaultSize
	cases := []struct {
		name  string
		steps []pipeStep
	}{
		{"bytes come out in order, in parts", []pipeStep{
			{op: "r", n: 10, nonblock: true, err: EAGAIN, wev: wOut},
			{op: "r", n: 10, err: ErrBlock, wev: wOut},
			{op: "w", data: "hello, ", want: 7, len: 7, rev: rIn, wev: wOut},
			{op: "w", data: "world", want: 5, len: 12, rev: rIn, wev: wOut},
			{op: "r", n: 5, want: 5, got: "hello", len: 7, rev: rIn, wev: wOut},
			{op: "r", n: 100, want: 7, got: ", world", wev: wOut},
			{op: "r", n: 0, want: 0, wev: wOut},
			{op: "w", n: 0, want: 0, wev: wOut},
		}},
		{"end of file once the writer left, after the data", []pipeStep{
			{op: "w", data: "last", want: 4, len: 4, rev: rIn, wev: wOut},
			{op: "close w", len: 4, rev: rIn | PollHup, wev: wOut},
			{op: "r", n: 2, want: 2, got: "la", len: 2, rev: rIn | PollHup, wev: wOut},
			{op: "r", n: 9, want: 2, got: "st", rev: PollHup, wev: wOut},
			{op: "r", n: 9, want: 0, rev: PollHup, wev: wOut},
			{op: "r", n: 9, nonblock: true, want: 0, rev: PollHup, wev: wOut},
		}},
		{"EPIPE once the reader left", []pipeStep{
			{op: "close r", wev: wOut | PollErr},
			{op: "w", data: "x", err: EPIPE, wev: wOut | PollErr},
			{op: "w", n: 2 * PipeBuf, done: 100, want: 100, wev: wOut | PollErr},
		}},
		{"a write of PIPE_BUF bytes is all or nothing", []pipeStep{
			{op: "w", n: def - 100, want: def - 100, len: def - 100, rev: rIn},
			{op: "w", n: 101, nonblock: true, err: EAGAIN, len: def - 100, rev: rIn},
			{op: "w", n: PipeBuf, err: ErrBlock, len: def - 100, rev: rIn},
			{op: "w", n: 100, want: 100, len: def, rev: rIn},
		}},
		{"a larger non-blocking write moves what fits", []pipeStep{
			{op: "w", n: def - 1000, want: def - 1000, len: def - 1000, rev: rIn},
			{op: "w", n: 2 * PipeBuf, nonblock: true, want: 1000, len: def, rev: rIn},
			{op: "w", n: 2 * PipeBuf, nonblock: true, err: EAGAIN, len: def, rev: rIn},
		}},
		{"a larger blocking write waits with what it moved, and goes on", []pipeStep{
			{op: "w", n: def - 1000, want: def - 1000, len: def - 1000, rev: rIn},
			{op: "w", n: 3000, err: ErrBlock, len: def - 1000, rev: rIn}, // atomic: nothing moved
			{op: "w", n: 5000, err: ErrBlock, want: 1000, len: def, rev: rIn},
			{op: "r", n: def, want: def, wev: wOut},
			{op: "w", n: 5000, done: 1000, want: 5000, len: 4000, rev: rIn, wev: wOut},
		}},
		{"the write end is writable only with PIPE_BUF bytes free", []pipeStep{
			{op: "w", n: def - PipeBuf, want: def - PipeBuf, len: def - PipeBuf, rev: rIn, wev: wOut},
			{op: "w", n: 1, want: 1, len: def - PipeBuf + 1, rev: rIn},
		}},
		{"F_SETPIPE_SZ rounds up to a power of two pages", []pipeStep{
			{op: "size", n: 0, want: 4096, wev: wOut},
			{op: "size", n: 5000, want: 8192, wev: wOut},
			{op: "size", n: PipeMaxSize, want: PipeMaxSize, wev: wOut},
			{op: "size", n: PipeMaxSize + 1, err: EINVAL, wev: wOut},
			{op: "size", n: -1, err: EINVAL, wev: wOut},
		}},
		{"F_SETPIPE_SZ below the bytes held is EBUSY", []pipeStep{
			{op: "w", n: 5000, want: 5000, len: 5000, rev: rIn, wev: wOut},
			{op: "size", n: 4096, err: EBUSY, len: 5000, rev: rIn, wev: wOut},
			{op: "size", n: 8192, want: 8192, len: 5000, rev: rIn},
			{op: "w", n: 3192, want: 3192, len: 8192, rev: rIn},
			{op: "w", n: 1, nonblock: true, err: EAGAIN, len: 8192, rev: rIn},
		}},
	}
	for _, tc := range cases {
		p := NewPipe()
		for i, s := range tc.steps {
			got, err := s.apply(p)
			if !errors.Is(err, s.err) || err == nil && s.err != nil || got != s.want {
				t.Errorf("%s, step %d (%s): %d, %v; want %d, %v", tc.name, i, s.op, got, err, s.want, s.err)
			}
			if p.Len() != s.len || p.Events(false) != s.rev || p.Events(true) != s.wev {
				t.Errorf("%s, step %d: len %d events %#x %#x; want %d %#x %#x", tc.name, i, p.Len(), p.Events(false), p.Events(true), s.len, s.rev, s.wev)
			}
		}
	}
}

// apply runs s on p: the count it answers and its error; a read's bytes
// are checked against s.got when given.
func (s pipeStep) apply(p *Pipe) (int, error) {
	switch s.op {
	case "r":
		b, err := p.Read(s.n, s.nonblock)
		if s.got != "" && string(b) != s.got {
			return -1, errors.New("read " + string(b))
		}
		return len(b), err
	case "w":
		b := []byte(s.data)
		if s.data == "" {
			b = bytes.Repeat([]byte{'.'}, s.n)
		}
		return p.Write(b, s.done, s.nonblock)
	case "size":
		return p.SetSize(int64(s.n))
	case "close r", "close w":
		p.Close(s.op == "close w")
		return 0, nil
	}
	panic("vkernel test: unknown pipe step " + s.op)
}

// TestPipeWakeups checks who each change wakes: a write wakes readers; a
// read of a full pipe, a new size and the last reader leaving wake
// writers; the last writer leaving wakes readers; a refused call wakes
// nobody.
func TestPipeWakeups(t *testing.T) {
	p := NewPipe()
	p.Read(1, true)
	p.Write(nil, 0, false)
	gens := func(in, out uint64) {
		t.Helper()
		if i, o := p.Gens(); i != in || o != out {
			t.Errorf("gens %d %d, want %d %d", i, o, in, out)
		}
	}
	gens(0, 0)
	p.Write([]byte("ab"), 0, false)
	p.Read(1, false) // not full: no writer waits
	gens(1, 0)
	p.Write(make([]byte, PipeDefaultSize-1), 0, true)
	p.Read(1, false)
	gens(2, 1)
	p.SetSize(PipeDefaultSize)
	gens(2, 2)
	p.Close(true)
	p.Close(false)
	gens(3, 3)
}

// TestPipeHash pins what a pipe writes to the world hash, in order: the
// capacity, readers<<32|writers, the readers' and writers' wake-ups,
// and the bytes as PutBytes writes them (the supervisor's hash wrote
// these before the move).
func TestPipeHash(t *testing.T) {
	p := NewPipe()
	p.Write([]byte("0123456789"), 0, false)
	p.Close(false)
	var got []uint64
	p.Hash(func(v uint64) { got = append(got, v) })
	want := []uint64{PipeDefaultSize, 0<<32 | 1, 1, 1, 10, 0x3736353433323130, 0x3938}
	if !slices.Equal(got, want) {
		t.Errorf("hash input %#x, want %#x", got, want)
	}
}
