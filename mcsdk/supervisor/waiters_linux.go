//go:build linux && amd64

package supervisor

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Which parked calls settle retries.
//
// settle retries parked calls until none completes, and every completed
// call runs its thread, so one action used to cost a retry of every parked
// call of the world at least twice: once to find the calls the action
// woke, and once more after they ran, to find that nothing else had
// changed. Most retries parked again (a Chord run: 4,034 of 4,556).
//
// A parked call's handler is a function of the world's state: a retry
// that parks again, made when nothing has happened since the call's
// previous retry parked, parks again and changes nothing (what handlers
// change while parking is idempotent: an edge-triggered epoll entry's
// evaluation, a deadline set once; the one exception, a blocking send
// done in parts, shows in call.progress). So the world keeps a change
// count, wakeGen, bumped by everything that can wake a parked call: the
// start of each settle (an action, a launch, a query), a node's thread
// running (runNode: its calls, its memory, its exit), a call served for
// the first time (serve: a handler that parks may register itself, as a
// futex waiter does), a retry that moved part of its data. A call whose
// last retry parked at the current count is skipped; every other parked
// call is retried, in the same order as before, so the first call that
// completes (and so the run) is the same.
//
// Each settle's first pass therefore retries every parked call whose
// handler did not say what it waits for. A handler that parks may say so
// (waitOn): the objects (wait keys) whose change can end the wait, or none
// when only the call's own events can: its timer firing (timedOut), a
// signal interrupting it (intr), a futex wake (the thread's woken flag).
// Whatever changes such an object marks its key (mark). A call that
// declared its waits is retried only when one of its keys was marked or
// one of its own events happened since it parked; the others keep the
// change count's rule. The order of the retries made is unchanged, and a
// spared retry would have parked unchanged (weftverify checks each one),
// so the first call that completes, and so every run, is the same.
//
// Declared so far: a futex wait that has queued itself and pause wait for
// their own events alone; a sleep waits for the clock too (timeKey,
// marked wherever the world's time is set); rt_sigsuspend waits for the
// node's signals (signalsKey); wait4 and waitid wait for the calling
// process's children (childrenKey).
//
// A call that waits on descriptors (a blocking read, recv, accept or
// send, an inet connect, poll, select and their kin, an epoll wait)
// declares them with the state it parked on (watch): each descriptor's
// description, its status flags, its poll mask and its object's wake
// counters; for an epoll wait the instance's own change count and, for
// each entry, what its file reports and its wake key. The objects count
// their changes themselves (a pipe's, an AF_UNIX socket's and an
// eventfd's wake counters, which edge-triggered epoll already relies on;
// an inet socket's readiness and bytes pending (and, for a blocking send,
// its bytes in flight), which the virtual
// network's deliveries, closes and shutdowns change; an epoll instance's
// Changes), so these counts are the marks: settle compares them with
// what the call saw (watchUnchanged) rather than each writer marking a
// key, and no place that changes such an object can forget to. Only the
// kinds whose readiness is weft's state alone are watched: pipes, AF_UNIX
// and inet sockets, eventfds, and timerfds (their expiries and next
// expiry; their state follows the clock, so a wait on one waits on
// timeKey too). A wait on another kind (a kernel descriptor, a signalfd,
// a netlink socket, a nested epoll instance) declares nothing and keeps
// the change count's rule, and so do
// the calls whose wait depends on another object than their descriptor's
// (an AF_UNIX connect, a send on an AF_UNIX datagram socket). Waits on
// another thread's exit do not declare yet, nor do a wait with
// __WNOTHREAD (which children are the thread's own follows its process's
// threads' ends) and a waitid(P_PIDFD) (weft resolves the pidfd at each
// retry).

// waitKey names one object parked calls may wait on.
type waitKey struct {
	kind waitKind
	node int   // the node the object belongs to; -1 for the world's
	id   int64 // which one of the node's, for a kind with many (a process's virtual pid)
}

// waitKind is the kind of object a waitKey names.
type waitKind uint8

const (
	waitTime     waitKind = iota + 1 // the world's clock (timeKey)
	waitSignals                      // the signals queued for a node's processes (signalsKey)
	waitChildren                     // a process's children, as a wait sees them (childrenKey)
)

// timeKey is the world's clock: marked whenever virtual time is set.
var timeKey = waitKey{kind: waitTime, node: -1}

// signalsKey is the signals pending for node n's processes: marked
// wherever weft queues a signal for one of them (raise; a child's end,
// whose SIGCHLD weft queues just before the reap, and the end of a parent
// whose children asked for a death signal (PR_SET_PDEATHSIG), which the
// kernel sends: procEnded; a kill that ends a process: killOther).
func signalsKey(n *node) waitKey { return waitKey{kind: waitSignals, node: n.id} }

// childrenKey is the children of node n's process vpid as its waits
// (wait4, waitid) see them: which are alive, zombies or reaped, and which
// their pid argument selects. A parked wait has a child it waits for and
// no zombie to report, so a fork (a new live child) cannot end it; what
// can is marked: a child's end, which makes it a zombie or reaps it
// (procEnded), and a process group's change (setpgid, setsid) for the
// process moved, whose parent's wait4(0) or wait4(-pgid) may select it no
// more, and for its own waits of that kind (groupChanged). A reap by
// another wait takes a zombie, which a parked wait has not selected, so
// it changes no parked wait's answer; a dead node's children, gone with
// it (reapOrphans), leave no parked call behind.
func childrenKey(n *node, vpid int64) waitKey {
	return waitKey{kind: waitChildren, node: n.id, id: vpid}
}

// changed records that something a parked call may wait for changed.
func (w *World) changed() { w.wakeGen++ }

// mark records that object k changed: the calls waiting on it are
// retried, and so is every call that did not declare its waits.
func (w *World) mark(k waitKey) {
	w.changed()
	if w.marks == nil {
		w.marks = map[waitKey]uint64{}
	}
	w.marks[k] = w.wakeGen
}

// waitOn declares, while c's handler parks it, what the call waits for
// besides its own events: keys may be empty. A handler that parks without
// declaring keeps the change count's rule. dispatch clears the declaration
// before every handler run.
func (c *call) waitOn(keys ...waitKey) {
	c.keyed = true
	c.waits = append(c.waits, keys...)
}

// clearWaits forgets c's declared waits before its handler runs again.
func (c *call) clearWaits() {
	c.keyed, c.waits = false, c.waits[:0]
	c.watched = c.watched[:0]
	c.watchedEp, c.epEntries = nil, c.epEntries[:0]
}

// fdWatch is one descriptor a parked call waits on, as the call saw it
// when it parked.
type fdWatch struct {
	fd     int
	v      *vfd
	flags  int
	events uint32
	wake   [2]uint64
	next   int64 // a timerfd's next expiry (NextTimer)
	send   bool  // a blocking send's wait: an inet socket's bytes in flight count too
}

// epEntryWatch is one entry of the epoll instance a parked wait waits
// on, as the wait saw it: what its file reported and its wake key.
type epEntryWatch struct {
	e      *vkernel.EpollEntry
	events uint32
	wake   [2]uint64
	next   int64 // a timerfd's next expiry (NextTimer)
}

// watchable reports whether v's readiness is weft's state alone, counted
// by the object (fdState): a pipe's end, an AF_UNIX or inet socket, an
// eventfd, a timerfd (whose state also follows the clock: a wait on one
// waits on timeKey too).
func watchable(v *vfd) bool {
	if v == nil || v.obj == nil {
		return false
	}
	switch v.obj.(type) {
	case *pipeEnd, unixSock, *inetSock, *eventFD, *vtimer:
		return true
	}
	return false
}

// fdState is what a wait on descriptor fd, open as v (watchable), sees
// now; send says the wait is a blocking send's, which an inet datagram's
// arrival can end (its sender's send buffer: netsim's Send).
func (c *call) fdState(fd int, v *vfd, send bool) fdWatch {
	s := fdWatch{fd: fd, v: v, flags: v.file.Flags(), events: v.obj.Events(c.files()), send: send}
	switch o := v.obj.(type) {
	case *pipeEnd:
		s.wake[0], s.wake[1] = o.p.Gens()
	case unixSock:
		s.wake[0], s.wake[1] = o.Gens()
	case *eventFD:
		s.wake[0], s.wake[1] = o.Gens()
	case *inetSock:
		s.wake[0] = uint64(o.Pending())
		if send {
			s.wake[1] = uint64(o.Outgoing())
		}
	case *vtimer:
		s.wake = o.Wake(c.files(), nil)
		s.next = o.NextTimer(c.files())
	}
	return s
}

// watchFDs declares, while c's handler parks it, that it waits on the
// descriptors fds of the calling process (and on its own events), with
// their state now; it declares nothing if one is not open as a watchable
// kind (a kernel descriptor, a timerfd, ...): the call keeps the change
// count's rule.
func (c *call) watchFDs(fds ...int) { c.watchFDsOf(false, fds...) }

// watchFDsOf is watchFDs for a blocking send (send) or any other wait.
func (c *call) watchFDsOf(send bool, fds ...int) {
	start := len(c.watched)
	timed := false
	for _, fd := range fds {
		v := c.n.fds.At(fd)
		if !watchable(v) {
			c.watched = c.watched[:start]
			return
		}
		_, isTimer := v.obj.(*vtimer)
		timed = timed || isTimer
		c.watched = append(c.watched, c.fdState(fd, v, send))
	}
	if timed {
		c.waitOn(timeKey)
		return
	}
	c.waitOn()
}

// watchEpoll declares, while an epoll wait on descriptor fd (the
// instance ev) parks, that it waits on the instance and on each entry's
// file; it declares nothing if an entry's file is not watchable (a kernel
// descriptor, a timerfd, a nested instance, ...).
func (c *call) watchEpoll(fd int, ev *vfd, ep *vepoll) {
	p := epollProbe{c}
	timed := false
	for e := range ep.Entries() {
		f, ok := e.File().(*vfd)
		if !ok || !watchable(f) {
			c.epEntries = c.epEntries[:0]
			return
		}
		s := epEntryWatch{e: e, events: p.Events(e), wake: p.Wake(e)}
		if t, ok := f.obj.(*vtimer); ok {
			s.next, timed = t.NextTimer(c.files()), true
		}
		c.epEntries = append(c.epEntries, s)
	}
	c.watched = append(c.watched, fdWatch{fd: fd, v: ev})
	c.watchedEp, c.epChanges = ep, ep.Changes()
	if timed {
		c.waitOn(timeKey)
		return
	}
	c.waitOn()
}

// watchCallFD declares the wait of a blocking call on its first argument's
// descriptor that parked without declaring one: a read, recv, accept or
// send on a watchable descriptor, or an inet connect. An AF_UNIX connect
// waits on its listener's backlog and a send on an AF_UNIX socket other
// than a stream may wait on its destination's queue: those declare
// nothing.
func (c *call) watchCallFD() {
	nr := int(c.req.Data.Nr)
	switch nr {
	case unix.SYS_READ, unix.SYS_READV, unix.SYS_RECVFROM, unix.SYS_RECVMSG, unix.SYS_ACCEPT, unix.SYS_ACCEPT4,
		unix.SYS_WRITE, unix.SYS_WRITEV, unix.SYS_SENDTO, unix.SYS_SENDMSG, unix.SYS_CONNECT:
	default:
		return
	}
	fd := int(int32(c.arg(0)))
	v := c.n.fds.At(fd)
	if !watchable(v) {
		return
	}
	send := false
	switch nr {
	case unix.SYS_WRITE, unix.SYS_WRITEV, unix.SYS_SENDTO, unix.SYS_SENDMSG:
		if s, ok := v.obj.(unixSock); ok && !s.Stream() {
			return
		}
		send = true
	case unix.SYS_CONNECT:
		if _, ok := v.obj.(*inetSock); !ok {
			return
		}
	}
	c.watchFDsOf(send, fd)
}

// watchUnchanged reports whether every descriptor and epoll entry c
// watches is as c saw it when it parked: the same description at each
// number, with the same flags, poll mask and wake counters.
func (w *World) watchUnchanged(c *call) bool {
	if len(c.watched) == 0 {
		return true
	}
	defer c.n.enterProc(c.t)()
	for _, s := range c.watched {
		v := c.n.fds.At(s.fd)
		if v != s.v {
			return false
		}
		if s.v.obj == nil {
			return false
		}
		if _, ok := s.v.obj.(*vepoll); ok {
			continue // its entries follow
		}
		if c.fdState(s.fd, v, s.send) != s {
			return false
		}
	}
	if ep := c.watchedEp; ep != nil {
		if ep.Changes() != c.epChanges {
			return false
		}
		p := epollProbe{c}
		i := 0
		for e := range ep.Entries() {
			if i == len(c.epEntries) {
				return false
			}
			s := c.epEntries[i]
			if e != s.e || p.Events(e) != s.events || p.Wake(e) != s.wake {
				return false
			}
			if t, ok := e.File().(*vfd).obj.(*vtimer); ok && t.NextTimer(c.files()) != s.next {
				return false
			}
			i++
		}
		if i != len(c.epEntries) {
			return false
		}
	}
	return true
}

// unwoken reports whether a retry of parked call c would park again
// unchanged: nothing changed since its last retry parked, or (byWaits) it
// declared its waits and neither they nor its own events changed since it
// parked.
func (w *World) unwoken(c *call) (skip, byWaits bool) {
	switch {
	case c.parkedAt == 0:
		return false, false
	case c.parkedAt == w.wakeGen+1:
		return true, false
	case !c.keyed || c.timedOut || c.intr != nil || c.t.woken:
		return false, false
	case len(c.n.sigScan) > 0:
		return false, false // a dispatch of the process's next call adopts its signalfd (sys_signalfd.go)
	}
	for _, k := range c.waits {
		if w.marks[k] >= c.parkedAt {
			return false, false
		}
	}
	if !w.watchUnchanged(c) {
		return false, false
	}
	return true, true
}

// parkedNow stamps a call that its first dispatch (serve) parked: one
// that declared its waits need not be retried until they change.
func (w *World) parkedNow(c *call) {
	if c.keyed {
		c.parkedAt = w.wakeGen + 1
	}
}

// retry dispatches parked call c again, unless it would park again
// unchanged (unwoken); it reports whether the call is still parked.
func (w *World) retry(c *call) bool {
	if skip, byWaits := w.unwoken(c); skip {
		w.skipped++
		if byWaits {
			w.spared++
			if w.sparedBy == nil {
				w.sparedBy = map[string]int{}
			}
			w.sparedBy[sysName(int(c.req.Data.Nr))]++
		}
		if verifyWaiters {
			w.verifySkip(c)
		}
		return true
	}
	progress := c.progress
	if w.dispatch(c) != parked {
		c.parkedAt = 0
		return false
	}
	if c.progress != progress {
		c.parkedAt = 0
		w.changed() // part of a send went out: a reader may wake
		return true
	}
	c.parkedAt = w.wakeGen + 1
	return true
}

// verifySkip (tests built with -tags weftverify) dispatches a call retry
// skipped and fails the run if it did not park again unchanged.
func (w *World) verifySkip(c *call) {
	gen, progress := w.wakeGen, c.progress
	if w.dispatch(c) != parked || c.progress != progress || w.wakeGen != gen {
		w.fail(c.n, sysName(int(c.req.Data.Nr)), fmt.Sprintf("weftverify: a skipped retry of %s did not park unchanged", c.t.name()))
	}
}
