//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Shared memory segments. A segment's bytes live in a memfd weft makes
// for it (the node's namespace keeps its identity and counts); shmat
// installs the memfd in the caller (SECCOMP_IOCTL_NOTIF_ADDFD), then,
// with the calling thread stopped by ptrace, has it run mmap(MAP_SHARED)
// of it and close the descriptor again, so every process of the node
// that attaches a segment maps the same pages, and the caller's
// descriptor table is as before. shmdt has the caller run munmap. A
// forked child inherits its parent's attachments (the kernel copies the
// shared mapping; weft counts it), exec and exit end a process's. The
// segments' bytes are hashed from the memfds (World.Hash); a node with a
// segment cannot be checkpointed (a fork of it would share the memfd).

// shmAttach is one attachment: the process, where, and the segment.
type shmAttach struct {
	vpid int64
	addr uint64
	size uint64
	id   int
}

// shmLBA is SHMLBA on x86-64: a page.
const shmLBA = 4096

// Shmget implements shmget(2) in the node's namespace; a new segment
// gets a memfd of its size, zero-filled.
func sysShmget(c *call) result {
	cr, err := c.ipcCred()
	if err != nil {
		return errno(unix.ESRCH)
	}
	st := c.n.sysvIPC()
	id, created, err := st.ipc.ShmGet(cr, c.ipcPid(), int32(c.arg(0)), c.arg(1), int(int32(c.arg(2))), c.ipcNow())
	if err != nil {
		return ipcErr(err)
	}
	if created {
		fd, err := unix.MemfdCreate(fmt.Sprintf("weft-shm-n%d-%d", c.n.id, id), unix.MFD_CLOEXEC)
		if err == nil {
			err = unix.Ftruncate(fd, int64(c.arg(1)))
		}
		if err != nil {
			st.ipc.ShmCtl(vkernel.Cred{}, id, vkernel.IPCRmid, vkernel.CtlArg{}, 0)
			return errno(unix.ENOMEM)
		}
		st.mem[id] = fd
	}
	return ret(int64(id))
}

// Shmat implements shmat(2).
func sysShmat(c *call) result {
	id, addr, flg := int(int32(c.arg(0))), c.arg(1), int(int32(c.arg(2)))
	if flg&vkernel.ShmExec != 0 {
		return failf("shmat with SHM_EXEC is not modelled (executable shared memory)")
	}
	if addr%shmLBA != 0 {
		if flg&vkernel.ShmRnd == 0 {
			return errno(unix.EINVAL)
		}
		addr &^= shmLBA - 1
	}
	if addr == 0 && flg&vkernel.ShmRemap != 0 {
		return errno(unix.EINVAL)
	}
	cr, err := c.ipcCred()
	if err != nil {
		return errno(unix.ESRCH)
	}
	st := c.n.sysvIPC()
	size, err := st.ipc.ShmAt(cr, c.ipcPid(), id, flg, c.ipcNow())
	if err != nil {
		return ipcErr(err)
	}
	prot, flags := uint64(unix.PROT_READ|unix.PROT_WRITE), uint64(unix.MAP_SHARED)
	if flg&vkernel.ShmRdonly != 0 {
		prot = unix.PROT_READ
	}
	switch {
	case addr != 0 && flg&vkernel.ShmRemap != 0:
		flags |= unix.MAP_FIXED
	case addr != 0:
		flags |= unix.MAP_FIXED_NOREPLACE
	}
	got, r, ok := c.injectMap(st.mem[id], addr, size, prot, flags)
	if !ok {
		st.ipc.ShmDt(c.ipcPid(), id, c.ipcNow())
		return r
	}
	if e := -int64(got); e > 0 && e < 4096 {
		st.ipc.ShmDt(c.ipcPid(), id, c.ipcNow())
		if unix.Errno(e) == unix.EEXIST {
			e = int64(unix.EINVAL) // an attach over a mapping without SHM_REMAP
		}
		return c.heldAnswer(-e)
	}
	st.attached = append(st.attached, shmAttach{vpid: c.n.procOf(c.t).vpid, addr: got, size: size, id: id})
	return c.heldAnswer(int64(got))
}

// Shmdt implements shmdt(2): the caller's attachment at argument 0 is
// unmapped (EINVAL if it has none there).
func sysShmdt(c *call) result {
	st := c.n.sysvIPC()
	vpid, addr := c.n.procOf(c.t).vpid, c.arg(0)
	for i, a := range st.attached {
		if a.vpid != vpid || a.addr != addr {
			continue
		}
		got, r, ok := c.injectCalls([]injected{{nr: unix.SYS_MUNMAP, args: [6]uint64{a.addr, a.size}}})
		if !ok {
			return r
		}
		st.attached = append(st.attached[:i:i], st.attached[i+1:]...)
		st.release(a.id, st.ipc.ShmDt(int32(vpid), a.id, c.ipcNow()))
		return c.heldAnswer(int64(got[0]))
	}
	return errno(unix.EINVAL)
}

// Shmctl implements shmctl(2): argument 2 is the address of the
// segment's struct shmid64_ds or of IPC_INFO's and SHM_INFO's struct.
func sysShmctl(c *call) result {
	id, cmd, addr, cr, ca, e := c.ctlArgs(112)
	if e != 0 {
		return errno(e)
	}
	st := c.n.sysvIPC()
	v, out, gone, err := st.ipc.ShmCtl(cr, id, cmd, ca, c.ipcNow())
	st.release(id, gone)
	return c.ipcCtlAnswer(v, out, addr, err)
}

// release closes a removed segment's memfd.
func (st *sysvState) release(id int, gone bool) {
	if fd, ok := st.mem[id]; ok && gone {
		unix.Close(fd)
		delete(st.mem, id)
	}
}

// detachAll ends every attachment of process vpid (its exit or exec;
// the kernel has unmapped the memory).
func (st *sysvState) detachAll(vpid int64) {
	keep := st.attached[:0]
	for _, a := range st.attached {
		if a.vpid == vpid {
			st.release(a.id, st.ipc.ShmDt(int32(vpid), a.id, 0))
			continue
		}
		keep = append(keep, a)
	}
	st.attached = keep
}

// sysvFork gives forked process child its parent's attachments.
func (n *node) sysvFork(parent, child *proc) {
	if n.sysv == nil {
		return
	}
	st := n.sysv
	for _, a := range st.attached {
		if a.vpid == parent.vpid {
			st.ipc.ShmFork(a.id)
			b := a
			b.vpid = child.vpid
			st.attached = append(st.attached, b)
		}
	}
}

// sysvExec ends the attachments of a process that exec'd.
func (n *node) sysvExec(p *proc) {
	if n.sysv != nil {
		vpid := n.group()
		if p != nil {
			vpid = p.vpid
		}
		n.sysv.detachAll(vpid)
	}
}

// sysvRelease closes every segment's memfd (the node is gone).
func (n *node) sysvRelease() {
	if n.sysv == nil {
		return
	}
	for id, fd := range n.sysv.mem {
		unix.Close(fd)
		delete(n.sysv.mem, id)
	}
}

// hasSegments reports whether the node has a shared memory segment.
func (n *node) hasSegments() bool { return n.sysv != nil && len(n.sysv.mem) > 0 }

// hashSegments puts each segment's bytes, in id order (the namespace's
// hash has already put the ids and sizes).
func (st *sysvState) hashSegments(put func(uint64), write func([]byte)) {
	ids := make([]int, 0, len(st.mem))
	for id := range st.mem {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, a := range st.attached {
		put(uint64(a.vpid))
		put(a.addr)
		put(a.size)
		put(uint64(a.id))
	}
	if len(ids) == 0 {
		return // no buffer: every node is hashed at every state, most without segments
	}
	buf := make([]byte, 64<<10)
	for _, id := range ids {
		put(uint64(id))
		for off := int64(0); ; {
			k, err := unix.Pread(st.mem[id], buf, off)
			if k <= 0 || err != nil {
				break
			}
			write(buf[:k])
			off += int64(k)
		}
	}
}

// injected is one syscall weft has a stopped thread run.
type injected struct {
	nr   uint64
	args [6]uint64
}

// injectMap installs memfd in the caller and has it map the memfd
// (mmap(addr, size, prot, flags, fd, 0)) and close it; it returns
// mmap's raw answer (an address, or a negated errno).
func (c *call) injectMap(memfd int, addr, size, prot, flags uint64) (uint64, result, bool) {
	fd, err := injectFD(c.n.listener, c.req.ID, memfd, true)
	if err != nil {
		return 0, injectFailed(err), false
	}
	got, r, ok := c.injectCalls([]injected{
		{nr: unix.SYS_MMAP, args: [6]uint64{addr, size, prot, flags, uint64(fd), 0}},
		{nr: unix.SYS_CLOSE, args: [6]uint64{uint64(fd)}},
	})
	if !ok {
		return 0, r, false
	}
	return got[0], result{}, true
}

// injectCalls takes the calling thread out of its notification
// (PTRACE_INTERRUPT, then an answer, so it stops on its way back to user
// space, as a checkpoint does) and has it run calls at its syscall
// instruction, one after the other; it returns their raw answers. The
// thread is left stopped, held: heldAnswer sets what its call returns.
// A call the seccomp filter notifies (close) is let through once its
// notification is checked to be the injected one.
func (c *call) injectCalls(calls []injected) ([]uint64, result, bool) {
	n, t := c.n, c.t
	if err := n.seize(); err != nil {
		return nil, failf("%v", err), false
	}
	sysIP := c.req.Data.InstructionPointer - 2
	out := make([]uint64, len(calls))
	err := onLauncher(n.tracer, func() error {
		saved, err := c.holdOutOfCall(t)
		if err != nil {
			return err
		}
		mask, err := blockSignals(t.tid) // a pending signal waits for the call's return
		if err != nil {
			return err
		}
		for i, k := range calls {
			v, err := injectOne(t.tid, n.listener, saved, sysIP, k)
			if err != nil {
				return fmt.Errorf("injected syscall %d: %v", k.nr, err)
			}
			out[i] = v
		}
		if err := setSignalMask(t.tid, mask); err != nil {
			return err
		}
		return unix.PtraceSetRegs(t.tid, &saved)
	})
	if err != nil {
		return nil, failf("injected calls: %s: %v", t.name(), err), false
	}
	return out, result{}, true
}

// injectOne has tid, in a ptrace stop, run call k at sysIP and returns
// its raw answer; the registers are then regs's at the call's exit. On
// the tracer thread.
func injectOne(tid, listener int, regs unix.PtraceRegs, sysIP uint64, k injected) (uint64, error) {
	regs.Rip, regs.Rax, regs.Orig_rax = sysIP, k.nr, ^uint64(0)
	regs.Rdi, regs.Rsi, regs.Rdx, regs.R10, regs.R8, regs.R9 = k.args[0], k.args[1], k.args[2], k.args[3], k.args[4], k.args[5]
	if err := unix.PtraceSetRegs(tid, &regs); err != nil {
		return 0, err
	}
	if err := unix.PtraceSyscall(tid, 0); err != nil {
		return 0, err
	}
	if _, err := awaitSyscallStop(tid, syscallStop); err != nil { // its entry
		return 0, err
	}
	if err := unix.PtraceSyscall(tid, 0); err != nil {
		return 0, err
	}
	switch k.nr {
	case unix.SYS_CLOSE, unix.SYS_PPOLL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO: // the calls injected that the filter notifies
		nf, err := awaitNotif(tid, listener)
		if err != nil {
			return 0, err
		}
		if nf.Data.Nr != int32(k.nr) || nf.Data.Args[0] != k.args[0] || nf.Data.InstructionPointer != sysIP+2 {
			return 0, errors.New("expected the injected call's notification")
		}
		if err := sendResp(listener, &notifResp{ID: nf.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}); err != nil {
			return 0, err
		}
	}
	if _, err := awaitSyscallStop(tid, syscallStop); err != nil { // its exit
		return 0, err
	}
	var got unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &got); err != nil {
		return 0, err
	}
	return got.Rax, nil
}

// heldAnswer makes v the answer of the call whose thread injectCalls
// left stopped (a negative v an errno), and holds the thread until the
// scheduler runs it.
func (c *call) heldAnswer(v int64) result {
	t := c.t
	var err error
	c.n.onTracer(func() {
		var regs unix.PtraceRegs
		if err = unix.PtraceGetRegs(t.tid, &regs); err == nil {
			regs.Rax = uint64(v)
			err = unix.PtraceSetRegs(t.tid, &regs)
		}
	})
	if err != nil {
		return failf("injected calls: setting the answer: %v", err)
	}
	t.held, t.ready = true, true
	c.n.cur = nil
	return done()
}

// holdOutOfCall takes thread t out of the notification of c, its call
// (an interrupt, then an empty answer: the notification wait is
// killable only, so the interrupt alone does not end it), and holds it in
// a ptrace stop, returning its registers there. On the tracer thread.
func (c *call) holdOutOfCall(t *task) (unix.PtraceRegs, error) {
	var saved unix.PtraceRegs
	if err := ptraceInterrupt(t.tid); err != nil {
		return saved, fmt.Errorf("interrupt: %v", err)
	}
	if err := sendResp(c.n.listener, &notifResp{ID: c.req.ID}); err != nil {
		return saved, fmt.Errorf("answering the call: %v", err)
	}
	if _, err := awaitStop(t.tid, nil); err != nil {
		return saved, err
	}
	err := unix.PtraceGetRegs(t.tid, &saved)
	return saved, err
}
