package vkernel

import (
	"cmp"
	"errors"
	"maps"
	"slices"
)

// Leases and directory notifications (fcntl(2)'s F_SETLEASE, F_GETLEASE
// and F_NOTIFY; issue 36 §3) are weft state, never the host kernel's: a
// host process that opens a file a node leased is never blocked, and a
// node never learns what host processes do in a directory.
//
// A lease is held by an open file description of the world (Desc) on a
// file (HostFile), and granted by Linux's rules within the world
// (fs/locks.c's generic_setlease and check_conflicting_open): EINVAL
// for a file that is not regular or a type that is not F_RDLCK, F_WRLCK
// or F_UNLCK; EACCES for a caller that neither owns the file nor has
// CAP_LEASE; EAGAIN for a read lease while the file is open for writing
// in the world (the caller's own description included), for a write
// lease while the file is open in the world by any other description,
// and for F_UNLCK with no lease held. Opens by host processes outside
// the world are not counted: the world must not learn of them.
//
// A lease is broken on Linux when another process opens the file in a
// conflicting way: the holder is sent SIGIO (or its F_SETSIG signal) and
// the opener blocks until the holder gives the lease up. weft does not
// model the break (it would park the opener's open and deliver the
// signal), so it grants only a lease no open of the world can ever
// break: a read lease on a file that no node may open for writing (one
// name, outside every run directory, or none), a write lease on a file
// with no name left (unlinked, or made with O_TMPFILE) that no other
// description has open. Any other lease is refused with EAGAIN, as
// Linux answers a lease that conflicts (LeaseFile.Breakable), and the
// supervisor adds a note. Limits: a description is named by one of its
// descriptors (the one the lease was taken through); if that descriptor
// is closed while a duplicate keeps the description open, the lease is
// forgotten, and if its number is reused for another open of the same
// file, the new open is taken for the holder. A shared writable mapping
// that outlives its descriptor is not counted as an open for writing; a
// name given back to an unlinked file (linkat with AT_EMPTY_PATH) while a
// write lease is held could let an open conflict unbroken.
//
// F_NOTIFY (dnotify) is accepted and its mask recorded per description
// (Notify), and nothing is ever delivered: not the host's events (a node
// must not learn of them), nor, today, the world's own (which Linux
// would signal to the descriptor's owner); a program that waits for a
// notification waits for ever, as on a directory nobody touches.

// Lease types: the values of F_RDLCK, F_WRLCK and F_UNLCK (fcntl(2)),
// which F_SETLEASE takes and F_GETLEASE returns.
const (
	LeaseRead   = 0
	LeaseWrite  = 1
	LeaseUnlock = 2
)

// Desc names an open file description of the world by one descriptor
// that refers to it: its node and the node's life (its restarts so far:
// a restarted node's descriptions are new ones), its process's virtual
// pid, and the descriptor's number. Virtual, so a checkpoint's copy
// names its own copies of the descriptions the same way.
type Desc struct {
	Node int
	Life int
	Proc int64
	FD   int
}

// LeaseOpen is one open of the leased file in the world, other than the
// caller's description: whether it is open for writing.
type LeaseOpen struct{ Write bool }

// LeaseFile is what the supervisor found of the file a lease request
// names and of the world's opens of it.
type LeaseFile struct {
	File    HostFile
	Regular bool // a regular file (leases are taken on nothing else)
	// Owner: the caller's file-system uid owns the file, or the caller
	// has CAP_LEASE.
	Owner bool
	// SelfWrite: the caller's own description is open for writing.
	SelfWrite bool
	// Opens are the world's other descriptions of the file.
	Opens []LeaseOpen
	// Names is the file's link count; InRunDir: one of its names lies in
	// a node's run directory, where the node may open it for writing.
	Names    uint64
	InRunDir bool
}

// Breakable says why a lease of type typ on f could be broken by a later
// open of the world, which weft does not model ("" if none can).
func (f LeaseFile) Breakable(typ int) string {
	switch {
	case typ == LeaseRead && f.Names == 1 && f.InRunDir:
		return "a node may open the file for writing (it lies in a run directory), which would break the lease"
	case typ == LeaseRead && f.Names > 1:
		return "the file has other names, through which a node might open it for writing and break the lease"
	case typ == LeaseWrite && f.Names > 0:
		return "any process of the world may open the file by its name, which would break a write lease"
	}
	return ""
}

// ErrUnbreakable marks a lease refused only because a later open of the
// world could break it (LeaseFile.Breakable); the caller answers EAGAIN.
var ErrUnbreakable = errors.New("vkernel: a later open of the world could break the lease")

// lease is one held lease.
type lease struct {
	file HostFile
	typ  int
}

// Leases is a world's table of leases and dnotify masks. The zero value
// is not usable; use NewLeases.
type Leases struct {
	held   map[Desc]lease
	notify map[Desc]uint32
}

// NewLeases returns an empty table.
func NewLeases() *Leases {
	return &Leases{held: map[Desc]lease{}, notify: map[Desc]uint32{}}
}

// Get returns the type of the lease d holds (LeaseUnlock if none), as
// F_GETLEASE does.
func (t *Leases) Get(d Desc) int {
	if l, ok := t.held[d]; ok {
		return l.typ
	}
	return LeaseUnlock
}

// On returns the descriptions that hold a lease on file, in order.
func (t *Leases) On(file HostFile) []Desc {
	var out []Desc
	for d, l := range t.held {
		if l.file == file {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, compareDesc)
	return out
}

// File returns the file d holds a lease on, if it holds one.
func (t *Leases) File(d Desc) (HostFile, bool) {
	l, ok := t.held[d]
	return l.file, ok
}

// Drop forgets what d holds: its description was closed.
func (t *Leases) Drop(d Desc) {
	delete(t.held, d)
	delete(t.notify, d)
}

// Set serves F_SETLEASE of type typ by description d on f: nil, an
// Errno as Linux answers, or ErrUnbreakable.
func (t *Leases) Set(d Desc, typ int, f LeaseFile) error {
	switch {
	case typ != LeaseRead && typ != LeaseWrite && typ != LeaseUnlock:
		return EINVAL
	case !f.Owner:
		return EACCES
	case !f.Regular:
		return EINVAL
	case typ == LeaseUnlock:
		if _, ok := t.held[d]; !ok {
			return EAGAIN
		}
		delete(t.held, d)
		return nil
	}
	if e := leaseConflict(typ, f); e != nil {
		return e
	}
	if f.Breakable(typ) != "" {
		return ErrUnbreakable
	}
	t.held[d] = lease{file: f.File, typ: typ}
	return nil
}

// leaseConflict is check_conflicting_open's answer within the world: a
// read lease conflicts with any open for writing, a write lease with any
// other open.
func leaseConflict(typ int, f LeaseFile) error {
	if typ == LeaseWrite && len(f.Opens) > 0 {
		return EAGAIN
	}
	if typ == LeaseRead && f.SelfWrite {
		return EAGAIN
	}
	for _, o := range f.Opens {
		if o.Write {
			return EAGAIN
		}
	}
	return nil
}

// DnotifyMulti is DN_MULTISHOT, the mask bit that keeps a notification
// armed; the others name the events (DN_ACCESS...DN_ATTRIB).
const DnotifyMulti = 0x80000000

// Notify serves F_NOTIFY with mask on description d, which is a
// directory (dir): the mask is recorded, or, with no event bit, the
// description's notifications are removed; ENOTDIR for a description
// that is not a directory (fs/notify/dnotify/dnotify.c).
func (t *Leases) Notify(d Desc, dir bool, mask uint32) error {
	if mask&^DnotifyMulti == 0 {
		delete(t.notify, d)
		return nil
	}
	if !dir {
		return ENOTDIR
	}
	t.notify[d] = mask
	return nil
}

// Notifying returns the dnotify mask recorded on d (0 none).
func (t *Leases) Notifying(d Desc) uint32 { return t.notify[d] }

// Descs returns every description the table holds something for, in
// order, so that the supervisor may drop those that were closed.
func (t *Leases) Descs() []Desc {
	ds := slices.Collect(maps.Keys(t.held))
	for d := range t.notify {
		if _, ok := t.held[d]; !ok {
			ds = append(ds, d)
		}
	}
	slices.SortFunc(ds, compareDesc)
	return ds
}

// Hash puts the table for the world hash: each description's lease and
// mask, in order.
func (t *Leases) Hash(put func(uint64)) {
	for _, d := range t.Descs() {
		l, ok := t.held[d]
		typ := uint64(LeaseUnlock)
		if ok {
			typ = uint64(l.typ)
		}
		put(uint64(d.Node))
		put(uint64(d.Life))
		put(uint64(d.Proc))
		put(uint64(d.FD))
		put(typ)
		put(uint64(t.notify[d]))
	}
}

func compareDesc(a, b Desc) int {
	return cmp.Or(cmp.Compare(a.Node, b.Node), cmp.Compare(a.Life, b.Life), cmp.Compare(a.Proc, b.Proc), cmp.Compare(a.FD, b.FD))
}
