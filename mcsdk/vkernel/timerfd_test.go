package vkernel

import (
	"errors"
	"slices"
	"testing"
)

// TestTimerfd runs sequences of expirations, timerfd_settime calls,
// realtime clock steps and reads on one timerfd and checks each read's
// answer and the poll mask after each step (timerfd_create(2)).
func TestTimerfd(t *testing.T) {
	type step struct {
		op       string // "expire" k, "set" flags, "step" (the realtime clock is set), "read" buffer length
		n        uint64
		nonblock bool
		want     uint64
		err      error
		events   uint32
	}
	const in = PollIn | PollRdNorm
	cases := []struct {
		name  string
		clock uint64
		steps []step
	}{
		{"a read takes the expirations since the last one", ClockMonotonic, []step{
			{op: "read", n: 8, err: ErrBlock},
			{op: "read", n: 8, nonblock: true, err: EAGAIN},
			{op: "expire", n: 1, events: in},
			{op: "expire", n: 2, events: in},
			{op: "read", n: 8, want: 3},
			{op: "read", n: 8, nonblock: true, err: EAGAIN},
		}},
		{"a buffer under 8 bytes is EINVAL", ClockMonotonic, []step{
			{op: "expire", n: 1, events: in},
			{op: "read", n: 7, err: EINVAL, events: in},
			{op: "read", n: 16, want: 1},
		}},
		{"settime drops the expirations not read", ClockMonotonic, []step{
			{op: "expire", n: 4, events: in},
			{op: "set", n: 0},
			{op: "read", n: 8, nonblock: true, err: EAGAIN},
		}},
		{"CANCEL_ON_SET with ABSTIME on CLOCK_REALTIME: a step cancels once", ClockRealtime, []step{
			{op: "set", n: TimerAbstime | TimerCancelOnSet},
			{op: "step", events: in},
			{op: "read", n: 8, err: ECANCELED},
			{op: "read", n: 8, nonblock: true, err: EAGAIN},
			{op: "expire", n: 1, events: in},
			{op: "step", events: in},
			{op: "read", n: 8, err: ECANCELED}, // the step wins over the expiration, which is dropped
			{op: "read", n: 8, nonblock: true, err: EAGAIN},
		}},
		{"CANCEL_ON_SET on CLOCK_REALTIME_ALARM", ClockRealtimeAlarm, []step{
			{op: "set", n: TimerAbstime | TimerCancelOnSet},
			{op: "step", events: in},
			{op: "read", n: 8, nonblock: true, err: ECANCELED},
		}},
		{"CANCEL_ON_SET without ABSTIME does nothing", ClockRealtime, []step{
			{op: "set", n: TimerCancelOnSet},
			{op: "step"},
			{op: "read", n: 8, nonblock: true, err: EAGAIN},
		}},
		{"CANCEL_ON_SET on CLOCK_MONOTONIC does nothing", ClockMonotonic, []step{
			{op: "set", n: TimerAbstime | TimerCancelOnSet},
			{op: "step"},
			{op: "read", n: 8, nonblock: true, err: EAGAIN},
		}},
		{"steps before settime do not cancel", ClockRealtime, []step{
			{op: "step"},
			{op: "set", n: TimerAbstime | TimerCancelOnSet},
			{op: "read", n: 8, nonblock: true, err: EAGAIN},
			{op: "set", n: TimerAbstime},
			{op: "step"},
			{op: "read", n: 8, nonblock: true, err: EAGAIN},
		}},
	}
	for _, tc := range cases {
		tf := NewTimerfd(tc.clock)
		steps := 0
		for i, s := range tc.steps {
			var got uint64
			var err error
			switch s.op {
			case "expire":
				tf.Expire(int64(s.n))
			case "set":
				tf.Settime(s.n, steps)
			case "step":
				steps++
			case "read":
				got, err = tf.Read(s.n, steps, s.nonblock)
			}
			if got != s.want || !errors.Is(err, s.err) || err != nil && s.err == nil {
				t.Errorf("%s, step %d (%s %d): %d, %v; want %d, %v", tc.name, i, s.op, s.n, got, err, s.want, s.err)
			}
			if ev := tf.Events(steps); ev != s.events {
				t.Errorf("%s, step %d: events %#x, want %#x", tc.name, i, ev, s.events)
			}
		}
	}
}

// TestTimerfdFires checks that every expiration counts in Fires (what
// edge-triggered epoll sees), reads or not, and that a count of zero or
// less adds none.
func TestTimerfdFires(t *testing.T) {
	tf := NewTimerfd(ClockMonotonic)
	tf.Expire(2)
	tf.Read(8, 0, false)
	tf.Expire(0)
	tf.Expire(-1)
	if got := tf.Expire(3); got != 3 || tf.Fires() != 5 {
		t.Errorf("not read %d, fires %d; want 3, 5", got, tf.Fires())
	}
}

// TestTimerfdHash pins what a timerfd writes to the world hash beside
// its armed timer's words: the expirations not read and every one
// counted; then, only with CANCEL_ON_SET, 2 and the steps reported.
func TestTimerfdHash(t *testing.T) {
	tf := NewTimerfd(ClockRealtime)
	tf.Expire(2)
	var got []uint64
	put := func(v uint64) { got = append(got, v) }
	tf.HashCounts(put)
	tf.HashCancel(put)
	tf.Settime(TimerAbstime|TimerCancelOnSet, 4)
	tf.HashCancel(put)
	if want := []uint64{2, 2, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("hash input %v, want %v", got, want)
	}
}
