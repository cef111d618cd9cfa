package vkernel

import (
	"errors"
	"slices"
	"testing"
)

// sig is signal n's bit in a signal set.
func sig(n int) uint64 { return 1 << (n - 1) }

// TestSignalfd checks a signalfd's mask (SIGKILL and SIGSTOP never in
// it), its poll mask and whether a read may run, for pending sets of the
// caller, against signalfd(2).
func TestSignalfd(t *testing.T) {
	const in = PollIn | PollRdNorm
	cases := []struct {
		name     string
		mask     uint64
		update   uint64 // a later signalfd(2) on the descriptor, if not 0
		wantMask uint64
		pending  uint64
		bufLen   uint64
		nonblock bool
		events   uint32
		read     error // nil: the read runs (and the kernel dequeues or answers)
	}{
		{name: "a pending signal of the mask: readable, the read runs",
			mask: sig(10) | sig(17), wantMask: sig(10) | sig(17), pending: sig(17), bufLen: 128, events: in},
		{name: "pending signals outside the mask: a blocking read waits",
			mask: sig(10), wantMask: sig(10), pending: sig(2) | sig(12), bufLen: 128, read: ErrBlock},
		{name: "nothing pending, non-blocking: the read runs (EAGAIN from the kernel)",
			mask: sig(10), wantMask: sig(10), bufLen: 128, nonblock: true},
		{name: "a buffer under one siginfo: the read runs (EINVAL from the kernel)",
			mask: sig(10), wantMask: sig(10), bufLen: 127},
		{name: "SIGKILL and SIGSTOP are dropped from the mask",
			mask: sig(9) | sig(19) | sig(15), wantMask: sig(15), pending: sig(9) | sig(19), bufLen: 128, read: ErrBlock},
		{name: "an update replaces the mask, SIGKILL and SIGSTOP dropped",
			mask: sig(10), update: sig(12) | sig(9), wantMask: sig(12), pending: sig(10), bufLen: 256, read: ErrBlock},
		{name: "real-time signals are in the set too",
			mask: sig(34) | sig(64), wantMask: sig(34) | sig(64), pending: sig(64), bufLen: 128, events: in},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSignalfd(c.mask)
			if c.update != 0 {
				s.SetMask(c.update)
			}
			if s.Mask() != c.wantMask {
				t.Errorf("mask %#x, want %#x", s.Mask(), c.wantMask)
			}
			if ev := s.Events(c.pending); ev != c.events {
				t.Errorf("events %#x, want %#x", ev, c.events)
			}
			if err := s.Read(c.bufLen, c.pending, c.nonblock); !errors.Is(err, c.read) {
				t.Errorf("read: %v, want %v", err, c.read)
			}
		})
	}
}

// TestSignalfdHash pins what a signalfd writes to the world hash: its
// mask (the supervisor's hash wrote it before the move).
func TestSignalfdHash(t *testing.T) {
	var got []uint64
	NewSignalfd(sig(10) | sig(9)).Hash(func(v uint64) { got = append(got, v) })
	if want := []uint64{sig(10)}; !slices.Equal(got, want) {
		t.Errorf("hash input %v, want %v", got, want)
	}
}
