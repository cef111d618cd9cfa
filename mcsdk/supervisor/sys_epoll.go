//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"slices"

	"golang.org/x/sys/unix"
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
// Level-triggered entries are reported while ready. EPOLLET entries are
// reported once per wake-up of the watched file, as Linux does: new data
// re-arms a descriptor that is still readable, draining does not.
// EPOLLONESHOT disarms an entry after one report until EPOLL_CTL_MOD.
// EPOLLEXCLUSIVE is accepted (one waiter per node thread runs at a time
// anyway). Reports come in the entries' ready order: the order they were
// added, each reported entry moving to the back (as the kernel re-queues
// level-triggered ones), so that a short events array does not starve the
// later ones; it is deterministic.

// vepoll is an epoll instance. An entry is the pair (file, fd number), as
// in Linux: after a fork, one process may close the file at a number the
// other still has it at (the entry stays, reachable from the other) and
// then put another file at that number (a second entry at the number).
type vepoll struct {
	interest map[int]*epollEntry // by fd, the newest live entry at each number
	order    []*epollEntry       // every live entry, in ready order
}

// epollEntry is one watched file.
type epollEntry struct {
	fd       int
	v        *vfd // the watched description; nil for a kernel descriptor
	events   uint32
	data     uint64
	disarmed bool // EPOLLONESHOT, after its report
	fresh    bool // edge-triggered: not yet evaluated since ADD or MOD
	seen     [2]uint64
	closed   bool // its fd was closed while another descriptor of the file stays open
}

// epollEventSize is sizeof(struct epoll_event) on x86-64 (packed).
const epollEventSize = 12

// epollAlways are the conditions reported whether asked for or not.
const epollAlways = unix.EPOLLERR | unix.EPOLLHUP

// epollCtlFlags are the input flags of epoll_ctl beyond the event bits.
const epollCtlFlags = unix.EPOLLET | unix.EPOLLONESHOT | unix.EPOLLWAKEUP | unix.EPOLLEXCLUSIVE

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
	return c.install(&vfd{epoll: &vepoll{interest: map[int]*epollEntry{}}}, flags)
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
	e := ep.find(fd, v)
	switch op {
	case unix.EPOLL_CTL_ADD, unix.EPOLL_CTL_MOD:
		b, err := c.read(c.arg(3), epollEventSize)
		if err != nil {
			return errno(unix.EFAULT)
		}
		events := binary.LittleEndian.Uint32(b)
		data := binary.LittleEndian.Uint64(b[4:])
		if op == unix.EPOLL_CTL_ADD {
			return ep.add(c, fd, v, events, data)
		}
		if e == nil {
			return errno(unix.ENOENT)
		}
		if events&unix.EPOLLEXCLUSIVE != 0 || e.events&unix.EPOLLEXCLUSIVE != 0 {
			return errno(unix.EINVAL)
		}
		e.events, e.data, e.disarmed, e.fresh = events, data, false, true
	case unix.EPOLL_CTL_DEL:
		if e == nil {
			return errno(unix.ENOENT)
		}
		ep.remove(e)
	default:
		return errno(unix.EINVAL)
	}
	return ret(0)
}

// add is EPOLL_CTL_ADD.
func (ep *vepoll) add(c *call, fd int, v *vfd, events uint32, data uint64) result {
	if ep.find(fd, v) != nil {
		return errno(unix.EEXIST)
	}
	if events&unix.EPOLLEXCLUSIVE != 0 &&
		(events&^(epollCtlFlags|unix.EPOLLIN|unix.EPOLLOUT|epollAlways) != 0 ||
			events&unix.EPOLLONESHOT != 0 || v != nil && v.epoll != nil) {
		return errno(unix.EINVAL)
	}
	if v != nil && v.epoll != nil && (v.epoll == ep || v.epoll.reaches(ep)) {
		return errno(unix.ELOOP)
	}
	e := &epollEntry{fd: fd, v: v, events: events, data: data, fresh: true}
	ep.interest[fd] = e
	ep.order = append(ep.order, e)
	return ret(0)
}

// find is the live entry of the file v at number fd (v nil: a kernel
// descriptor, the entry at fd), or nil.
func (ep *vepoll) find(fd int, v *vfd) *epollEntry {
	match := func(e *epollEntry) bool {
		return e != nil && e.fd == fd && !e.closed && (v == nil || e.v == nil || e.v.description() == v.description())
	}
	if e := ep.interest[fd]; match(e) {
		return e
	}
	for _, e := range ep.order { // an older entry at the number (another file, after a fork)
		if match(e) {
			return e
		}
	}
	return nil
}

// unindex drops e from the index by number, pointing it at another live
// entry at e's number if there is one.
func (ep *vepoll) unindex(e *epollEntry) {
	if ep.interest[e.fd] != e {
		return
	}
	delete(ep.interest, e.fd)
	for _, o := range ep.order {
		if o != e && o.fd == e.fd && !o.closed {
			ep.interest[e.fd] = o
		}
	}
}

// remove drops an entry.
func (ep *vepoll) remove(e *epollEntry) {
	ep.unindex(e)
	ep.order = slices.DeleteFunc(ep.order, func(o *epollEntry) bool { return o == e })
}

// forget runs as the node closes fd (v nil for a kernel descriptor): its
// entry goes if that was the file's last descriptor, and so do entries
// left by its earlier closed descriptors; otherwise the entry stays (still
// reported, no longer reachable through epoll_ctl), as in Linux.
func (ep *vepoll) forget(fd int, v *vfd, last bool) {
	if e := ep.find(fd, v); e != nil {
		ep.unindex(e)
		e.closed = true
	}
	if !last {
		return
	}
	ep.order = slices.DeleteFunc(ep.order, func(e *epollEntry) bool {
		if !e.closed {
			return false
		}
		if v == nil || e.v == nil {
			return e.fd == fd && e.v == v
		}
		return e.v.description() == v.description()
	})
}

// reaches reports whether target is watched by ep, directly or through
// nested instances.
func (ep *vepoll) reaches(target *vepoll) bool {
	for _, e := range ep.order {
		if e.v != nil && e.v.epoll != nil && (e.v.epoll == target || e.v.epoll.reaches(target)) {
			return true
		}
	}
	return false
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
	if max <= 0 || max > (1<<31-1)/epollEventSize {
		return errno(unix.EINVAL)
	}
	out := v.epoll.collect(c, max, true)
	if len(out) == 0 {
		if r, wait := c.waitUntil(c.pollTimeout(timeout), c.nextTimerOf(v)); wait {
			return r
		}
		return ret(0)
	}
	c.pollReady()
	if err := c.write(c.arg(1), out); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(len(out) / epollEventSize))
}

// collect returns up to max ready events as struct epoll_event records.
// consume applies the reports (edge-triggered and one-shot bookkeeping,
// the ready order); without it collect only looks (a nested instance's or
// poll's readiness).
func (ep *vepoll) collect(c *call, max int, consume bool) []byte {
	var out []byte
	var reported []*epollEntry
	for _, e := range slices.Clone(ep.order) {
		if len(reported) == max {
			break
		}
		rev := e.ready(c, consume)
		if rev == 0 {
			continue
		}
		out = binary.LittleEndian.AppendUint32(out, rev)
		out = binary.LittleEndian.AppendUint64(out, e.data)
		reported = append(reported, e)
		if consume && e.events&unix.EPOLLONESHOT != 0 {
			e.disarmed = true
		}
	}
	if consume {
		for _, e := range reported {
			ep.order = append(slices.DeleteFunc(ep.order, func(o *epollEntry) bool { return o == e }), e)
		}
	}
	return out
}

// ready is the events an entry reports now (0 none). An edge-triggered
// entry reports only after a wake-up of its file since it was last
// evaluated; consume records the evaluation.
func (e *epollEntry) ready(c *call, consume bool) uint32 {
	if e.disarmed {
		return 0
	}
	rev := c.entryEvents(e) & (e.events | epollAlways)
	if e.events&unix.EPOLLET == 0 {
		return rev
	}
	key := e.wakeKey(c)
	woken := e.fresh || key != e.seen
	if consume {
		e.fresh, e.seen = false, key
	}
	if !woken {
		return 0
	}
	return rev
}

// wakeKey counts the wake-ups an edge-triggered entry can see: an in-node
// file's own counters; for the other kinds, which keep none, the state a
// wake-up changes (bytes pending and readiness, a timer's expirations).
func (e *epollEntry) wakeKey(c *call) [2]uint64 {
	v := e.v
	switch {
	case v == nil:
		return [2]uint64{uint64(c.kernelEvents(e.fd)), 0}
	case v.obj != nil:
		in, out := v.obj.gens()
		if e.events&(unix.EPOLLIN|unix.EPOLLRDNORM|unix.EPOLLRDHUP|unix.EPOLLPRI) == 0 {
			in = 0
		}
		if e.events&(unix.EPOLLOUT|unix.EPOLLWRNORM) == 0 {
			out = 0
		}
		return [2]uint64{in, out}
	case v.timer != nil:
		return [2]uint64{v.timer.Fires(), v.timer.stepGen(c.w.now)}
	case v.sock != nil:
		return [2]uint64{uint64(v.sock.Pending())<<32 | uint64(c.vfdEvents(v)), 0}
	case v.epoll != nil:
		return [2]uint64{uint64(len(v.epoll.collect(c, 1<<20, false))), 0}
	}
	return [2]uint64{}
}

// entryEvents is the watched file's poll mask.
func (c *call) entryEvents(e *epollEntry) uint32 {
	if e.v == nil {
		return c.kernelEvents(e.fd)
	}
	return c.vfdEvents(e.v)
}

// hash writes the interest list in ready order, each entry's watched
// description by its canonical number.
func (ep *vepoll) hash(h *fileHasher) {
	put := h.put
	put(uint64(len(ep.order)))
	for _, e := range ep.order {
		put(uint64(e.fd))
		if e.v != nil {
			put(h.ref(e.v.description()))
		}
		put(uint64(e.events))
		put(e.data)
		put(boolBits(e.disarmed, e.fresh, e.closed, e.v == nil))
		put(e.seen[0])
		put(e.seen[1])
	}
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
