//go:build linux && amd64

package supervisor

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Process trees: a node is a tree of processes. The one weft launched is
// the node's main process; fork, vfork and clone without CLONE_THREAD add
// children (sys_fork.go). Every thread of every process of the tree is a
// task of the node, and the one-task-at-a-time rule covers them all.
//
// A child's virtual pid is the virtual id of its first thread,
// 1000·(i+1)+k for the node's k-th task, so pids are stable across runs
// and never collide with thread ids.
//
// While weft serves a call, the node's process fields (pid, pidfd, fds and
// the virtual pid) describe the calling process (enterProc): every handler
// then reads the caller's memory, descriptor table and identity without
// knowing about trees. At quiescent points they describe the main process.

// proc is one process of a node's tree.
type proc struct {
	vpid     int64
	pid      int              // host pid
	pidfd    int              // for the main process, the node's own (closed with the node)
	v        *vkernel.Process // its record in the node's process table (n.ptab): parent, state, status, exit signal
	fds      *fdTable         // its descriptor table
	limits   *vkernel.Limits  // a child's resource limits, copied from its parent's at its fork; nil for the main process, whose are the node's (n.limits)
	vforker  *task            // the parent thread a vfork suspends until this process execs or ends
	space    int              // its address space: its index in the tree, or its parent's while a CLONE_VM child has not exec'd
	notified bool             // weft queued its parent's SIGCHLD for its end (sys_sigchld.go)
	vdso     uintptr          // its image's clock readings (vdso_linux.go); 0 none
	vclock   vclock           // what they hold
	trapTSC  bool             // it traps the TSC rather than having its reads patched (tscpatch_linux.go)
	adopted  bool             // a checkpoint's copy: its host parent is weft, not its parent's process (checkpoint_tree_linux.go)
}

// ended reports whether the process has ended (zombie or gone).
func (p *proc) ended() bool { return p.v.Ended() }

// zombie reports whether the process ended and its parent has not waited
// for it yet.
func (p *proc) zombie() bool { return p.v.State == vkernel.Zombie }

// gone reports whether the process ended and was waited for (or
// auto-reaped, or orphaned).
func (p *proc) gone() bool { return p.v.State == vkernel.Reaped }

// status is the process's wait status, once ended.
func (p *proc) status() unix.WaitStatus { return unix.WaitStatus(p.v.Status) }

// mainProc returns the node's main process, creating the tree's record
// of it, and the node's process table, at the node's first fork.
func (n *node) mainProc() *proc {
	if len(n.procs) == 0 {
		vpid := virtualPidBase + int64(n.id)
		n.ptab = vkernel.NewProcTable(vpid)
		n.procs = []*proc{{vpid: vpid, pid: n.pid, pidfd: n.pidfd, fds: n.fds, v: n.ptab.Process(vpid)}}
		// Its signal timers move into its record, beside its children's.
		n.procs[0].v.Timers, n.sig.timers = n.sig.timers, vkernel.SigTimers{}
	}
	return n.procs[0]
}

// parentOf is p's parent in the node's tree, nil for the main process
// and orphans (whose parent is outside the node).
func (n *node) parentOf(p *proc) *proc {
	if p.v.Parent == 0 {
		return nil
	}
	for _, q := range n.procs {
		if q.vpid == p.v.Parent {
			return q
		}
	}
	return nil
}

// procOf returns the process task t belongs to.
func (n *node) procOf(t *task) *proc {
	if t == nil || t.p == nil {
		return n.mainProc()
	}
	return t.p
}

// enterProc points the node's process fields at t's process for the
// duration of one call and returns the function that restores them. A
// node without children pays nothing.
func (n *node) enterProc(t *task) func() {
	if len(n.procs) == 0 || t == nil || t.p == nil {
		return func() {}
	}
	pid, pidfd, fds := n.pid, n.pidfd, n.fds
	n.pid, n.pidfd, n.fds, n.self = t.p.pid, t.p.pidfd, t.p.fds, t.p
	return func() { n.pid, n.pidfd, n.fds, n.self = pid, pidfd, fds, nil }
}

// futexKey is the futex table's key for addr in the calling process's
// address space: the address itself in the main process's space (user
// addresses stay below 2^47), the space's index above bit 48 in another.
func (c *call) futexKey(addr uint64) uint64 {
	if p := c.t.p; p != nil {
		return addr | uint64(p.space)<<48
	}
	return addr
}

// isNodeOutput reports whether the caller's fd 1 or 2 is still the
// output weft gave the node at launch (/dev/null, whose writes weft
// captures). A descriptor moved onto it — the pipe a parent reads a
// child's output from, a file — is written natively.
func (c *call) isNodeOutput(fd uint64) bool {
	var st unix.Stat_t
	if unix.Stat(fmt.Sprintf("/proc/%d/fd/%d", c.n.memPid(), fd), &st) != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == unix.Mkdev(1, 3)
}

// procTasks lists the live tasks of process p.
func (n *node) procTasks(p *proc) []*task {
	var r []*task
	for _, t := range n.tasks {
		if !t.exited && n.procOf(t) == p {
			r = append(r, t)
		}
	}
	return r
}

// copyFDs gives a new child its copy of the parent's descriptor table:
// the same file descriptions (weft's copy of each is duplicated), as fork
// does.
func copyFDs(from *fdTable) (*fdTable, error) {
	to := from.Fork() // the same numbers and close-on-exec flags
	for fd, v := range to.All() {
		ours, err := unix.Dup(v.ours)
		if err != nil {
			for o, w := range to.All() {
				if w == from.At(o) {
					to.Forget(o) // still the parent's own
				}
			}
			closeFDs(to)
			return nil, err
		}
		c := *v
		c.ours = ours
		fl, _ := to.GetFD(fd)
		to.Record(fd, &c, fl == vkernel.FDCloexec)
	}
	return to, nil
}

// closeFDs closes weft's copies of a table's descriptions.
func closeFDs(fds *fdTable) {
	for fd, v := range fds.All() {
		if v.ours >= 0 {
			unix.Close(v.ours)
		}
		fds.Forget(fd)
	}
}

// dropTable closes an ended process's descriptors as close(2) would
// (dropFD, with the node's table pointed at the process's): a virtual
// socket no other descriptor of the tree refers to is closed, as the
// kernel closes a description with its last descriptor.
func (w *World) dropTable(n *node, p *proc) {
	saved := n.fds
	n.fds = p.fds
	for fd := range p.fds.All() { // in fd order, as the kernel closes them
		n.dropFD(fd, w)
	}
	n.fds = saved
}

// procEnded records the end of a child process whose leader's exit weft
// (its tracer) has just collected. The kernel then hands the zombie to the
// real parent and sends it SIGCHLD, or reaps it at once if the parent
// ignores SIGCHLD (or set SA_NOCLDWAIT); the process table
// (vkernel.ProcTable.Exit) decides which, and orphans its children.
func (w *World) procEnded(t *task, ws unix.WaitStatus) {
	n, p := t.n, t.p
	if n.cur != nil && n.procOf(n.cur) == p {
		n.cur = nil
	}
	for _, o := range n.procTasks(p) {
		o.exited, o.ready, o.held, o.call = true, false, false, nil
	}
	w.dropTable(n, p)
	n.sysvExit(p)
	w.releaseVfork(p)
	parent := n.parentOf(p)
	// Whether the kernel auto-reaped it, asked only with its parent alive
	// in the node: for a checkpoint's copy weft is the host parent, so
	// the parent's disposition decides, as it would in the kernel.
	autoReaped := func() bool {
		if p.adopted {
			return ignoresSIGCHLD(parent)
		}
		return pidfdSignal(p.pidfd) == unix.ESRCH
	}
	w.mark(childrenKey(n, p.v.Parent)) // it is its parent's zombie now, or reaped
	if n.ptab.Exit(p.vpid, uint32(ws), autoReaped) {
		_, sig, _ := n.ptab.ExitSignalTo(p.vpid)
		w.childSignalled(n, parent, sig)
	}
	w.mark(signalsKey(n)) // the exit signal weft queued before the reap (notifyParent)
	if p.gone() {
		p.closePidfd()
	}
}

// ignoresSIGCHLD reports whether process p ignores SIGCHLD (SIG_IGN;
// SA_NOCLDWAIT is refused by checkpoints, the only source of adopted
// children): the kernel would auto-reap its ended child.
func ignoresSIGCHLD(p *proc) bool {
	k, err := readKernelSig(p.pid, p.pid)
	return err == nil && k.Ignored.Has(int(unix.SIGCHLD))
}

// pidfdSignal sends signal 0 through pidfd: nil while the process exists
// (a zombie too), ESRCH once it has been reaped.
func pidfdSignal(pidfd int) error {
	_, _, e := unix.Syscall6(unix.SYS_PIDFD_SEND_SIGNAL, uintptr(pidfd), 0, 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func (p *proc) closePidfd() {
	if p.pidfd >= 0 {
		unix.Close(p.pidfd)
		p.pidfd = -1
	}
}

// releaseVfork lets the parent of a vfork child run again: the child has
// exec'd or ended, so the kernel's vfork wait is over.
func (w *World) releaseVfork(p *proc) {
	if t := p.vforker; t != nil {
		p.vforker = nil
		if !t.exited {
			t.ready = true
		}
	}
}

// killTree kills every child process of the node (the caller kills the
// main process and collects every task's end, collectAll), so that a
// crash ends the whole tree and nothing of it outlives the node.
func (n *node) killTree() {
	for _, p := range n.procs[min(1, len(n.procs)):] {
		if !p.ended() && p.pid > 0 {
			unix.Kill(p.pid, unix.SIGKILL)
		}
	}
}

// reapOrphans collects the host zombies of a dead node's children: the
// node never waited for them in the kernel (its waits are virtual), and
// weft, a child subreaper, inherited them when the node died.
func (n *node) reapOrphans() {
	for _, p := range n.procs[min(1, len(n.procs)):] {
		var ws unix.WaitStatus
		if p.pid > 0 && !(p.adopted && p.ended()) { // an adopted one's end was reaped already
			unix.Wait4(p.pid, &ws, unix.WNOHANG|unix.WALL, nil)
		}
		p.closePidfd()
		if !p.ended() {
			n.ptab.Gone(p.vpid)
		}
		if p.fds != nil {
			closeFDs(p.fds)
		}
	}
}

// setSubreaper makes this process the reaper of orphaned node children,
// so that their zombies are weft's to collect (reapOrphans) and not the
// host's init's.
func setSubreaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// hashProcs writes the node's process tree: each process's pid, parent,
// whether it ended and how, which process each task belongs to, the
// children's signal timers, and, with memory hashing, each live child's
// writable memory.
func (w *World) hashProcs(n *node, mode HashMode, put func(uint64), h interface{ Write([]byte) (int, error) }) error {
	if len(n.procs) == 0 {
		return nil
	}
	n.ptab.Digest(put, func(i int) (bool, uint64) {
		p := n.procs[i]
		return p.vforker != nil, uint64(p.space)
	})
	for _, t := range n.tasks {
		put(uint64(n.procOf(t).vpid))
	}
	n.hashSessions(put)
	n.ptab.TimersDigest(put) // the children's signal timers; the main process's are hashed with the node's signals
	if mode != HashMemory {
		return nil
	}
	for j, p := range n.procs {
		if j == 0 || p.ended() {
			continue
		}
		if err := w.hashKidMemory(n, j, h); err != nil { // hashMemory, or a restore's record (lazy_linux.go)
			return fmt.Errorf("process %d: %w", p.vpid, err)
		}
	}
	return nil
}

// Procs is how many processes node i's tree has had, its main process
// included (1 for a node that never forked).
func (w *World) Procs(i int) int { return max(len(w.nodes[i].procs), 1) }

// LiveProcs lists the host pids of node i's processes that have not
// ended (for tests and diagnostics).
func (w *World) LiveProcs(i int) []int {
	n := w.nodes[i]
	if n.exited || !w.need(n) {
		return nil
	}
	if len(n.procs) == 0 {
		return []int{n.pid}
	}
	var pids []int
	for _, p := range n.procs {
		if !p.ended() {
			pids = append(pids, p.pid)
		}
	}
	return pids
}
