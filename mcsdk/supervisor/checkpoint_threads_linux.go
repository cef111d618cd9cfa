//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Checkpoints of threaded nodes. A fork copies only the thread that
// calls it, so a checkpoint records, for every thread of a node, the
// kernel's per-thread state that the process's memory does not hold, and
// each copy recreates them:
//
//   - at the checkpoint (freeze), every thread parked in a notification
//     is taken out of it as a single thread is (PTRACE_INTERRUPT, then an
//     answer); a thread held in a ptrace stop (a new thread before its
//     first instruction, or a thread at its clone's event) is stopped
//     already. weft then reads each one's general registers (fs_base and
//     gs_base included), its FP and vector registers (PTRACE_GETREGSET
//     NT_X86_XSTATE), its signal mask (PTRACE_GETSIGMASK) and its
//     robust-futex list (get_robust_list). The first parked thread forks,
//     and every parked thread issues its call again, one at a time, so
//     the world receives each under a new id.
//   - at each restore (makeThreads), the copy's one thread, stopped at
//     its birth, takes the main thread's state (the copy's process is
//     the main thread's thread group), after running an injected
//     clone(CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|
//     CLONE_SYSVSEM) per other thread, with CLONE_CHILD_CLEARTID at the
//     word the original's clone registered (task.clearTID: glibc's
//     pthread_join waits for the kernel to clear it; set_tid_address is
//     served virtually, so the kernel holds the clone's word only). Each
//     new thread, traced from birth (PTRACE_O_TRACECLONE), stays stopped;
//     it runs an injected set_robust_list if the original had a list (the
//     list is per thread and a clone or a fork starts without one), gets
//     the signal mask, the FP state and the registers, and issues its
//     parked call again — or, held, stays in its stop for the scheduler
//     to resume it, as the original would.
//   - a thread held at its clone's event is inside the clone call: in the
//     copy it issues that clone again, with the original's registers and
//     arguments (clone or glibc's clone3), and stops at its event; the
//     thread the clone makes is the original's new thread (its state put
//     back, if it ran since), and the tid words the kernel writes
//     (CLONE_PARENT_SETTID, CLONE_CHILD_SETTID) get back what the
//     original's held (weft wrote the virtual tid there).
//
// Thread ids are virtual (task.vtid, from the task's index), so a copy's
// threads keep their ids; the host tids of the copy replace the
// original's in its tasks, and everything else weft keeps about threads
// (futex waiters, calls, clear-tid words) refers to tasks, not tids, and
// is copied with the Go state.
//
// A node whose every thread is held in a ptrace stop (none parked: a Go
// program's threads between their switches) forks from a thread held
// outside a call, at the syscall instruction before its instruction
// pointer or one in its vDSO or images (heldSyscall); its registers are
// put back after the fork, so it stays held as it was.
//
// Refused: a node whose every thread is held at its clone (none can
// fork; not seen: the newest thread is held at its birth), or whose main
// thread ended, or a thread held at its clone whose new
// thread ended, calls a signal interrupted. rseq is refused by weft
// (sys_proc.go), so no thread has an rseq area to register again;
// sigaltstack is virtual (task.alt); thread names (PR_SET_NAME) are not
// copied and weft does not read them.

// threadState is one thread's kernel state, recorded at the checkpoint
// and put back in each copy.
type threadState struct {
	k        int             // the task's index
	regs     unix.PtraceRegs // parked: registers that issue its call again; held: as stopped
	sysIP    uint64          // parked: the call's syscall instruction; 0: held in a ptrace stop
	cloned   bool            // held at its clone's event stop
	child    int             // cloned: the index of the thread its clone made
	xstate   []byte          // FP and vector registers (NT_X86_XSTATE)
	mask     uint64          // signal mask
	robust   [2]uint64       // robust-futex list head and length; head 0: none
	clearTID uint64          // CLONE_CHILD_CLEARTID word; 0 none
}

// threadCloneFlags are the injected clone's flags for a thread, as
// glibc's pthread_create and the Go runtime make them (without
// CLONE_SETTLS and the tid words: the registers and clearTID follow).
const threadCloneFlags = uint64(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND |
	unix.CLONE_THREAD | unix.CLONE_SYSVSEM)

// Ptrace requests and the note the x/sys wrappers do not cover on amd64.
const (
	ptraceGetRegset  = 0x4204
	ptraceSetRegset  = 0x4205
	ptraceGetSigmask = 0x420a
	ptraceSetSigmask = 0x420b
	ntX86Xstate      = 0x202
	xstateMax        = 1 << 14 // larger than any x86-64 XSAVE area without AMX tiles
)

// threadsCheckpointable says why the threads of one of n's processes,
// tasks (its leader first, ended ones included), cannot be copied: each
// live thread must be parked in a call or held in a ptrace stop (at its
// birth, or at a thread clone with the thread it made alive), and one at
// least parked or held outside a call (it forks: pickForker); the
// leader must be alive (the copy's process is its thread group).
func threadsCheckpointable(n *node, tasks []*task) error {
	forker := false
	for i, t := range tasks {
		switch {
		case t.exited && i == 0:
			return errors.New("has ended its main thread")
		case t.exited:
			continue
		case t.cloned:
			c := n.taskByVtid(t.childVtid)
			if c == nil {
				return fmt.Errorf("has thread %d held at its clone, the new thread gone", t.k)
			}
			if c.p != t.p {
				return fmt.Errorf("has thread %d held at its fork", t.k)
			}
		case t.held:
			forker = true
		case t.call == nil:
			return fmt.Errorf("has thread %d not parked in a call", t.k)
		case t.call.intr != nil:
			return fmt.Errorf("has thread %d in a call a signal interrupted", t.k)
		case t.call.req.Data.InstructionPointer < 2:
			return fmt.Errorf("has thread %d with no syscall instruction", t.k)
		default:
			forker = true
		}
	}
	if !forker {
		return errors.New("has no thread parked in a call or held outside one")
	}
	return nil
}

// parked reports whether task t is in a notification weft holds (not in
// a ptrace stop).
func (t *task) parked() bool { return !t.exited && !t.held && t.call != nil }

// parkedCall is the call of the first parked thread of tasks (a
// notification through which descriptors are installed in their
// process), nil if none is (a process with none gets its host files
// through an injected call: heldNotif).
func parkedCall(tasks []*task) *call {
	for _, t := range tasks {
		if t.parked() {
			return t.call
		}
	}
	return nil
}

// stopThreads takes every live thread of tasks, one process of n, out of
// its notification and records each thread's state, the leader first. On
// the tracer thread.
func stopThreads(n *node, tasks []*task) ([]threadState, error) {
	for _, t := range tasks {
		if t.parked() {
			if err := ptraceInterrupt(t.tid); err != nil {
				return nil, fmt.Errorf("interrupting %s: %v", t.name(), err)
			}
		}
	}
	var out []threadState
	for _, t := range tasks {
		if t.exited {
			continue
		}
		ts := threadState{k: t.k, clearTID: t.clearTID}
		if t.parked() {
			// The wait is killable only once received: answer it, and the
			// thread stops at the interrupt before it returns to user space.
			r := notifResp{ID: t.call.req.ID, Val: -1, Error: -int32(unix.EINTR)}
			if err := sendResp(n.listener, &r); err != nil && !errors.Is(err, unix.ENOENT) {
				return nil, fmt.Errorf("answering the parked call of %s: %v", t.name(), err)
			}
			if _, err := awaitStop(t.tid, nil); err != nil {
				return nil, err
			}
			ts.sysIP = t.call.req.Data.InstructionPointer - 2
		}
		if t.cloned {
			ts.cloned, ts.child = true, n.taskByVtid(t.childVtid).k
		}
		if err := readThread(t.tid, &ts); err != nil {
			return nil, fmt.Errorf("%s: %v", t.name(), err)
		}
		out = append(out, ts)
	}
	return out, nil
}

// readThread reads thread tid's state, in a ptrace stop, into ts.
func readThread(tid int, ts *threadState) error {
	if err := unix.PtraceGetRegs(tid, &ts.regs); err != nil {
		return err
	}
	if ts.sysIP != 0 {
		ts.regs.Rax = ts.regs.Orig_rax // the call's number, to issue it again
	}
	buf := make([]byte, xstateMax)
	iov := unix.Iovec{Base: &buf[0], Len: uint64(len(buf))}
	if err := ptraceRaw(ptraceGetRegset, tid, ntX86Xstate, uintptr(unsafe.Pointer(&iov))); err != nil {
		return fmt.Errorf("reading the FP state: %v", err)
	}
	ts.xstate = append([]byte(nil), buf[:iov.Len]...)
	if err := ptraceRaw(ptraceGetSigmask, tid, 8, uintptr(unsafe.Pointer(&ts.mask))); err != nil {
		return fmt.Errorf("reading the signal mask: %v", err)
	}
	_, _, e := unix.RawSyscall(unix.SYS_GET_ROBUST_LIST, uintptr(tid), uintptr(unsafe.Pointer(&ts.robust[0])), uintptr(unsafe.Pointer(&ts.robust[1])))
	if e != 0 {
		return fmt.Errorf("reading the robust-futex list: %v", e)
	}
	return nil
}

// reissueThreads makes every thread of n that was parked (ts) issue its
// call again and receives the call, one thread at a time. On the tracer
// thread.
func reissueThreads(n *node, ts []threadState) error {
	for _, s := range ts {
		if s.sysIP == 0 {
			continue
		}
		t := n.tasks[s.k]
		if err := reissue(t.tid, s.regs, s.sysIP); err != nil {
			return fmt.Errorf("%s: %v", t.name(), err)
		}
		if err := awaitReissued(n, t); err != nil {
			return err
		}
	}
	return nil
}

// awaitReissued receives the notification of t's parked call issued
// again (reissue), which becomes the call's. On the tracer thread.
func awaitReissued(n *node, t *task) error {
	c := t.call
	nf, err := awaitNotif(t.tid, n.listener)
	if err != nil {
		return err
	}
	if nf.Data.Nr != c.req.Data.Nr || nf.Data.Args != c.req.Data.Args || nf.Data.InstructionPointer != c.req.Data.InstructionPointer {
		return fmt.Errorf("%s: the parked call came back as syscall %d at %#x", t.name(), nf.Data.Nr, nf.Data.InstructionPointer)
	}
	c.req = nf
	return nil
}

// makeThreads gives n's process, forked from a frozen one (its one
// thread a copy of the forker, stopped at its birth), the node's threads
// in their recorded states ts, and lets each parked one issue its call
// again; each task gets its new host tid. The process first moves to dir
// ("" stays). sysIP is the forker's syscall instruction. On the tracer
// thread.
//
// The process's own thread becomes the main thread; every other thread
// is made by an injected clone, except a thread that a thread held at
// its clone made: that clone is issued again, as the original issued it,
// and leaves its parent at the clone's event, as the original is.
func makeThreads(n *node, ts []threadState, sysIP uint64, dir string) error {
	if dir != "" {
		if err := injectChdir(n.pid, sysIP, dir); err != nil {
			return fmt.Errorf("moving to its data directory: %v", err)
		}
	}
	made := map[int]bool{}
	for _, s := range ts {
		if s.cloned {
			made[s.child] = true
		}
	}
	for i := range ts[1:] {
		if s := &ts[1+i]; !made[s.k] {
			if err := recreateThread(n, s, sysIP); err != nil {
				return err
			}
		}
	}
	if err := writeThread(n.pid, &ts[0], sysIP); err != nil {
		return fmt.Errorf("%s: %v", n.tasks[0].name(), err)
	}
	for i := range ts {
		if s := &ts[i]; s.cloned {
			if err := reclone(n, s, &ts[indexOf(ts, s.child)], sysIP); err != nil {
				return err
			}
		}
	}
	return reissueThreads(n, ts)
}

// indexOf is the position of task k's state in ts.
func indexOf(ts []threadState, k int) int {
	for i := range ts {
		if ts[i].k == k {
			return i
		}
	}
	return -1
}

// recreateThread makes thread s of n, stopped, by a clone injected in the
// process's main thread at sysIP, with s's state.
func recreateThread(n *node, s *threadState, sysIP uint64) error {
	t := n.tasks[s.k]
	flags, ctid := threadCloneFlags, uint64(0)
	if s.clearTID != 0 {
		flags, ctid = flags|unix.CLONE_CHILD_CLEARTID, s.clearTID
	}
	tid, err := injectClone(n.pid, n.listener, sysIP, flags, ctid, unix.PTRACE_EVENT_CLONE)
	if err != nil {
		return fmt.Errorf("recreating %s: %v", t.name(), err)
	}
	t.tid = tid
	if err := writeThread(tid, s, sysIP); err != nil {
		return fmt.Errorf("%s: %v", t.name(), err)
	}
	return nil
}

// reclone makes thread s of n, held at its clone, issue that clone
// again: it stops at the clone's event, and the new thread, stopped at
// its birth, becomes thread c and gets c's state. The words the kernel
// writes the new thread's tid to (CLONE_PARENT_SETTID,
// CLONE_CHILD_SETTID) get back what the original held.
func reclone(n *node, s, c *threadState, sysIP uint64) error {
	t := n.tasks[s.k]
	words, err := settidWords(t.tid, &s.regs)
	if err != nil {
		return fmt.Errorf("%s: %v", t.name(), err)
	}
	regs := s.regs
	regs.Rip, regs.Rax, regs.Orig_rax = s.regs.Rip-2, s.regs.Orig_rax, ^uint64(0)
	if err := unix.PtraceSetRegs(t.tid, &regs); err != nil {
		return err
	}
	if err := unix.PtraceCont(t.tid, 0); err != nil {
		return err
	}
	nf, err := awaitNotif(t.tid, n.listener)
	if err != nil {
		return err
	}
	if uint64(nf.Data.Nr) != s.regs.Orig_rax || nf.Data.InstructionPointer != s.regs.Rip {
		return fmt.Errorf("%s: expected its clone again, got syscall %d at %#x", t.name(), nf.Data.Nr, nf.Data.InstructionPointer)
	}
	if err := sendResp(n.listener, &notifResp{ID: nf.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}); err != nil {
		return err
	}
	if _, err := awaitStop(t.tid, func(ws unix.WaitStatus) bool { return ws.TrapCause() == unix.PTRACE_EVENT_CLONE }); err != nil {
		return err
	}
	child, err := unix.PtraceGetEventMsg(t.tid)
	if err != nil {
		return err
	}
	if _, err := awaitStop(int(child), nil); err != nil {
		return err
	}
	ct := n.tasks[c.k]
	ct.tid = int(child)
	for addr, b := range words {
		if k, err := writeMem(t.tid, uintptr(addr), b); k != len(b) {
			return fmt.Errorf("%s: restoring the tid word at %#x: %v", t.name(), addr, err)
		}
	}
	if err := writeThread(ct.tid, c, sysIP); err != nil {
		return fmt.Errorf("%s: %v", ct.name(), err)
	}
	return nil
}

// settidWords reads the words a clone or clone3 with registers regs
// has the kernel write the new thread's tid to, by address.
func settidWords(tid int, regs *unix.PtraceRegs) (map[uint64][]byte, error) {
	flags, ptid, ctid := regs.Rdi, regs.Rdx, regs.R10
	if regs.Orig_rax == unix.SYS_CLONE3 {
		b := make([]byte, 32) // struct clone_args: flags, pidfd, child_tid, parent_tid
		if k, err := readMem(tid, uintptr(regs.Rdi), b); k != len(b) {
			return nil, fmt.Errorf("reading clone3's arguments: %v", err)
		}
		le := binary.LittleEndian
		flags, ctid, ptid = le.Uint64(b[0:]), le.Uint64(b[16:]), le.Uint64(b[24:])
	} else if regs.Orig_rax != unix.SYS_CLONE {
		return nil, fmt.Errorf("held at syscall %d, not a clone", regs.Orig_rax)
	}
	out := map[uint64][]byte{}
	for _, w := range []struct {
		flag uint64
		addr uint64
	}{{unix.CLONE_PARENT_SETTID, ptid}, {unix.CLONE_CHILD_SETTID, ctid}} {
		if flags&w.flag != 0 && w.addr != 0 {
			b := make([]byte, 4)
			if k, err := readMem(tid, uintptr(w.addr), b); k != len(b) {
				return nil, fmt.Errorf("reading the tid word at %#x: %v", w.addr, err)
			}
			out[w.addr] = b
		}
	}
	return out, nil
}

// writeThread puts recorded state ts back into thread tid, in a ptrace
// stop: its robust-futex list (an injected set_robust_list at sysIP), its
// signal mask, its FP state and its registers.
func writeThread(tid int, ts *threadState, sysIP uint64) error {
	if err := setRobustList(tid, ts, sysIP); err != nil {
		return err
	}
	if err := ptraceRaw(ptraceSetSigmask, tid, 8, uintptr(unsafe.Pointer(&ts.mask))); err != nil {
		return fmt.Errorf("setting the signal mask: %v", err)
	}
	buf := append([]byte(nil), ts.xstate...)
	iov := unix.Iovec{Base: &buf[0], Len: uint64(len(buf))}
	if err := ptraceRaw(ptraceSetRegset, tid, ntX86Xstate, uintptr(unsafe.Pointer(&iov))); err != nil {
		return fmt.Errorf("setting the FP state: %v", err)
	}
	return unix.PtraceSetRegs(tid, &ts.regs)
}

// setRobustList registers ts's robust-futex list in thread tid, in a
// ptrace stop, by an injected set_robust_list (a call weft passes
// through) at sysIP; nothing if ts had none.
func setRobustList(tid int, ts *threadState, sysIP uint64) error {
	if ts.robust[0] == 0 {
		return nil
	}
	r, err := injectCall(tid, sysIP, unix.SYS_SET_ROBUST_LIST, ts.robust[0], ts.robust[1])
	if err == nil && int64(r) < 0 {
		err = unix.Errno(-int64(r))
	}
	if err != nil {
		return fmt.Errorf("setting the robust-futex list: %v", err)
	}
	return nil
}

// setCallRegs points thread tid, in a ptrace stop, at the syscall
// instruction sysIP with call nr and its arguments (the others zero).
func setCallRegs(tid int, sysIP, nr uint64, args []uint64) error {
	var regs unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &regs); err != nil {
		return err
	}
	regs.Rip, regs.Rax, regs.Orig_rax = sysIP, nr, ^uint64(0)
	for i, r := range []*uint64{&regs.Rdi, &regs.Rsi, &regs.Rdx, &regs.R10, &regs.R8, &regs.R9} {
		*r = 0
		if i < len(args) {
			*r = args[i]
		}
	}
	return unix.PtraceSetRegs(tid, &regs)
}

// injectCall makes thread tid, in a ptrace stop, run system call nr with
// args at the syscall instruction sysIP, a call the seccomp filter lets
// through, and returns its result; the registers are left at the call's
// exit (the caller sets its own). On the tracer thread.
func injectCall(tid int, sysIP uint64, nr uint64, args ...uint64) (uint64, error) {
	if err := setCallRegs(tid, sysIP, nr, args); err != nil {
		return 0, err
	}
	return runCall(tid, syscallStop)
}

// ptraceRaw is a ptrace request the x/sys wrappers do not offer.
func ptraceRaw(req, tid int, addr, data uintptr) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(tid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
