package vkernel

import (
	"encoding/binary"
	"errors"
	"slices"
)

// Semaphore sets (semget(2), semop(2), semctl(2)). A semop applies all
// its operations or none; one that cannot proceed either fails EAGAIN
// (IPC_NOWAIT on the operation that would wait) or returns ErrBlock: the
// caller parks its call and retries it when the world changes, passing
// the same token, so a wait is a retry of the whole operation, as the
// kernel's update_queue() retries its pending operations. SEM_UNDO
// adjustments are kept per process and applied by SemExit.

// Semaphore constants (linux/sem.h).
const (
	SemUndo    = 0x1000 // SEM_UNDO
	SemMSL     = 32000  // SEMMSL: semaphores per set
	SemMNI     = 32000  // SEMMNI: sets
	SemOPM     = 500    // SEMOPM: operations per semop
	SemVMX     = 32767  // SEMVMX: a semaphore's largest value
	SemAEM     = SemVMX // SEMAEM: an undo adjustment's largest size
	GetPid     = 11
	GetVal     = 12
	GetAll     = 13
	GetNCnt    = 14
	GetZCnt    = 15
	SetVal     = 16
	SetAll     = 17
	SemStat    = 18
	SemInfo    = 19
	SemStatAny = 20
)

// ErrBlock is the answer of a call that must wait: the caller parks it
// and retries it later with the same token.
var ErrBlock = errors.New("vkernel: the call waits")

// SemBuf is one operation of semop(2) (struct sembuf).
type SemBuf struct {
	Num uint16
	Op  int16
	Flg int16
}

type semSet struct {
	sems         []sem
	otime, ctime int64
}

type sem struct {
	val int32
	pid int32 // the process of the last operation
}

func cloneSem(s *semSet) *semSet { c := *s; c.sems = slices.Clone(s.sems); return &c }

// ipcWait is a parked call: the object it waits on, and for a semop the
// semaphore whose operation waits and whether it waits for zero.
type ipcWait struct {
	sem  bool
	id   int
	num  int
	zero bool
}

// SemGet implements semget(2).
func (p *IPC) SemGet(c Cred, key int32, nsems, flg int, now int64) (int, error) {
	if nsems < 0 || nsems > SemMSL {
		return 0, EINVAL
	}
	mk := func() (*semSet, error) {
		if nsems == 0 {
			return nil, EINVAL
		}
		return &semSet{sems: make([]sem, nsems), ctime: now}, nil
	}
	check := func(s *semSet) error {
		if nsems > len(s.sems) {
			return EINVAL
		}
		return nil
	}
	id, _, err := p.sem.get(c, key, flg, SemMNI, mk, check)
	return id, err
}

// Cancel forgets the parked call of token (a signal or its timeout
// ended it).
func (p *IPC) Cancel(token uint64) { delete(p.wait, token) }

// waited ends the parked call of token, if it was one: EIDRM if the
// object it waited on is gone.
func (p *IPC) waited(token uint64, gone bool) error {
	_, was := p.wait[token]
	delete(p.wait, token)
	if was && gone {
		return EIDRM
	}
	return nil
}

// SemOp implements semop(2) and semtimedop(2) for process pid; token
// names the calling thread's call (not 0) across its retries.
func (p *IPC) SemOp(c Cred, pid int32, id int, ops []SemBuf, now int64, token uint64) error {
	if len(ops) < 1 {
		return EINVAL
	}
	if len(ops) > SemOPM {
		return E2BIG
	}
	e, err := p.sem.lookup(id)
	if werr := p.waited(token, err != nil); werr != nil {
		return werr
	}
	if err != nil {
		return err
	}
	s, alter := e.obj, false
	for _, op := range ops {
		if int(op.Num) >= len(s.sems) {
			return EFBIG
		}
		alter = alter || op.Op != 0
	}
	need := uint16(ipcRead)
	if alter {
		need = ipcWrite
	}
	if !c.mayAccess(&e.perm, need) {
		return EACCES
	}
	vals := make([]int32, len(s.sems))
	for i, v := range s.sems {
		vals[i] = v.val
	}
	adj := slices.Clone(p.undo[pid][id])
	if adj == nil {
		adj = make([]int16, len(s.sems))
	}
	for _, op := range ops {
		v := vals[op.Num] + int32(op.Op)
		if (op.Op == 0 && vals[op.Num] != 0) || v < 0 {
			if op.Flg&IPCNoWait != 0 {
				return EAGAIN
			}
			p.wait[token] = ipcWait{sem: true, id: id, num: int(op.Num), zero: op.Op == 0}
			return ErrBlock
		}
		if v > SemVMX {
			return ERANGE
		}
		if op.Flg&SemUndo != 0 {
			a := int32(adj[op.Num]) - int32(op.Op)
			if a < -SemAEM-1 || a > SemAEM {
				return ERANGE
			}
			adj[op.Num] = int16(a)
		}
		vals[op.Num] = v
	}
	for i := range s.sems {
		s.sems[i].val = vals[i]
	}
	for _, op := range ops {
		s.sems[op.Num].pid = pid
	}
	if slices.ContainsFunc(ops, func(op SemBuf) bool { return op.Flg&SemUndo != 0 }) {
		if p.undo[pid] == nil {
			p.undo[pid] = map[int][]int16{}
		}
		p.undo[pid][id] = adj
	}
	s.otime = now
	return nil
}

// SemExit applies process pid's undo adjustments (at its exit), each
// value clamped to [0, SEMVMX] as exit_sem() does, and forgets them.
func (p *IPC) SemExit(pid int32) {
	for id, adj := range p.undo[pid] {
		e, err := p.sem.lookup(id)
		if err != nil {
			continue
		}
		for i, a := range adj {
			if a != 0 {
				e.obj.sems[i].val = min(max(e.obj.sems[i].val+int32(a), 0), SemVMX)
				e.obj.sems[i].pid = pid
			}
		}
	}
	delete(p.undo, pid)
}

// SemCount returns the number of semaphores of set id (for SETALL's
// array), EINVAL if there is none.
func (p *IPC) SemCount(id int) (int, error) {
	e, err := p.sem.lookup(id)
	if err != nil {
		return 0, err
	}
	return len(e.obj.sems), nil
}

// CtlArg is what a control call passes beside its command: SETVAL's
// value, SETALL's values, IPC_SET's new owner and mode (and a message
// queue's new size limit).
type CtlArg struct {
	Val      int
	Vals     []uint16
	UID, GID uint32
	Mode     uint16
	QBytes   uint64
}

// SemCtl implements semctl(2): its return value, and the bytes it
// writes at its argument's address (nil: none), in x86-64's layout.
func (p *IPC) SemCtl(c Cred, pid int32, id, num, cmd int, arg CtlArg, now int64) (int, []byte, error) {
	switch cmd {
	case IPCInfo, SemInfo:
		return p.semInfo(cmd)
	case IPCStat, SemStat, SemStatAny:
		e, sid, err := p.sem.stat(c, id, cmd != IPCStat, cmd == SemStatAny)
		if err != nil {
			return 0, nil, err
		}
		if cmd == IPCStat {
			sid = 0
		}
		return sid, semStatBytes(e), nil
	}
	e, err := p.sem.lookup(id)
	if err != nil {
		return 0, nil, err
	}
	s := e.obj
	switch cmd {
	case IPCRmid:
		if !c.owns(&e.perm) {
			return 0, nil, EPERM
		}
		p.sem.remove(id)
		for _, sets := range p.undo {
			delete(sets, id)
		}
		return 0, nil, nil
	case IPCSet:
		if err := p.sem.set(c, e, arg.UID, arg.GID, arg.Mode); err != nil {
			return 0, nil, err
		}
		s.ctime = now
		return 0, nil, nil
	case GetAll, SetAll:
		return p.semAll(c, pid, e, id, cmd, arg.Vals, now)
	case GetPid, GetVal, GetNCnt, GetZCnt, SetVal:
	default:
		return 0, nil, EINVAL
	}
	if num < 0 || num >= len(s.sems) {
		return 0, nil, EINVAL
	}
	if cmd == SetVal {
		return 0, nil, p.semSetVal(c, pid, e, id, num, arg.Val, now)
	}
	if !c.mayAccess(&e.perm, ipcRead) {
		return 0, nil, EACCES
	}
	switch cmd {
	case GetPid:
		return int(s.sems[num].pid), nil, nil
	case GetVal:
		return int(s.sems[num].val), nil, nil
	}
	n := 0
	for _, w := range p.wait {
		if w.sem && w.id == id && w.num == num && w.zero == (cmd == GetZCnt) {
			n++
		}
	}
	return n, nil, nil
}

func (p *IPC) semSetVal(c Cred, pid int32, e *ipcEntry[semSet], id, num, val int, now int64) error {
	if !c.mayAccess(&e.perm, ipcWrite) {
		return EACCES
	}
	if val < 0 || val > SemVMX {
		return ERANGE
	}
	e.obj.sems[num] = sem{val: int32(val), pid: pid}
	for _, sets := range p.undo {
		if adj := sets[id]; adj != nil {
			adj[num] = 0
		}
	}
	e.obj.ctime = now
	return nil
}

func (p *IPC) semAll(c Cred, pid int32, e *ipcEntry[semSet], id, cmd int, vals []uint16, now int64) (int, []byte, error) {
	s := e.obj
	if cmd == GetAll {
		if !c.mayAccess(&e.perm, ipcRead) {
			return 0, nil, EACCES
		}
		out := make([]byte, 2*len(s.sems))
		for i, v := range s.sems {
			binary.LittleEndian.PutUint16(out[2*i:], uint16(v.val))
		}
		return 0, out, nil
	}
	if !c.mayAccess(&e.perm, ipcWrite) {
		return 0, nil, EACCES
	}
	if len(vals) != len(s.sems) {
		return 0, nil, EINVAL
	}
	for _, v := range vals {
		if v > SemVMX {
			return 0, nil, ERANGE
		}
	}
	for i, v := range vals {
		s.sems[i] = sem{val: int32(v), pid: pid}
	}
	for _, sets := range p.undo {
		delete(sets, id)
	}
	s.ctime = now
	return 0, nil, nil
}

// semInfo is IPC_INFO's and SEM_INFO's struct seminfo: Linux's limits,
// and for SEM_INFO the sets and semaphores in use.
func (p *IPC) semInfo(cmd int) (int, []byte, error) {
	n, maxIndex := p.sem.inUse()
	usz, aem := 20, SemAEM // SEMUSZ, SEMAEM
	if cmd == SemInfo {
		usz, aem = n, 0
		p.sem.each(func(_ int, e *ipcEntry[semSet]) { aem += len(e.obj.sems) })
	}
	v := []int32{SemMNI * SemMSL, SemMNI, SemMNI * SemMSL, SemMNI * SemMSL, SemMSL, SemOPM, SemOPM, int32(usz), SemVMX, int32(aem)}
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(x))
	}
	return maxIndex, out, nil
}

// semStatBytes is struct semid64_ds.
func semStatBytes(e *ipcEntry[semSet]) []byte {
	b := make([]byte, 104)
	putPerm(b, &e.perm)
	le := binary.LittleEndian
	le.PutUint64(b[48:], uint64(e.obj.otime))
	le.PutUint64(b[64:], uint64(e.obj.ctime))
	le.PutUint64(b[80:], uint64(len(e.obj.sems)))
	return b
}

// putPerm writes struct ipc64_perm (48 bytes) at b.
func putPerm(b []byte, p *IPCPerm) {
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(p.Key))
	le.PutUint32(b[4:], p.UID)
	le.PutUint32(b[8:], p.GID)
	le.PutUint32(b[12:], p.CUID)
	le.PutUint32(b[16:], p.CGID)
	le.PutUint16(b[20:], p.Mode)
	le.PutUint16(b[24:], p.Seq)
}

// DecodeSet reads IPC_SET's argument, a struct semid64_ds, msqid64_ds
// or shmid64_ds: the owner's ids and mode of its ipc64_perm, and a
// msqid64_ds's msg_qbytes (read only for a queue: b is then 120 bytes).
func DecodeSet(b []byte) CtlArg {
	le := binary.LittleEndian
	a := CtlArg{UID: le.Uint32(b[4:]), GID: le.Uint32(b[8:]), Mode: le.Uint16(b[20:])}
	if len(b) >= msqidSize {
		a.QBytes = le.Uint64(b[88:])
	}
	return a
}
