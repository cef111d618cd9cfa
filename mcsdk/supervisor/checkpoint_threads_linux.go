//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Checkpoints of threaded nodes. A fork copies only the thread that
// calls it, so a checkpoint records, for every thread of a node, the
// kernel's per-thread state that the process's memory does not hold, and
// each copy recreates the threads other than the main one:
//
//   - at the checkpoint (freeze), every thread parked in a notification
//     is taken out of it as the main thread is (PTRACE_INTERRUPT, then an
//     answer); a thread held in a ptrace stop (a new thread before its
//     first instruction) is stopped already. weft then reads each one's
//     general registers (fs_base and gs_base included), its FP and vector
//     registers (PTRACE_GETREGSET NT_X86_XSTATE), its signal mask
//     (PTRACE_GETSIGMASK) and its robust-futex list (get_robust_list).
//     The main thread forks, and every parked thread issues its call
//     again, one at a time, so the world receives each under a new id.
//   - at each restore, the copy's main thread, stopped at its birth, runs
//     an injected clone(CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|
//     CLONE_THREAD|CLONE_SYSVSEM) per other thread, with
//     CLONE_CHILD_CLEARTID at the word the original's clone registered
//     (task.clearTID: glibc's pthread_join waits for the kernel to clear
//     it; set_tid_address is served virtually, so the kernel holds the
//     clone's word only). The new thread, traced from birth
//     (PTRACE_O_TRACECLONE), stays stopped; it runs an injected
//     set_robust_list if the original had a list (the list is per thread
//     and a clone or a fork starts without one; the main thread gets its
//     own back the same way), gets the signal mask, the FP state and the
//     registers, and issues its parked call again — or, held, stays in
//     its stop for the scheduler to resume it, as the original would.
//
// Thread ids are virtual (task.vtid, from the task's index), so a copy's
// threads keep their ids; the host tids of the copy replace the
// original's in its tasks, and everything else weft keeps about threads
// (futex waiters, calls, clear-tid words) refers to tasks, not tids, and
// is copied with the Go state.
//
// Not copied, and so refused: a thread held at its own clone (it is
// inside the clone call, which cannot be issued again without making a
// second thread), a main thread that is not parked in a call (it forks),
// calls a signal interrupted. rseq is refused by weft (sys_proc.go), so no
// thread has an rseq area to register again; sigaltstack is virtual
// (task.alt); thread names (PR_SET_NAME) are not copied and weft does not
// read them.

// threadState is one thread's kernel state, recorded at the checkpoint
// and put back in each copy.
type threadState struct {
	k        int             // the task's index
	regs     unix.PtraceRegs // parked: registers that issue its call again; held: as stopped
	sysIP    uint64          // parked: the call's syscall instruction; 0: held in a ptrace stop
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

// threadsCheckpointable says why n's threads cannot be copied: the main
// thread forks, so it must be parked in a call; every other live thread
// is parked in a call or held at its birth.
func (n *node) threadsCheckpointable() error {
	for _, t := range n.tasks {
		switch {
		case t.exited && t.k == 0:
			return errors.New("has ended its main thread")
		case t.exited:
			continue
		case t.p != nil:
			return errors.New("has child processes")
		case t.cloned:
			return fmt.Errorf("has thread %d held at its clone", t.k)
		case t.held && t.k == 0:
			return errors.New("has its main thread held in a ptrace stop")
		case t.held:
			continue
		case t.call == nil:
			return fmt.Errorf("has thread %d not parked in a call", t.k)
		case t.call.intr != nil:
			return fmt.Errorf("has thread %d in a call a signal interrupted", t.k)
		case t.call.req.Data.InstructionPointer < 2:
			return fmt.Errorf("has thread %d with no syscall instruction", t.k)
		}
	}
	return nil
}

// parked reports whether task t is in a notification weft holds (not in
// a ptrace stop).
func (t *task) parked() bool { return !t.exited && !t.held && t.call != nil }

// stopThreads takes every live thread of n out of its notification and
// records each thread's state, main thread first. On the tracer thread.
func stopThreads(n *node) ([]threadState, error) {
	for _, t := range n.tasks {
		if t.parked() {
			if err := ptraceInterrupt(t.tid); err != nil {
				return nil, fmt.Errorf("interrupting %s: %v", t.name(), err)
			}
		}
	}
	var out []threadState
	for _, t := range n.tasks {
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

// reissueThreads makes every thread of n other than the main one that
// was parked (ts) issue its call again and receives the call, one thread
// at a time. On the tracer thread.
func reissueThreads(n *node, ts []threadState) error {
	for _, s := range ts[1:] {
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

// makeThreads recreates, in n's process forked from a frozen one and
// stopped at its birth, every thread other than the main one (ts[1:]),
// and lets each parked one issue its call again; each task gets its new
// host tid. sysIP is a syscall instruction of the process. On the tracer
// thread.
func makeThreads(n *node, ts []threadState, sysIP uint64) error {
	for _, s := range ts[1:] {
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
		if err := writeThread(tid, &s, sysIP); err != nil {
			return fmt.Errorf("%s: %v", t.name(), err)
		}
		if s.sysIP == 0 {
			continue // held: it stays in its stop until the scheduler resumes it
		}
		if err := reissue(tid, s.regs, s.sysIP); err != nil {
			return fmt.Errorf("%s: %v", t.name(), err)
		}
		if err := awaitReissued(n, t); err != nil {
			return err
		}
	}
	return nil
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

// injectCall makes thread tid, in a ptrace stop, run system call nr with
// args at the syscall instruction sysIP, a call the seccomp filter lets
// through, and returns its result; the registers are left at the call's
// exit (the caller sets its own). On the tracer thread.
func injectCall(tid int, sysIP uint64, nr uint64, args ...uint64) (uint64, error) {
	var regs unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &regs); err != nil {
		return 0, err
	}
	regs.Rip, regs.Rax, regs.Orig_rax = sysIP, nr, ^uint64(0)
	for i, r := range []*uint64{&regs.Rdi, &regs.Rsi, &regs.Rdx, &regs.R10, &regs.R8, &regs.R9} {
		*r = 0
		if i < len(args) {
			*r = args[i]
		}
	}
	if err := unix.PtraceSetRegs(tid, &regs); err != nil {
		return 0, err
	}
	for stop := 0; stop < 2; stop++ { // the call's entry, then its exit
		if err := unix.PtraceSyscall(tid, 0); err != nil {
			return 0, err
		}
		if _, err := awaitStop(tid, syscallStop); err != nil {
			return 0, err
		}
	}
	if err := unix.PtraceGetRegs(tid, &regs); err != nil {
		return 0, err
	}
	return regs.Rax, nil
}

// ptraceRaw is a ptrace request the x/sys wrappers do not offer.
func ptraceRaw(req, tid int, addr, data uintptr) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(tid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
