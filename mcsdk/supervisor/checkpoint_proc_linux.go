//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// freeze forks node n, parked or held, into a frozen process, and lets
// n's threads issue their parked calls again
// (checkpoint_threads_linux.go). The forker is the first parked thread,
// or, if every thread is held in a ptrace stop, the first one held
// outside a call (pickForker), whose registers are put back after the
// fork so that it stays in its stop as it was. The process work runs on
// the tracer thread in one go (every ptrace request must come from it;
// one hop, not one per request). tasks are the threads of the process
// (n's process fields describe it: asMember); a child process's frozen
// copy is made weft's child (adoptFork).
func freeze(n *node, tasks []*task, child bool) (*frozenProc, error) {
	fp := &frozenProc{tracer: n.tracer}
	err := onLauncher(n.tracer, func() error {
		var err error
		if fp.threads, err = stopThreads(n, tasks); err != nil {
			return err
		}
		k, err := pickForker(n, fp.threads)
		if err != nil {
			return err
		}
		f := &fp.threads[k]
		fp.fk, fp.sysIP = k, f.sysIP
		if fp.sysIP == 0 {
			if fp.sysIP, err = heldSyscall(n.tasks[f.k].tid, &f.regs); err != nil {
				return fmt.Errorf("%s: %v", n.tasks[f.k].name(), err)
			}
		}
		tid := n.tasks[f.k].tid
		if _, err := blockSignals(tid); err != nil { // f.mask is the thread's
			return fmt.Errorf("%s: %v", n.tasks[f.k].name(), err)
		}
		if child {
			fp.pid, err = adoptFork(tid, n.listener, fp.sysIP)
		} else {
			fp.pid, err = injectFork(tid, n.listener, fp.sysIP)
		}
		if err != nil {
			return err
		}
		if err := setSignalMask(tid, f.mask); err != nil {
			return fmt.Errorf("%s: %v", n.tasks[f.k].name(), err)
		}
		if f.sysIP == 0 {
			// Held: back in its stop (now an injected call's exit) as it was.
			if err := unix.PtraceSetRegs(tid, &f.regs); err != nil {
				return fmt.Errorf("%s: putting its registers back: %v", n.tasks[f.k].name(), err)
			}
		}
		return reissueThreads(n, fp.threads)
	})
	if err != nil {
		if fp.pid > 0 {
			unix.Kill(fp.pid, unix.SIGKILL)
			wait4(fp.pid, 0)
		}
		return nil, err
	}
	return fp, nil
}

// pickForker chooses the thread (its index in ts) the frozen process is
// forked from: the first parked one, else the first held in a ptrace
// stop outside any call (a new thread at its birth): a thread held at
// its clone's event is inside that call, which an injected call would
// disturb. threadsCheckpointable has made sure there is one.
func pickForker(n *node, ts []threadState) (int, error) {
	for i := range ts {
		if ts[i].sysIP != 0 {
			return i, nil
		}
	}
	for i := range ts {
		if !ts[i].cloned {
			return i, nil
		}
	}
	return -1, errors.New("no thread is parked in a call or held outside one")
}

// heldSyscall finds a syscall instruction for thread tid, held in a
// ptrace stop with registers regs, to inject calls at: the one before
// its instruction pointer if there is one (a new thread stops just after
// its clone's), else one in the process's vDSO or images (vdsoSyscall).
// On the tracer thread.
func heldSyscall(tid int, regs *unix.PtraceRegs) (uint64, error) {
	var insn [2]byte
	if regs.Rip >= 2 {
		if k, _ := readMem(tid, uintptr(regs.Rip-2), insn[:]); k == 2 && insn == [2]byte{0x0f, 0x05} {
			return regs.Rip - 2, nil
		}
	}
	return vdsoSyscall(tid)
}

// fork starts a process in the frozen one's state, stopped at its birth:
// one thread, the forker's copy (start recreates the node's threads).
func (fp *frozenProc) fork(listener int) (int, error) {
	var pid int
	err := onLauncher(fp.tracer, func() error {
		var err error
		pid, err = injectFork(fp.pid, listener, fp.sysIP)
		return err
	})
	return pid, err
}

// injectFork makes tid, in a ptrace stop, fork at its syscall
// instruction sysIP (injectClone with cloneFlags); it returns the child's
// pid. On the tracer thread.
func injectFork(tid, listener int, sysIP uint64) (int, error) {
	return injectClone(tid, listener, sysIP, cloneFlags, 0, unix.PTRACE_EVENT_FORK)
}

// injectClone makes tid, in a ptrace stop, run clone(flags, 0, 0, ctid)
// at its syscall instruction sysIP, which weft receives and lets
// through; the child, traced from birth, stays stopped at birth and tid
// at the clone's exit, after ptrace event (PTRACE_EVENT_FORK for a
// process, PTRACE_EVENT_CLONE for a thread). It returns the child's id.
// On the tracer thread.
func injectClone(tid, listener int, sysIP, flags, ctid uint64, event int) (int, error) {
	var regs unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &regs); err != nil {
		return -1, err
	}
	regs.Rip, regs.Rax, regs.Orig_rax = sysIP, cloneNr, ^uint64(0)
	regs.Rdi, regs.Rsi, regs.Rdx, regs.R10, regs.R8 = flags, 0, 0, ctid, 0
	if err := unix.PtraceSetRegs(tid, &regs); err != nil {
		return -1, err
	}
	if err := unix.PtraceCont(tid, 0); err != nil {
		return -1, err
	}
	nf, err := awaitNotif(tid, listener)
	if err != nil {
		return -1, err
	}
	if nf.Data.Nr != cloneNr || nf.Data.Args[0] != flags || nf.Data.InstructionPointer != sysIP+2 {
		return -1, fmt.Errorf("expected the injected clone, got syscall %d at %#x", nf.Data.Nr, nf.Data.InstructionPointer)
	}
	if err := sendResp(listener, &notifResp{ID: nf.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}); err != nil {
		return -1, err
	}
	if _, err := awaitStop(tid, func(ws unix.WaitStatus) bool { return ws.TrapCause() == event }); err != nil {
		return -1, err
	}
	child, err := unix.PtraceGetEventMsg(tid)
	if err != nil {
		return -1, err
	}
	if _, err := awaitStop(int(child), nil); err != nil {
		return -1, err
	}
	// The parent runs on to the clone's exit and stops there.
	if err := unix.PtraceSyscall(tid, 0); err != nil {
		return -1, err
	}
	if _, err := awaitSyscallStop(tid, syscallStop); err != nil {
		return -1, err
	}
	return int(child), nil
}

// syscallStop accepts a syscall-entry or -exit stop (PTRACE_O_TRACESYSGOOD).
func syscallStop(ws unix.WaitStatus) bool { return ws.StopSignal() == unix.SIGTRAP|0x80 }

// reissue makes tid, in a ptrace stop, issue its parked call again: regs
// at the syscall instruction sysIP. On the tracer thread.
func reissue(tid int, regs unix.PtraceRegs, sysIP uint64) error {
	regs.Rip, regs.Orig_rax = sysIP, ^uint64(0)
	if err := unix.PtraceSetRegs(tid, &regs); err != nil {
		return err
	}
	return unix.PtraceCont(tid, 0)
}

// receiveReissued receives the notification of n's main thread's parked
// call issued again (reissue), which becomes the call's.
func receiveReissued(n *node) error {
	return onLauncher(n.tracer, func() error { return awaitReissued(n, n.tasks[0]) })
}

// onLauncher runs f on the launcher's thread, the tracer of every node.
func onLauncher(l *launcher, f func() error) error {
	var err error
	done := make(chan struct{})
	l.fns <- func() { err = f(); close(done) }
	<-done
	return err
}

func ptraceInterrupt(tid int) error {
	_, _, e := unix.RawSyscall6(unix.SYS_PTRACE, unix.PTRACE_INTERRUPT, uintptr(tid), 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// checkpointWait bounds each wait of a checkpoint for a notification.
const checkpointWait = 10 * time.Second

// Signals met while weft drives a thread. weft injects calls into a
// node's threads (a checkpoint's fork, a chdir's fchdir, SysV shared
// memory's mmap, hiding [vvar] at an exec, ...) and has parked calls
// issued again; a signal-delivery stop on the way would be taken at an
// injected call's return, where Linux never delivers one, and resuming
// it with no signal loses it. So the calls are injected with every
// signal blocked (blockSignals; the thread's mask is put back before it
// returns to the node's code): a signal pending for the thread stays
// pending, and the kernel delivers it as Linux would, at the return to
// user space after the thread's own call. A delivery stop met all the
// same (a signal that cannot be blocked, a call issued again under the
// node's mask) is judged by metSignal: one the process ignores (by
// default or explicitly) is discarded, as the kernel discards it at
// delivery (the Go launcher's SIGURG, pending across its execve, is
// one: an exec resets the handlers); any other ends the wait with a
// signalMetError, and the run with verdict error naming the signal and
// the thread, rather than drop it.

// blockSignals blocks every signal of thread tid, in a ptrace stop, for
// the calls weft injects (the kernel keeps SIGKILL and SIGSTOP
// unblocked), and returns the thread's mask, which setSignalMask puts
// back. On the tracer thread.
func blockSignals(tid int) (uint64, error) {
	var old uint64
	if err := ptraceRaw(ptraceGetSigmask, tid, 8, uintptr(unsafe.Pointer(&old))); err != nil {
		return 0, fmt.Errorf("reading the signal mask: %v", err)
	}
	return old, setSignalMask(tid, ^uint64(0))
}

// setSignalMask sets the signal mask of thread tid, in a ptrace stop. On
// the tracer thread.
func setSignalMask(tid int, mask uint64) error {
	if err := ptraceRaw(ptraceSetSigmask, tid, 8, uintptr(unsafe.Pointer(&mask))); err != nil {
		return fmt.Errorf("setting the signal mask: %v", err)
	}
	return nil
}

// signalMetError is a signal weft met while it drove a thread and
// cannot deliver there (metSignal).
type signalMetError struct {
	tid, sig int
}

func (e *signalMetError) Error() string {
	return fmt.Sprintf("%s arrived while weft drove the thread through a call of its own (an injected call, or a parked call issued again): weft cannot deliver it there, and will not drop it",
		unix.SignalName(unix.Signal(e.sig)))
}

// metSignal judges the signal-delivery stop ws of thread tid met while
// weft drives it: nil if the thread's process ignores the signal (the
// kernel would discard it at delivery: resume with no signal), else a
// signalMetError.
func metSignal(tid int, ws unix.WaitStatus) error {
	sig := int(ws.StopSignal())
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid)); err == nil {
		if st, err := vkernel.ParseTaskStatus(b); err == nil && st.Sig.Disposition(sig) == vkernel.DispIgnore {
			return nil
		}
	}
	return &signalMetError{tid: tid, sig: sig}
}

// failSignalMet ends the run with verdict error if err is a signal met
// while weft drove a thread (signalMetError), naming the node, the
// thread and the signal.
func (w *World) failSignalMet(err error) {
	var e *signalMetError
	if !errors.As(err, &e) {
		return
	}
	for _, n := range w.nodes {
		for _, t := range n.tasks {
			if !t.exited && t.tid == e.tid {
				w.fail(n, "", fmt.Sprintf("%s: %v", t.name(), e))
				return
			}
		}
	}
}

// signalStop reports whether ws is a signal-delivery stop.
func signalStop(ws unix.WaitStatus) bool {
	return ws.Stopped() && ws.TrapCause() <= 0 && ws.StopSignal() != unix.SIGTRAP
}

// awaitStop waits for tid's next ptrace stop that want accepts (any, if
// want is nil); it blocks: every caller has just made the stop certain.
// A signal's delivery stop on the way is judged by metSignal. On the
// tracer thread.
func awaitStop(tid int, want func(unix.WaitStatus) bool) (unix.WaitStatus, error) {
	return awaitStopThen(tid, want, unix.PtraceCont)
}

// awaitSyscallStop is awaitStop for a tracee restarted with
// PTRACE_SYSCALL: an ignored signal's stop on the way is resumed with
// PTRACE_SYSCALL again, so the syscall stop still comes. PTRACE_CONT
// would run the tracee past it, and the wait would never end (a launch
// by the Go launcher hung so in hideVvar, about one in three here: the
// Go runtime's SIGURG, sent to the launcher's thread before its execve,
// stays pending across it).
func awaitSyscallStop(tid int, want func(unix.WaitStatus) bool) (unix.WaitStatus, error) {
	return awaitStopThen(tid, want, unix.PtraceSyscall)
}

// awaitStopThen is awaitStop, resuming an ignored signal's stop with
// resume.
func awaitStopThen(tid int, want func(unix.WaitStatus) bool, resume func(pid int, signal int) error) (unix.WaitStatus, error) {
	for {
		_, ws, err := wait4(tid, 0)
		switch {
		case err != nil:
			return ws, err
		case ws.Exited() || ws.Signaled():
			return ws, fmt.Errorf("process %d ended (%s)", tid, describeWait(ws))
		case ws.Stopped() && (want == nil || want(ws)):
			return ws, nil
		case signalStop(ws):
			if err := metSignal(tid, ws); err != nil {
				return ws, err
			}
			if err := resume(tid, 0); err != nil {
				return ws, err
			}
		default:
			return ws, fmt.Errorf("process %d: unexpected stop %#x", tid, uint32(ws))
		}
	}
}

// awaitNotif waits for tid's next notification on listener; a signal's
// delivery stop meanwhile is judged by metSignal. On the tracer thread.
func awaitNotif(tid, listener int) (notif, error) {
	deadline := time.Now().Add(checkpointWait)
	fds := []unix.PollFd{{Fd: int32(listener), Events: unix.POLLIN}}
	for {
		k, err := unix.Poll(fds, 1)
		if err != nil && err != unix.EINTR {
			return notif{}, err
		}
		if k > 0 && fds[0].Revents&unix.POLLIN != 0 {
			var nf notif
			if err := recvNotif(listener, &nf); err != nil {
				return notif{}, err
			}
			if int(nf.Pid) != tid {
				return notif{}, fmt.Errorf("notification from process %d while waiting for %d", nf.Pid, tid)
			}
			return nf, nil
		}
		got, ws, err := wait4(tid, unix.WNOHANG)
		if err != nil {
			return notif{}, err
		}
		if got == tid {
			if !signalStop(ws) {
				return notif{}, fmt.Errorf("process %d: unexpected wait status %#x", tid, uint32(ws))
			}
			if err := metSignal(tid, ws); err != nil {
				return notif{}, err
			}
			if err := unix.PtraceCont(tid, 0); err != nil {
				return notif{}, err
			}
		}
		if time.Now().After(deadline) {
			return notif{}, fmt.Errorf("process %d never issued its call", tid)
		}
	}
}

// injectChdir moves process pid, in a ptrace stop, to dir: a chdir
// injected at the syscall instruction sysIP (marked injectedChdir, which
// the filter passes),
// its path written over the top of the stack for the call and put back
// after it; the registers are left at the call's exit (the caller sets
// its own). On the tracer's thread.
func injectChdir(pid int, sysIP uint64, dir string) error {
	var saved unix.PtraceRegs
	if err := unix.PtraceGetRegs(pid, &saved); err != nil {
		return err
	}
	path := append([]byte(dir), 0)
	addr := uintptr(saved.Rsp)
	old := make([]byte, len(path))
	if k, err := readMem(pid, addr, old); k != len(old) {
		return fmt.Errorf("reading the stack: %v", err)
	}
	if k, err := writeMem(pid, addr, path); k != len(path) {
		return fmt.Errorf("writing the stack: %v", err)
	}
	regs := saved
	regs.Rip, regs.Rax, regs.Orig_rax, regs.Rdi, regs.Rsi = sysIP, unix.SYS_CHDIR, ^uint64(0), uint64(addr), injectedChdir
	if err := unix.PtraceSetRegs(pid, &regs); err != nil {
		return err
	}
	for stop := 0; stop < 2; stop++ { // the call's entry, then its exit
		if err := unix.PtraceSyscall(pid, 0); err != nil {
			return err
		}
		if _, err := awaitSyscallStop(pid, syscallStop); err != nil {
			return err
		}
	}
	if err := unix.PtraceGetRegs(pid, &regs); err != nil {
		return err
	}
	if k, err := writeMem(pid, addr, old); k != len(old) {
		return fmt.Errorf("restoring the stack: %v", err)
	}
	if e := int64(regs.Rax); e < 0 {
		return unix.Errno(-e)
	}
	return nil
}
