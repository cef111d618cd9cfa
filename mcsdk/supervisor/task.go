//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Tasks: every thread of a node is a task, and exactly one task in the
// world runs at a time, from the answer to its last intercepted call to its
// next one (ARCHITECTURE.md, Tasks).
//
// A node is seized with ptrace from its exec on (PTRACE_O_TRACECLONE, no
// syscall stops: seccomp notifications still arrive through the listener;
// with Config.NativeTSC only from its first clone), so that at a clone the parent
// stops at the clone event and the new thread before its first
// instruction. Both are then "held": ready, and resumed with PTRACE_CONT
// only when the scheduler picks them. Every other ready task sits in a
// seccomp notification that weft has not answered yet.
//
// Thread ids are virtual and stable: the main thread of node i has the
// node's pid, 100+i; its k-th new thread (k ≥ 1) has 1000·(i+1)+k.

// task is one thread of a node.
type task struct {
	n         *node
	k         int // index within the node; 0 is the main thread
	tid       int // host thread id
	call      *call
	ready     bool // may run when the scheduler picks it
	held      bool // in a ptrace stop (a new thread, or a parent at clone)
	cloned    bool // held at a clone event: its clone returns childVtid
	childVtid int64
	exited    bool   // the thread has ended
	clearTID  uint64 // CLONE_CHILD_CLEARTID / set_tid_address word, woken at exit
	// A futex wait: whether a wake chose this waiter (its queue is the
	// node's futexQ).
	woken bool
	p     *proc            // the child process it belongs to; nil: the node's main process
	alt   vkernel.AltStack // sigaltstack (sys_sigwait.go)
	// idlePolls counts the thread's consecutive non-blocking polls with
	// nothing ready (spin.go).
	idlePolls int
	// execDirFD, if not 0, is 1 + a descriptor a failed foreign exec left
	// the thread's process (sys_execview.go), closed at its next call.
	execDirFD int
	// nice is the thread's virtual nice value (setpriority(2)), -20..19,
	// inherited at clone and fork: weft never renices a host thread, and
	// a node never reads the host's niceness (weft's own, or a test
	// runner's, inherited by the node's process).
	nice int8
}

// vtid is the thread's virtual id.
func (t *task) vtid() int64 {
	if t.k == 0 {
		return virtualPidBase + int64(t.n.id)
	}
	return int64(1000*(t.n.id+1) + t.k)
}

// name is how messages and traces name the thread: n1/t2.
func (t *task) name() string { return fmt.Sprintf("n%d/t%d", t.n.id, t.k) }

// mainTask returns the node's main thread, creating it at launch.
func (n *node) mainTask() *task {
	if len(n.tasks) == 0 {
		n.tasks = []*task{{n: n, k: 0, tid: n.pid}}
	}
	return n.tasks[0]
}

// taskByTid finds the live task with host thread id tid.
func (n *node) taskByTid(tid int) *task {
	for _, t := range n.tasks {
		if t.tid == tid && !t.exited {
			return t
		}
	}
	return nil
}

// taskByVtid finds the live task with virtual thread id vtid.
func (n *node) taskByVtid(vtid int64) *task {
	for _, t := range n.tasks {
		if t.vtid() == vtid && !t.exited {
			return t
		}
	}
	return nil
}

// anyReady reports whether a task of the node is ready (readyTasks is
// not empty), without building the list: runNode and vdsoSync ask at
// every call.
func (n *node) anyReady() bool {
	for _, t := range n.tasks {
		if t.ready && !t.exited {
			return true
		}
	}
	return false
}

// readyTasks lists the node's ready tasks, in index order.
func (n *node) readyTasks() []*task {
	var r []*task
	for _, t := range n.tasks {
		if t.ready && !t.exited {
			r = append(r, t)
		}
	}
	return r
}

// nextReady is the thread settle runs without a choice: the only ready
// one, or with ThreadsFixed the first ready one after the thread that ran
// last, by index, wrapping around (round-robin, so no ready thread
// waits more than one round), or with ThreadsVisible the first ready one
// whose step is private (reduce.go). nil: none is ready, or the scheduler
// chooses.
func (w *World) nextReady(n *node) *task {
	r := n.readyTasks()
	if w.cfg.Threads == ThreadsVisible {
		for _, t := range r {
			if t.privateStep() {
				return t
			}
		}
	}
	switch {
	case len(r) == 1:
		return r[0]
	case len(r) == 0 || w.cfg.Threads != ThreadsFixed:
		return nil
	}
	for _, t := range r {
		if t.k > n.lastRun {
			return t
		}
	}
	return r[0]
}

// live counts the node's threads that have not ended.
func (n *node) live() int {
	k := 0
	for _, t := range n.tasks {
		if !t.exited {
			k++
		}
	}
	return k
}

// DefaultMaxTasks is Config.MaxTasks's default: the live processes and
// threads one node may have at once (issue 36, §4).
const DefaultMaxTasks = 512

// overTaskBound reports whether the caller's node may not create another
// process or thread, and the failure that ends the run (verdict error,
// naming the node and the bound; teardown then reaps every process).
func (c *call) overTaskBound() (result, bool) {
	bound := c.w.cfg.MaxTasks
	if bound <= 0 {
		bound = DefaultMaxTasks
	}
	if c.n.live() < bound {
		return result{}, false
	}
	return failf("bound: node %d reached its bound of %d live processes and threads (Config.MaxTasks)", c.n.id, bound), true
}

// onTracer runs f on the launcher's locked OS thread, which forked the
// node: every ptrace request must come from the thread that attached.
func (n *node) onTracer(f func()) {
	done := make(chan struct{})
	n.tracer.fns <- func() { f(); close(done) }
	<-done
}

// ptraceOptions are the options of a seized node: new threads and child
// processes are traced from birth, exec stops; a tracer's death kills the
// node and every process of its tree.
const ptraceOptions = unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_EXITKILL | unix.PTRACE_O_TRACESYSGOOD |
	unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK | unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_TRACESECCOMP

// seize attaches to the node's only thread (it is in a seccomp
// notification, so it does not stop).
func (n *node) seize() error {
	if n.traced {
		return nil
	}
	var err error
	n.onTracer(func() {
		_, _, e := unix.RawSyscall6(unix.SYS_PTRACE, unix.PTRACE_SEIZE, uintptr(n.pid), 0, ptraceOptions, 0, 0)
		if e != 0 {
			err = e
		}
	})
	if err != nil {
		return fmt.Errorf("ptrace seize: %v", err)
	}
	n.traced = true
	return nil
}

// ptraceCont resumes a stopped thread, delivering sig (0 none).
func (t *task) ptraceCont(sig int) error {
	var err error
	t.n.onTracer(func() { err = unix.PtraceCont(t.tid, sig) })
	return err
}

// wait4 waits for thread tid (a traced thread or the node's process).
func wait4(tid int, opts int) (int, unix.WaitStatus, error) {
	var ws unix.WaitStatus
	for {
		got, err := unix.Wait4(tid, &ws, opts|unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		return got, ws, err
	}
}

// waitStop collects a stop of thread tid without waiting, and never its
// end: waitid with WSTOPPED alone reports ptrace stops (CLD_TRAPPED) with
// the stop's whole code in si_status, which wait4 would report as
// code<<8 | 0x7f. A thread that has ended is no candidate for that wait:
// it reports ECHILD, and pollThreads collects the end on its next pass.
func waitStop(tid int) (int, unix.WaitStatus, error) {
	info := make([]byte, siginfoSize)
	for {
		_, _, e := unix.Syscall6(unix.SYS_WAITID, unix.P_PID, uintptr(tid), uintptr(unsafe.Pointer(&info[0])), uintptr(unix.WSTOPPED|unix.WNOHANG|unix.WALL), 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return 0, 0, e
		}
		if le32(info[siPidOff:]) == 0 {
			return 0, 0, nil // nothing to collect
		}
		return tid, unix.WaitStatus(le32(info[siStatusOff:])<<8 | 0x7f), nil
	}
}

// resume lets ready task t run: a held thread continues from its ptrace
// stop; a thread whose call is pending gets that call served (it may park
// again). Other tasks' cached reads are stale once t runs.
func (w *World) resume(t *task) {
	n := t.n
	if !w.need(n) {
		return
	}
	n.forgetMemory()
	t.ready = false
	n.lastRun = t.k
	for _, o := range n.tasks {
		if o != t && o.call != nil {
			o.call.reads = nil
		}
	}
	n.cur = t
	if t.held {
		t.held = false
		w.vdsoSync(t)
		if err := w.contHeld(t); err != nil {
			w.fail(n, "", fmt.Sprintf("%s: resuming: %v", t.name(), err))
			return
		}
		w.runNode(n)
		return
	}
	c := t.call
	t.call = nil
	if w.serve(c); n.cur != nil {
		w.runNode(n)
	}
}

// contHeld resumes a held thread. A parent held at its clone first runs to
// the clone's return, where its result becomes the child's virtual tid
// (the kernel returns the host's).
func (w *World) contHeld(t *task) error {
	if !t.cloned {
		return t.ptraceCont(0)
	}
	t.cloned = false
	vtid := t.childVtid
	ended, err := t.toSyscallExit()
	if err != nil {
		return err
	}
	if ended {
		return fmt.Errorf("thread ended at its clone")
	}
	t.n.onTracer(func() {
		var regs unix.PtraceRegs
		if err = unix.PtraceGetRegs(t.tid, &regs); err != nil {
			return
		}
		if int64(regs.Rax) > 0 {
			regs.Rax = uint64(vtid)
		}
		if err = unix.PtraceSetRegs(t.tid, &regs); err != nil {
			return
		}
		err = unix.PtraceCont(t.tid, 0)
	})
	return err
}

// toSyscallExit runs thread t, in a ptrace stop inside a syscall, to that
// syscall's exit stop. A signal it stops for meanwhile goes on to it (it
// is delivered after the exit); its end is left uncollected for
// pollThreads (a child process's leader is reaped only after weft's
// SIGCHLD), and reported as ended.
func (t *task) toSyscallExit() (ended bool, err error) {
	sig := 0
	for {
		t.n.onTracer(func() { err = unix.PtraceSyscall(t.tid, sig) })
		if err != nil {
			return false, err
		}
		for {
			if ended, err := awaitStopOrEnd(t.tid); err != nil || ended {
				return ended, err
			}
			got, ws, err := waitStop(t.tid)
			if err != nil {
				return false, err
			}
			if got == 0 {
				continue
			}
			if ws.StopSignal() == unix.SIGTRAP|0x80 {
				return false, nil
			}
			sig = 0
			if ws.TrapCause() <= 0 && ws.StopSignal() != unix.SIGTRAP {
				sig = int(ws.StopSignal())
			}
			break
		}
	}
}

// awaitStopOrEnd blocks until thread tid has a stop or an end to report,
// without collecting either, and says which.
func awaitStopOrEnd(tid int) (ended bool, err error) {
	info := make([]byte, siginfoSize)
	for {
		_, _, e := unix.Syscall6(unix.SYS_WAITID, unix.P_PID, uintptr(tid), uintptr(unsafe.Pointer(&info[0])),
			uintptr(unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT|unix.WALL), 0, 0)
		switch e {
		case 0:
			code := le32(info[siCodeOff:])
			return code >= cldExited && code <= cldDumped, nil
		case unix.EINTR:
			continue
		}
		return false, e
	}
}

// passStop resumes a thread from a stop weft does not act on: a signal
// goes on to the thread (its handler or default action runs), a group
// stop or event stop just continues.
func (w *World) passStop(t *task, ws unix.WaitStatus) error {
	if ws.StopSignal() == unix.SIGTRAP && ws.TrapCause() == unix.PTRACE_EVENT_SECCOMP {
		return w.traceMapping(t) // code may become executable (tscpatch_linux.go)
	}
	if ok, err := w.emulateTSC(t, ws); ok || err != nil {
		return err
	}
	sig := 0
	if ws.StopSignal() != unix.SIGTRAP && ws.TrapCause() <= 0 {
		sig = int(ws.StopSignal())
	}
	if ws.TrapCause() == unix.PTRACE_EVENT_STOP {
		sig = 0
	}
	if sig != 0 && sig < vkernel.SIGRTMIN { // SIGCHLD, a clone child's other exit signal, SIGALRM
		t.kernelFormDelivered()
	}
	if sig != 0 {
		w.oneShot(t, sig)
	}
	return t.ptraceCont(sig)
}

// pollThreads collects what happened to a traced node's threads without
// waiting: signal stops are passed on, ended threads marked. It reports
// whether the main thread's exit was collected (the node is gone).
func (w *World) pollThreads(n *node) (bool, error) {
	for i := len(n.tasks) - 1; i >= 0; i-- {
		t := n.tasks[i]
		if t.exited && t.k != 0 {
			continue
		}
		// A held thread's stop was collected already; what it can still
		// report is its end (a group exit kills it in its stop).
		var got int
		var ws unix.WaitStatus
		var err error
		if t.p != nil && t.tid == t.p.pid && t.p.v.Parent != 0 {
			// A child process's leader: its parent gets weft's SIGCHLD
			// before the reap that would send the kernel's (sys_sigchld.go).
			// So an end is reaped only once it was seen and notified, and a
			// stop is collected by a wait that cannot reap: a leader that
			// ends between the two waits is left for the next poll.
			if _, ended := exitSiginfo(t.tid, false); ended {
				notifyParent(w, n, t.p, true)
				got, ws, err = wait4(t.tid, 0)
			} else {
				got, ws, err = waitStop(t.tid)
			}
		} else {
			got, ws, err = wait4(t.tid, unix.WNOHANG)
		}
		if err != nil || got == 0 {
			continue
		}
		w.traceStop(t, ws)
		switch {
		case ws.Exited() || ws.Signaled():
			t.exited = true
			if t.p != nil && t.tid == t.p.pid {
				w.procEnded(t, ws)
				w.memBoundHit(n)
				continue
			}
			if t.k == 0 {
				n.status, n.reaped = ws, true
				return true, nil
			}
		case ws.Stopped() && !t.held:
			if err := w.passStop(t, ws); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

// teardownBound bounds how long collecting a killed node's processes may
// take (collectAll): every one was sent SIGKILL, which no process can
// ignore, so only a kernel stuck in uninterruptible sleep comes near it.
// Why wall-clock time: the processes are dead or dying and make no calls,
// so the scheduler has nothing to count; the bound only ends weft's wait
// for the kernel to finish them (teardown of a world whose verdict is
// already set, or a crash's restart, which sees the same tree either
// way), and never changes a verdict.
const teardownBound = 10 * time.Second

// collectAll collects the end of every thread and process of a node whose
// processes have all been sent SIGKILL, the main process last (its status
// is the node's). It never blocks on one wait: a traced group leader is
// reported only once its other threads are reaped, and those are traced
// zombies only weft can reap, so waiting for a child's leader before its
// threads would wait forever (issue 37, an Erlang node hanging
// World.Close). Each pass tries every remaining id without blocking until
// all are reaped or gone, or teardownBound has passed.
func (n *node) collectAll() {
	var ids []int
	for _, t := range n.tasks {
		if !t.exited && t.tid != n.pid {
			ids = append(ids, t.tid)
		}
	}
	for _, p := range n.procs[min(1, len(n.procs)):] {
		if !p.gone() && !slices.Contains(ids, p.pid) {
			ids = append(ids, p.pid)
		}
	}
	if !n.reaped {
		ids = append(ids, n.pid)
	}
	pause := 20 * time.Microsecond
	for deadline := time.Now().Add(teardownBound); len(ids) > 0 && time.Now().Before(deadline); {
		ids = slices.DeleteFunc(ids, n.collected)
		if len(ids) > 0 {
			time.Sleep(pause)
			pause = min(2*pause, 10*time.Millisecond)
		}
	}
	for _, t := range n.tasks {
		t.exited = true
	}
}

// collected tries to collect the end of thread or process id without
// waiting, and reports whether nothing of it remains to collect: weft
// reaped it, or the kernel says it is not weft's to wait for and /proc no
// longer shows it (a thread reaped with its group, a process its real
// parent reaped).
func (n *node) collected(id int) bool {
	got, ws, err := wait4(id, unix.WNOHANG)
	switch {
	case err == nil && got == id && (ws.Exited() || ws.Signaled()):
		if id == n.pid {
			n.status, n.reaped = ws, true
		}
		return true
	case err == unix.ECHILD:
		_, serr := os.Stat(fmt.Sprintf("/proc/%d", id))
		return serr != nil
	}
	return false
}

// taskState is /proc's state letter for one thread, or 0.
func taskState(pid, tid int) byte {
	if f := procStat(pid, tid); len(f) > 0 && len(f[0]) > 0 {
		return f[0][0]
	}
	return 0
}

// taskRegs returns the registers that a hash of a stopped task covers: all
// of them for a thread in a ptrace stop (PTRACE_GETREGS), the stack and
// instruction pointers for one in a notification (/proc's syscall file;
// the rest of its user registers are saved where ptrace cannot reach them
// until it returns).
func (t *task) taskRegs() ([]uint64, error) {
	if t.held {
		var regs unix.PtraceRegs
		var err error
		t.n.onTracer(func() { err = unix.PtraceGetRegs(t.tid, &regs) })
		if err != nil {
			return nil, fmt.Errorf("registers of %s: %v", t.name(), err)
		}
		return []uint64{regs.R15, regs.R14, regs.R13, regs.R12, regs.Rbp, regs.Rbx, regs.R11, regs.R10,
			regs.R9, regs.R8, regs.Rax, regs.Rcx, regs.Rdx, regs.Rsi, regs.Rdi, regs.Orig_rax, regs.Rip,
			regs.Eflags, regs.Rsp, regs.Fs_base}, nil
	}
	b, err := t.syscallFile()
	if err != nil {
		return nil, err
	}
	var out []uint64
	f := strings.Fields(string(b))
	if len(f) >= 9 { // nr, six arguments, sp, pc
		for _, s := range f[7:9] {
			var v uint64
			fmt.Sscanf(s, "0x%x", &v)
			out = append(out, v)
		}
	}
	return out, nil
}

// threaded reports whether node i has ever had more than one thread, so
// that messages name its threads.
func (w *World) threaded(i int) bool {
	return i >= 0 && i < len(w.nodes) && len(w.nodes[i].tasks) > 1
}

// hashTasks writes the state of every thread of n: whether it ended, is
// ready or held, the call it is stopped in, its futex wait, and, for a
// traced node, its registers; then the futex table's queues.
func (w *World) hashTasks(n *node, put func(uint64)) error {
	if w.cfg.Threads == ThreadsFixed {
		put(uint64(n.lastRun)) // decides which ready thread runs next
	}
	for _, t := range n.tasks {
		put(uint64(t.k))
		put(boolBits(t.exited, t.ready, t.held, t.woken, t.cloned))
		if t.exited {
			continue
		}
		put(t.clearTID)
		if t.idlePolls != 0 {
			put(uint64(t.idlePolls) << 32) // decides when a spinning poll waits (spin.go)
		}
		if t.nice != 0 {
			put(uint64(uint8(t.nice)) << 48) // getpriority reads it
		}
		if c := t.call; c != nil {
			put(uint64(c.req.Data.Nr))
			put(c.req.Data.InstructionPointer)
			for _, a := range c.req.Data.Args[:arity(int(c.req.Data.Nr))] {
				put(a)
			}
			put(uint64(c.deadline))
			if c.timeoutAt != 0 {
				put(uint64(c.timeoutAt)) // the time the call will write back (writeTimeLeft)
			}
			if c.sleepEnd != 0 {
				put(uint64(c.sleepEnd)) // what an interrupted sleep will write back
			}
			if c.waitStart != 0 {
				put(uint64(c.waitStart)) // what a wait without end will write back
			}
			put(boolBits(c.timedOut))
			put(uint64(c.progress))
		}
		if n.traced {
			regs, err := w.taskRegs(t)
			if err != nil {
				return err
			}
			for _, r := range regs {
				put(r)
			}
		}
	}
	n.futexQ.Hash(put)
	return nil
}

func boolBits(bs ...bool) uint64 {
	var v uint64
	for i, b := range bs {
		if b {
			v |= 1 << i
		}
	}
	return v
}

// memPid is the id through which weft reaches the node's memory and its
// /proc files: the main thread's, or, once the main thread has ended
// while others run on (a zombie has no memory or descriptors), the first
// live thread's. Signals and waits still use the node's pid.
func (n *node) memPid() int {
	if n.self != nil {
		return n.self.pid // a child being served (enterProc) or hashed
	}
	for _, t := range n.tasks {
		if !t.exited && t.p == nil {
			return t.tid
		}
	}
	return n.pid
}

// Threads is how many threads node i's main process has had, the main
// one included (1 for a single-threaded node); Procs counts processes.
func (w *World) Threads(i int) int {
	k := 0
	for _, t := range w.nodes[i].tasks {
		if t.p == nil {
			k++
		}
	}
	return max(k, 1)
}
