package vkernel

import (
	"maps"
	"slices"
)

// SysV IPC (issue 37 §1). Each node has its own IPC namespace (IPC): its
// shared memory segments, semaphore sets and message queues, named by
// keys and by ids that weft makes, never the host's, so a node can
// neither see nor reach a host object or another node's. An id is made
// as Linux makes it (ipc/util.c): the lowest free slot of its kind plus
// IPCMNI times the slot's sequence number, which grows each time the
// slot is reused; equal histories give equal ids.
//
// Permissions follow ipcperms(): the owner's (uid or cuid), the group's
// (gid or cgid) or the others' mode bits, unless the caller is root
// (CAP_IPC_OWNER; weft's nodes hold every capability when they run as
// uid 0). IPC_SET and IPC_RMID need the owner or the creator (or root).

// IPC constants (linux/ipc.h, sem.h, msg.h, shm.h).
const (
	IPCPrivate = 0       // IPC_PRIVATE
	IPCCreat   = 0o1000  // IPC_CREAT
	IPCExcl    = 0o2000  // IPC_EXCL
	IPCNoWait  = 0o4000  // IPC_NOWAIT
	IPCMNI     = 1 << 15 // ids per kind (IPCMNI); id = seq·IPCMNI + slot

	IPCRmid = 0 // IPC_RMID
	IPCSet  = 1 // IPC_SET
	IPCStat = 2 // IPC_STAT
	IPCInfo = 3 // IPC_INFO
)

// Cred is who makes an IPC call: its effective user and group ids and
// its supplementary groups.
type Cred struct {
	UID, GID uint32
	Groups   []uint32
}

// IPCPerm is an object's struct ipc64_perm.
type IPCPerm struct {
	Key        int32
	UID, GID   uint32 // owner
	CUID, CGID uint32 // creator
	Mode       uint16 // the low nine bits are permissions; shm keeps SHM_DEST and SHM_LOCKED above them
	Seq        uint16
}

// ipcRead and ipcWrite are the modes ipcperms() asks for.
const (
	ipcRead  = 0o444
	ipcWrite = 0o222
)

// mayAccess reports whether c may use an object of perm as flag asks
// (the kernel's ipcperms()).
func (c Cred) mayAccess(p *IPCPerm, flag uint16) bool {
	if c.UID == 0 {
		return true
	}
	requested := (flag >> 6) | (flag >> 3) | flag
	granted := p.Mode
	switch {
	case c.UID == p.CUID || c.UID == p.UID:
		granted >>= 6
	case c.inGroup(p.GID) || c.inGroup(p.CGID):
		granted >>= 3
	}
	return requested&^granted&0o7 == 0
}

func (c Cred) inGroup(g uint32) bool { return c.GID == g || slices.Contains(c.Groups, g) }

// owns reports whether c may change or remove an object (IPC_SET,
// IPC_RMID: ipcctl_obtain_check).
func (c Cred) owns(p *IPCPerm) bool { return c.UID == 0 || c.UID == p.UID || c.UID == p.CUID }

// ipcTable is one kind's objects, by slot.
type ipcTable[T any] struct {
	slots []*ipcEntry[T] // nil: free
	seqs  []uint16       // the sequence number the slot's next object gets
}

type ipcEntry[T any] struct {
	perm IPCPerm
	obj  *T
}

// id is the id of the object in slot i.
func (t *ipcTable[T]) id(i int) int { return int(t.slots[i].perm.Seq)*IPCMNI + i }

// lookup returns the object whose id is id (EINVAL if none).
func (t *ipcTable[T]) lookup(id int) (*ipcEntry[T], error) {
	if id < 0 {
		return nil, EINVAL
	}
	i := id % IPCMNI
	if i >= len(t.slots) || t.slots[i] == nil || t.id(i) != id {
		return nil, EINVAL
	}
	return t.slots[i], nil
}

// get implements the namespace part of shmget, semget and msgget:
// the object of key (a new one for IPC_PRIVATE), made by mk if it does
// not exist and flg has IPC_CREAT; check vets an existing object against
// the call (a larger size, more semaphores: EINVAL).
func (t *ipcTable[T]) get(c Cred, key int32, flg int, max int, mk func() (*T, error), check func(*T) error) (int, bool, error) {
	if key != IPCPrivate {
		for i, e := range t.slots {
			if e == nil || e.perm.Key != key {
				continue
			}
			switch {
			case flg&IPCCreat != 0 && flg&IPCExcl != 0:
				return 0, false, EEXIST
			case !c.mayAccess(&e.perm, uint16(flg&0o777)):
				return 0, false, EACCES
			}
			if err := check(e.obj); err != nil {
				return 0, false, err
			}
			return t.id(i), false, nil
		}
		if flg&IPCCreat == 0 {
			return 0, false, ENOENT
		}
	}
	obj, err := mk()
	if err != nil {
		return 0, false, err
	}
	i := slices.Index(t.slots, nil)
	if i < 0 {
		if len(t.slots) >= max {
			return 0, false, ENOSPC
		}
		i = len(t.slots)
		t.slots = append(t.slots, nil)
		t.seqs = append(t.seqs, 0)
	}
	p := IPCPerm{Key: key, UID: c.UID, GID: c.GID, CUID: c.UID, CGID: c.GID, Mode: uint16(flg & 0o777), Seq: t.seqs[i]}
	t.seqs[i]++
	t.slots[i] = &ipcEntry[T]{perm: p, obj: obj}
	return t.id(i), true, nil
}

// remove frees the slot of id.
func (t *ipcTable[T]) remove(id int) { t.slots[id%IPCMNI] = nil }

// set implements IPC_SET's common part: the owner's uid and gid and the
// permission bits.
func (t *ipcTable[T]) set(c Cred, e *ipcEntry[T], uid, gid uint32, mode uint16) error {
	if !c.owns(&e.perm) {
		return EPERM
	}
	e.perm.UID, e.perm.GID = uid, gid
	e.perm.Mode = e.perm.Mode&^0o777 | mode&0o777
	return nil
}

// stat finds the object for IPC_STAT (by id) or *_STAT and *_STAT_ANY
// (by slot index: noCheck reports without a permission check) and returns it
// with its id.
func (t *ipcTable[T]) stat(c Cred, arg int, byIndex, noCheck bool) (*ipcEntry[T], int, error) {
	var e *ipcEntry[T]
	id := arg
	if byIndex {
		if arg < 0 || arg >= len(t.slots) || t.slots[arg] == nil {
			return nil, 0, EINVAL
		}
		e, id = t.slots[arg], t.id(arg)
	} else {
		var err error
		if e, err = t.lookup(arg); err != nil {
			return nil, 0, err
		}
	}
	if !noCheck && !c.mayAccess(&e.perm, ipcRead) {
		return nil, 0, EACCES
	}
	return e, id, nil
}

// inUse is the number of objects and maxIndex the highest slot in use
// (what IPC_INFO returns), 0 with none.
func (t *ipcTable[T]) inUse() (n, maxIndex int) {
	for i, e := range t.slots {
		if e != nil {
			n, maxIndex = n+1, i
		}
	}
	return n, maxIndex
}

// each calls f on every object, in slot order.
func (t *ipcTable[T]) each(f func(id int, e *ipcEntry[T])) {
	for i, e := range t.slots {
		if e != nil {
			f(t.id(i), e)
		}
	}
}

// IPC is one node's SysV IPC namespace. The zero value is not usable;
// use NewIPC.
type IPC struct {
	shm  ipcTable[shmSeg]
	sem  ipcTable[semSet]
	msg  ipcTable[msgQueue]
	undo map[int32]map[int][]int16 // SEM_UNDO adjustments: process -> set -> per semaphore
	wait map[uint64]ipcWait        // parked semops, by the caller's token (semncnt, semzcnt)
}

// NewIPC returns an empty namespace.
func NewIPC() *IPC {
	return &IPC{undo: map[int32]map[int][]int16{}, wait: map[uint64]ipcWait{}}
}

// Clone returns a deep copy of the namespace (a checkpoint's).
func (p *IPC) Clone() *IPC {
	q := &IPC{shm: cloneTable(p.shm, cloneShm), sem: cloneTable(p.sem, cloneSem), msg: cloneTable(p.msg, cloneMsg),
		undo: map[int32]map[int][]int16{}, wait: maps.Clone(p.wait)}
	for pid, sets := range p.undo {
		q.undo[pid] = map[int][]int16{}
		for id, adj := range sets {
			q.undo[pid][id] = slices.Clone(adj)
		}
	}
	return q
}

func cloneTable[T any](t ipcTable[T], f func(*T) *T) ipcTable[T] {
	out := ipcTable[T]{slots: make([]*ipcEntry[T], len(t.slots)), seqs: slices.Clone(t.seqs)}
	for i, e := range t.slots {
		if e != nil {
			out.slots[i] = &ipcEntry[T]{perm: e.perm, obj: f(e.obj)}
		}
	}
	return out
}

// Hash puts the whole namespace, in a canonical order, through put and
// write: every object's permissions, values, messages and times, and
// every process's undo adjustments. (A shared memory segment's bytes
// live in the host mapping the supervisor hashes.)
func (p *IPC) Hash(put func(uint64), write func([]byte)) {
	putPerm := func(id int, q *IPCPerm) {
		put(uint64(id))
		put(uint64(uint32(q.Key))<<32 | uint64(q.Mode)<<16 | uint64(q.Seq))
		put(uint64(q.UID)<<32 | uint64(q.GID))
		put(uint64(q.CUID)<<32 | uint64(q.CGID))
	}
	p.shm.each(func(id int, e *ipcEntry[shmSeg]) {
		putPerm(id, &e.perm)
		s := e.obj
		for _, v := range []int64{int64(s.size), int64(s.nattch), int64(s.cpid), int64(s.lpid), s.atime, s.dtime, s.ctime} {
			put(uint64(v))
		}
	})
	put(^uint64(0))
	p.sem.each(func(id int, e *ipcEntry[semSet]) {
		putPerm(id, &e.perm)
		s := e.obj
		put(uint64(s.otime))
		put(uint64(s.ctime))
		for _, v := range s.sems {
			put(uint64(v.val)<<32 | uint64(uint32(v.pid)))
		}
	})
	put(^uint64(0))
	p.msg.each(func(id int, e *ipcEntry[msgQueue]) {
		putPerm(id, &e.perm)
		q := e.obj
		for _, v := range []int64{int64(q.qbytes), int64(q.lspid), int64(q.lrpid), q.stime, q.rtime, q.ctime, int64(len(q.msgs))} {
			put(uint64(v))
		}
		for _, m := range q.msgs {
			put(uint64(m.Type))
			put(uint64(len(m.Text)))
			write(m.Text)
		}
	})
	put(^uint64(0))
	for _, pid := range slices.Sorted(maps.Keys(p.undo)) {
		for _, id := range slices.Sorted(maps.Keys(p.undo[pid])) {
			put(uint64(pid))
			put(uint64(id))
			for _, a := range p.undo[pid][id] {
				put(uint64(a))
			}
		}
	}
}
