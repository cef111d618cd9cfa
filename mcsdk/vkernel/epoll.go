package vkernel

import (
	"encoding/binary"
	"iter"
	"slices"
)

// epoll_ctl's operations and an entry's flags beyond its event bits
// (linux/eventpoll.h).
const (
	EpollCtlAdd = 1
	EpollCtlDel = 2
	EpollCtlMod = 3

	EpollExclusive = 1 << 28
	EpollWakeup    = 1 << 29
	EpollOneshot   = 1 << 30
	EpollET        = 1 << 31
)

// EpollEventSize is sizeof(struct epoll_event) on x86-64, where it is
// packed: a 32-bit event mask and 64 bits of user data.
const EpollEventSize = 12

// epollAlways are the conditions reported whether asked for or not.
const epollAlways = PollErr | PollHup

// epollCtlFlags are the input flags of epoll_ctl beyond the event bits.
const epollCtlFlags = EpollET | EpollOneshot | EpollWakeup | EpollExclusive

// EpollFile is the open file description an epoll entry watches, as the
// supervisor holds it. A kernel descriptor (one weft does not serve) is
// watched by number only: its entries' File is nil.
type EpollFile interface {
	// Description identifies the open file description: descriptors
	// made by dup share it, and an entry is the pair (description, fd
	// number).
	Description() any
	// EpollInstance is the epoll instance the file is, nil for any other
	// kind (nesting: ELOOP, EPOLLEXCLUSIVE).
	EpollInstance() *Epoll
}

// EpollProbe tells an epoll instance what the files its entries watch
// report now; the supervisor implements it for its descriptor kinds (a
// kernel descriptor's mask is a host poll, made there).
type EpollProbe interface {
	// Events is the poll mask of the file e watches (of e.Fd() when
	// e.File() is nil).
	Events(e *EpollEntry) uint32
	// Wake is the wake key of the file e watches: a value that changes
	// with every wake-up an edge-triggered e must report (new data, a
	// reader making room), and only then if the file keeps counts.
	Wake(e *EpollEntry) [2]uint64
}

// EpollEvent is one reported struct epoll_event.
type EpollEvent struct {
	Events uint32
	Data   uint64
}

// DecodeEpollEvent reads a struct epoll_event (b holds at least
// EpollEventSize bytes).
func DecodeEpollEvent(b []byte) EpollEvent {
	return EpollEvent{Events: binary.LittleEndian.Uint32(b), Data: binary.LittleEndian.Uint64(b[4:])}
}

// EncodeEpollEvents is evs as the array of struct epoll_event that
// epoll_wait writes.
func EncodeEpollEvents(evs []EpollEvent) []byte {
	out := make([]byte, 0, len(evs)*EpollEventSize)
	for _, ev := range evs {
		out = binary.LittleEndian.AppendUint32(out, ev.Events)
		out = binary.LittleEndian.AppendUint64(out, ev.Data)
	}
	return out
}

// Epoll is an epoll instance (epoll(7)): its interest list and the
// entries' ready order.
//
// An entry is the pair (file, fd number), as in Linux: after a fork, one
// process may close the file at a number the other still has it at (the
// entry stays, reachable from the other) and then put another file at
// that number (a second entry at the number).
//
// Level-triggered entries are reported while ready. EPOLLET entries are
// reported once per wake-up of the watched file, as Linux does: new data
// re-arms a descriptor that is still readable, draining does not.
// EPOLLONESHOT disarms an entry after one report until EPOLL_CTL_MOD.
// Reports come in ready order: the order entries were added, each
// reported entry moving to the back (as the kernel re-queues
// level-triggered ones), so that a short events array does not starve
// the later ones.
type Epoll struct {
	interest map[int]*EpollEntry // by fd, the newest live entry at each number
	order    []*EpollEntry       // every live entry, in ready order
	// changes counts the changes of the interest list and of its entries'
	// own state (Ctl, Forget, a wait's reports), not hashed: a parked
	// wait that saw it unchanged, and its files unchanged, would park
	// again (the supervisor's waiters_linux.go).
	changes uint64
}

// Changes counts the changes of the interest list and of its entries'
// own state so far: every Ctl and Forget, and every Collect that
// consumed a report.
func (ep *Epoll) Changes() uint64 { return ep.changes }

// EpollEntry is one watched file.
type EpollEntry struct {
	fd       int
	file     EpollFile // nil for a kernel descriptor
	events   uint32
	data     uint64
	disarmed bool // EPOLLONESHOT, after its report
	fresh    bool // edge-triggered: not yet evaluated since ADD or MOD
	seen     [2]uint64
	closed   bool // its fd was closed while another descriptor of the file stays open
}

// NewEpoll is an epoll instance with an empty interest list.
func NewEpoll() *Epoll { return &Epoll{interest: map[int]*EpollEntry{}} }

// Fd is the descriptor number the entry was added at.
func (e *EpollEntry) Fd() int { return e.fd }

// File is the watched description, nil for a kernel descriptor.
func (e *EpollEntry) File() EpollFile { return e.file }

// Armed reports whether the entry can be reported: not an EPOLLONESHOT
// entry already reported since its last EPOLL_CTL_MOD.
func (e *EpollEntry) Armed() bool { return !e.disarmed }

// WakeOf is the wake key of a file that counts the wake-ups of its
// readers (in) and of its writers (out), as e sees it: only the side its
// events ask for.
func (e *EpollEntry) WakeOf(in, out uint64) [2]uint64 {
	if e.events&(PollIn|PollRdNorm|PollRdHup|PollPri) == 0 {
		in = 0
	}
	if e.events&(PollOut|PollWrNorm) == 0 {
		out = 0
	}
	return [2]uint64{in, out}
}

// Entries yields the live entries in ready order.
func (ep *Epoll) Entries() iter.Seq[*EpollEntry] { return slices.Values(ep.order) }

// Ctl is epoll_ctl(2) on fd, whose description is f (nil: a kernel
// descriptor the host accepts for epoll), with ev the struct epoll_event
// given to ADD and MOD. The caller has checked the descriptors: EBADF,
// EINVAL for fd the instance itself or not an epoll instance, EPERM for
// a file the kernel's epoll refuses. Ctl answers EEXIST (ADD of a
// watched pair), ENOENT (MOD or DEL of an unwatched one), ELOOP (ADD
// making a cycle of instances) and EINVAL (an unknown op, EPOLLEXCLUSIVE
// with flags it excludes, or in a MOD).
func (ep *Epoll) Ctl(op, fd int, f EpollFile, ev EpollEvent) error {
	ep.changes++
	e := ep.find(fd, f)
	switch op {
	case EpollCtlAdd:
		return ep.add(fd, f, ev)
	case EpollCtlMod:
		if e == nil {
			return ENOENT
		}
		if ev.Events&EpollExclusive != 0 || e.events&EpollExclusive != 0 {
			return EINVAL
		}
		e.events, e.data, e.disarmed, e.fresh = ev.Events, ev.Data, false, true
	case EpollCtlDel:
		if e == nil {
			return ENOENT
		}
		ep.remove(e)
	default:
		return EINVAL
	}
	return nil
}

// add is EPOLL_CTL_ADD.
func (ep *Epoll) add(fd int, f EpollFile, ev EpollEvent) error {
	if ep.find(fd, f) != nil {
		return EEXIST
	}
	var nested *Epoll
	if f != nil {
		nested = f.EpollInstance()
	}
	if ev.Events&EpollExclusive != 0 &&
		(ev.Events&^(epollCtlFlags|PollIn|PollOut|epollAlways) != 0 ||
			ev.Events&EpollOneshot != 0 || nested != nil) {
		return EINVAL
	}
	if nested != nil && (nested == ep || nested.reaches(ep)) {
		return ELOOP
	}
	e := &EpollEntry{fd: fd, file: f, events: ev.Events, data: ev.Data, fresh: true}
	ep.interest[fd] = e
	ep.order = append(ep.order, e)
	return nil
}

// find is the live entry of the file f at number fd (f nil: a kernel
// descriptor, the entry at fd), or nil.
func (ep *Epoll) find(fd int, f EpollFile) *EpollEntry {
	match := func(e *EpollEntry) bool {
		return e != nil && e.fd == fd && !e.closed &&
			(f == nil || e.file == nil || e.file.Description() == f.Description())
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
func (ep *Epoll) unindex(e *EpollEntry) {
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
func (ep *Epoll) remove(e *EpollEntry) {
	ep.unindex(e)
	ep.order = slices.DeleteFunc(ep.order, func(o *EpollEntry) bool { return o == e })
}

// Forget runs as the node closes fd, whose description is f (nil for a
// kernel descriptor); last says no other descriptor of the description
// stays open. The entry goes if that was the last descriptor, and so do
// entries left by the description's earlier closed descriptors;
// otherwise the entry stays (still reported, no longer reachable through
// epoll_ctl), as in Linux.
func (ep *Epoll) Forget(fd int, f EpollFile, last bool) {
	ep.changes++
	if e := ep.find(fd, f); e != nil {
		ep.unindex(e)
		e.closed = true
	}
	if !last {
		return
	}
	ep.order = slices.DeleteFunc(ep.order, func(e *EpollEntry) bool {
		if !e.closed {
			return false
		}
		if f == nil || e.file == nil {
			return e.fd == fd && f == nil && e.file == nil
		}
		return e.file.Description() == f.Description()
	})
}

// reaches reports whether target is watched by ep, directly or through
// nested instances.
func (ep *Epoll) reaches(target *Epoll) bool {
	for _, e := range ep.order {
		if e.file == nil {
			continue
		}
		if n := e.file.EpollInstance(); n != nil && (n == target || n.reaches(target)) {
			return true
		}
	}
	return false
}

// Collect is up to max ready events, in ready order. consume applies the
// reports (edge-triggered and one-shot bookkeeping, the ready order), as
// epoll_wait does; without it Collect only looks (a nested instance's or
// poll(2)'s readiness).
func (ep *Epoll) Collect(max int, consume bool, p EpollProbe) []EpollEvent {
	var out []EpollEvent
	var reported []*EpollEntry
	for _, e := range slices.Clone(ep.order) {
		if len(reported) == max {
			break
		}
		rev := e.ready(p, consume)
		if rev == 0 {
			continue
		}
		out = append(out, EpollEvent{Events: rev, Data: e.data})
		reported = append(reported, e)
		if consume && e.events&EpollOneshot != 0 {
			e.disarmed = true
		}
	}
	if consume && len(reported) > 0 {
		ep.changes++
		for _, e := range reported {
			ep.order = append(slices.DeleteFunc(ep.order, func(o *EpollEntry) bool { return o == e }), e)
		}
	}
	return out
}

// ready is the events an entry reports now (0 none). An edge-triggered
// entry reports only after a wake-up of its file since it was last
// evaluated; consume records the evaluation.
func (e *EpollEntry) ready(p EpollProbe, consume bool) uint32 {
	if e.disarmed {
		return 0
	}
	rev := p.Events(e) & (e.events | epollAlways)
	if e.events&EpollET == 0 {
		return rev
	}
	key := p.Wake(e)
	woken := e.fresh || key != e.seen
	if consume {
		e.fresh, e.seen = false, key
	}
	if !woken {
		return 0
	}
	return rev
}

// Hash writes the interest list for the world hash, in ready order: each
// entry's fd, its watched description by ref's canonical number (none
// for a kernel descriptor), its events and data, the flags disarmed,
// fresh, closed and kernel-descriptor as bits 0 to 3, and its last seen
// wake key (the supervisor's hash wrote these before the move).
func (ep *Epoll) Hash(put func(uint64), ref func(any) uint64) {
	put(uint64(len(ep.order)))
	for _, e := range ep.order {
		put(uint64(e.fd))
		if e.file != nil {
			put(ref(e.file.Description()))
		}
		put(uint64(e.events))
		put(e.data)
		put(bit(e.disarmed) | bit(e.fresh)<<1 | bit(e.closed)<<2 | bit(e.file == nil)<<3)
		put(e.seen[0])
		put(e.seen[1])
	}
}
