//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"errors"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// SysV IPC is virtual: each node has its own namespace (vkernel.IPC) of
// semaphore sets, message queues and shared memory segments, made and
// served by weft; no key or id a node uses reaches the host's IPC
// namespace, so a node sees neither the host's objects nor another
// node's. A semop, msgsnd or msgrcv that must wait parks its call and is
// retried when the world changes, as the kernel retries pending
// operations (a signal ends it with EINTR: these calls are never
// restarted, signal(7)). Shared memory is in sys_sysv_shm.go.

// ipc64 is the IPC_64 flag glibc adds to every control command.
const ipc64 = 0x100

// sysvState is a node's SysV IPC: the namespace, and for each shared
// memory segment the supervisor's memfd holding its bytes and the
// attachments of the node's processes.
type sysvState struct {
	ipc      *vkernel.IPC
	mem      map[int]int // segment id -> memfd
	attached []shmAttach
}

// sysvIPC is the node's namespace, made at its first use.
func (n *node) sysvIPC() *sysvState {
	if n.sysv == nil {
		n.sysv = &sysvState{ipc: vkernel.NewIPC(), mem: map[int]int{}}
	}
	return n.sysv
}

// ipcToken names the calling thread's call across its retries.
func (c *call) ipcToken() uint64 { return uint64(c.t.k) + 1 }

// ipcNow is the calling node's realtime clock in seconds (the objects'
// times).
func (c *call) ipcNow() int64 { return c.realNow() / 1e9 }

// ipcPid is the calling process's virtual pid.
func (c *call) ipcPid() int32 { return int32(c.n.procOf(c.t).vpid) }

// ipcCred reads the calling thread's effective uid and gid and its
// groups from /proc (the node's credentials are the host process's).
func (c *call) ipcCred() (vkernel.Cred, error) {
	s, err := taskStatus(c.n.memPid(), c.t.tid)
	if err != nil {
		return vkernel.Cred{}, err
	}
	return vkernel.Cred{UID: s.UID[1], GID: s.GID[1], Groups: s.Groups}, nil
}

// ipcErr is a namespace error as the call's answer.
func ipcErr(err error) result {
	var e vkernel.Errno
	if errors.As(err, &e) {
		return errno(unix.Errno(e))
	}
	return failf("SysV IPC: %v", err)
}

// sysvInterrupted ends a parked semop, msgsnd or msgrcv a signal
// interrupted: EINTR, never restarted (signal(7)).
func (c *call) sysvInterrupted() result {
	c.n.sysvIPC().ipc.Cancel(c.ipcToken())
	return errno(unix.EINTR)
}

// Semget implements semget(2) in the node's namespace.
func sysSemget(c *call) result {
	cr, err := c.ipcCred()
	if err != nil {
		return errno(unix.ESRCH)
	}
	id, err := c.n.sysvIPC().ipc.SemGet(cr, int32(c.arg(0)), int(int32(c.arg(1))), int(int32(c.arg(2))), c.ipcNow())
	if err != nil {
		return ipcErr(err)
	}
	return ret(int64(id))
}

// Semop implements semop(2).
func sysSemop(c *call) result { return c.semop(0) }

// Semtimedop implements semtimedop(2), its timeout on the virtual
// CLOCK_MONOTONIC.
func sysSemtimedop(c *call) result { return c.semop(c.arg(3)) }

// semop applies the operations at argument 1 to set argument 0, waiting
// (parked) until they can all be applied, the set is removed (EIDRM) or
// the timeout at timeout (0: none) passes (EAGAIN). As Linux's
// ksys_semtimedop, an unreadable timeout is EFAULT before nsops is
// checked; its value is checked after the operations are read.
func (c *call) semop(timeout uint64) result {
	if timeout != 0 && !c.started {
		if _, err := c.read(timeout, 16); err != nil {
			return errno(unix.EFAULT)
		}
	}
	nsops := c.arg(2)
	switch {
	case nsops < 1:
		return errno(unix.EINVAL)
	case nsops > vkernel.SemOPM:
		return errno(unix.E2BIG)
	}
	b, err := c.read(c.arg(1), int(6*nsops))
	if err != nil {
		return errno(unix.EFAULT)
	}
	ops := make([]vkernel.SemBuf, nsops)
	for i := range ops {
		le := binary.LittleEndian
		ops[i] = vkernel.SemBuf{Num: le.Uint16(b[6*i:]), Op: int16(le.Uint16(b[6*i+2:])), Flg: int16(le.Uint16(b[6*i+4:]))}
	}
	if !c.started {
		c.started = true
		if timeout != 0 {
			ns, e := c.readTimespec(timeout)
			if e != 0 {
				return errno(e)
			}
			c.deadline = c.after(ns)
		}
	}
	cr, err := c.ipcCred()
	if err != nil {
		return errno(unix.ESRCH)
	}
	ipc := c.n.sysvIPC().ipc
	err = ipc.SemOp(cr, c.ipcPid(), int(int32(c.arg(0))), ops, c.ipcNow(), c.ipcToken())
	return c.ipcWaited(err)
}

// ipcWaited answers a call the namespace may have told to wait: parked,
// or EAGAIN once its timeout passed.
func (c *call) ipcWaited(err error) result {
	switch {
	case err == nil:
		return ret(0)
	case !errors.Is(err, vkernel.ErrBlock):
		return ipcErr(err)
	case c.timedOut || (c.deadline >= 0 && c.deadline <= c.w.now):
		c.n.sysvIPC().ipc.Cancel(c.ipcToken())
		return errno(unix.EAGAIN)
	}
	return park()
}

// Semctl implements semctl(2): arg (the fourth argument, union semun)
// is SETVAL's value or the address of the set's struct semid64_ds, of
// GETALL's and SETALL's array, or of IPC_INFO's struct seminfo.
func sysSemctl(c *call) result {
	id, num, cmd, arg := int(int32(c.arg(0))), int(int32(c.arg(1))), int(int32(c.arg(2)))&^ipc64, c.arg(3)
	cr, err := c.ipcCred()
	if err != nil {
		return errno(unix.ESRCH)
	}
	ipc := c.n.sysvIPC().ipc
	var ca vkernel.CtlArg
	switch cmd {
	case vkernel.SetVal:
		ca.Val = int(int32(arg))
	case vkernel.IPCSet:
		if ca, err = c.ipcSetArg(arg, 104); err != nil {
			return errno(unix.EFAULT)
		}
	case vkernel.SetAll:
		n, err := ipc.SemCount(id)
		if err != nil {
			return ipcErr(err)
		}
		b, err := c.read(arg, 2*n)
		if err != nil {
			return errno(unix.EFAULT)
		}
		for i := range n {
			ca.Vals = append(ca.Vals, binary.LittleEndian.Uint16(b[2*i:]))
		}
	}
	v, out, err := ipc.SemCtl(cr, c.ipcPid(), id, num, cmd, ca, c.ipcNow())
	return c.ipcCtlAnswer(v, out, arg, err)
}

// ipcCtlAnswer writes a control call's output at addr and returns its
// value.
func (c *call) ipcCtlAnswer(v int, out []byte, addr uint64, err error) result {
	if err != nil {
		return ipcErr(err)
	}
	if out != nil {
		if err := c.write(addr, out); err != nil {
			return errno(unix.EFAULT)
		}
	}
	return ret(int64(v))
}

// Msgget implements msgget(2) in the node's namespace.
func sysMsgget(c *call) result {
	cr, err := c.ipcCred()
	if err != nil {
		return errno(unix.ESRCH)
	}
	id, err := c.n.sysvIPC().ipc.MsgGet(cr, int32(c.arg(0)), int(int32(c.arg(1))), c.ipcNow())
	if err != nil {
		return ipcErr(err)
	}
	return ret(int64(id))
}

// Msgsnd implements msgsnd(2): the struct msgbuf at argument 1 (its
// type, then msgsz bytes of text), waiting while the queue is full.
func sysMsgsnd(c *call) result {
	size := int64(c.arg(2))
	if size < 0 || size > vkernel.MsgMAX {
		return errno(unix.EINVAL)
	}
	b, err := c.read(c.arg(1), 8+int(size))
	if err != nil {
		return errno(unix.EFAULT)
	}
	cr, err := c.ipcCred()
	if err != nil {
		return errno(unix.ESRCH)
	}
	m := vkernel.Msg{Type: int64(binary.LittleEndian.Uint64(b)), Text: b[8:]}
	err = c.n.sysvIPC().ipc.MsgSnd(cr, c.ipcPid(), int(int32(c.arg(0))), m, int(int32(c.arg(3))), c.ipcNow(), c.ipcToken())
	return c.ipcWaited(err)
}

// Msgrcv implements msgrcv(2): the selected message's type and text
// written at argument 1, its length returned.
func sysMsgrcv(c *call) result {
	size := int64(c.arg(2))
	if size < 0 {
		return errno(unix.EINVAL)
	}
	cr, err := c.ipcCred()
	if err != nil {
		return errno(unix.ESRCH)
	}
	id, msgtyp, flg := int(int32(c.arg(0))), int64(c.arg(3)), int(int32(c.arg(4)))
	m, err := c.n.sysvIPC().ipc.MsgRcv(cr, c.ipcPid(), id, int(min(size, 1<<30)), msgtyp, flg, c.ipcNow(), c.ipcToken())
	if err != nil {
		return c.ipcWaited(err)
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(m.Type))
	if err := c.write(c.arg(1), append(out, m.Text...)); err != nil {
		return errno(unix.EFAULT) // the message is gone, as in Linux when the copy out fails
	}
	return ret(int64(len(m.Text)))
}

// ipcSetArg reads IPC_SET's struct (its size bytes at addr: the
// semid64_ds, msqid64_ds or shmid64_ds) and decodes the fields it sets.
func (c *call) ipcSetArg(addr uint64, size int) (vkernel.CtlArg, error) {
	b, err := c.read(addr, size)
	if err != nil {
		return vkernel.CtlArg{}, err
	}
	return vkernel.DecodeSet(b), nil
}

// ctlArgs decodes msgctl's and shmctl's arguments: the id, the command,
// the address of its struct, the caller's credentials and, for IPC_SET,
// the fields set by the struct of setSize bytes there.
func (c *call) ctlArgs(setSize int) (id, cmd int, addr uint64, cr vkernel.Cred, ca vkernel.CtlArg, e unix.Errno) {
	id, cmd, addr = int(int32(c.arg(0))), int(int32(c.arg(1)))&^ipc64, c.arg(2)
	cr, err := c.ipcCred()
	if err != nil {
		return 0, 0, 0, cr, ca, unix.ESRCH
	}
	if cmd == vkernel.IPCSet {
		if ca, err = c.ipcSetArg(addr, setSize); err != nil {
			return 0, 0, 0, cr, ca, unix.EFAULT
		}
	}
	return id, cmd, addr, cr, ca, 0
}

// Msgctl implements msgctl(2): argument 2 is the address of the queue's
// struct msqid64_ds or of IPC_INFO's struct msginfo.
func sysMsgctl(c *call) result {
	id, cmd, addr, cr, ca, e := c.ctlArgs(120)
	if e != 0 {
		return errno(e)
	}
	v, out, err := c.n.sysvIPC().ipc.MsgCtl(cr, id, cmd, ca, c.ipcNow())
	return c.ipcCtlAnswer(v, out, addr, err)
}

// sysvExit applies an ending process's SEM_UNDO adjustments and ends
// its shared memory attachments.
func (n *node) sysvExit(p *proc) {
	if n.sysv == nil {
		return
	}
	n.sysv.ipc.SemExit(int32(p.vpid))
	n.sysv.detachAll(p.vpid)
}

// hashSysv puts the node's IPC namespace and its segments' bytes.
func (n *node) hashSysv(put func(uint64), write func([]byte)) {
	st := n.sysv
	if st == nil { // hashes as the empty namespace it is
		st = &sysvState{ipc: vkernel.NewIPC()}
	}
	st.ipc.Hash(put, write)
	st.hashSegments(put, write)
}
