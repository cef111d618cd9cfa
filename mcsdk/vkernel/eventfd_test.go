package vkernel

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// TestEventfd runs sequences of reads and writes on one eventfd and
// checks each answer, the counter and the poll mask after it, as
// eventfd(2) describes them.
func TestEventfd(t *testing.T) {
	type step struct {
		op       string // "r" read, "w" write
		n        uint64 // the read's buffer length; the written value
		buf      []byte // a write's bytes, if not u64(n)
		nonblock bool
		want     uint64 // what a read returns
		err      error
		count    uint64
		events   uint32
	}
	const rw = PollIn | PollRdNorm | PollOut | PollWrNorm
	const w = PollOut | PollWrNorm
	cases := []struct {
		name      string
		init      uint32
		semaphore bool
		steps     []step
	}{
		{"read returns and resets the counter", 3, false, []step{
			{op: "r", n: 8, want: 3, count: 0, events: w},
			{op: "r", n: 8, nonblock: true, err: EAGAIN, events: w},
			{op: "r", n: 8, err: ErrBlock, events: w},
		}},
		{"writes add up", 0, false, []step{
			{op: "w", n: 2, count: 2, events: rw},
			{op: "w", n: 5, count: 7, events: rw},
			{op: "r", n: 16, want: 7, count: 0, events: w},
		}},
		{"EFD_SEMAPHORE reads 1 at a time", 2, true, []step{
			{op: "r", n: 8, want: 1, count: 1, events: rw},
			{op: "r", n: 8, want: 1, count: 0, events: w},
			{op: "r", n: 8, nonblock: true, err: EAGAIN, events: w},
		}},
		{"a short buffer is EINVAL, even when empty", 0, false, []step{
			{op: "r", n: 7, err: EINVAL, events: w},
			{op: "w", n: 1, buf: []byte{1, 0, 0, 0, 0, 0, 0}, err: EINVAL, events: w},
		}},
		{"0xffffffffffffffff is EINVAL", 0, false, []step{
			{op: "w", n: 1<<64 - 1, err: EINVAL, events: w},
		}},
		{"the counter stops at 0xfffffffffffffffe", 1, false, []step{
			{op: "w", n: EventfdMax - 1, count: EventfdMax, events: PollIn | PollRdNorm},
			{op: "w", n: 1, nonblock: true, err: EAGAIN, count: EventfdMax, events: PollIn | PollRdNorm},
			{op: "w", n: 1, err: ErrBlock, count: EventfdMax, events: PollIn | PollRdNorm},
			{op: "w", n: 0, count: EventfdMax, events: PollIn | PollRdNorm},
			{op: "r", n: 8, want: EventfdMax, count: 0, events: w},
		}},
		{"only the first 8 bytes count", 0, false, []step{
			{op: "w", buf: append(u64(4), 9, 9), count: 4, events: rw},
		}},
	}
	for _, tc := range cases {
		e := NewEventfd(tc.init, tc.semaphore)
		for i, s := range tc.steps {
			var got uint64
			var err error
			if s.op == "r" {
				got, err = e.Read(s.n, s.nonblock)
			} else {
				b := s.buf
				if b == nil {
					b = u64(s.n)
				}
				err = e.Write(b, s.nonblock)
			}
			if !errors.Is(err, s.err) || err == nil && s.err != nil || got != s.want {
				t.Errorf("%s, step %d (%s %d): %d, %v; want %d, %v", tc.name, i, s.op, s.n, got, err, s.want, s.err)
			}
			if e.Count() != s.count || e.Events() != s.events {
				t.Errorf("%s, step %d: count %d events %#x; want %d %#x", tc.name, i, e.Count(), e.Events(), s.count, s.events)
			}
		}
	}
}

// TestEventfdWakeups checks that a successful write wakes readers and a
// successful read wakes writers, and that a refused call wakes nobody.
func TestEventfdWakeups(t *testing.T) {
	e := NewEventfd(0, false)
	e.Read(8, true)
	e.Write(u64(1<<64-1), false)
	if in, out := e.Gens(); in != 0 || out != 0 {
		t.Fatalf("refused calls woke: %d %d", in, out)
	}
	e.Write(u64(1), false)
	e.Write(u64(1), false)
	e.Read(8, false)
	if in, out := e.Gens(); in != 2 || out != 1 {
		t.Errorf("gens %d %d, want 2 1", in, out)
	}
}

// TestEventfdHash pins what an eventfd writes to the world hash, in
// order: the counter, EFD_SEMAPHORE, the readers' and the writers'
// wake-ups (the supervisor's hash wrote these before the move).
func TestEventfdHash(t *testing.T) {
	e := NewEventfd(5, true)
	e.Write(u64(2), false)
	e.Read(8, false)
	var got []uint64
	e.Hash(func(v uint64) { got = append(got, v) })
	if want := []uint64{6, 1, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("hash input %v, want %v", got, want)
	}
}
