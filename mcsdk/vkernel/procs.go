package vkernel

import (
	"encoding/binary"
	"slices"
)

// The process tree of a node (fork(2), clone(2), _exit(2), wait(2),
// waitid(2)): which process is whose child, whether a process is alive,
// a zombie (ended, its status kept for its parent's wait) or reaped, and
// what the wait family answers. The supervisor (the edge) forks, collects
// ends and writes the answers into the caller's memory; the rules are
// here.
//
// Only processes are modelled: a thread (CLONE_THREAD) is no child, its
// end no process's end. A node's main process has the parent pid 1,
// outside the node, and so does every orphan: the kernel reparents a dead
// parent's children to a reaper (forget_original_parent), which for a
// node is init, outside it, and init reaps the zombies it inherits.

// ProcState is where a process is in its life.
type ProcState uint8

const (
	Alive  ProcState = iota // running (or stopped: weft sends its children no stop signals)
	Zombie                  // ended, not yet waited for by its parent
	Reaped                  // ended and waited for, auto-reaped, or orphaned
)

// Process is one process of the tree.
type Process struct {
	Pid        int64     // virtual pid
	Parent     int64     // its parent's virtual pid; 0 for none in the node (the main process and orphans)
	State      ProcState // alive, zombie or reaped
	Status     uint32    // its wait status word, once ended (WaitStatus)
	ExitSignal int       // the signal its end sends its parent: clone's CSIGNAL bits (SIGCHLD for fork, vfork)
	Thread     int64     // the thread of its parent that forked it (virtual tid): the one whose own child it is (__WNOTHREAD)
	Pgid       int64     // its virtual process group (sessions.go)
	Sid        int64     // its virtual session
	Execed     bool      // it called execve since its fork: its parent's setpgid is EACCES
	Timers     SigTimers // its signal timers (timers.go): none at its fork, emptied at its end
}

// Ended reports whether the process has ended (a zombie or reaped).
func (p *Process) Ended() bool { return p.State != Alive }

// ProcTable is one node's process table: every process it has had, in fork
// order, the main process first. Entries are never removed (virtual pids
// are never reused within a run), so the order is also the hash's.
type ProcTable struct {
	procs []*Process
}

// NewProcTable returns the table of a node whose main process has virtual
// pid main: it leads process group main in session Session.
func NewProcTable(main int64) *ProcTable {
	return &ProcTable{procs: []*Process{{Pid: main, ExitSignal: SIGCHLD, Pgid: main, Sid: Session}}}
}

// Process returns process pid's record (nil: no such process ever).
func (t *ProcTable) Process(pid int64) *Process {
	if i := slices.IndexFunc(t.procs, func(p *Process) bool { return p.Pid == pid }); i >= 0 {
		return t.procs[i]
	}
	return nil
}

// All lists the table's records in fork order.
func (t *ProcTable) All() []*Process { return slices.Clone(t.procs) }

// Fork records child, made by parent's fork, vfork or clone without
// CLONE_THREAD, with exit signal sig (clone's CSIGNAL bits: SIGCHLD for
// fork and vfork, possibly 0 or another signal for clone). Its parent is
// the caller's process (with CLONE_PARENT, ForkSibling). It is in its parent's process group
// and session. It has no signal timers (fork(2): "The child does not
// inherit timers from its parent"). The forking thread is the parent's
// leader (its main thread, whose tid is its pid); ForkBy names another.
func (t *ProcTable) Fork(parent, child int64, sig int) *Process {
	return t.ForkBy(parent, parent, child, sig)
}

// ForkBy is Fork by thread tid of process parent: the child is that
// thread's own (the kernel's real_parent is a thread), which only a wait
// with __WNOTHREAD tells apart (Waiter).
func (t *ProcTable) ForkBy(parent, tid, child int64, sig int) *Process {
	p := &Process{Pid: child, Parent: parent, Thread: tid, ExitSignal: sig, Pgid: parent, Sid: Session}
	if pp := t.member(parent); pp != nil {
		p.Pgid, p.Sid = pp.Pgid, pp.Sid
	}
	t.procs = append(t.procs, p)
	return p
}

// ForkSibling records child, made by process caller's clone with
// CLONE_PARENT: its caller's sibling, as copy_process makes it. Its
// parent is the caller's parent (the kernel's real_parent, a thread:
// the one that forked the caller, Thread), its exit signal the caller's
// (its leader's exit_signal; the CSIGNAL bits asked are ignored), its
// process group and session the caller's, and it has no signal timers.
// It returns nil, recording nothing, for a caller whose parent is not in
// the node (the main process, an orphan): its child would be a process
// outside the tree.
func (t *ProcTable) ForkSibling(caller, child int64) *Process {
	c := t.member(caller)
	if c == nil || c.Parent == 0 {
		return nil
	}
	p := &Process{Pid: child, Parent: c.Parent, Thread: c.Thread, ExitSignal: c.ExitSignal, Pgid: c.Pgid, Sid: c.Sid}
	t.procs = append(t.procs, p)
	return p
}

// Getppid is getppid(2) for process pid: its parent, or 1 (outside the
// node) for the main process and orphans.
func (t *ProcTable) Getppid(pid int64) int64 {
	if p := t.Process(pid); p != nil && p.Parent != 0 {
		return p.Parent
	}
	return 1
}

// ParentAlive reports whether process pid's parent is in the node and
// has not ended: whether its end concerns anyone in the node.
func (t *ProcTable) ParentAlive(pid int64) bool {
	p := t.Process(pid)
	if p == nil || p.Parent == 0 {
		return false
	}
	pp := t.Process(p.Parent)
	return pp != nil && !pp.Ended()
}

// Exit records the end of process pid (its last thread's: the end of a
// thread that is not the last is no process's end) with wait status
// status, and reports whether it stays a zombie its parent is to be told
// of (SIGCHLD, or its exit signal), as exit_notify decides:
//
//   - its children are orphaned (forget_original_parent): their parent is
//     now outside the node, and the ones already zombies are reaped there
//     (init waits for them);
//   - with no parent in the node, or a parent that has ended, it is
//     reaped at once (its parent, or the reaper it was given, is outside);
//   - a parent that ignores SIGCHLD or set SA_NOCLDWAIT has the kernel
//     reap it at once (do_notify_parent's autoreap, for an exit signal of
//     SIGCHLD): autoReaped, asked only when the parent is alive in the
//     node, says whether that happened;
//   - otherwise it is a zombie until its parent waits for it.
//
// Its signal timers end with it (exit_itimers; the zombie has none).
// An unknown or already ended pid changes nothing.
func (t *ProcTable) Exit(pid int64, status uint32, autoReaped func() bool) (zombie bool) {
	p := t.Process(pid)
	if p == nil || p.Ended() {
		return false
	}
	p.Status, p.Timers = status, SigTimers{}
	for _, c := range t.procs {
		if c.Parent == pid {
			c.Parent = 0
			if c.State == Zombie {
				c.State = Reaped
			}
		}
	}
	switch {
	case !t.ParentAlive(pid):
		p.State = Reaped
	case autoReaped != nil && autoReaped():
		p.State = Reaped
	default:
		p.State = Zombie
	}
	return p.State == Zombie
}

// Reap records that process pid was reaped outside a wait the table
// answered (the node died: weft collects its tree).
func (t *ProcTable) Reap(pid int64) {
	if p := t.Process(pid); p != nil && p.Ended() {
		p.State = Reaped
	}
}

// Gone records that live process pid is gone without an end the tree
// saw (its node died with it): reaped, its status left as it was, its
// timers gone.
func (t *ProcTable) Gone(pid int64) {
	if p := t.Process(pid); p != nil {
		p.State, p.Timers = Reaped, SigTimers{}
	}
}

// Timers is the signal timers of live process pid, or nil (no such
// process, or it has ended: an ended process has none).
func (t *ProcTable) Timers(pid int64) *SigTimers {
	if p := t.Process(pid); p != nil && !p.Ended() {
		return &p.Timers
	}
	return nil
}

// TimerEvents lists the armed signal timers' events of the table's live
// processes, in fork order (the main process first), each named by its
// process's place (ProcTimerTask).
func (t *ProcTable) TimerEvents() []TimerEvent {
	var ts []TimerEvent
	for i, p := range t.procs {
		if !p.Ended() {
			ts = append(ts, p.Timers.Events(i)...)
		}
	}
	return ts
}

// TimerOf resolves a timer event's task number (ProcTimerTask): the live
// process whose timer it is, its place in the table, and the timer, if
// armed; nil otherwise.
func (t *ProcTable) TimerOf(task int) (p *Process, place int, tm *SigTimer) {
	i, own, ok := SplitTimerTask(task)
	if !ok || i >= len(t.procs) || t.procs[i].Ended() {
		return nil, 0, nil
	}
	p = t.procs[i]
	if tm = p.Timers.ByTask(own); tm == nil || tm.Deadline == 0 {
		return nil, 0, nil
	}
	return p, i, tm
}

// TimersDigest puts the signal timers of the processes after the main
// one for the world's state hash, in fork order: for each live one that
// has used its timers (SigTimers.Used), its place in the table and the
// timers. A tree whose children never armed a timer puts nothing. The
// main process's are the edge's to hash, with its node's signal state.
func (t *ProcTable) TimersDigest(put func(uint64)) {
	for i, p := range t.procs[min(1, len(t.procs)):] {
		if !p.Ended() && p.Timers.Used() {
			put(uint64(i + 1))
			p.Timers.Hash(put)
		}
	}
}

// wait(2) options (linux/wait.h) and waitid's id types.
const (
	WNOHANG    = 0x1
	WUNTRACED  = 0x2 // WSTOPPED for waitid
	WSTOPPED   = 0x2
	WEXITED    = 0x4
	WCONTINUED = 0x8
	WNOWAIT    = 0x01000000
	WNOTHREAD  = 0x20000000
	WALL       = 0x40000000
	WCLONE     = 0x80000000

	PAll   = 0
	PPid   = 1
	PPgid  = 2
	PPidfd = 3
)

// wait4Options are the options wait4 accepts (kernel_wait4);
// waitidOptions waitid's (kernel_waitid).
const (
	wait4Options  = WNOHANG | WUNTRACED | WCONTINUED | WNOTHREAD | WALL | WCLONE
	waitidOptions = WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED | WNOTHREAD | WALL | WCLONE
)

// Waiter is the thread that calls a wait: its process, its own id, and
// the live threads of its process in the order they were made (the
// leader first while it lives).
type Waiter struct {
	Pid, Tid int64
	Threads  []int64
}

// Leader is the waiter that is process pid's leader, its one thread.
func Leader(pid int64) Waiter { return Waiter{Pid: pid, Tid: pid, Threads: []int64{pid}} }

// owns reports whether child c is the waiter's thread's own, as
// __WNOTHREAD asks: the thread that forked it, while it lives; once
// that thread has ended, the first live thread of the process, the one
// the kernel passes an ended thread's children to (forget_original_parent,
// find_alive_thread: the first thread not exiting, in the order made, and
// again at that one's end).
func (w Waiter) owns(c *Process) bool {
	if slices.Contains(w.Threads, c.Thread) {
		return c.Thread == w.Tid
	}
	return len(w.Threads) > 0 && w.Threads[0] == w.Tid
}

// WaitAnswer is what a call of the wait family answers.
type WaitAnswer struct {
	Err   Errno    // nonzero: the call fails with it
	Park  bool     // no child to report yet, and the call may block: it sleeps until a child ends
	Child *Process // the zombie reported (nil: none, a WNOHANG answer)
}

// Wait4 decides wait4(pid, options) for caller (kernel_wait4):
// pid > 0 that child, -1 any child, 0 a child in the caller's process
// group, < -1 a child in group -pid (its group as it is now).
// wait4 always waits for ends (WEXITED); its children never stop, so
// WUNTRACED and WCONTINUED add nothing. A zombie found is reaped (its
// status and pid are the answer). With __WNOTHREAD only the calling
// thread's own children count (Waiter.owns), else the process's.
func (t *ProcTable) Wait4(caller Waiter, pid int64, options uint64) WaitAnswer {
	if options&^wait4Options != 0 {
		return WaitAnswer{Err: EINVAL}
	}
	if int32(pid) == -1<<31 { // negating INT_MIN names no group (kernel_wait4)
		return WaitAnswer{Err: ESRCH}
	}
	return t.wait(caller, pid, options|WEXITED, false)
}

// Wait4Ready reports whether wait4(pid, options) by caller would report a
// zombie now, without reaping it: a wait4 parked in the kernel returns
// the child rather than take the SIGCHLD its end sends (do_wait finds the
// zombie before it checks for a pending signal).
func (t *ProcTable) Wait4Ready(caller Waiter, pid int64, options uint64) bool {
	if options&^wait4Options != 0 || int32(pid) == -1<<31 {
		return false
	}
	return t.wait(caller, pid, options|WEXITED, true).Child != nil
}

// Waitid decides waitid(idtype, id, options) for caller
// (kernel_waitid): P_ALL any child, P_PID child id (> 0), P_PGID a child
// in group id (0: the caller's group; < 0 EINVAL), P_PIDFD the child the
// edge resolved the pidfd to (id, its virtual pid). Options must ask for
// at least one of WEXITED, WSTOPPED and WCONTINUED; children never stop,
// so only WEXITED can report. WNOWAIT leaves the zombie as it is;
// __WNOTHREAD as for Wait4.
func (t *ProcTable) Waitid(caller Waiter, idtype uint64, id int64, options uint64) WaitAnswer {
	if options&^waitidOptions != 0 || options&(WEXITED|WSTOPPED|WCONTINUED) == 0 {
		return WaitAnswer{Err: EINVAL}
	}
	var pid int64
	switch idtype {
	case PAll:
		pid = -1
	case PPid, PPidfd:
		if pid = id; pid <= 0 {
			return WaitAnswer{Err: EINVAL}
		}
	case PPgid:
		if id < 0 {
			return WaitAnswer{Err: EINVAL}
		}
		pid = -id // 0: the caller's group
	default:
		return WaitAnswer{Err: EINVAL}
	}
	return t.wait(caller, pid, options, false)
}

// wait is do_wait over the caller's children in fork order (the order of
// the kernel's children list): ECHILD if none is eligible
// (eligible_child: pid matches and, without __WALL, the child's exit
// signal is SIGCHLD unless __WCLONE asks for the others) and alive
// (wait_consider_task: a zombie counts only for WEXITED); the first
// eligible zombie if WEXITED; otherwise nothing yet, parked unless
// WNOHANG. peek: only look (the zombie found stays one). __WNOTHREAD
// scans the calling thread's children only (do_wait_thread on current
// alone, not on each thread of the group).
func (t *ProcTable) wait(caller Waiter, pid int64, options uint64, peek bool) WaitAnswer {
	any := false
	for _, c := range t.procs {
		if c.Parent != caller.Pid || c.Parent == 0 || c.State == Reaped || !t.Selects(caller.Pid, pid, c.Pid) {
			continue
		}
		if options&WNOTHREAD != 0 && !caller.owns(c) {
			continue
		}
		if options&WALL == 0 && (c.ExitSignal != SIGCHLD) != (options&WCLONE != 0) {
			continue
		}
		if c.State == Zombie {
			if options&WEXITED == 0 {
				// wait_task_zombie declines without WEXITED, and a zombie
				// has no stop or continue to report: it counts for nothing.
				continue
			}
			if options&WNOWAIT == 0 && !peek {
				c.State = Reaped
			}
			return WaitAnswer{Child: c}
		}
		any = true
	}
	switch {
	case !any:
		return WaitAnswer{Err: ECHILD}
	case options&WNOHANG != 0:
		return WaitAnswer{}
	}
	return WaitAnswer{Park: true}
}

// ExitSignalTo is the signal process pid's end sends and the process it
// goes to: its parent, if alive in the node, with its exit signal
// (do_notify_parent); ok false if nobody in the node is told (no
// parent, an ended one, or an exit signal of 0).
func (t *ProcTable) ExitSignalTo(pid int64) (parent int64, sig int, ok bool) {
	p := t.Process(pid)
	if p == nil || !t.ParentAlive(pid) || p.ExitSignal == 0 {
		return 0, 0, false
	}
	return p.Parent, p.ExitSignal, true
}

// Wait status words (wait(2), as the kernel encodes them): an exit with
// code in bits 8–15, a signal's end in bits 0–6 with 0x80 for a core dump.

// ExitedStatus is the status word of an exit with code (0–255).
func ExitedStatus(code int) uint32 { return uint32(code&0xff) << 8 }

// KilledStatus is the status word of an end by signal sig, core dumped
// or not.
func KilledStatus(sig int, core bool) uint32 {
	s := uint32(sig & 0x7f)
	if core {
		s |= 0x80
	}
	return s
}

// WaitCode is the CLD_* code and si_status of an end with status word
// status, as waitid and SIGCHLD report them: CLD_EXITED and the exit
// code, CLD_KILLED or CLD_DUMPED and the signal (wait_task_zombie).
func WaitCode(status uint32) (code int32, value int32) {
	if sig := status & 0x7f; sig != 0 && sig != 0x7f {
		if status&0x80 != 0 {
			return CLDDumped, int32(sig)
		}
		return CLDKilled, int32(sig)
	}
	return CLDExited, int32(status >> 8 & 0xff)
}

// WaitidSize is how much of the caller's siginfo waitid writes: si_signo,
// si_errno, si_code, si_pid, si_uid, si_status and the padding between
// and after them (the fields the kernel puts, one by one).
const WaitidSize = 32

// WaitidInfo is the siginfo waitid writes for zombie c, reported to a
// caller of user uid (nil c: nothing to report, all zero, as a WNOHANG
// waitid writes when no child is ready).
func WaitidInfo(c *Process, uid uint32) []byte {
	b := make([]byte, WaitidSize)
	if c == nil {
		return b
	}
	code, value := WaitCode(c.Status)
	SetSigno(b, SIGCHLD)
	SetCode(b, code)
	binary.LittleEndian.PutUint32(b[SiPidOff:], uint32(c.Pid))
	binary.LittleEndian.PutUint32(b[SiUIDOff:], uid)
	binary.LittleEndian.PutUint32(b[SiStatusOff:], uint32(value))
	return b
}

// Digest puts the table for the world's state hash, in fork order: each
// process's pid, parent (1 for none in the node), state bits (zombie,
// reaped, the edge's flag for it: a vfork wait, and whether a thread
// other than its parent's leader forked it), the edge's word for it (its
// address space), that thread if so, and, once ended, its status. extra
// answers for the i-th process of the table.
func (t *ProcTable) Digest(put func(uint64), extra func(i int) (flag bool, word uint64)) {
	for i, p := range t.procs {
		flag, word := extra(i)
		put(uint64(p.Pid))
		put(uint64(t.Getppid(p.Pid)))
		byThread := p.Parent != 0 && p.Thread != p.Parent // an orphan's parent is outside the node
		put(uint64(boolInt(p.State == Zombie) | boolInt(p.State == Reaped)<<1 | boolInt(flag)<<2 | boolInt(byThread)<<3))
		put(word)
		if byThread {
			put(uint64(p.Thread))
		}
		if p.Ended() {
			put(uint64(p.Status))
		}
	}
}
