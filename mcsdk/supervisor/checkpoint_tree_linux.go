//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Checkpoints of process trees. A node whose main process forked
// children (workers of a pre-forking server, a shell's background job) is
// copied as a whole: each live process of its tree is frozen as a single
// process is (checkpoint_proc_linux.go, its threads as in
// checkpoint_threads_linux.go), one after another, each with the node's
// process fields pointed at it (asProc), and each copy forks every frozen
// process of the tree again.
//
// Host parentage. A child's frozen process cannot be forked as a child of
// the copy's parent process (a fork copies its caller's memory, not
// another's), so every frozen and restored process is weft's child on the
// host: the main process's are forked with CLONE_PARENT as before; a
// child's frozen process is forked twice (adoptFork: the child forks a
// process with no exit signal, which forks the frozen one and is killed,
// so that the frozen one is orphaned to weft, the subreaper, and the
// child reaps the first one's zombie by an injected wait4), and its
// copies are forked from it with CLONE_PARENT, weft's children too. The
// virtual tree (proc.parent, virtual pids, sessions) is copied with the
// Go state, so what the node can observe of parentage stays as it was:
//
//   - getppid, /proc/self/stat's and /proc/self/status's ppid are the
//     virtual tree's (sysGetppid, vppid); process groups and sessions are
//     virtual only (vkernel.ProcTable, copied with the world); on the host
//     every process of a copy stays in the group it inherited, as the
//     original's do.
//   - wait4 and waitid are served from the virtual tree; a child's end is
//     collected by weft, its tracer, in copies and originals alike
//     (collectProc), and the SIGCHLD its parent receives is weft's own,
//     sent by pidfd to the parent's process (notifyParent): the kernel's
//     goes to the host parent, the original's parent (where it is dropped
//     as a duplicate) or weft (which ignores it). A child cloned with
//     another exit signal would have the kernel's signal reach a host
//     parent only: refused.
//   - whether an ended child stays a zombie: in an original the kernel
//     decides it by the parent's SIGCHLD disposition (auto-reaping when
//     it is ignored), which weft reads back (pidfdSignal); a copy's child
//     is weft's on the host, so weft decides it from the parent's
//     disposition instead (proc.adopted, procEnded). SA_NOCLDWAIT, which
//     /proc does not show, is refused, and so is a child that ended and
//     was not waited for at the checkpoint (its host zombie stays with
//     its host parent; a copy has none).
//   - PR_SET_PDEATHSIG: the kernel signals a child when its host parent
//     thread ends, and a fork clears it; a node that set it is refused
//     (nodeSignals.pdeath).
//
// Descriptors. The served ones (weft's pipes, sockets, eventfds) hold
// their state in the Go world, which the deep copy keeps shared between
// the processes' tables as it was; the host's description they stand on
// is the original's, shared by the copies, and its flags are recorded per
// process and written back as for one process. A host file opened
// natively and shared between processes (opened before a fork) or
// descriptors (dup) is one description: kcmp finds which, and each copy
// opens it once and installs that one description in each (shared
// offset), as it was.
//
// Refused besides: a vfork child that has not exec'd (it runs in its
// parent's memory), a thread held at its fork (the fork is half done),
// shared writable memory between processes (MAP_SHARED: a fork shares
// it with the checkpoint), as for one process.

// member is one live process of a node's tree as a checkpoint sees it:
// its index in the node's procs (0 the main process) and its tasks (with
// the ended ones; the leader first).
type member struct {
	idx   int
	tasks []*task
}

// members lists the node's live processes, the main process first.
func (n *node) members() []member {
	if len(n.procs) == 0 {
		return []member{{tasks: n.tasks}}
	}
	var out []member
	for j, p := range n.procs {
		if j > 0 && p.ended() {
			continue
		}
		m := member{idx: j}
		for _, t := range n.tasks {
			if n.procOf(t) == p {
				m.tasks = append(m.tasks, t)
			}
		}
		out = append(out, m)
	}
	return out
}

// asMember points the node's process fields at its process idx (0: the
// main process, which they describe at a quiescent point already) and
// returns the function that restores them.
func (n *node) asMember(idx int) func() {
	if idx == 0 {
		return func() {}
	}
	return n.asProc(n.procs[idx])
}

// treeCheckpointable says why n's process tree cannot be copied
// (the package comment above says why each refusal).
func (n *node) treeCheckpointable() error {
	if n.sig.pdeath {
		return errors.New("set a parent-death signal (PR_SET_PDEATHSIG), which the kernel ties to the host parent")
	}
	if len(n.procs) == 0 {
		return nil
	}
	if a, ok := n.sig.actions[int(unix.SIGCHLD)]; ok && a.Flags&vkernel.SANoCldWait != 0 {
		return errors.New("set SA_NOCLDWAIT, which the kernel applies by host parentage")
	}
	for j, p := range n.procs[1:] {
		switch {
		case p.gone():
		case p.zombie():
			return fmt.Errorf("has child process %d ended and not waited for", p.vpid)
		case p.vforker != nil || p.space != j+1:
			return fmt.Errorf("has child process %d running in its parent's memory (vfork)", p.vpid)
		case p.v.ExitSignal != int(unix.SIGCHLD):
			return fmt.Errorf("has child process %d with exit signal %d", p.vpid, p.v.ExitSignal)
		}
	}
	return nil
}

// memberCheckpointable says why process m of n cannot be copied: its
// threads, its shared memory.
func (n *node) memberCheckpointable(m member) error {
	defer n.asMember(m.idx)()
	err := threadsCheckpointable(n, m.tasks)
	if err == nil {
		err = n.sharedMemory()
	}
	if err == nil {
		err = n.pendingSignals(m.tasks)
	}
	if err != nil && m.idx > 0 {
		return fmt.Errorf("process %d: %w", n.procs[m.idx].vpid, err)
	}
	return err
}

// memberFiles lists the host files of every live process of n (its
// index in hostFile.proc) and groups those that are one file description
// (hostFile.desc: kcmp), across processes and descriptors.
func (n *node) memberFiles() ([]hostFile, error) {
	var out []hostFile
	for _, m := range n.members() {
		restore := n.asMember(m.idx)
		fs, err := n.hostFiles()
		for k := range fs {
			fs[k].proc, fs[k].pid = m.idx, n.pid
		}
		restore()
		if err != nil {
			if m.idx > 0 {
				return nil, fmt.Errorf("process %d %w", n.procs[m.idx].vpid, err)
			}
			return nil, err
		}
		out = append(out, fs...)
	}
	for i := range out {
		out[i].desc = i
		for j := range out[:i] {
			if sameFile(out[j].pid, out[j].fd, out[i].pid, out[i].fd) {
				out[i].desc = out[j].desc
				break
			}
		}
	}
	return out, nil
}

// kcmpFile is kcmp(2)'s KCMP_FILE.
const kcmpFile = 0

// sameFile reports whether descriptor fd1 of process pid1 and fd2 of
// pid2 are one file description.
func sameFile(pid1, fd1, pid2, fd2 int) bool {
	r, _, e := unix.Syscall6(unix.SYS_KCMP, uintptr(pid1), uintptr(pid2), kcmpFile, uintptr(fd1), uintptr(fd2), 0)
	return e == 0 && r == 0
}

// adoptFork makes a frozen copy of a child process of a node, whose
// thread tid is in a ptrace stop with a syscall instruction at sysIP,
// as weft's child on the host: tid forks a first process with no exit
// signal (its end signals nobody), which forks the frozen one; the first
// is then killed, so the frozen one is orphaned to weft (the subreaper),
// and tid reaps its zombie by an injected wait4. tid is left at that
// call's exit (the caller puts its registers back). On the tracer thread.
func adoptFork(tid, listener int, sysIP uint64) (int, error) {
	first, err := injectClone(tid, listener, sysIP, 0, 0, unix.PTRACE_EVENT_CLONE)
	if err != nil {
		return -1, fmt.Errorf("forking: %v", err)
	}
	// Not injectFork: CLONE_PARENT would make it the child's child again.
	pid, ferr := injectClone(first, listener, sysIP, uint64(unix.SIGCHLD), 0, unix.PTRACE_EVENT_FORK)
	unix.Kill(first, unix.SIGKILL)
	if err := awaitEnd(first); err != nil {
		return -1, err
	}
	r, err := injectPassed(tid, listener, sysIP, unix.SYS_WAIT4, uint64(first), 0, unix.WALL)
	if err == nil && int(r) != first {
		err = fmt.Errorf("wait4 returned %d", int64(r))
	}
	if ferr != nil || err != nil {
		if pid > 0 {
			unix.Kill(pid, unix.SIGKILL)
			awaitEnd(pid)
		}
		return -1, fmt.Errorf("adopting the copy: %v", errors.Join(ferr, err))
	}
	return pid, nil
}

// awaitEnd collects the end of process pid, sent SIGKILL, as its tracer,
// passing over the stops it may report first. On the tracer thread.
func awaitEnd(pid int) error {
	for {
		_, ws, err := wait4(pid, 0)
		switch {
		case err != nil:
			return err
		case ws.Exited() || ws.Signaled():
			return nil
		}
		unix.PtraceCont(pid, 0)
	}
}

// injectPassed makes thread tid, in a ptrace stop, issue system call nr
// with args at the syscall instruction sysIP, a call the filter hands to
// weft, which lets it through (its notification is received and
// answered here, so the node cannot use it); it returns the call's
// result, the registers left at its exit. On the tracer thread.
func injectPassed(tid, listener int, sysIP uint64, nr uint64, args ...uint64) (uint64, error) {
	if err := setCallRegs(tid, sysIP, nr, args); err != nil {
		return 0, err
	}
	if err := unix.PtraceSyscall(tid, 0); err != nil { // to the call's entry
		return 0, err
	}
	if _, err := awaitSyscallStop(tid, syscallStop); err != nil {
		return 0, err
	}
	if err := unix.PtraceSyscall(tid, 0); err != nil { // on to its notification
		return 0, err
	}
	nf, err := awaitNotif(tid, listener)
	if err != nil {
		return 0, err
	}
	if uint64(nf.Data.Nr) != nr || nf.Data.InstructionPointer != sysIP+2 {
		return 0, fmt.Errorf("expected the injected syscall %d, got %d at %#x", nr, nf.Data.Nr, nf.Data.InstructionPointer)
	}
	if err := sendResp(listener, &notifResp{ID: nf.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}); err != nil {
		return 0, err
	}
	if _, err := awaitSyscallStop(tid, syscallStop); err != nil { // the call's exit
		return 0, err
	}
	var regs unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &regs); err != nil {
		return 0, err
	}
	return regs.Rax, nil
}

// setProcPid makes pid the host id of n's child process idx and of its
// live threads (until makeThreads recreates them).
func (n *node) setProcPid(idx, pid int) {
	p := n.procs[idx]
	p.pid = pid
	for _, t := range n.tasks {
		if !t.exited && t.p == p {
			t.tid = pid
		}
	}
}

// releaseKids closes a checkpoint's copy's descriptors of its child
// processes (World.Close does so through reapOrphans for a running world).
func (n *node) releaseKids() {
	for _, p := range n.procs[min(1, len(n.procs)):] {
		closeFDs(p.fds)
		p.closePidfd()
	}
}

// pendingSignals refuses a process with a signal pending in the host
// kernel for one of its threads (blocked there, or queued for a thread
// held in a ptrace stop, which takes it only when it runs): a fork does
// not copy pending signals (the child's sets start empty), so the
// frozen copy would lack them, and a branch restored from it would
// differ from the branch replayed. The search replays such a state
// instead.
func (n *node) pendingSignals(tasks []*task) error {
	for _, t := range tasks {
		if t.exited {
			continue
		}
		k, err := readKernelSig(n.pid, t.tid)
		if err != nil {
			return fmt.Errorf("thread %d: %v", t.k, err)
		}
		if sig := k.AllPending().First(); sig != 0 {
			return fmt.Errorf("has thread %d with signal %d pending (a fork does not copy it)", t.k, sig)
		}
	}
	return nil
}
