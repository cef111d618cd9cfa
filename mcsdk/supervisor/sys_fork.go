//go:build linux && amd64

package supervisor

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Child processes (proctree.go has the tree): fork, vfork, clone without
// CLONE_THREAD, execve, wait4 and waitid.

// procCloneRefused are the flags of a process clone weft does not model.
const procCloneRefused = unix.CLONE_PTRACE | unix.CLONE_UNTRACED | unix.CLONE_FILES |
	unix.CLONE_NEWNS | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_SIGHAND

// Fork implements fork(2).
func sysFork(c *call) result { return c.forkProcess(uint64(unix.SIGCHLD), 0, 0) }

// Vfork implements vfork(2).
func sysVfork(c *call) result {
	return c.forkProcess(unix.CLONE_VM|unix.CLONE_VFORK|uint64(unix.SIGCHLD), 0, 0)
}

// forkProcess lets a process clone through and holds parent and child at
// it, as a thread clone is held: the parent at its fork event, the child
// before its first instruction. The child gets its copy of the
// descriptor table (the same file descriptions) and a virtual pid, which
// the parent's fork returns. A vfork parent stays held until the child
// execs or ends, as the kernel holds it. With CLONE_PARENT the child is
// the caller's sibling (vkernel.ProcTable.ForkSibling), on the host as in
// the tree; from a process whose parent is outside the node (the main
// process, an orphan) it is refused.
func (c *call) forkProcess(flags, ptid, ctid uint64) result {
	if r, over := c.overTaskBound(); over {
		return r
	}
	if flags&procCloneRefused != 0 {
		return failf("process clone with flags %#x is not modelled", flags)
	}
	sibling := flags&unix.CLONE_PARENT != 0
	if p := c.t.p; sibling && (p == nil || p.v.Parent == 0) {
		// Its parent would be the caller's, outside the node (weft, or
		// whatever adopted an orphan): a process outside the tree.
		return failf("clone with CLONE_PARENT from process %d, whose parent is outside the node, is not modelled", c.n.vpid())
	}
	switch sig := flags & unix.CSIGNAL; {
	case sig > 64:
		return errno(unix.EINVAL) // not a signal (valid_signal)
	case sig >= vkernel.SIGRTMIN && !sibling: // CLONE_PARENT's child takes its caller's exit signal (ForkSibling)
		// The kernel sends the exit signal with the child's host pid when
		// weft reaps it; weft queues its own with the virtual pid first,
		// which makes the kernel's a duplicate dropped only for a
		// standard signal (legacy_queue): a real-time one would arrive twice.
		return failf("clone with exit signal %d (a real-time signal) is not modelled: its siginfo would carry the child's host pid", sig)
	}
	if flags&unix.CLONE_PIDFD != 0 {
		// As a kernel without pidfds answers: programs fall back to pids
		// (Go's os/exec does).
		return errno(unix.EINVAL)
	}
	n, pt := c.n, c.t
	parent := n.procOf(pt)
	if err := n.seize(); err != nil {
		return failf("%v", err)
	}
	fds, err := copyFDs(n.fds) // the caller's table
	if err != nil {
		return errno(unix.EMFILE)
	}
	if err := c.w.vdsoOff(pt); err != nil {
		closeFDs(fds)
		return failf("%v", err)
	}
	if err := c.letThrough(); err != nil {
		closeFDs(fds)
		return failf("%v", err)
	}
	newtid, ok, err := c.w.awaitClone(pt)
	if err != nil || !ok {
		closeFDs(fds)
		if err != nil {
			return failf("%v", err)
		}
		return done() // the fork failed: the parent goes on with its error
	}
	if _, ws, err := wait4(newtid, 0); err != nil || !ws.Stopped() {
		closeFDs(fds)
		return failf("child %d did not stop before its first instruction (%v)", newtid, err)
	}
	child := &task{n: n, k: len(n.tasks), tid: newtid, ready: true, held: true, nice: c.t.nice}
	pidfd, err := unix.PidfdOpen(newtid, 0)
	if err != nil {
		closeFDs(fds)
		return failf("pidfd_open of child: %v", err)
	}
	cp := &proc{vpid: child.vtid(), pid: newtid, pidfd: pidfd, fds: fds, space: len(n.procs), vdso: n.vdsoOf(pt)}
	// fork(2): the child's limits start as its parent's and are its own
	// from now on (its table's NOFILE limit came with copyFDs).
	cp.limits = c.limits().Clone()
	cp.vclock.known = true        // the image it inherits is off (vdsoOff above)
	cp.trapTSC = *n.trapTSCOf(pt) // PR_SET_TSC is inherited
	if sibling {
		// The kernel made it the caller's parent's child, on the host
		// too: weft's for a checkpoint's copy (adopted), as the caller is.
		cp.v, cp.adopted = n.ptab.ForkSibling(parent.vpid, cp.vpid), parent.adopted
	} else {
		cp.v = n.ptab.ForkBy(parent.vpid, pt.vtid(), cp.vpid, int(flags&unix.CSIGNAL))
	}
	if flags&unix.CLONE_VM != 0 {
		cp.space = parent.space // a vfork child runs in its parent's memory until it execs
		cp.vdso = 0             // and reads its clocks by syscall there: the image stays the parent's, off
	}
	child.p = cp
	n.procs = append(n.procs, cp)
	n.tasks = append(n.tasks, child)
	n.sysvFork(parent, cp)
	n.groupsAsked = true // the child is in its parent's group and session (ptab.Fork)
	// The kernel stored the host pid; the processes see the virtual one.
	if flags&unix.CLONE_PARENT_SETTID != 0 {
		c.writeU32(ptid, uint32(cp.vpid))
	}
	if flags&unix.CLONE_CHILD_SETTID != 0 {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(cp.vpid))
		writeMem(newtid, uintptr(ctid), b[:])
	}
	pt.held, pt.ready, pt.cloned, pt.childVtid = true, true, true, cp.vpid
	if flags&unix.CLONE_VFORK != 0 {
		pt.ready, cp.vforker = false, pt
	}
	n.cur = nil
	return done()
}

// Execve implements execve(2) and execveat(2): the kernel runs it (the
// seccomp filter and its listener survive exec); at the exec stop weft
// patches the new image's auxiliary vector as at launch (weft's vDSO,
// AT_RANDOM from the run's random stream) and forgets the descriptors
// that closed on exec. A failed exec returns its error as usual.
func sysExecve(c *call) result {
	n, t := c.n, c.t
	p := t.p
	var others []*task // the process's other threads, which exec ends
	for _, o := range n.tasks {
		if o != t && !o.exited && o.p == p {
			others = append(others, o)
		}
	}
	if err := n.seize(); err != nil {
		return failf("%v", err)
	}
	if err := c.letThrough(); err != nil {
		return failf("%v", err)
	}
	var ok bool
	var err error
	if len(others) == 0 {
		_, ok, err = c.w.awaitEvent(t, unix.PTRACE_EVENT_EXEC)
	} else if t, ok, err = c.w.awaitThreadedExec(t, others); ok {
		n.cur = t
	}
	if err != nil {
		return failf("%v", err)
	}
	if !ok {
		c.failedForeignExec()
		return done() // the exec failed: the process goes on with its error
	}
	var random [16]byte
	c.w.rand.Read(random[:])
	var vdso, execfnAt uintptr
	n.onTracer(func() { vdso, _, execfnAt, err = patchAuxv(t.tid, random, c.w.useVDSO(), c.w.cfg.Toolchain) })
	if err != nil {
		return failf("patching the auxiliary vector after exec: %v", err)
	}
	if err := c.showExecPath(t.tid, execfnAt); err != nil {
		return failf("%v", err)
	}
	n.vclockOf(t).forget(true) // a new image, readings off, in a new address space
	if err := c.w.patchExec(t); err != nil {
		return failf("%v", err)
	}

	c.w.dropClosedOnExec(n, t.tid)
	n.sysvExec(p)
	n.timersExec(p)
	if p == nil {
		n.base = 0 // the main process has a new executable
		n.vdso = vdso
	} else {
		p.vdso = vdso
		p.space = slices.Index(n.procs, p) // a new address space
		// Its parent may no longer move it to another group (setpgid: EACCES).
		n.ptab.Exec(p.vpid)
		c.w.releaseVfork(p)
	}
	if err := t.ptraceCont(0); err != nil {
		return failf("resuming after exec: %v", err)
	}
	return done()
}

// awaitThreadedExec follows an exec by thread t of a process with other
// threads. The kernel kills them and waits until their tracer (weft) has
// collected each (de_thread); the execing thread then takes the leader's
// thread id, and the exec stop is reported under it (ptrace(2), "execve(2)
// under ptrace"). The leader's task record lives on as the one thread of
// the new image (its virtual id is the process's pid); t's ends unless t
// is the leader. ok is false if the exec failed before any of this (t
// made its next call).
func (w *World) awaitThreadedExec(t *task, others []*task) (*task, bool, error) {
	n := t.n
	leaderTid := n.pid // the caller's process (enterProc)
	leader := t
	for _, o := range others {
		if o.tid == leaderTid {
			leader = o
		}
	}
	fds := []unix.PollFd{{Fd: int32(n.listener), Events: unix.POLLIN}}
	left := len(others)
	if leader != t {
		left-- // an old leader does not report its end: the execing thread takes its place
	}
	for spins := 0; ; spins++ {
		for _, o := range others {
			if o == leader || o.exited {
				continue
			}
			if got, _, _ := wait4(o.tid, unix.WNOHANG); got == o.tid {
				o.exited, o.call, o.ready, o.held = true, nil, false, false
				n.futexRemove(o)
				left--
			}
		}
		if left == 0 {
			got, ws, err := wait4(leaderTid, unix.WNOHANG)
			if err != nil {
				return nil, false, fmt.Errorf("waiting for the exec: %v", err)
			}
			if got == leaderTid && ws.Stopped() && ws.TrapCause() == unix.PTRACE_EVENT_EXEC {
				break
			}
			if got == leaderTid {
				if err := w.passStop(leader, ws); err != nil {
					return nil, false, err
				}
			}
		}
		ms := 0
		if spins > 5000 {
			ms = 1
		}
		if left == len(others)-boolInt(leader != t) {
			// Nothing ended yet: the exec may have failed, and the caller's
			// next call is then waiting.
			if k, _ := unix.Poll(fds, ms); k > 0 {
				return t, false, nil
			}
		} else if ms > 0 {
			unix.Poll(nil, ms)
		}
	}
	if leader != t {
		t.exited, t.call = true, nil
		leader.exited, leader.call, leader.ready, leader.held, leader.cloned = false, nil, false, false, false
		n.futexRemove(leader)
	}
	leader.clearTID, leader.woken = 0, false
	return leader, true, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// dropClosedOnExec closes the served descriptors of the calling process
// that its exec closed: those its table marks close-on-exec
// (vkernel.FDTable.CloseOnExec; the flag is weft's record, set by each
// call that makes or changes a served descriptor), each in ascending
// order as close(2) would. The host kernel closes the node's copies by
// the same flags, which weft sets on them as it records them. Built with
// -tags weftverify, it first checks that the host kernel closed the same
// ones (verifyExecCloses).
func (w *World) dropClosedOnExec(n *node, tid int) {
	gone := n.fds.CloseOnExec()
	if verifyCloexec {
		w.verifyExecCloses(n, hostClosedOnExec(n, tid))
	}
	for _, fd := range gone {
		n.dropFD(fd, w)
	}
}

// hostClosedOnExec are the served descriptors of the process (thread
// tid, just past its exec) that the host kernel closed, in ascending
// order: those whose number no longer names weft's file description.
func hostClosedOnExec(n *node, tid int) []int {
	var gone []int
	for fd, v := range n.fds.All() {
		var st, ours unix.Stat_t
		if unix.Stat(fmt.Sprintf("/proc/%d/fd/%d", tid, fd), &st) == nil &&
			unix.Fstat(v.ours, &ours) == nil && st.Dev == ours.Dev && st.Ino == ours.Ino {
			continue
		}
		gone = append(gone, fd)
	}
	return gone
}

// verifyExecCloses (tests built with -tags weftverify) fails the run
// unless the descriptors the process's table marks close-on-exec are the
// ones the host kernel closed at its exec (host, ascending).
func (w *World) verifyExecCloses(n *node, host []int) {
	if table := n.fds.CloseOnExec(); !slices.Equal(table, host) {
		w.fail(n, "execve", fmt.Sprintf("weftverify: the descriptor table closes %v on exec, the host kernel closed %v", table, host))
	}
}

// ExitGroup implements exit_group(2). The node's main process ends as
// before: the kernel runs the call and weft observes the end through the
// node's pidfd. A child process's end is collected at once: weft lets the
// call through and waits for each of its threads, so its parent's wait and
// SIGCHLD see it before anything else runs.
func sysExitGroup(c *call) result {
	p := c.t.p
	if p == nil {
		return cont()
	}
	if err := c.letThrough(); err != nil {
		return failf("%v", err)
	}
	var leader *task
	var others []*task
	for _, t := range c.n.procTasks(p) {
		if t.tid == p.pid {
			leader = t
		} else {
			others = append(others, t)
		}
	}
	if leader == nil {
		// The leader ended first (exit(2)): a zombie thread, reported
		// after the others as ever (vkernel.LeaderZombie).
		if leader = c.n.taskByPid(p); leader == nil {
			return failf("process %d has no leader thread", p.vpid)
		}
	}
	ws, err := collectProc(c.w, leader, others)
	if err != nil {
		return failf("collecting process %d: %v", p.vpid, err)
	}
	c.w.procEnded(leader, ws)
	return done()
}

// procTable is the table wait answers from: the node's, or, for a node
// that never forked, an empty one (no children; nothing recorded).
func (n *node) procTable() *vkernel.ProcTable {
	if n.ptab == nil {
		return vkernel.NewProcTable(n.vpid())
	}
	return n.ptab
}

// Wait4 implements wait4(2) on the virtual tree: the process table
// decides (vkernel.ProcTable.Wait4: which child pid selects, ECHILD,
// WNOHANG, parking until a child ends) and reaps the zombie it reports;
// its status is written as Linux encodes it and its rusage zero.
// Children are never stopped (weft sends them no stop signals), so
// WUNTRACED and WCONTINUED report nothing more.
func sysWait4(c *call) result {
	n := c.n
	me := c.t.waiter()
	a := n.procTable().Wait4(me, int64(int32(c.arg(0))), c.arg(2))
	switch {
	case a.Err != 0:
		return errno(unix.Errno(a.Err))
	case a.Park:
		c.waitChildren(me.Pid, c.arg(2))
		return park()
	case a.Child == nil:
		return ret(0)
	}
	// The kernel reaps before it writes: a bad pointer loses the status.
	if addr := c.arg(1); addr != 0 {
		if err := c.writeU32(addr, a.Child.Status); err != nil {
			return errno(unix.EFAULT)
		}
	}
	if addr := c.arg(3); addr != 0 {
		if err := c.write(addr, make([]byte, rusageSize)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	return ret(a.Child.Pid)
}

// waitChildren declares, while a wait of process pid parks, that it
// waits on the process's children (childrenKey). With __WNOTHREAD it
// declares nothing: which children are the thread's own follows the ends
// of its process's other threads (vkernel.Waiter), which mark no key.
func (c *call) waitChildren(pid int64, options uint64) {
	if options&unix.WNOTHREAD == 0 {
		c.waitOn(childrenKey(c.n, pid))
	}
}

// waiter is thread t as a caller of the wait family (vkernel.Waiter):
// its process's virtual pid, its own virtual tid, and its process's live
// threads in the order made (the node's tasks are).
func (t *task) waiter() vkernel.Waiter {
	n := t.n
	w := vkernel.Waiter{Pid: virtualPidBase + int64(n.id), Tid: t.vtid()} // the main process's
	if t.p != nil {
		w.Pid = t.p.vpid
	}
	for _, o := range n.tasks {
		if !o.exited && o.p == t.p {
			w.Threads = append(w.Threads, o.vtid())
		}
	}
	return w
}

// rusageSize is sizeof(struct rusage) on x86-64.
const rusageSize = 144

// Waitid implements waitid(2) on the virtual tree (P_ALL, P_PID, P_PGID,
// P_PIDFD, the pidfd resolved here to the child's virtual pid): the
// process table decides (vkernel.ProcTable.Waitid; WNOWAIT leaves the
// zombie). The siginfo is Linux's (vkernel.WaitidInfo): SIGCHLD,
// CLD_EXITED/KILLED/DUMPED, the virtual pid, the status; all zero for
// WNOHANG with nothing to report.
func sysWaitid(c *call) result {
	n := c.n
	idtype, id, infop, opts := c.arg(0), int64(int32(c.arg(1))), c.arg(2), c.arg(3)
	if idtype == vkernel.PPidfd {
		if opts&^uint64(waitidOptions) != 0 || opts&(unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED) == 0 {
			return errno(unix.EINVAL) // the kernel checks the options before it looks at the pidfd
		}
		pid, r := c.pidfdChild(int(id))
		if pid == 0 {
			return r
		}
		id = int64(pid)
	}
	me := c.t.waiter()
	a := n.procTable().Waitid(me, idtype, id, opts)
	switch {
	case a.Err != 0:
		return errno(unix.Errno(a.Err))
	case a.Park:
		if idtype != vkernel.PPidfd { // resolved again at each retry: a close ends it (pidfdChild)
			c.waitChildren(me.Pid, opts)
		}
		return park()
	}
	if infop != 0 {
		if err := c.write(infop, vkernel.WaitidInfo(a.Child, uint32(os.Getuid()))); err != nil {
			return errno(unix.EFAULT)
		}
	}
	if addr := c.arg(4); addr != 0 {
		if err := c.write(addr, make([]byte, rusageSize)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	return ret(0)
}

// waitidOptions are the options waitid(2) accepts.
const waitidOptions = unix.WNOHANG | unix.WUNTRACED | unix.WCONTINUED | unix.WEXITED | unix.WNOWAIT |
	unix.WNOTHREAD | unix.WALL | unix.WCLONE

// pidfdChild resolves a pidfd of the caller to the virtual pid of the
// child it refers to; 0 and the answer otherwise: ECHILD for a pidfd of
// a process that is not the caller's child (its own, say), EINVAL for a
// descriptor that is not a pidfd.
func (c *call) pidfdChild(fd int) (int32, result) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", c.n.memPid(), fd))
	if err != nil {
		return 0, errno(unix.EBADF)
	}
	_, rest, ok := bytes.Cut(b, []byte("\nPid:\t"))
	if !ok {
		return 0, errno(unix.EINVAL)
	}
	var host int
	fmt.Sscan(string(rest), &host)
	for _, p := range c.n.procs[min(1, len(c.n.procs)):] {
		if p.pid == host && !p.gone() {
			return int32(p.vpid), result{}
		}
	}
	return 0, errno(unix.ECHILD)
}
