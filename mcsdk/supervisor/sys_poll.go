//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Poll implements poll(2) over virtual sockets; a positive timeout is a
// virtual-time deadline.
func sysPoll(c *call) result {
	timeout := int64(int32(c.arg(2)))
	if timeout >= 0 {
		timeout *= 1e6
	}
	return pollCommon(c, c.arg(0), c.arg(1), timeout)
}

// Ppoll implements ppoll(2). It waits under its signal mask: the signals
// that mask lets through interrupt it (effectiveMask, answerUnderMask,
// sys_sigdeliver.go).
func sysPpoll(c *call) result {
	timeout := int64(-1)
	if c.arg(2) != 0 {
		ns, e := c.readWaitTimeout(c.arg(2), false)
		if e != 0 {
			return errno(e)
		}
		timeout = ns
	}
	if e := c.maskArgErr(); e != 0 {
		return errno(e)
	}
	return pollCommon(c, c.arg(0), c.arg(1), timeout)
}

// pollCommon evaluates readiness for nfds pollfds at addr; timeout is in
// nanoseconds, negative for none. Every descriptor kind can be polled
// (sys_epoll.go lists them); a negative fd is skipped and a closed one
// reports POLLNVAL, as poll(2) does.
func pollCommon(c *call, addr, nfds uint64, timeout int64) result {
	if nfds > 4096 {
		return errno(unix.EINVAL)
	}
	b, err := c.read(addr, int(nfds)*8)
	if err != nil {
		return errno(unix.EFAULT)
	}
	ready := 0
	var next int64 // the earliest armed timerfd among the fds
	for i := 0; i < int(nfds); i++ {
		p := b[8*i:]
		fd := int32(binary.LittleEndian.Uint32(p))
		events := binary.LittleEndian.Uint16(p[4:])
		var rev uint16
		if fd >= 0 {
			ev, ok := c.fdEvents(int(fd))
			rev = uint16(ev) & (events | unix.POLLHUP | unix.POLLERR)
			if !ok {
				rev = unix.POLLNVAL
			}
			if v := c.n.fds.At(int(fd)); v != nil {
				next = earlier(next, c.nextTimerOf(v))
			}
		}
		binary.LittleEndian.PutUint16(p[6:], rev)
		if rev != 0 {
			ready++
		}
	}
	if ready == 0 {
		if r, wait := c.waitUntil(c.pollTimeout(timeout), next); wait {
			var fds []int
			for i := 0; i < int(nfds); i++ {
				if fd := int32(binary.LittleEndian.Uint32(b[8*i:])); fd >= 0 {
					fds = append(fds, int(fd))
				}
			}
			c.watchFDs(fds...)
			return r
		}
		c.writeTimeLeft()
		if r, ok := c.signalledUnderMask(); ok {
			return r
		}
	} else {
		c.pollReady()
		c.writeTimeLeft()
	}
	if err := c.write(addr, b); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(ready))
}

// earlier is the earlier of two world times, 0 meaning none.
func earlier(a, b int64) int64 {
	if a == 0 || b != 0 && b < a {
		return b
	}
	return a
}

// nextTimerOf is the next expiry of the timerfd v, or of the timerfds an
// epoll instance watches (0 none): a wait on them must wake then.
func (c *call) nextTimerOf(v *vfd) int64 {
	if t, ok := v.obj.(vkernel.TimedFile); ok {
		return t.NextTimer(c.files())
	}
	return 0
}

// fdEvents is the poll(2) mask of the node's fd; ok is false if the node
// has no such descriptor.
func (c *call) fdEvents(fd int) (uint32, bool) {
	if v := c.n.fds.At(fd); v != nil {
		return c.vfdEvents(v), true
	}
	dup, err := unix.PidfdGetfd(c.n.pidfd, fd, 0)
	if err != nil {
		return 0, false
	}
	defer unix.Close(dup)
	// A signalfd polled from weft's thread would report weft's own
	// pending signals: one weft has not adopted yet is adopted now. Its
	// fdinfo tells, but reading it on every look of a poll loop is most
	// of the look's cost: only a descriptor that may be a signalfd is
	// asked.
	if maySignalfd(dup) {
		if v, ok := c.n.adoptSignalfd(fd); ok {
			return c.vfdEvents(v), true
		}
	}
	return pollDup(dup), true
}

// maySignalfd reports whether descriptor fd (weft's) may be a signalfd:
// an anonymous inode, which has no file type here (S_IFREG on kernels
// that give anonymous inodes one). A socket, pipe, device, directory or
// link is not one; a descriptor fstat fails on may be.
func maySignalfd(fd int) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return true
	}
	t := st.Mode & unix.S_IFMT
	return t == 0 || t == unix.S_IFREG
}

// kernelEvents is the poll(2) mask of a kernel descriptor of the node
// (POLLNVAL if it has none).
func (c *call) kernelEvents(fd int) uint32 {
	ev, ok := c.fdEvents(fd)
	if !ok {
		return unix.POLLNVAL
	}
	return ev
}

// pollDup polls weft's duplicate of a kernel descriptor without waiting.
func pollDup(fd int) uint32 {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN | unix.POLLOUT | unix.POLLPRI | unix.POLLRDHUP}}
	if _, err := unix.Poll(p, 0); err != nil {
		return 0
	}
	return uint32(uint16(p[0].Revents))
}

// vfdEvents is the poll(2) mask of a descriptor weft serves.
func (c *call) vfdEvents(v *vfd) uint32 { return v.obj.Events(c.files()) }

// waitUntil is wait, woken no later than timer (a world time, 0 none):
// the next expiry of a polled timerfd. That wake-up only has the call
// look again: with nothing ready, the call waits on to its own timeout
// (or without end), as Linux's poll does when a timerfd's wake-up finds
// nothing it watches for (no events, POLLOUT, a timerfd re-armed or read
// meanwhile). Every look takes the timerfds' expiries afresh, one passed
// excepted, so that a timerfd armed during the wait wakes it too.
func (c *call) waitUntil(timeout, timer int64) (result, bool) {
	if timeout == 0 {
		return result{}, false
	}
	if !c.started {
		c.started = true
		c.deadline, c.timeoutAt = -1, 0
		if timeout > 0 {
			if c.deadline = c.after(timeout); c.deadline < 0 {
				c.waitStart, _ = c.clockNow(unix.CLOCK_MONOTONIC)
			}
		}
	}
	own := c.deadline // the call's own deadline, -1 none
	switch {
	case timeout < 0:
		own = -1
	case c.timeoutAt != 0:
		own = c.timeoutAt
	}
	if c.timedOut {
		if own >= 0 && own <= c.w.now {
			return result{}, false
		}
		c.timedOut = false // a timerfd's expiry passed, not the call's timeout
	}
	c.deadline, c.timeoutAt = own, 0
	if timer > c.w.now && (own < 0 || timer < own) {
		c.deadline = timer
		if timeout > 0 {
			c.timeoutAt = own // what the call has left is counted to it (writeTimeLeft); -1: none
		}
	}
	return park(), true
}

// wait decides what a call with nothing ready does: wait=false means the
// caller should answer now (timeout 0, or the deadline passed); otherwise
// r is park.
func (c *call) wait(timeout int64) (r result, wait bool) {
	if timeout == 0 || c.timedOut {
		return result{}, false
	}
	if !c.started {
		c.started = true
		c.deadline = -1
		if timeout > 0 {
			c.deadline = c.after(timeout)
		}
	}
	return park(), true
}

// Select implements select(2) over virtual sockets.
func sysSelect(c *call) result {
	timeout := int64(-1)
	if c.arg(4) != 0 {
		ns, e := c.readWaitTimeout(c.arg(4), true)
		if e != 0 {
			return errno(e)
		}
		timeout = ns
	}
	return selectCommon(c, timeout)
}

// Pselect6 implements pselect6(2); it waits under its signal mask, as
// ppoll does.
func sysPselect6(c *call) result {
	timeout := int64(-1)
	if c.arg(4) != 0 {
		ns, e := c.readWaitTimeout(c.arg(4), false)
		if e != 0 {
			return errno(e)
		}
		timeout = ns
	}
	if e := c.maskArgErr(); e != 0 {
		return errno(e)
	}
	return selectCommon(c, timeout)
}

func selectCommon(c *call, timeout int64) result {
	nfds := int(int32(c.arg(0)))
	if nfds < 0 || nfds > 1024 {
		return errno(unix.EINVAL)
	}
	size := (nfds + 63) / 64 * 8
	sets := [3][]byte{}
	for i := range sets {
		if a := c.arg(1 + i); a != 0 {
			b, err := c.read(a, size)
			if err != nil {
				return errno(unix.EFAULT)
			}
			sets[i] = b
		}
	}
	masks := [3]uint16{unix.POLLIN | unix.POLLHUP | unix.POLLERR, unix.POLLOUT | unix.POLLERR, unix.POLLPRI}
	out := [3][]byte{make([]byte, size), make([]byte, size), make([]byte, size)}
	ready := 0
	var next int64
	for fd := 0; fd < nfds; fd++ {
		if v := c.n.fds.At(fd); v != nil {
			next = earlier(next, c.nextTimerOf(v))
		}
		for i, set := range sets {
			if set == nil || set[fd/8]&(1<<(fd%8)) == 0 {
				continue
			}
			ev, ok := c.fdEvents(fd)
			if !ok {
				return errno(unix.EBADF)
			}
			if uint16(ev)&masks[i] != 0 {
				out[i][fd/8] |= 1 << (fd % 8)
				ready++
			}
		}
	}
	if ready == 0 {
		if r, wait := c.waitUntil(c.pollTimeout(timeout), next); wait {
			var fds []int
			for fd := 0; fd < nfds; fd++ {
				for _, set := range sets {
					if set != nil && set[fd/8]&(1<<(fd%8)) != 0 {
						fds = append(fds, fd)
						break
					}
				}
			}
			c.watchFDs(fds...)
			return r
		}
		c.writeTimeLeft()
		if r, ok := c.signalledUnderMask(); ok {
			return r
		}
	} else {
		c.pollReady()
		c.writeTimeLeft()
	}
	for i, set := range sets {
		if set != nil {
			if err := c.write(c.arg(1+i), out[i]); err != nil {
				return errno(unix.EFAULT)
			}
		}
	}
	return ret(int64(ready))
}

// writeTimeLeft writes back what a ppoll, pselect6 or select call's
// timeout has left when the call returns, ready, timed out or
// interrupted, as Linux does (poll_select_finish; select(2), NOTES): the
// timeout less the node's own time the call waited, 0 once it passed. A
// null or zero timeout is left alone, as Linux leaves it, and so is one
// that cannot be written: the call's answer stands. Other calls (poll,
// the epoll calls) write nothing.
func (c *call) writeTimeLeft() {
	addr, timeval := c.arg(4), false
	switch int(c.req.Data.Nr) {
	case unix.SYS_PPOLL:
		addr = c.arg(2)
	case unix.SYS_PSELECT6:
	case unix.SYS_SELECT:
		timeval = true
	default:
		return
	}
	if addr == 0 {
		return
	}
	b, err := c.read(addr, 16)
	if err != nil {
		return
	}
	sec, frac, ok := waitTimeout(b, timeval)
	if !ok || sec == 0 && frac == 0 {
		return // a zero timeout is left alone, and one the node made invalid meanwhile
	}
	mono, _ := c.clockNow(unix.CLOCK_MONOTONIC)
	start := mono // answered before any time passed
	if c.started {
		at := c.deadline
		if c.timeoutAt != 0 {
			at = c.timeoutAt
		}
		if at >= 0 {
			c.writeLeft(addr, timeval, c.left(at))
			return
		}
		start = c.waitStart // a timeout past the clock's range: counted to Linux's end
	}
	ls, ln := vkernel.WaitLeft(sec, frac, start, mono)
	out := binary.LittleEndian.AppendUint64(nil, uint64(ls))
	if timeval {
		ln /= 1e3
	}
	c.write(addr, binary.LittleEndian.AppendUint64(out, uint64(ln))) // a failed write changes nothing of the answer
}

// writeLeft writes left ns at addr as a struct timespec, or a struct
// timeval (timeval); a failed write changes nothing of the call's answer
// (Linux ignores it).
func (c *call) writeLeft(addr uint64, timeval bool, left int64) {
	out := timespecBytes(left)
	if timeval {
		out = vkernel.TimevalBytes(left)
	}
	c.write(addr, out)
}

// readWaitTimeout reads the timeout of ppoll or pselect6 (a struct
// timespec) or of select (timeval, a struct timeval) as nanoseconds, or
// the errno the kernel answers before looking at any descriptor: EFAULT
// for an address it cannot read, EINVAL for a timeout that is not valid
// (poll_select_set_timeout: a negative second or a nanosecond outside
// 0..999999999). select first carries tv_usec's whole seconds (as C
// divides, toward zero) into tv_sec, so {-1, 2000000} is one second and
// {1, -1} is not valid.
func (c *call) readWaitTimeout(addr uint64, timeval bool) (int64, unix.Errno) {
	b, err := c.read(addr, 16)
	if err != nil {
		return 0, unix.EFAULT
	}
	sec, frac, ok := waitTimeout(b, timeval)
	if !ok {
		return 0, unix.EINVAL
	}
	return vkernel.Ktime(sec, frac), 0
}

// waitTimeout decodes the timeout of ppoll or pselect6 (a struct
// timespec) or of select (timeval, a struct timeval, whose tv_usec's
// whole seconds are carried into tv_sec first, as C divides, toward
// zero) as {sec, nsec}; ok is false for one that is not valid.
func waitTimeout(b []byte, timeval bool) (sec, nsec int64, ok bool) {
	sec, nsec = int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
	if timeval {
		sec, nsec = sec+nsec/1e6, nsec%1e6*1e3
	}
	return sec, nsec, sec >= 0 && nsec >= 0 && nsec < 1e9
}

// readTimespec reads a struct timespec as nanoseconds, saturated at
// KTIME_MAX (vkernel.Timespec), or the errno Linux answers for it:
// EFAULT for an address it cannot read, EINVAL for one that is not valid
// (get_timespec64, timespec64_valid).
func (c *call) readTimespec(addr uint64) (int64, unix.Errno) {
	b, err := c.read(addr, 16)
	if err != nil {
		return 0, unix.EFAULT
	}
	ns, ok := vkernel.Timespec(b)
	if !ok {
		return 0, unix.EINVAL
	}
	return ns, 0
}

// POLLRDNORM and POLLWRNORM (asm-generic/poll.h).
const (
	pollRdnorm = 0x040
	pollWrnorm = 0x100
)
