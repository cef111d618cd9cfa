//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Every clock reads the world's one virtual clock, which only the
// scheduler moves (a timer action, or a message's arrival time): the
// rules are vkernel's (vkernel/clock.go). Realtime clocks start at Epoch;
// monotonic, boot and CPU clocks count from the start of the run, offset
// so they are never zero.
const monotonicOffset = vkernel.MonotonicOffset

func timespecBytes(ns int64) []byte { return vkernel.TimespecBytes(ns) }

// timespecNs converts a struct timespec, which must be normalised.
func timespecNs(b []byte) (int64, bool) { return vkernel.Timespec(b) }

// ClockGettime implements clock_gettime(2) for every clock id.
func sysClockGettime(c *call) result {
	now, ok := c.clockNow(c.arg(0))
	if !ok {
		return errno(unix.EINVAL)
	}
	return errno(errnoOf(c.write(c.arg(1), timespecBytes(now))))
}

// ClockGetres implements clock_getres(2): virtual clocks tick in
// nanoseconds.
func sysClockGetres(c *call) result {
	if !vkernel.ValidClock(c.arg(0)) {
		return errno(unix.EINVAL)
	}
	if c.arg(1) == 0 {
		return ret(0)
	}
	return errno(errnoOf(c.write(c.arg(1), timespecBytes(1))))
}

// Gettimeofday implements gettimeofday(2); the timezone is UTC.
func sysGettimeofday(c *call) result {
	if c.arg(0) != 0 {
		now := c.realNow()
		b := binary.LittleEndian.AppendUint64(nil, uint64(now/1e9))
		b = binary.LittleEndian.AppendUint64(b, uint64(now%1e9/1e3))
		if err := c.write(c.arg(0), b); err != nil {
			return errno(unix.EFAULT)
		}
	}
	if c.arg(1) != 0 {
		if err := c.write(c.arg(1), make([]byte, 8)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	return ret(0)
}

// Time implements time(2).
func sysTime(c *call) result {
	sec := c.realNow() / 1e9
	if c.arg(0) != 0 {
		if err := c.write(c.arg(0), binary.LittleEndian.AppendUint64(nil, uint64(sec))); err != nil {
			return errno(unix.EFAULT)
		}
	}
	return ret(sec)
}

// Nanosleep implements nanosleep(2): the node parks until the scheduler
// fires its timer.
func sysNanosleep(c *call) result {
	ns, e := c.readTimespec(c.arg(0))
	if e != 0 {
		return errno(e)
	}
	return sleep(c, c.sleepAfter(ns))
}

// ClockNanosleep implements clock_nanosleep(2), relative or TIMER_ABSTIME.
func sysClockNanosleep(c *call) result {
	if _, ok := c.clockNow(c.arg(0)); !ok {
		return errno(unix.EINVAL) // glibc's clock_nanosleep returns it
	}
	ns, e := c.readTimespec(c.arg(2))
	if e != 0 {
		return errno(e)
	}
	if c.arg(1)&unix.TIMER_ABSTIME != 0 {
		return sleep(c, c.until(c.arg(0), ns))
	}
	return sleep(c, c.sleepAfter(ns))
}

// sleepAfter is the deadline of a relative sleep of ns: After's, and for
// one past the clock's range (none) the monotonic reading it would end
// at, which an interrupted sleep's rem counts to (Linux's hrtimer expiry,
// ktime_add_safe).
func (c *call) sleepAfter(ns int64) int64 {
	d := c.after(ns)
	if d < 0 && !c.started {
		mono, _ := c.clockNow(unix.CLOCK_MONOTONIC)
		c.sleepEnd = vkernel.SatAdd(mono, ns)
	}
	return d
}

// sleep parks the call until deadline (-1: without end, a timeout past
// the clock's range, which only a signal ends); only an interrupted sleep
// writes its rem (the signal path, which reads the call's own arguments).
func sleep(c *call, deadline int64) result {
	if !c.started {
		c.started = true
		c.deadline = deadline
	}
	if !c.timedOut && (c.deadline < 0 || c.deadline > c.w.now) {
		c.waitOn(timeKey)
		return park()
	}
	return ret(0) // a completed sleep leaves rem as it was (nanosleep(2))
}
