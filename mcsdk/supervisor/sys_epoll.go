//go:build linux && amd64

package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// A virtual epoll (epoll(7)). The interest list lives in weft; readiness
// is evaluated when a thread waits (and again each time the world changes
// while it is parked), so a wait with nothing ready parks on the virtual
// clock. Every descriptor kind can be watched: virtual sockets, timerfds,
// in-node pipes, eventfds, unix sockets and signalfds from weft's state,
// other epoll instances by what they would report, and kernel descriptors
// (stdin, character devices) by a zero-timeout poll(2) on weft's duplicate
// (pidfd_getfd); a descriptor the kernel's epoll refuses (a regular file,
// a directory, /dev/null) is refused with EPERM, as the kernel does.
//
// The interest list, its EPOLL_CTL rules, the level, edge and one-shot
// rules and the ready order are vkernel.Epoll's (plain Go, tested without
// a node); this file decodes the calls, refuses the kernel descriptors
// the host's epoll refuses, tells the instance what each watched file
// reports (epollProbe), writes the events and parks an empty wait.
// EPOLLEXCLUSIVE is accepted (one waiter per node thread runs at a time
// anyway).

// vepoll is an epoll instance: its interest list and readiness rules are
// vkernel.Epoll's.
type vepoll = vkernel.Epoll

// EpollCreate implements epoll_create(2) and epoll_create1(2).
func sysEpollCreate(c *call) result {
	if c.req.Data.Nr == unix.SYS_EPOLL_CREATE && int32(c.arg(0)) <= 0 {
		return errno(unix.EINVAL)
	}
	flags := uint64(0)
	if c.req.Data.Nr == unix.SYS_EPOLL_CREATE1 {
		if c.arg(0)&^uint64(unix.EPOLL_CLOEXEC) != 0 {
			return errno(unix.EINVAL)
		}
		if c.arg(0)&unix.EPOLL_CLOEXEC != 0 {
			flags |= unix.SOCK_CLOEXEC
		}
	}
	return c.install(&vfd{epoll: vkernel.NewEpoll()}, flags)
}

// EpollCtl implements epoll_ctl(2): ADD, MOD, DEL.
func sysEpollCtl(c *call) result {
	epfd, op, fd := int(int32(c.arg(0))), int(c.arg(1)), int(int32(c.arg(2)))
	ev := c.n.fds[epfd]
	if ev == nil && !c.kernelFD(epfd) || fd < 0 {
		return errno(unix.EBADF)
	}
	v := c.n.fds[fd]
	if v == nil && !c.kernelFD(fd) {
		return errno(unix.EBADF)
	}
	if ev == nil || ev.epoll == nil || fd == epfd {
		return errno(unix.EINVAL)
	}
	ep := ev.epoll
	if v == nil {
		if e := c.epollable(fd); e != 0 {
			return errno(e)
		}
	}
	var event vkernel.EpollEvent
	if op == unix.EPOLL_CTL_ADD || op == unix.EPOLL_CTL_MOD {
		b, err := c.read(c.arg(3), vkernel.EpollEventSize)
		if err != nil {
			return errno(unix.EFAULT)
		}
		event = vkernel.DecodeEpollEvent(b)
	}
	if err := ep.Ctl(op, fd, watched(v), event); err != nil {
		return vkAnswer(err)
	}
	return ret(0)
}

// watched is v as an epoll entry's file: nil for a kernel descriptor.
func watched(v *vfd) vkernel.EpollFile {
	if v == nil {
		return nil
	}
	return v
}

// Description is the open file description behind v (description).
func (v *vfd) Description() any { return v.description() }

// EpollInstance is v's epoll instance, nil if v is another kind.
func (v *vfd) EpollInstance() *vkernel.Epoll { return v.epoll }

// epollable asks the kernel whether kernel descriptor fd can be watched:
// weft adds its duplicate to a scratch epoll instance.
func (c *call) epollable(fd int) unix.Errno {
	dup, err := unix.PidfdGetfd(c.n.pidfd, fd, 0)
	if err != nil {
		return unix.EBADF
	}
	defer unix.Close(dup)
	scratch, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return unix.ENOMEM
	}
	defer unix.Close(scratch)
	return errnoOf(unix.EpollCtl(scratch, unix.EPOLL_CTL_ADD, dup, &unix.EpollEvent{Events: unix.EPOLLIN}))
}

// EpollWait implements epoll_wait(2) and epoll_pwait(2). The signal mask
// of epoll_pwait is checked, not applied: weft delivers signals only from
// the node's own calls, never to a parked one.
func sysEpollWait(c *call) result {
	if c.req.Data.Nr == unix.SYS_EPOLL_PWAIT && c.arg(4) != 0 && c.arg(5) != 8 {
		return errno(unix.EINVAL)
	}
	timeout := int64(int32(c.arg(3)))
	if timeout >= 0 {
		timeout *= 1e6
	}
	return c.epollWait(timeout)
}

// EpollPwait2 implements epoll_pwait2(2): a timespec timeout.
func sysEpollPwait2(c *call) result {
	if c.arg(4) != 0 && c.arg(5) != 8 {
		return errno(unix.EINVAL)
	}
	timeout := int64(-1)
	if c.arg(3) != 0 {
		ns, err := c.readTimespec(c.arg(3))
		if err != nil {
			return errno(unix.EFAULT)
		}
		if ns < 0 {
			return errno(unix.EINVAL)
		}
		timeout = ns
	}
	return c.epollWait(timeout)
}

func (c *call) epollWait(timeout int64) result {
	v := c.n.fds[int(int32(c.arg(0)))]
	if v == nil && !c.kernelFD(int(int32(c.arg(0)))) {
		return errno(unix.EBADF)
	}
	if v == nil || v.epoll == nil {
		return errno(unix.EINVAL)
	}
	max := int(int32(c.arg(2)))
	if max <= 0 || max > (1<<31-1)/vkernel.EpollEventSize {
		return errno(unix.EINVAL)
	}
	evs := v.epoll.Collect(max, true, epollProbe{c})
	if len(evs) == 0 {
		if r, wait := c.waitUntil(c.pollTimeout(timeout), c.nextTimerOf(v)); wait {
			return r
		}
		return ret(0)
	}
	c.pollReady()
	if err := c.write(c.arg(1), vkernel.EncodeEpollEvents(evs)); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(len(evs)))
}

// epollProbe answers, during call c, what the files of an epoll
// instance's entries report now.
type epollProbe struct{ c *call }

// Events is the watched file's poll mask.
func (p epollProbe) Events(e *vkernel.EpollEntry) uint32 {
	if v := e.File(); v != nil {
		return p.c.vfdEvents(v.(*vfd))
	}
	return p.c.kernelEvents(e.Fd())
}

// Wake counts the wake-ups an edge-triggered entry can see: an in-node
// file's own counters; for the other kinds, which keep none, the state a
// wake-up changes (bytes pending and readiness, a timer's expirations,
// a nested instance's ready records' bytes).
func (p epollProbe) Wake(e *vkernel.EpollEntry) [2]uint64 {
	c := p.c
	if e.File() == nil {
		return [2]uint64{uint64(c.kernelEvents(e.Fd())), 0}
	}
	switch v := e.File().(*vfd); {
	case v.obj != nil:
		return e.WakeOf(v.obj.gens())
	case v.timer != nil:
		return [2]uint64{v.timer.Fires(), v.timer.stepGen(c.w.now)}
	case v.sock != nil:
		return [2]uint64{uint64(v.sock.Pending())<<32 | uint64(c.vfdEvents(v)), 0}
	case v.epoll != nil:
		return [2]uint64{uint64(len(v.epoll.Collect(1<<20, false, p)) * vkernel.EpollEventSize), 0}
	}
	return [2]uint64{}
}

// kernelFD reports whether the node has fd open (a descriptor weft does
// not serve).
func (c *call) kernelFD(fd int) bool {
	if fd < 0 {
		return false
	}
	dup, err := unix.PidfdGetfd(c.n.pidfd, fd, 0)
	if err != nil {
		return false
	}
	unix.Close(dup)
	return true
}
