//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"errors"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Timerfds (timerfd_create(2)): the count of expirations, the read's
// rules and TFD_TIMER_CANCEL_ON_SET are vkernel.Timerfd's; the armed
// timer is a vkernel.NodeTimer on the node's clock (clock.go), as setitimer's
// and the POSIX timers' are. This file decodes the calls, arms the
// timer, moves the bytes and parks a read until the next expiry.

// vtimer is a timerfd's state in virtual time.
type vtimer struct {
	vkernel.Timerfd
	vkernel.NodeTimer
}

// fire counts the expirations up to now and re-arms an interval timer
// (timerfd_create(2): a read returns the number of expirations since the
// last read).
func (t *vtimer) fire(now int64) uint64 { return t.Expire(t.Forward(now)) }

// TimerfdCreate implements timerfd_create(2) on the virtual clock.
func sysTimerfdCreate(c *call) result {
	clock := c.arg(0)
	if !vkernel.ValidClock(clock) {
		return errno(unix.EINVAL)
	}
	flags := uint64(0)
	if c.arg(1)&unix.TFD_NONBLOCK != 0 {
		flags |= unix.SOCK_NONBLOCK
	}
	if c.arg(1)&unix.TFD_CLOEXEC != 0 {
		flags |= unix.SOCK_CLOEXEC
	}
	return c.install(&vfd{obj: &vtimer{Timerfd: *vkernel.NewTimerfd(clock)}}, flags)
}

// readItimerspec returns the (interval, value) of a struct itimerspec,
// or EFAULT, or EINVAL for a timespec that is not valid (itimerspec64_valid).
func (c *call) readItimerspec(addr uint64) (interval, value int64, e unix.Errno) {
	b, err := c.read(addr, 32)
	if err != nil {
		return 0, 0, unix.EFAULT
	}
	interval, value, ok := vkernel.ParseItimerspec(b)
	if !ok {
		return 0, 0, unix.EINVAL
	}
	return interval, value, 0
}

// remaining is the timer's struct itimerspec as timerfd_gettime reports
// it, in the node's time.
func (t *vtimer) remaining(now int64) []byte {
	return append(timespecBytes(t.Interval), timespecBytes(t.Left(now))...)
}

// TimerfdSettime implements timerfd_settime(2) on a descriptor that is
// no timerfd: EINVAL (a timerfd's own operations, timerfdOps, serve it
// on one).
func sysTimerfdSettime(c *call) result { return errno(unix.EINVAL) }

// TimerfdGettime implements timerfd_gettime(2) on a descriptor that is
// no timerfd: EINVAL (timerfdOps serve it on one).
func sysTimerfdGettime(c *call) result { return errno(unix.EINVAL) }

// timerfdSettime is timerfd_settime(2), relative or TFD_TIMER_ABSTIME,
// one-shot or periodic.
func timerfdSettime(c *call, v *vfd) result {
	t := v.obj.(*vtimer)
	interval, value, e := c.readItimerspec(c.arg(2))
	if e != 0 {
		return errno(e)
	}
	if c.arg(3) != 0 {
		if err := c.write(c.arg(3), t.remaining(c.w.now)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	t.Settime(c.arg(1), vkernel.StepsBy(c.w.clockOf(c.n), c.w.now))
	if c.arg(1)&unix.TFD_TIMER_ABSTIME != 0 {
		c.armAt(&t.NodeTimer, t.Clock(), value, interval)
	} else {
		c.armAfter(&t.NodeTimer, value, interval)
	}
	if t.Deadline == c.w.now && value != 0 {
		t.fire(c.w.now)
	}
	return ret(0)
}

// timerfdGettime is timerfd_gettime(2).
func timerfdGettime(c *call, v *vfd) result {
	t := v.obj.(*vtimer)
	t.fire(c.w.now)
	return errno(errnoOf(c.write(c.arg(1), t.remaining(c.w.now))))
}

// readTimer serves read(2) of a timerfd: the expiration count as a u64
// (vkernel.Timerfd.Read), blocking (in virtual time) until the next
// expiry.
func readTimer(c *call, v *vfd, buf iovec) result {
	if buf.len < 8 {
		return errno(unix.EINVAL)
	}
	t := v.obj.(*vtimer)
	t.fire(c.w.now)
	n, err := t.Read(buf.len, vkernel.StepsBy(t.Clk, c.w.now), v.nonblocking())
	if err == nil {
		if err := c.write(buf.base, binary.LittleEndian.AppendUint64(nil, n)); err != nil {
			return errno(unix.EFAULT)
		}
		return ret(8)
	}
	if !errors.Is(err, vkernel.ErrBlock) {
		return vkAnswer(err)
	}
	wake := t.nextWake(c.w.now)
	if wake == 0 && c.timedOut {
		return errno(unix.EAGAIN)
	}
	if wake == 0 {
		return park() // disarmed: blocks until the node is killed
	}
	c.started, c.deadline = true, wake
	return park()
}

// nextWake is the world time at which a reader of t looks again: t's next
// expiry or, if a step would cancel it, the node's next step first (0:
// never).
func (t *vtimer) nextWake(now int64) int64 {
	var w int64
	if t.Pending() { // not one armed past the clock's range
		w = t.Deadline
	}
	if s := vkernel.NextStep(t.Clk, now); t.CancelOnSet() && s > 0 && (w == 0 || s < w) {
		w = s
	}
	return w
}

// stepGen changes when a step cancels t (edge-triggered epoll).
func (t *vtimer) stepGen(now int64) uint64 {
	if !t.CancelOnSet() {
		return 0
	}
	return uint64(vkernel.StepsBy(t.Clk, now))
}

// hashLocal writes t's node-time state (vkernel.NodeTimer.HashLocal) and, when a
// step would cancel it, the steps it has seen.
func (t *vtimer) hashLocal(put func(uint64)) {
	t.HashLocal(put)
	t.HashCancel(put)
}

var timerfdOps = map[int]fileOp{
	unix.SYS_READ: func(c *call, v *vfd) result { return readTimer(c, v, iovec{c.arg(1), c.arg(2)}) },
	unix.SYS_READV: func(c *call, v *vfd) result {
		iov, err := c.readIovecs(c.arg(1), c.arg(2))
		if err != nil || len(iov) != 1 {
			return errno(unix.EINVAL)
		}
		return readTimer(c, v, iov[0])
	},
	unix.SYS_TIMERFD_SETTIME: timerfdSettime,
	unix.SYS_TIMERFD_GETTIME: timerfdGettime,
}

func (t *vtimer) ops() map[int]fileOp { return timerfdOps }

func (*vtimer) Kind() vkernel.FileKind { return anonFileKind }

// Events counts the expirations up to now; then vkernel.Timerfd.Events.
func (t *vtimer) Events(w vkernel.FileWorld) uint32 {
	now := w.Now()
	t.fire(now)
	return t.Timerfd.Events(vkernel.StepsBy(t.Clk, now))
}

// Wake: its expirations and the steps that cancel it.
func (t *vtimer) Wake(w vkernel.FileWorld, _ *vkernel.EpollEntry) [2]uint64 {
	return [2]uint64{t.Fires(), t.stepGen(w.Now())}
}

// NextTimer is its next expiry (or cancelling step), 0 none.
func (t *vtimer) NextTimer(w vkernel.FileWorld) int64 { return t.nextWake(w.Now()) }

func (t *vtimer) Hash(h *vkernel.FileHasher) {
	put := h.Put
	put(fileTagTimer)
	put(t.Clock())
	put(uint64(t.Deadline))
	put(uint64(t.Interval))
	t.HashCounts(put)
	t.hashLocal(put)
}

func (t *vtimer) Release(vkernel.FileWorld) {}
