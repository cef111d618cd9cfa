//go:build linux && amd64

package supervisor

import "time"

// Time while a node spins (issue 37). Virtual time moves only when the
// scheduler fires a timer or delivers a message, that is, when every task
// is parked. An event loop with a zero-delay timer or an idle watcher
// (libev's, as tarantool runs it; libuv's) never parks: it polls with a
// zero timeout, finds nothing ready, reads the clock, finds its own
// user-space timers not yet due, and polls again, while the clock it
// waits on never moves. The rule that lets it progress:
//
// After SpinPolls consecutive non-blocking polls by one thread with
// nothing ready (poll, ppoll, select, pselect6, epoll_wait, epoll_pwait,
// epoll_pwait2 with a zero timeout), the last one waits as if its
// timeout were SpinQuantum: it parks, and returns 0 when its deadline
// fires, or its events as soon as something becomes ready. Virtual time
// thus advances to the next event of the world, at most SpinQuantum away.
// A poll that reports something, or any call of the thread that parks,
// starts the count again. The count is per thread and part of the state
// hash, so the rule is a function of the node's calls alone: the same on
// any machine, in every mode.
//
// A loop that only reads the clock never reaches weft (weft's vDSO
// answers it, vdso_linux.go), and one whose polls always report an event
// is busy, not waiting: both remain the watchdog's.
const (
	SpinPolls   = 64
	SpinQuantum = int64(time.Millisecond)
)

// pollTimeout is the timeout, in nanoseconds, that a poll of the calling
// thread with nothing ready waits for: its own, or SpinQuantum for the
// SpinPolls-th consecutive non-blocking poll with nothing ready. A poll
// with a zero timeout parks only by this rule, so one that has started
// waiting (c.started) is that poll, retried.
func (c *call) pollTimeout(timeout int64) int64 {
	switch {
	case timeout != 0:
		return timeout
	case c.started:
		return SpinQuantum
	}
	t := c.t
	if t.idlePolls++; t.idlePolls < SpinPolls {
		return 0
	}
	t.idlePolls = 0
	return SpinQuantum
}

// pollReady notes that a poll of the calling thread reported something:
// it was not spinning.
func (c *call) pollReady() { c.t.idlePolls = 0 }
