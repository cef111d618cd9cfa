package vkernel

import "encoding/binary"

// Shared memory segments (shmget(2), shmat(2), shmdt(2), shmctl(2)).
// The namespace keeps each segment's identity, size, attach count and
// times; its bytes are the supervisor's (a host mapping it makes for the
// segment and maps into each process that attaches it). ShmAt, ShmDt and
// ShmFork count attachments; a segment marked for removal (IPC_RMID) is
// freed at its last detach, and ShmDt then says so, for the supervisor
// to release the memory.

// Shared memory constants (linux/shm.h, asm/shmbuf.h).
const (
	ShmRdonly  = 0o10000 // SHM_RDONLY
	ShmRnd     = 0o20000 // SHM_RND
	ShmRemap   = 0o40000 // SHM_REMAP
	ShmExec    = 0o100000
	ShmHugeTLB = 0o4000 // SHM_HUGETLB
	ShmLock    = 11
	ShmUnlock  = 12
	ShmStat    = 13
	ShmInfo    = 14
	ShmStatAny = 15
	ShmMNI     = 4096
	ShmMin     = 1
	ShmMax     = ^uint64(0) - 1<<24 // SHMMAX
	shmDest    = 0o1000             // SHM_DEST, in the mode
	shmLocked  = 0o2000             // SHM_LOCKED, in the mode
)

type shmSeg struct {
	size                uint64
	nattch              int
	cpid, lpid          int32
	atime, dtime, ctime int64
}

func cloneShm(s *shmSeg) *shmSeg { c := *s; return &c }

// ShmGet implements shmget(2) for process pid; created says that the
// segment is new (the caller makes its memory, of ShmSize bytes).
func (p *IPC) ShmGet(c Cred, pid int32, key int32, size uint64, flg int, now int64) (id int, created bool, err error) {
	mk := func() (*shmSeg, error) {
		if size < ShmMin || size > ShmMax {
			return nil, EINVAL
		}
		return &shmSeg{size: size, cpid: pid, ctime: now}, nil
	}
	check := func(s *shmSeg) error {
		if size > s.size {
			return EINVAL
		}
		return nil
	}
	return p.shm.get(c, key, flg, ShmMNI, mk, check)
}

// ShmSize returns segment id's size in bytes.
func (p *IPC) ShmSize(id int) (uint64, error) {
	e, err := p.shm.lookup(id)
	if err != nil {
		return 0, err
	}
	return e.obj.size, nil
}

// ShmAt implements shmat(2)'s checks and count for process pid: it
// returns the segment's size. A segment marked for removal can still be
// attached by its id, as Linux allows.
func (p *IPC) ShmAt(c Cred, pid int32, id, flg int, now int64) (uint64, error) {
	e, err := p.shm.lookup(id)
	if err != nil {
		return 0, err
	}
	need := uint16(ipcRead | ipcWrite)
	if flg&ShmRdonly != 0 {
		need = ipcRead
	}
	if !c.mayAccess(&e.perm, need) {
		return 0, EACCES
	}
	e.obj.nattch++
	e.obj.lpid, e.obj.atime = pid, now
	return e.obj.size, nil
}

// ShmFork counts the attachment a forked child inherits.
func (p *IPC) ShmFork(id int) {
	if e, err := p.shm.lookup(id); err == nil {
		e.obj.nattch++
	}
}

// ShmDt ends one attachment of segment id by process pid (shmdt(2), its
// exit or exec) and reports whether the segment is gone (its memory can
// be released).
func (p *IPC) ShmDt(pid int32, id int, now int64) bool {
	e, err := p.shm.lookup(id)
	if err != nil {
		return true
	}
	e.obj.nattch--
	e.obj.lpid, e.obj.dtime = pid, now
	if e.obj.nattch <= 0 && e.perm.Mode&shmDest != 0 {
		p.shm.remove(id)
		return true
	}
	return false
}

// ShmCtl implements shmctl(2): its return value, the bytes it writes at
// its argument's address (nil: none), and whether the segment is gone
// (IPC_RMID of a segment nobody attaches: its memory can be released).
func (p *IPC) ShmCtl(c Cred, id, cmd int, arg CtlArg, now int64) (int, []byte, bool, error) {
	switch cmd {
	case IPCInfo, ShmInfo:
		n, out := p.shmInfo(cmd)
		return n, out, false, nil
	case IPCStat, ShmStat, ShmStatAny:
		e, sid, err := p.shm.stat(c, id, cmd != IPCStat, cmd == ShmStatAny)
		if err != nil {
			return 0, nil, false, err
		}
		if cmd == IPCStat {
			sid = 0
		}
		return sid, shmStatBytes(e), false, nil
	case IPCRmid, IPCSet, ShmLock, ShmUnlock:
	default:
		return 0, nil, false, EINVAL
	}
	e, err := p.shm.lookup(id)
	if err != nil {
		return 0, nil, false, err
	}
	switch cmd {
	case IPCRmid:
		if !c.owns(&e.perm) {
			return 0, nil, false, EPERM
		}
		e.perm.Mode |= shmDest
		e.perm.Key = IPCPrivate
		if e.obj.nattch <= 0 {
			p.shm.remove(id)
			return 0, nil, true, nil
		}
		return 0, nil, false, nil
	case IPCSet:
		if err := p.shm.set(c, e, arg.UID, arg.GID, arg.Mode); err != nil {
			return 0, nil, false, err
		}
		e.obj.ctime = now
		return 0, nil, false, nil
	}
	if !c.owns(&e.perm) { // SHM_LOCK, SHM_UNLOCK: the owner (or CAP_IPC_LOCK)
		return 0, nil, false, EPERM
	}
	e.perm.Mode &^= shmLocked
	if cmd == ShmLock {
		e.perm.Mode |= shmLocked
	}
	return 0, nil, false, nil
}

// shmInfo is IPC_INFO's struct shminfo64 (Linux's limits) or
// SHM_INFO's struct shm_info (the segments in use and their pages).
func (p *IPC) shmInfo(cmd int) (int, []byte) {
	n, maxIndex := p.shm.inUse()
	le := binary.LittleEndian
	if cmd == IPCInfo {
		out := make([]byte, 72)
		for i, v := range []uint64{ShmMax, ShmMin, ShmMNI, ShmMNI, ShmMax} {
			le.PutUint64(out[8*i:], v)
		}
		return maxIndex, out
	}
	out := make([]byte, 48)
	le.PutUint32(out, uint32(n))
	var pages uint64
	p.shm.each(func(_ int, e *ipcEntry[shmSeg]) { pages += (e.obj.size + 4095) / 4096 })
	le.PutUint64(out[8:], pages)  // shm_tot
	le.PutUint64(out[16:], pages) // shm_rss: weft's segments are all resident
	return maxIndex, out
}

// shmStatBytes is struct shmid64_ds.
func shmStatBytes(e *ipcEntry[shmSeg]) []byte {
	b := make([]byte, 112)
	putPerm(b, &e.perm)
	le, s := binary.LittleEndian, e.obj
	for i, v := range []int64{int64(s.size), s.atime, s.dtime, s.ctime} {
		le.PutUint64(b[48+8*i:], uint64(v))
	}
	le.PutUint32(b[80:], uint32(s.cpid))
	le.PutUint32(b[84:], uint32(s.lpid))
	le.PutUint64(b[88:], uint64(s.nattch))
	return b
}
