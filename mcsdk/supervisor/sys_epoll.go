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
type vepoll struct{ *vkernel.Epoll }

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
	return c.install(&vfd{obj: &vepoll{vkernel.NewEpoll()}}, flags)
}

// EpollCtl implements epoll_ctl(2) on a descriptor that is no epoll
// instance (an instance's own operations, epollOps, serve it on one):
// EBADF for a bad descriptor, EINVAL for any other.
func sysEpollCtl(c *call) result {
	epfd, fd := int(int32(c.arg(0))), int(int32(c.arg(2)))
	if c.n.fds.At(epfd) == nil && !c.kernelFD(epfd) || fd < 0 {
		return errno(unix.EBADF)
	}
	if c.n.fds.At(fd) == nil && !c.kernelFD(fd) {
		return errno(unix.EBADF)
	}
	return errno(unix.EINVAL)
}

// epollCtl is epoll_ctl(2) on the instance ev: ADD, MOD, DEL.
func epollCtl(c *call, ev *vfd) result {
	epfd, op, fd := int(int32(c.arg(0))), int(c.arg(1)), int(int32(c.arg(2)))
	if fd < 0 {
		return errno(unix.EBADF)
	}
	v := c.n.fds.At(fd)
	if v == nil && !c.kernelFD(fd) {
		return errno(unix.EBADF)
	}
	if fd == epfd {
		return errno(unix.EINVAL)
	}
	ep := ev.obj.(*vepoll)
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
func (v *vfd) EpollInstance() *vkernel.Epoll {
	if ep, ok := v.obj.(*vepoll); ok {
		return ep.Epoll
	}
	return nil
}

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

// EpollWait implements epoll_wait(2) and epoll_pwait(2) on a descriptor
// that is no epoll instance (epollOps serve them on one): the arguments
// are checked, then EBADF for a bad descriptor, EINVAL for any other.
func sysEpollWait(c *call) result { return epollWaitOn(c, nil, epollTimeout) }

// EpollPwait2 implements epoll_pwait2(2) on a descriptor that is no
// epoll instance, as sysEpollWait.
func sysEpollPwait2(c *call) result { return epollWaitOn(c, nil, epollTimeout2) }

// epollTimeout decodes epoll_wait's and epoll_pwait's timeout (ns, -1
// none), after epoll_pwait's signal mask is checked (maskArgErr); the
// wait is interrupted by the signals that mask lets through
// (effectiveMask, sys_sigdeliver.go).
func epollTimeout(c *call) (int64, unix.Errno) {
	if e := c.maskArgErr(); e != 0 {
		return 0, e
	}
	timeout := int64(int32(c.arg(3)))
	if timeout >= 0 {
		timeout *= 1e6
	}
	return timeout, 0
}

// epollTimeout2 decodes epoll_pwait2's timespec timeout, checked as
// ppoll's (EFAULT, EINVAL) before the signal mask, as Linux does.
func epollTimeout2(c *call) (int64, unix.Errno) {
	timeout := int64(-1)
	if c.arg(3) != 0 {
		ns, e := c.readWaitTimeout(c.arg(3), false)
		if e != 0 {
			return 0, e
		}
		timeout = ns
	}
	if e := c.maskArgErr(); e != 0 {
		return 0, e
	}
	return timeout, 0
}

// epollWaitOn serves a wait on v (nil: the descriptor is no epoll
// instance), its timeout decoded by timeoutOf.
func epollWaitOn(c *call, v *vfd, timeoutOf func(*call) (int64, unix.Errno)) result {
	timeout, e := timeoutOf(c)
	if e != 0 {
		return errno(e)
	}
	if v == nil {
		if c.n.fds.At(int(int32(c.arg(0)))) == nil && !c.kernelFD(int(int32(c.arg(0)))) {
			return errno(unix.EBADF)
		}
		return errno(unix.EINVAL)
	}
	ep := v.obj.(*vepoll)
	max := int(int32(c.arg(2)))
	if max <= 0 || max > (1<<31-1)/vkernel.EpollEventSize {
		return errno(unix.EINVAL)
	}
	evs := ep.Collect(max, true, epollProbe{c})
	if len(evs) == 0 {
		if r, wait := c.waitUntil(c.pollTimeout(timeout), ep.NextTimer(c.files())); wait {
			c.watchEpoll(int(int32(c.arg(0))), v, ep)
			return r
		}
		return ret(0) // a pending signal its mask lets through stays pending: Linux's ep_poll gives up on the timeout first
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
	return e.File().(*vfd).obj.Wake(c.files(), e)
}

var epollOps = map[int]fileOp{
	unix.SYS_EPOLL_CTL:    epollCtl,
	unix.SYS_EPOLL_WAIT:   func(c *call, v *vfd) result { return epollWaitOn(c, v, epollTimeout) },
	unix.SYS_EPOLL_PWAIT:  func(c *call, v *vfd) result { return epollWaitOn(c, v, epollTimeout) },
	unix.SYS_EPOLL_PWAIT2: func(c *call, v *vfd) result { return epollWaitOn(c, v, epollTimeout2) },
}

func (ep *vepoll) ops() map[int]fileOp { return epollOps }

func (*vepoll) Kind() vkernel.FileKind { return anonFileKind }

// Events: readable while a wait would report an event.
func (ep *vepoll) Events(w vkernel.FileWorld) uint32 {
	if len(ep.Collect(1, false, w.Probe())) > 0 {
		return unix.POLLIN | pollRdnorm
	}
	return 0
}

// Wake: the bytes of the records a wait would report now.
func (ep *vepoll) Wake(w vkernel.FileWorld, _ *vkernel.EpollEntry) [2]uint64 {
	return [2]uint64{uint64(len(ep.Collect(1<<20, false, w.Probe())) * vkernel.EpollEventSize), 0}
}

// NextTimer is the next expiry of the timerfds (or nested instances'
// timerfds) it watches, 0 none.
func (ep *vepoll) NextTimer(fw vkernel.FileWorld) int64 {
	var next int64
	for e := range ep.Entries() {
		if w, ok := e.File().(*vfd); ok && e.Armed() && w.EpollInstance() != ep.Epoll {
			if t, ok := w.obj.(vkernel.TimedFile); ok {
				next = earlier(next, t.NextTimer(fw))
			}
		}
	}
	return next
}

func (ep *vepoll) Hash(h *vkernel.FileHasher) {
	h.Put(fileTagEpoll)
	ep.Epoll.Hash(h.Put, h.Ref)
}

func (ep *vepoll) Release(vkernel.FileWorld) {}

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
