//go:build linux && amd64

package supervisor

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Start launches every node of cfg, one at a time, and runs the world to
// its first quiescent point. The caller must Close the world.
func Start(cfg Config) (*World, error) {
	if len(cfg.Nodes) == 0 {
		return nil, errors.New("supervisor: no nodes")
	}
	if cfg.Watchdog == 0 {
		cfg.Watchdog = 10 * time.Second
	}
	w := &World{cfg: cfg, net: netsim.New(), rand: newRandStream(cfg.Seed), stops: -1,
		clientSent: make([]bool, len(cfg.Client)), envBuf: map[int][]byte{}, envNode: map[int]int{}, envReq: map[int]int{}}
	w.setNow(Epoch)
	if cfg.Survey || cfg.NotifyAll {
		w.survey = newSurvey()
	}
	w.fileClocks = map[fileKey]*fileClock{}
	w.net.OnEnvData = w.envData
	w.net.OnEnvClose = w.envClose
	w.net.OnAccept = w.accepted
	if cfg.DataDirs {
		root, err := newDataRoot()
		if err != nil {
			return nil, err
		}
		w.dataRoot = root
		for i := range cfg.Nodes {
			if err := os.Mkdir(w.DataDir(i), 0o755); err != nil {
				releaseDataRoot(root)
				return nil, err
			}
			if err := w.writeNodeFiles(i); err != nil {
				releaseDataRoot(root)
				return nil, err
			}
		}
	}
	if err := w.giveRunDirs(); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.initRunDirs(); err != nil {
		w.Close()
		return nil, err
	}
	for i := range cfg.Nodes {
		w.nodes = append(w.nodes, &node{id: i, fds: newFDTable(), pid: -1, listener: -1, pidfd: -1})
		w.queryStale = append(w.queryStale, true)
	}
	if !cfg.NativeTSC && !w.tscPatching() {
		w.warnTSCTrap(0, "nodes trap the TSC from the start (WEFT_TSC=trap, or every call notified)")
	}
	for _, n := range w.nodes {
		if cfg.Nodes[n.id].deferred() {
			n.waiting, n.exited, n.killed, n.startDue = true, true, true, -1
			continue
		}
		if err := w.launch(n); err != nil {
			w.Close()
			return nil, err
		}
		w.settle()
	}
	w.allStarted = true
	w.settle()
	w.runQueries()
	return w, nil
}

func (w *World) launch(n *node) error {
	spec := w.cfg.Nodes[n.id]
	if w.dataRoot != "" {
		spec.Dir = w.DataDir(n.id)
	}
	var random [16]byte
	w.rand.Read(random[:])
	path, argv0, args, env := w.shownArgs(n.id)
	if path != spec.Path && spec.User != nil { // a "#!" script: the kernel would check the script itself too
		if err := spec.User.mayExec(spec.Path); err != nil {
			return fmt.Errorf("node %d: %w", n.id, err)
		}
	}
	patch := w.tscPatching() && (w.cannotTrapTSC() || imagePatchable(path))
	res := getLauncher().launch(launchRequest{path: path, argv0: argv0, args: args, env: env, dir: spec.Dir, random: random, notifyAll: w.cfg.NotifyAll, goLauncher: w.cfg.GoLauncher, toolchain: w.cfg.Toolchain, nativeTSC: w.cfg.NativeTSC, noVDSO: !w.useVDSO(),
		patchTSC: patch, patchEvery: w.cannotTrapTSC(), template: w.useTemplates() && spec.User == nil, user: spec.User, maxFDs: w.maxFDs()})
	if res.err != nil {
		if ee := (*execError)(nil); errors.As(res.err, &ee) {
			msg := ee.Error()
			if path != spec.Path { // a "#!" script, started through its interpreter (shownArgs)
				msg = strings.Replace(msg, "cannot execute "+path+":", "cannot execute "+spec.Path+":", 1) +
					fmt.Sprintf(" (its interpreter, %s)", path)
			}
			return &Failure{Node: n.id, Msg: msg} // verdict error, naming the node
		}
		return fmt.Errorf("node %d: %w", n.id, res.err)
	}
	n.pid, n.pidfd, n.listener, n.vdso, n.tmpl = res.pid, res.pidfd, res.listener, res.vdso, res.tmpl
	if err := w.applyBounds(n, res.pid); err != nil {
		return err
	}
	n.tracer = getLauncher()
	n.traced = !w.cfg.NativeTSC // seized from its exec on, for the TSC (tsc_linux.go)
	n.trapTSC = !w.cfg.NativeTSC && !res.patched
	if res.cpuWhy != "" {
		w.warnCPU(n.id, fmt.Sprintf("node %d: its code cannot be patched for a virtual CPU (%s)", n.id, res.cpuWhy))
	}
	if res.tscWhy != "" {
		w.warnTSCNative(n.id, fmt.Sprintf("node %d: its code cannot be patched for a deterministic TSC (%s)", n.id, res.tscWhy))
	}
	if w.tscPatching() && !res.patched {
		// The process traps the TSC from its start: its image cannot be
		// patched, or the Go launcher, which cannot patch, started it
		// (launchOne). On a machine that cannot trap the TSC its reads
		// are the host's; the run's refusals say so, as they do for
		// WEFT_TSC=trap (warnTSCTrap records nothing where traps work).
		why := "its image cannot be patched"
		if patch {
			why = "the Go launcher started it, which cannot patch (WEFT_GO_LAUNCHER=1, or the native launcher could not be built)"
		}
		w.warnTSCTrap(n.id, fmt.Sprintf("node %d: it traps the TSC from its start: %s", n.id, why))
	}
	n.started = w.now
	n.cur = n.mainTask()
	w.runNode(n)
	return nil
}

// useTemplates reports whether nodes start as forks of templates
// (template_linux.go): not with Config.NoTemplates, and not with
// NativeTSC.
func (w *World) useTemplates() bool {
	return !w.cfg.NoTemplates && !w.cfg.NativeTSC
}

// Close kills every node and releases every descriptor. It is safe to call
// more than once.
func (w *World) Close() {
	// Every node is sent its SIGKILL first, so that their exits (a Go
	// node's threads, its address space torn down) overlap rather than
	// follow one another; kill then collects each.
	for _, n := range w.nodes {
		if n.pid > 0 && !n.exited {
			n.killTree()
			unix.Kill(n.pid, unix.SIGKILL)
		}
	}
	for _, n := range w.nodes {
		w.kill(n)
		n.releaseBounds()
	}
	w.closeStopFD()
	if w.dataRoot != "" {
		releaseDataRoot(w.dataRoot)
		w.dataRoot = ""
	}
	w.dropLazy()
}

// DataDir is node i's private data directory (its working directory),
// which survives a crash and restart but not the world.
func (w *World) DataDir(i int) string {
	if w.dataRoot == "" {
		return ""
	}
	return fmt.Sprintf("%s/node%d", w.dataRoot, i)
}

// setNow moves the virtual clock.
func (w *World) setNow(t int64) {
	w.now = t
	w.net.Now = t
	w.mark(timeKey)
}

// Timers lists the pending timeouts, by node and thread.
func (w *World) Timers() []TimerInfo {
	var ts []TimerInfo
	for _, n := range w.nodes {
		if n.exited {
			continue
		}
		for _, t := range n.tasks {
			if c := t.call; c != nil && c.deadline >= 0 && !c.timedOut && !t.exited && !t.ready {
				ts = append(ts, TimerInfo{Node: n.id, Task: t.k, Deadline: c.deadline})
			}
		}
		ts = append(ts, n.timerEvents()...)
	}
	return append(ts, w.startTimers()...)
}

// Ran reports whether node i has run since the last ClearRan: only a node
// that ran can have changed its memory.
func (w *World) Ran(i int) bool { return w.nodes[i].ran }

// ClearRan resets every node's Ran flag.
func (w *World) ClearRan() {
	for _, n := range w.nodes {
		n.ran = false
	}
}

// Pid is node i's host process id (for diagnostics only: nodes see
// virtual pids).
func (w *World) Pid(i int) int {
	w.need(w.nodes[i])
	return w.nodes[i].pid
}

// Restarts is how many times node i was restarted.
func (w *World) Restarts(i int) int { return w.nodes[i].restarts }

func (w *World) kill(n *node) {
	n.forgetMemory()
	if n.pid > 0 && !n.exited {
		n.killTree()
		unix.Kill(n.pid, unix.SIGKILL)
		n.collectAll()
		n.reapOrphans()
		n.exited, n.killed = true, true
	}
	n.release()
}

func (n *node) release() {
	for fd, v := range n.fds.All() {
		if v.ours >= 0 {
			unix.Close(v.ours)
			v.ours = -1
		}
		n.fds.Forget(fd)
	}
	n.releaseVclocks()
	n.sysvRelease()
	if n.listener >= 0 {
		unix.Close(n.listener)
		n.listener = -1
	}
	if n.pidfd >= 0 {
		unix.Close(n.pidfd)
		n.pidfd = -1
	}
	if n.tmpl != nil {
		// Every process of the node is gone: the template may serve again.
		dropTemplate(n.tmpl)
		n.tmpl = nil
	}
	for _, t := range n.tasks {
		t.call, t.ready, t.held = nil, false, false
	}
	n.cur, n.futexQ = nil, nil
}

// DefaultMaxCalls is Config.MaxCalls's default: about 25 s of calls at
// this machine's cost of an intercepted call, far more than any bundled
// target makes between two waits.
const DefaultMaxCalls = 1 << 20

// runNode lets node n's running task run until it parks in a deferred
// call, is preempted, exits, or fails. Only one task in the world runs at
// any moment; that is what makes a run a pure function of the scheduler's
// choices.
//
// A node whose calls are all answered at once (a loop of syscalls that
// never parks, such as an epoll_wait that always reports the same event)
// would otherwise keep weft in this loop forever: after Config.MaxCalls
// such calls in a row the run ends with the watchdog's failure. It counts
// calls rather than time, so the verdict is the same on any machine.
func (w *World) runNode(n *node) {
	if !w.need(n) {
		return
	}
	n.ran = true
	n.forgetMemory()
	w.changed()
	limit := w.cfg.MaxCalls
	if limit <= 0 {
		limit = DefaultMaxCalls
	}
	for calls := 0; w.failure == nil && !n.exited && n.cur != nil; {
		if calls++; calls > limit {
			w.fail(n, "", fmt.Sprintf("watchdog: %s made %d calls without parking or exiting (a busy loop through syscalls?)",
				n.cur.name(), limit))
			return
		}
		ev, err := w.waitEvent(n)
		if err != nil {
			w.fail(n, "", err.Error())
			return
		}
		if ev == evExit {
			w.reap(n)
			return
		}
		if ev == evNone {
			continue
		}
		c := &call{w: w, n: n, deadline: -1}
		if err := recvNotif(n.listener, &c.req); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // the target died while we looked
			}
			w.fail(n, "", fmt.Sprintf("receiving notification: %v", err))
			return
		}
		if c.t = n.taskByTid(int(c.req.Pid)); c.t == nil || c.t != n.cur {
			w.fail(n, "", fmt.Sprintf("notification from thread %d, which is not the running one", c.req.Pid))
			return
		}
		w.traceCall(c)
		if again, err := c.closeExecDir(); err != nil || again {
			if err != nil {
				w.fail(n, "", err.Error())
				return
			}
			continue // the call comes again (sys_execview.go)
		}
		// Preemption at syscalls: while another thread of the node is
		// ready, which one goes on is the scheduler's choice; with
		// ThreadsVisible not at a private call (reduce.go).
		if n.anyReady() && !(w.cfg.Threads == ThreadsVisible && c.private()) {
			c.t.call, c.t.ready, n.cur = c, true, nil
			return
		}
		w.serve(c)
	}
}

// serve dispatches the running task's call; a call that parks stops the
// task.
func (w *World) serve(c *call) {
	w.changed()
	if w.dispatch(c) == parked {
		w.parkedNow(c)
		c.t.idlePolls = 0 // a thread that waits is not spinning (spin.go)
		c.t.call = c
		if c.n.cur == c.t {
			c.n.cur = nil
		}
		w.pendingInterrupt(c.t)
	}
}

type event int

const (
	evNotif event = iota
	evExit
	evNone // a traced node's threads changed state: look again
)

// maxDiskPeriods is how many watchdog periods in a row a node may be found
// in uninterruptible sleep before the watchdog reports it.
//
// Why wall-clock time (issue 36 §5): a thread in state D waits for the
// host (a page-in, disk I/O), in no call weft sees, so no count of the
// scheduler's (steps, calls) can tell a slow disk from a hang; only time
// can. The allowance never changes the verdict of a healthy run: it only
// makes weft wait longer before reporting a thread that never leaves D,
// and what the node does once it leaves D does not depend on how long
// weft waited (its clock is virtual). A healthy run ends with the
// watchdog's error only if the host stalls one node's I/O for
// maxDiskPeriods whole watchdog periods.
const maxDiskPeriods = 6

// waitEvent waits for node n's next notification or its death. The
// watchdog reports a node that neither parks nor exits (a busy loop).
func (w *World) waitEvent(n *node) (event, error) {
	fds := []unix.PollFd{{Fd: int32(n.listener), Events: unix.POLLIN}, {Fd: int32(n.pidfd), Events: unix.POLLIN}}
	tid := n.cur.tid
	deadline := time.Now().Add(w.cfg.Watchdog)
	cpu0 := time.Duration(-1) // read lazily: /proc costs more than a round trip
	diskPeriods := 0
	for {
		ms := int(time.Until(deadline).Milliseconds())
		if ms <= 0 {
			// A loaded machine may starve a node of CPU: only a node that
			// burned half a watchdog period of CPU since the first period
			// ended (a busy loop), counted over every period so that a
			// starved spinner is still caught, or that sleeps in a call weft
			// does not see, is reported; a starved one gets more time. So
			// does one in uninterruptible sleep (state D: disk I/O, page-ins
			// on a loaded machine, which waits for the host, not for a
			// node) up to maxDiskPeriods periods in a row.
			state, cpu := taskState(tid, tid), cpuTime(tid, tid) // a child's thread is not in n.pid's group
			who := "node"
			if len(n.tasks) > 1 {
				who = "thread " + n.cur.name()
			}
			if state == 'D' {
				diskPeriods++
			} else {
				diskPeriods = 0
			}
			switch {
			case state == 'S' || diskPeriods >= maxDiskPeriods:
				return 0, fmt.Errorf("watchdog: %s has been blocked for %v in a call weft does not see (state %c)", who, w.cfg.Watchdog*time.Duration(max(1, diskPeriods)), state)
			case state == 't' || state == 'T':
				return 0, fmt.Errorf("watchdog: %s has been stopped for %v and weft did not collect the stop (state %c)", who, w.cfg.Watchdog, state)
			case cpu0 >= 0 && cpu-cpu0 >= w.cfg.Watchdog/2:
				why := "a busy loop?"
				if n.live() > 1 {
					why = "a busy loop? weft preempts threads only at syscalls, so a thread that spins waiting for another never lets it run"
					if w.cpus() > 1 {
						why += fmt.Sprintf("; the node sees %d CPUs (target.cpus), and runtimes spin only on more than one", w.cpus())
					}
				}
				// The bound, not the CPU time measured, which the load
				// moves: the verdict's text is part of the recording.
				return 0, fmt.Errorf("watchdog: %s ran more than %v of CPU without parking or exiting (%s)", who, w.cfg.Watchdog/2, why)
			}
			deadline = time.Now().Add(w.cfg.Watchdog)
			if cpu0 < 0 {
				cpu0 = cpu
			}
			continue
		}
		if n.traced {
			// ptrace stops (signals, rdtsc traps) and thread ends have no
			// descriptor of their own: a waiter reports them (tsc_linux.go).
			if ev, ok, err := w.waitTraced(n, fds, ms); ok || err != nil {
				return ev, err
			}
			continue
		}
		k, err := unix.Poll(fds, ms)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if k == 0 {
			continue
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			return evNotif, nil
		}
		if fds[1].Revents != 0 || fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
			return evExit, nil
		}
	}
}

// procStat returns the fields of one thread's /proc stat file after the
// command name.
func procStat(pid, tid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", pid, tid))
	if err != nil {
		return nil
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 {
		b = b[i+1:]
	}
	return strings.Fields(string(b))
}

// cpuTime is the user+system CPU time one thread has used.
func cpuTime(pid, tid int) time.Duration {
	f := procStat(pid, tid)
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

func (w *World) reap(n *node) {
	n.killTree() // the main process's end ends the node's tree
	n.collectAll()
	n.reapOrphans()
	w.memBoundHit(n)
	n.exited, n.reaped = true, true
	w.net.CloseNode(n.id, false)
	n.release()
	n.ran = true
	n.forgetMemory()
}

// dispatch runs the table entry for c and answers the node unless the call
// parks.
func (w *World) dispatch(c *call) outcome {
	if !w.need(c.n) { // a restored node's call, retried (lazy_linux.go)
		return failed
	}
	defer c.n.enterProc(c.t)()
	c.clearWaits()
	if c.intr != nil {
		return w.answerInterrupt(c)
	}
	e := lookup(int(c.req.Data.Nr))
	var r result
	switch e.decision {
	case unsupported:
		w.survey.record(c, result{kind: rFail, msg: e.note})
		w.fail(c.n, e.name, e.note)
		return failed
	case refuse:
		w.refuseTable(c, e)
		r = errno(e.errno)
	case passthrough:
		r = cont() // unreachable: the filter allows these itself
	default:
		if f, over := c.overFDBound(); over {
			r = f
		} else {
			r = c.fileHandler(e.handler)(c)
		}
	}
	w.survey.record(c, r)
	switch r.kind {
	case rPark:
		if !c.keyed {
			c.watchCallFD() // a blocking read, recv, accept, send or connect (waiters_linux.go)
		}
		return parked
	case rFail:
		w.fail(c.n, e.name, r.msg)
		return failed
	case rDone:
		return answered
	case rContinue:
		w.respond(c, notifResp{ID: c.req.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE})
	default:
		resp := notifResp{ID: c.req.ID, Val: r.val}
		if r.errno != 0 {
			resp.Val, resp.Error = -1, -int32(r.errno)
		}
		w.respond(c, resp)
	}
	return answered
}

func (w *World) respond(c *call, r notifResp) {
	c.n.forgetMemory()
	w.vdsoSync(c.t)
	if err := sendResp(c.n.listener, &r); err != nil {
		w.fail(c.n, sysName(int(c.req.Data.Nr)), fmt.Sprintf("answering: %v", err))
	}
}

type outcome int

const (
	answered outcome = iota
	parked
	failed
)

// fail ends the run with verdict error.
func (w *World) fail(n *node, syscall, msg string) {
	if w.failure != nil {
		return
	}
	w.refuse(n.id, syscall, "", "run ended", msg)
	w.failure = &Failure{Node: n.id, Syscall: syscall, Msg: msg}
}

// settle runs the world to a quiescent point: it retries parked calls
// until no thread can make progress, and runs a node's only ready thread.
// A node with two or more ready threads waits for the scheduler (a Run
// choice), or with ThreadsFixed runs the next one round-robin
// (nextReady). Nodes and threads are visited in index order, so the
// result is deterministic.
func (w *World) settle() {
	w.changed()
	for progress := true; progress && w.failure == nil; {
		progress = w.startDeferred()
		for _, n := range w.nodes {
			if w.failure != nil {
				return
			}
			if n.exited || n.cur != nil {
				continue
			}
			if w.retryParked(n) {
				progress = true
				continue
			}
			if t := w.nextReady(n); t != nil {
				w.resume(t)
				progress = true
			}
		}
	}
}

// retryParked retries the node's parked (not ready) calls in thread
// order; the first that completes runs its thread.
func (w *World) retryParked(n *node) bool {
	for _, t := range n.tasks {
		c := t.call
		if c == nil || t.ready || t.exited {
			continue
		}
		if w.retry(c) {
			continue
		}
		t.call = nil
		for _, o := range n.tasks {
			if o != t && o.call != nil {
				o.call.reads = nil
			}
		}
		n.cur, n.lastRun = t, t.k
		w.runNode(n)
		return true
	}
	return false
}

// Failure returns why the run failed, or nil.
func (w *World) Failure() *Failure { return w.failure }

// envData receives bytes a node sent to the environment's client.
func (w *World) envData(env *netsim.Socket, data []byte) {
	if w.queryData(env, data) {
		return
	}
	w.received = append(w.received, Received{Conn: env.ID, Node: w.envNode[env.ID], Req: w.envReq[env.ID] - 1, Data: data, Step: w.steps})
	w.envBuf[env.ID] = append(w.envBuf[env.ID], data...)
	for {
		buf := w.envBuf[env.ID]
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return
		}
		w.replies = append(w.replies, Reply{Node: w.envNode[env.ID], Req: w.envReq[env.ID] - 1, Line: string(buf[:i]), Step: w.steps})
		w.envBuf[env.ID] = buf[i+1:]
	}
}

// envClose notes that a node closed its end of a client connection.
func (w *World) envClose(env *netsim.Socket) {
	if _, ok := w.queryOpen[env.ID]; ok {
		return
	}
	w.received = append(w.received, Received{Conn: env.ID, Node: w.envNode[env.ID], Req: w.envReq[env.ID] - 1, Closed: true, Step: w.steps})
}

// Received returns every piece of the client connections' byte streams
// received so far, in arrival order.
func (w *World) Received() []Received { return w.received }

// Apply performs one action and runs the world to its next quiescent point.
func (w *World) Apply(a sched.Action) error {
	if w.failure != nil {
		return w.failure
	}
	w.steps++
	w.traceAction(a)
	sent := w.queryInputs(a)
	if err := w.applyKind(a); err != nil {
		return err
	}
	w.settle()
	w.traceTasks()
	w.queryOutputs(sent)
	w.runQueries()
	if w.failure != nil {
		return w.failure
	}
	return nil
}

// applyKind makes the change action a names, by its kind; Apply then
// lets the world settle.
func (w *World) applyKind(a sched.Action) error {
	switch a.Kind {
	case sched.Deliver:
		// A seeded run has advanced the clock to the arrival time already
		// (the scheduler owns it); an exhaustive check has no latency.
		_, _, err := w.net.Deliver(netsim.Delivery{Chan: a.Chan, Index: a.Index})
		return err
	case sched.Client:
		return w.applyClient(a)
	case sched.Partition, sched.Heal:
		// The network's reachability is the scheduler's business: it stops
		// choosing deliveries across the cut. Nothing changes in the world.
		return nil
	case sched.Notice:
		return w.applyNotice(a)
	case sched.Timer:
		return w.applyTimer(a)
	case sched.Run:
		t := w.task(a.Node, a.Task)
		if t == nil || !t.ready || w.nodes[a.Node].cur != nil {
			return fmt.Errorf("supervisor: thread n%d/t%d is not ready to run", a.Node, a.Task)
		}
		w.resume(t)
		return nil
	case sched.Crash:
		return w.applyCrash(a)
	case sched.Restart:
		return w.applyRestart(a)
	}
	return fmt.Errorf("supervisor: unknown action %v", a)
}

// applyClient sends the client request a names to its node, or records
// the refusal as its reply.
func (w *World) applyClient(a sched.Action) error {
	if a.Req < 0 || a.Req >= len(w.cfg.Client) || w.clientSent[a.Req] {
		return fmt.Errorf("supervisor: client request %d is not enabled", a.Req)
	}
	w.clientSent[a.Req] = true
	r := w.cfg.Client[a.Req]
	port := uint16(w.cfg.BasePort + r.Node)
	if r.Port != 0 {
		port = r.Port
	}
	env, e := w.net.ConnectEnv(port)
	if e != netsim.OK {
		w.replies = append(w.replies, Reply{Node: r.Node, Req: a.Req, Err: e.String(), Step: w.steps})
		return nil
	}
	w.envNode[env.ID] = r.Node
	w.envReq[env.ID] = a.Req + 1
	w.net.InjectEnv(env, r.Data)
	return nil
}

// applyNotice tells node a.Node that node a.Req died (the model's
// notice message), unless it is dead itself or not listening.
func (w *World) applyNotice(a sched.Action) error {
	if w.cfg.Notice == "" || a.Node < 0 || a.Node >= len(w.nodes) {
		return fmt.Errorf("supervisor: no death notices configured for %v", a)
	}
	if w.nodes[a.Node].exited {
		return nil // a dead node hears nothing
	}
	env, e := w.net.ConnectEnv(uint16(w.cfg.BasePort + a.Node))
	if e != netsim.OK {
		return nil
	}
	w.envNode[env.ID] = a.Node
	w.net.InjectEnv(env, []byte(strings.ReplaceAll(w.cfg.Notice, "{node}", fmt.Sprint(a.Req))))
	w.net.CloseEnv(env)
	return nil
}

// applyTimer fires a timer: a deferred start (start_linux.go), a signal
// timer (sys_itimer.go), or a parked call's timeout, the clock moving to
// its deadline.
func (w *World) applyTimer(a sched.Action) error {
	if w.fireStart(a) {
		return nil
	}
	if a.Task < 0 {
		if a.Node >= 0 && a.Node < len(w.nodes) && !w.need(w.nodes[a.Node]) {
			return nil
		}
		return w.fireSigTimer(a)
	}
	c := w.pendingCall(a.Node, a.Task)
	if c == nil || c.deadline < 0 {
		return fmt.Errorf("supervisor: thread n%d/t%d has no pending timer", a.Node, a.Task)
	}
	if c.deadline > w.now {
		w.setNow(c.deadline)
	}
	c.timedOut = true
	return nil
}

// applyCrash kills node a.Node's processes and closes its connections;
// with the model's lose_unsynced, its data directory loses what it did
// not sync.
func (w *World) applyCrash(a sched.Action) error {
	n := w.nodes[a.Node]
	if n.exited {
		return fmt.Errorf("supervisor: node %d is not running", a.Node)
	}
	if err := w.materialise(n); err != nil { // its end is its processes' (status)
		return err
	}
	w.kill(n)
	w.net.CloseNode(n.id, true)
	if w.cfg.LoseUnsynced && w.dataRoot != "" {
		w.loseUnsynced(n.id)
	}
	return nil
}

// applyRestart launches crashed node a.Node again; one not yet started
// starts when its condition holds instead.
func (w *World) applyRestart(a sched.Action) error {
	old := w.nodes[a.Node]
	if old.waiting {
		return nil
	}
	if !old.exited {
		return fmt.Errorf("supervisor: node %d is running", a.Node)
	}
	// Its memory cgroup is kept over the restart (applyBounds): the
	// new node struct must not drop it, or nothing removes it.
	n := &node{id: old.id, fds: newFDTable(), pid: -1, listener: -1, pidfd: -1, restarts: old.restarts + 1,
		memcg: old.memcg, memUnbounded: old.memUnbounded}
	w.nodes[a.Node] = n
	if err := w.launch(n); err != nil {
		w.fail(n, "", err.Error())
	}
	return nil
}

// Enabled lists the actions possible at this quiescent point, in canonical
// order: client requests, deliveries (by channel), then the earliest
// timers.
func (w *World) Enabled() []sched.Action {
	if w.failure != nil {
		return nil
	}
	var acts []sched.Action
	for i := range w.cfg.Client {
		if !w.clientSent[i] {
			acts = append(acts, sched.Action{Kind: sched.Client, Req: i})
		}
	}
	for _, d := range w.net.Deliverable(!w.cfg.Bag) {
		acts = append(acts, sched.Action{Kind: sched.Deliver, Chan: d.Chan, Index: d.Index})
	}
	acts = append(acts, w.Ready()...)
	earliest := int64(-1)
	ts := w.Timers()
	for _, t := range ts {
		if earliest < 0 || t.Deadline < earliest {
			earliest = t.Deadline
		}
	}
	for _, t := range ts {
		if t.Deadline == earliest {
			acts = append(acts, sched.Action{Kind: sched.Timer, Node: t.Node, Task: t.Task})
		}
	}
	return acts
}

// Ready lists the Run choices: every ready thread of each node that has
// two or more (a node's only ready thread runs without a choice). With
// ThreadsFixed there are none; with ThreadsVisible only where each of the
// node's ready threads is stopped in a visible call (settle runs a
// private step first: nextReady).
func (w *World) Ready() []sched.Action {
	var acts []sched.Action
	if w.cfg.Threads == ThreadsFixed {
		return nil
	}
	for _, n := range w.nodes {
		if n.exited || n.cur != nil {
			continue
		}
		if r := n.readyTasks(); len(r) > 1 && w.nextReady(n) == nil {
			for _, t := range r {
				acts = append(acts, sched.Action{Kind: sched.Run, Node: n.id, Task: t.k})
			}
		}
	}
	return acts
}

// task returns thread k of node i, or nil.
func (w *World) task(i, k int) *task {
	if i < 0 || i >= len(w.nodes) || k < 0 || k >= len(w.nodes[i].tasks) {
		return nil
	}
	if t := w.nodes[i].tasks[k]; !t.exited {
		return t
	}
	return nil
}

// pendingCall is the call thread k of node i is stopped in, or nil.
func (w *World) pendingCall(i, k int) *call {
	if t := w.task(i, k); t != nil && !w.nodes[i].exited {
		return t.call
	}
	return nil
}

// Describe renders an action for people: which node sends what to whom.
func (w *World) Describe(a sched.Action) string {
	switch a.Kind {
	case sched.Deliver:
		if a.Chan < len(w.net.Channels) {
			c := w.net.Channels[a.Chan]
			if a.Index < len(c.Msgs) {
				m := c.Msgs[a.Index]
				what := fmt.Sprintf("%q", truncate(m.Data, 40))
				if m.FIN {
					what = "FIN"
				} else if m.RST {
					what = "RST"
				} else if m.SYN {
					what = "SYN"
				}
				return fmt.Sprintf("deliver n%d→n%d %s (chan %d)", c.FromNode, w.net.ReceiverNode(c), what, a.Chan)
			}
		}
	case sched.Client:
		r := w.cfg.Client[a.Req]
		return fmt.Sprintf("client → n%d %q", r.Node, truncate(r.Data, 40))
	case sched.Timer:
		if a.Task < 0 {
			return w.describeSigTimer(a)
		}
		if w.threaded(a.Node) {
			return fmt.Sprintf("timer fires on n%d/t%d", a.Node, a.Task)
		}
		return fmt.Sprintf("timer fires on n%d", a.Node)
	case sched.Run:
		what := ""
		if t := w.task(a.Node, a.Task); t != nil {
			switch {
			case t.cloned:
				what = " (returns from clone)"
			case t.held && t.p != nil && t.tid == t.p.pid:
				what = " (a new process starts)"
			case t.held:
				what = " (a new thread starts)"
			case t.call != nil:
				what = " (from " + sysName(int(t.call.req.Data.Nr)) + ")"
			}
		}
		return fmt.Sprintf("n%d/t%d runs%s", a.Node, a.Task, what)
	case sched.Crash:
		return fmt.Sprintf("crash n%d", a.Node)
	case sched.Restart:
		return fmt.Sprintf("restart n%d", a.Node)
	case sched.Notice:
		return fmt.Sprintf("notice to n%d: n%d crashed", a.Node, a.Req)
	case sched.Partition:
		return fmt.Sprintf("partition %d begins", a.Req)
	case sched.Heal:
		return fmt.Sprintf("partition %d heals", a.Req)
	}
	return a.String()
}

func truncate(b []byte, n int) string {
	s := string(b)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// Replies returns the lines the environment's client has received.
func (w *World) Replies() []Reply { return w.replies }

// Steps is the number of actions applied.
func (w *World) Steps() int { return w.steps }

// Now is the virtual time in nanoseconds since the Unix epoch; the run
// starts at Epoch.
func (w *World) Now() int64 { return w.now }

// AdvanceTo moves the virtual clock forward to t (ns since the Unix
// epoch), as a seeded scheduler does before a scheduled fault. Nodes
// observe the new time only when they next ask.
func (w *World) AdvanceTo(t int64) {
	if t > w.now {
		w.setNow(t)
	}
}

// Status reports node i.
func (w *World) Status(i int) NodeStatus {
	n := w.nodes[i]
	st := NodeStatus{Alive: !n.exited, Exited: n.exited, Killed: n.killed}
	if n.exited && !n.killed {
		if n.status.Signaled() {
			st.Signal = unix.SignalName(n.status.Signal())
		} else {
			st.ExitCode = n.status.ExitStatus()
		}
	}
	for _, t := range n.tasks {
		if t.call != nil && !t.exited {
			st.Syscall = sysName(int(t.call.req.Data.Nr))
			break
		}
	}
	return st
}

// ReadMemv reads several regions of node i's memory with one
// process_vm_readv: sizes[k] bytes at addrs[k].
func (w *World) ReadMemv(i int, addrs []uintptr, sizes []int) ([][]byte, error) {
	n := w.nodes[i]
	if n.exited {
		return nil, fmt.Errorf("node %d has exited", i)
	}
	total := 0
	for _, sz := range sizes {
		total += sz
	}
	buf := make([]byte, total)
	local := []unix.Iovec{{Base: &buf[0], Len: uint64(total)}}
	remote := make([]unix.RemoteIovec, len(addrs))
	out := make([][]byte, len(addrs))
	off := 0
	for k, a := range addrs {
		remote[k] = unix.RemoteIovec{Base: a, Len: sizes[k]}
		out[k] = buf[off : off+sizes[k]]
		off += sizes[k]
	}
	// A node not given its processes yet has its checkpoint's frozen
	// process's memory (hashMemory): that is read (lazy_linux.go).
	got, err := unix.ProcessVMReadv(w.memReadPid(n), local, remote, 0)
	if err != nil {
		return nil, err
	}
	if got != total {
		return nil, fmt.Errorf("node %d: short read of its globals", i)
	}
	return out, nil
}

// LoadBase returns the address at which node i's executable was mapped
// (for relocating PIE symbols), read from /proc/PID/maps.
func (w *World) LoadBase(i int) (uintptr, error) {
	n := w.nodes[i]
	if n.exited {
		return 0, fmt.Errorf("node %d has exited", i)
	}
	if n.base != 0 {
		return n.base, nil
	}
	if err := w.materialise(n); err != nil {
		return 0, err
	}
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", n.memPid()))
	if err != nil {
		return 0, err
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", n.memPid()))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && f[5] == exe && f[2] == "00000000" {
			var lo uint64
			fmt.Sscanf(f[0], "%x-", &lo)
			n.base = uintptr(lo)
			return n.base, nil
		}
	}
	return 0, fmt.Errorf("node %d: executable %s not found in its memory map", i, exe)
}

// Hash returns a canonical hash of the world at a quiescent point: each
// node's liveness, the call it is parked in, its memory (HashMemory) or
// only the given extra bytes (HashGlobals), the network, the environment
// and the clock, and each node's virtual resource limits: hashParts, in
// order, into one digest.
func (w *World) Hash(mode HashMode, extra []byte) ([32]byte, error) {
	h := sha256.New()
	var b [8]byte
	put := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
	w.hashed, w.hashMode = true, mode
	if err := w.prepareHash(mode); err != nil {
		return [32]byte{}, err
	}
	for _, p := range w.hashParts(mode, extra) {
		if err := p.write(h, put); err != nil {
			w.hashDone(false)
			return [32]byte{}, err
		}
	}
	if err := w.hashDone(true); err != nil {
		return [32]byte{}, err
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// hashPart is one named part of the world hash: write adds it to h (put
// writes one word). World.Hash writes every part into one digest; the
// golden test (TestGoldenWorldHash) also hashes each alone, so that a
// changed hash names the part that moved.
type hashPart struct {
	name  string
	write func(h hash.Hash, put func(uint64)) error
}

// hashParts are the parts of the world's hash in mode, in the order
// World.Hash writes them: per node ("n0.live", then its tasks, files,
// cwds, signals, memory with HashMemory, procs, limits and sysv; an ended
// node only its liveness and status), then the extra bytes, the next
// inode numbers, leases, clocks, data directories, the network, the
// environment (clients' sends, replies, partial replies) and the time
// with the random stream's position.
func (w *World) hashParts(mode HashMode, extra []byte) []hashPart {
	var parts []hashPart
	add := func(name string, f func(h hash.Hash, put func(uint64)) error) {
		parts = append(parts, hashPart{name, f})
	}
	for i, n := range w.nodes {
		p := fmt.Sprintf("n%d.", i)
		if n.exited {
			add(p+"exited", func(_ hash.Hash, put func(uint64)) error { put(1); put(uint64(n.status)); return nil })
			continue
		}
		add(p+"live", func(_ hash.Hash, put func(uint64)) error { put(0); return nil })
		add(p+"tasks", func(_ hash.Hash, put func(uint64)) error { return w.hashTasks(n, put) })
		add(p+"files", func(_ hash.Hash, put func(uint64)) error { w.hashFiles(n, put); return nil })
		add(p+"cwds", func(h hash.Hash, _ func(uint64)) error { w.hashCwds(n, h); return nil })
		add(p+"signals", func(_ hash.Hash, put func(uint64)) error { w.hashSignals(n, mode, put); return nil })
		if mode == HashMemory {
			add(p+"memory", func(h hash.Hash, _ func(uint64)) error { return w.hashMemory(n, h) })
		}
		add(p+"procs", func(h hash.Hash, put func(uint64)) error { return w.hashProcs(n, mode, put, h) })
		add(p+"limits", func(_ hash.Hash, put func(uint64)) error {
			hashLimits(n.virtualLimits(w.cfg.MaxTasks), put)
			for _, p := range n.procs[min(1, len(n.procs)):] {
				if !p.ended() {
					hashLimits(p.limits, put) // each live child's own
				}
			}
			return nil
		})
		add(p+"sysv", func(h hash.Hash, put func(uint64)) error {
			n.hashSysv(put, func(b []byte) { h.Write(b) })
			return nil
		})
	}
	add("extra", func(h hash.Hash, _ func(uint64)) error { h.Write(extra); return nil })
	add("inodes", func(_ hash.Hash, put func(uint64)) error { w.inodes.Digest(put); return nil }) // the next virtual inode numbers
	add("leases", func(_ hash.Hash, put func(uint64)) error {
		if w.leases != nil { // an empty table hashes as none
			w.leases.Hash(put)
		}
		return nil
	})
	add("clocks", func(h hash.Hash, _ func(uint64)) error { w.hashClocks(h); return nil })
	add("datadirs", func(h hash.Hash, _ func(uint64)) error { return w.hashDataDirs(h) })
	add("net", func(h hash.Hash, _ func(uint64)) error { w.net.Hash(h); return nil })
	add("env", func(h hash.Hash, put func(uint64)) error {
		for i, sent := range w.clientSent {
			if sent {
				put(uint64(i))
			}
		}
		for _, r := range w.replies {
			put(uint64(r.Node))
			put(uint64(r.Req + 1))
			h.Write([]byte(r.Line))
			h.Write([]byte(r.Err))
		}
		for _, id := range slices.Sorted(maps.Keys(w.envBuf)) { // replies not yet ended by a newline
			if b := w.envBuf[id]; len(b) > 0 {
				put(uint64(id))
				h.Write(b)
			}
		}
		return nil
	})
	// The random stream is a function of the seed and of how much of it
	// was drawn: its position decides every later draw.
	add("time", func(_ hash.Hash, put func(uint64)) error { put(uint64(w.now)); put(w.rand.drawn); return nil })
	return parts
}

// Output returns what node i wrote to stdout and stderr, in order.
func (w *World) Output(i int) []byte { return w.nodes[i].output.Bytes() }

// Network exposes the virtual network (read-only use).
func (w *World) Network() *netsim.Network { return w.net }

// nodeOutput keeps what a node wrote to stdout or stderr.
func (w *World) nodeOutput(n *node, data []byte) {
	limit := w.cfg.OutputLimit
	if limit == 0 {
		limit = 1 << 20
	}
	if n.output.Len()+len(data) <= limit {
		n.output.Write(data)
	}
	if w.cfg.OnOutput != nil {
		w.cfg.OnOutput(n.id, data)
	}
}

// hashLimits puts a node's virtual resource limits: one it lowered fails
// differently later (EMFILE, EFBIG). A table not yet made hashes as its
// defaults, which it is.
func hashLimits(l *vkernel.Limits, put func(uint64)) {
	for r := range vkernel.Resource(vkernel.NumResources) {
		v, _ := l.Get(r)
		put(v.Cur)
		put(v.Max)
	}
}
