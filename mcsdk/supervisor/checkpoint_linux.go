//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
)

// Checkpoints. An exhaustive search continues sibling branches from a copy
// of the world taken at a quiescent point instead of starting the nodes
// again and replaying the prefix (sched.Explorer.Checkpoints). The copy has
// two halves:
//
//   - each live node's process, forked while it is parked (or, if every
//     thread is held in a ptrace stop, from a held thread: see
//     checkpoint_threads_linux.go): weft takes the
//     parked thread out of its notification (PTRACE_INTERRUPT, then an
//     answer to the notification, so the thread stops on its way back to
//     user space; the notification wait is killable only, so the interrupt
//     alone does not end it), points it at its own syscall instruction
//     with clone(SIGCHLD) in the registers, and lets that clone through
//     when its notification arrives (the checkpoint receives it itself and
//     checks its pid and arguments, so the node cannot use this way out:
//     the seal holds). The child, traced from birth (PTRACE_O_TRACEFORK),
//     stays stopped: it is the checkpoint. The parent's registers are put
//     back so that it issues its parked call again, which the world
//     receives under a new notification id. Restoring does the same to
//     the checkpoint process, so one checkpoint serves every sibling.
//   - the Go side, copied deeply (deepcopy.go): the network, the node
//     descriptor tables, tasks and their parked calls, timers, clocks,
//     the random stream's position, replies and queries — everything Hash
//     covers and everything later behaviour depends on. The host's parts
//     (pids, pidfds, listeners, the supervisor's descriptors) are replaced.
//   - data directories (Config.DataDirs), copied file by file, each copy
//     in a directory of its own; a restored process is moved there with
//     an injected chdir. A run directory that is not a data directory is
//     the host's, shared by every run, replayed or restored, alike.
//
// A forked descriptor shares its file description with the original, so
// O_NONBLOCK and the socket timeouts, which weft keeps on the description,
// are recorded at the checkpoint and written back at each restore (only
// one world of a search runs at a time).
//
// Files and directories a node opened natively are opened again in each
// copy, at the same offset (in the copy's data directory if they lie in
// one), and put in place of the inherited descriptor with
// SECCOMP_ADDFD_FLAG_SETFD: a fork would share the offset.
//
// A node's other threads are recreated in each copy by injected clones
// (checkpoint_threads_linux.go), and its other processes by forks of
// their own frozen copies (checkpoint_tree_linux.go).
//
// What cannot be copied this way is refused with a reason, and the
// explorer replays instead: a node with a process with no thread parked
// or held outside a call, host pipes or sockets, deleted open files,
// shared writable memory, native TSC, a survey, calls interrupted by
// signals, open state queries, and the parts of process trees that
// depend on host parentage (checkpoint_tree_linux.go).

// Checkpoint is a copy of a world at a quiescent point, from which new
// worlds in that state are started (Restore). Close releases it.
type Checkpoint struct {
	w      *World                        // the Go state; its nodes' pids are the frozen processes
	frozen []*frozenProc                 // per node: its main process's
	kids   map[int][]*frozenProc         // per node, by index in its procs: its child processes' (nil: ended)
	flags  map[procKey]map[int]descState // per process, per target fd: the shared description's state
	files  map[int][]hostFile            // per node: the host files its processes have open, reopened in each copy
	mem    []*memSlot                    // per node: its main frozen process's memory digest, once a restore has read it (hashMemory)
	bases  []*memBase                    // per node: its main frozen process's page sums (memBase), or nil
	roots  *rootPool                     // its closed restores' data roots, for its next restores (datapool_linux.go)
	procs  []*procSlot                   // per node: what a hash reads of its restored processes, once recorded (lazy_linux.go)
	// refs counts the restored worlds with nodes not given their
	// processes yet (lazy_linux.go): Close leaves the frozen processes to
	// the last of them (closed).
	refs, restored, materialised int
	closed                       bool
}

// procKey names process idx (its index in the tree; 0 the main process)
// of node node.
type procKey struct{ node, idx int }

// hostFile is a file or directory a node opened natively: a copy gets a
// description of its own (a fork would share the offset), opened again at
// the same offset — in the copy's own data directory if it lies in one —
// and shared again between the descriptors and processes that shared the
// original's (desc).
type hostFile struct {
	fd    int
	path  string // absolute, at the checkpoint
	flags int    // open(2) flags, O_CLOEXEC included
	pos   int64
	proc  int // the process's index in the node's tree
	pid   int // its host pid at the checkpoint
	desc  int // the file description: files with one desc share it (memberFiles)
}

// frozenProc is one node's process kept stopped as a checkpoint.
type frozenProc struct {
	pid     int
	threads []threadState // each live thread's, the main thread's first
	fk      int           // the forker's index in threads
	sysIP   uint64        // the forker's syscall instruction, where calls are injected
	tracer  *launcher
	// holders counts the checkpoints holding the process: the one that
	// froze it and those of its restored worlds that took it for a node
	// still unforked (sharePending, lazy_linux.go). The last one's shut
	// kills it.
	holders int
}

// descState is what a file description shared between copies holds that
// the node can change: its status flags and socket timeouts.
type descState struct {
	fl         int
	rcv, snd   unix.Timeval
	sockTimers bool
}

// cloneNr is clone(2)'s number; the injected fork is
// clone(CLONE_PARENT|SIGCHLD): the copy is weft's child, as the node is,
// so its end signals and is reaped by weft, not the node it was forked
// from (whose pending signals the hash covers).
const (
	cloneNr    = unix.SYS_CLONE
	cloneFlags = uint64(unix.CLONE_PARENT | unix.SIGCHLD)
)

// ErrNoCheckpoint wraps the reason a world cannot be checkpointed.
var ErrNoCheckpoint = errors.New("no checkpoint")

func noCheckpoint(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrNoCheckpoint}, a...)...)
}

// Checkpoint copies the world at its quiescent point. An error wrapping
// ErrNoCheckpoint says why this world cannot be copied (nothing changed);
// any other error is a tool failure after which the world is unusable.
func (w *World) Checkpoint() (*Checkpoint, error) {
	// A node still to be given its processes keeps its checkpoint's
	// frozen processes, which the new checkpoint shares, or is given them
	// (lazy_linux.go).
	shared, err := w.sharePending()
	if err != nil {
		return nil, err
	}
	files, err := w.checkpointable(shared)
	if err != nil {
		return nil, err
	}
	cp := &Checkpoint{frozen: make([]*frozenProc, len(w.nodes)), kids: map[int][]*frozenProc{}, flags: map[procKey]map[int]descState{}, files: files, mem: make([]*memSlot, len(w.nodes)), bases: make([]*memBase, len(w.nodes)), roots: &rootPool{}, procs: make([]*procSlot, len(w.nodes))}
	if err := cp.freeze(w, shared); err != nil {
		cp.Close()
		w.failSignalMet(err)
		return nil, err
	}
	cp.recordHash(w, shared)
	cw, err := w.copyState()
	if err != nil {
		cp.Close()
		return nil, err
	}
	for i, n := range cw.nodes {
		if fp := cp.frozen[i]; fp != nil {
			n.setPid(fp.pid)
		}
		for j, fp := range cp.kids[i] {
			if fp != nil {
				n.setProcPid(j, fp.pid)
			}
		}
	}
	cp.w = cw
	if err := cw.own(w); err != nil {
		cp.Close()
		return nil, noCheckpoint("%v", err)
	}
	if err := cw.copyDataDirs(w, nil); err != nil {
		cp.Close()
		return nil, noCheckpoint("%v", err)
	}
	cp.relocate(w.dataRoot)
	return cp, nil
}

// freeze records the descriptions of each live process of each live
// node and forks it into a frozen process; a node shared keeps the
// frozen processes of its world's checkpoint (shareNode).
func (cp *Checkpoint) freeze(w *World, shared []bool) error {
	for i, n := range w.nodes {
		if n.exited {
			continue
		}
		if shared[i] {
			cp.shareNode(w.lazy.cp, i)
			continue
		}
		if len(n.procs) > 0 {
			cp.kids[i] = make([]*frozenProc, len(n.procs))
		}
		// Freezing runs no code of the node's (its threads stop in the
		// kernel, the forker makes one clone there, each parked call is
		// issued again) but costs its threads CPU time: a digest kept
		// before, or a restore's link to its checkpoint's, is kept after
		// (hashMemory).
		kept := (n.memo.ok || n.memo.slot != nil) && n.memo.pid == n.memPid() && n.memo.ran == n.cpuTime()
		pages := n.memo.pages
		if !n.memo.ok && n.memo.slot != nil {
			pages = n.memo.slot.pages
		}
		for _, m := range n.members() {
			fp, err := cp.freezeMember(n, m)
			if err != nil {
				if !errors.Is(err, ErrNoCheckpoint) {
					w.fail(n, "", "checkpoint: "+err.Error())
				}
				return err
			}
			if m.idx == 0 {
				cp.frozen[i] = fp
			} else {
				cp.kids[i][m.idx] = fp
			}
		}
		if kept {
			n.memo.ran = n.cpuTime()
		}
		// The frozen process is a fork of the node's main process, whose
		// pages it shares as its restores will (memBase); if the node did
		// not run since its digest, that digest's page sums are its.
		if fp := cp.frozen[i]; fp != nil {
			cp.bases[i] = newMemBase(fp.pid, n.memo.base)
			if kept {
				cp.bases[i].seed(pages)
			}
			n.memo.base = cp.bases[i]
		}
	}
	return nil
}

// freezeMember records the descriptions of n's process m and forks it
// into a frozen process.
func (cp *Checkpoint) freezeMember(n *node, m member) (*frozenProc, error) {
	defer n.asMember(m.idx)()
	var err error
	if cp.flags[procKey{n.id, m.idx}], err = recordDescs(n); err != nil {
		return nil, noCheckpoint("node %d: %v", n.id, err)
	}
	fp, err := freeze(n, m.tasks, m.idx > 0)
	if fp != nil {
		fp.holders = 1
	}
	return fp, err
}

// checkpointable says why the world cannot be checkpointed, or lists
// each live node's host files (hostFiles); a node shared (sharePending)
// is its checkpoint's, which was checked there and has not run since:
// only what weft may have changed of it is checked again
// (sharedCheckpointable).
func (w *World) checkpointable(shared []bool) (map[int][]hostFile, error) {
	switch {
	case w.failure != nil:
		return nil, noCheckpoint("the run failed")
	case w.cfg.NativeTSC:
		return nil, noCheckpoint("nodes with a native TSC are not traced")
	case w.survey != nil:
		return nil, noCheckpoint("a survey counts host calls")
	case len(w.queryOpen) > 0:
		return nil, noCheckpoint("a state query is open")
	}
	files := map[int][]hostFile{}
	for _, n := range w.nodes {
		if n.exited {
			continue
		}
		if shared[n.id] {
			if err := n.sharedCheckpointable(); err != nil {
				return nil, noCheckpoint("node %d %v", n.id, err)
			}
			files[n.id] = w.sharedFiles(n)
			continue
		}
		if err := n.checkpointable(); err != nil {
			return nil, noCheckpoint("node %d %v", n.id, err)
		}
		fs, err := n.memberFiles()
		if err != nil {
			return nil, noCheckpoint("node %d %v", n.id, err)
		}
		files[n.id] = fs
	}
	return files, nil
}

func (n *node) checkpointable() error {
	if n.exited {
		return nil
	}
	if err := n.checkShared(); err != nil {
		return err
	}
	for _, m := range n.members() {
		if err := n.memberCheckpointable(m); err != nil {
			return err
		}
	}
	return nil
}

// checkShared says why n cannot be copied by what weft keeps of it (not
// its host processes).
func (n *node) checkShared() error {
	switch {
	case !n.traced:
		return errors.New("is not traced")
	case n.cur != nil:
		return errors.New("is running")
	case len(n.sigScan) > 0:
		return errors.New("has a native signalfd")
	case n.hasSegments():
		return errors.New("has SysV shared memory segments")
	case n.sendHoldsRights():
		return errors.New("has a sendmsg waiting with the descriptors it took (SCM_RIGHTS)")
	}
	return n.treeCheckpointable()
}

// recordDescs reads the state of the node's served descriptors' shared
// file descriptions.
func recordDescs(n *node) (map[int]descState, error) {
	out := map[int]descState{}
	for fd, v := range n.fds.All() {
		if v.ours < 0 {
			continue
		}
		fl, err := unix.FcntlInt(uintptr(v.ours), unix.F_GETFL, 0)
		if err != nil {
			return nil, fmt.Errorf("descriptor %d: %v", fd, err)
		}
		d := descState{fl: fl}
		if rcv, err := unix.GetsockoptTimeval(v.ours, unix.SOL_SOCKET, unix.SO_RCVTIMEO); err == nil {
			snd, err := unix.GetsockoptTimeval(v.ours, unix.SOL_SOCKET, unix.SO_SNDTIMEO)
			if err != nil {
				return nil, fmt.Errorf("descriptor %d: %v", fd, err)
			}
			d.rcv, d.snd, d.sockTimers = *rcv, *snd, true
		}
		out[fd] = d
	}
	return out, nil
}

// writeDescs puts recorded description state back.
func writeDescs(n *node, st map[int]descState) error {
	for fd, d := range st {
		v := n.fds.At(fd)
		if v == nil || v.ours < 0 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(v.ours), unix.F_SETFL, d.fl); err != nil {
			return err
		}
		if d.sockTimers {
			if err := unix.SetsockoptTimeval(v.ours, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &d.rcv); err != nil {
				return err
			}
			if err := unix.SetsockoptTimeval(v.ours, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &d.snd); err != nil {
				return err
			}
		}
	}
	return nil
}

// rebound reports whether a copy of the world may hold functions of type
// t: the network's callbacks, which copyState binds to the copy, and the
// caller's output callback (Config.OnOutput), which takes a node number.
func rebound(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[func(*netsim.Socket, []byte)](), reflect.TypeFor[func(*netsim.Socket)](),
		reflect.TypeFor[func(*netsim.Socket, *netsim.Socket)](), reflect.TypeFor[func(int, []byte)]():
		return true
	}
	return false
}

// copyState deep-copies the world's Go state; the copy's host resources
// (pids, descriptors) are still the original's and must be replaced.
func (w *World) copyState() (*World, error) {
	// The copy's nodes are all given processes by the caller (their
	// frozen ones, or forks of them): none is a restore's pending node.
	l := w.lazy
	w.lazy = nil
	defer func() { w.lazy = l }()
	var cw *World
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = noCheckpoint("copying the world: %v", r)
			}
		}()
		dc := newDeepCopier(reflect.TypeFor[*launcher](), reflect.TypeFor[*nodeTemplate](), reflect.TypeFor[*memBase](), reflect.TypeFor[*pageSums]())
		cw = dc.copy(reflect.ValueOf(w)).Interface().(*World)
		for _, t := range dc.shared {
			if !rebound(t) {
				return noCheckpoint("the world holds a %v the copy would share", t)
			}
		}
		return nil
	}()
	if err != nil {
		return nil, err
	}
	cw.net.OnEnvData = cw.envData
	cw.net.OnEnvClose = cw.envClose
	cw.net.OnAccept = cw.accepted
	cw.stops = -1
	cw.dataRoot = "" // copyDataDirs gives it its own
	for _, n := range cw.nodes {
		n.pidfd, n.listener = -1, -1
		n.forgetMemory() // a copy's processes are hashed afresh
		// The copy's processes are forks of the node's: they share its
		// template's listener, so they hold the template too.
		if n.tmpl != nil && !n.exited {
			holdTemplate(n.tmpl)
		} else {
			n.tmpl = nil
		}
		// The original's descriptors reach its processes, not the copy's,
		// and what the copies' images hold is the copy's business: unknown.
		n.vclock = vclock{}
		for _, v := range n.fds.All() {
			v.ours = -1
		}
		for j, p := range n.procs {
			p.vclock, p.pidfd = vclock{}, -1
			if j == 0 {
				continue
			}
			// A copy's child is weft's on the host (checkpoint_tree_linux.go);
			// one that ended has no process there.
			p.adopted = true
			if p.ended() {
				p.pid = 0
			}
			for _, v := range p.fds.All() {
				v.ours = -1
			}
		}
	}
	return cw, nil
}

// own gives the copy cw, whose nodes are those of src, descriptors of its
// own: pidfds for the processes, duplicates of the listeners and of the
// supervisor's ends of the served descriptors.
func (cw *World) own(src *World) error {
	for i, n := range cw.nodes {
		if err := n.ownDescs(src.nodes[i]); err != nil {
			return err
		}
		if err := n.ownPidfds(); err != nil {
			return err
		}
	}
	return nil
}

// ownDescs gives node n, a copy of s, duplicates of s's listener and of
// the supervisor's ends of its served descriptors.
func (n *node) ownDescs(s *node) error {
	if n.exited {
		return nil
	}
	var err error
	if n.listener, err = unix.Dup(s.listener); err != nil {
		return err
	}
	unix.CloseOnExec(n.listener)
	if err := dupServed(n.fds, s.fds); err != nil {
		return err
	}
	for j, p := range n.procs {
		if j == 0 || p.ended() {
			continue
		}
		if err := dupServed(p.fds, s.procs[j].fds); err != nil {
			return err
		}
	}
	return nil
}

// ownPidfds gives node n's processes pidfds.
func (n *node) ownPidfds() error {
	if n.exited {
		return nil
	}
	var err error
	if n.pidfd, err = unix.PidfdOpen(n.pid, 0); err != nil {
		return err
	}
	for j, p := range n.procs {
		if j == 0 {
			p.pid, p.pidfd = n.pid, n.pidfd // the node's own
			continue
		}
		if p.ended() {
			continue
		}
		if p.pidfd, err = unix.PidfdOpen(p.pid, 0); err != nil {
			return err
		}
	}
	return nil
}

// dupServed gives the copy's descriptor table fds weft's own duplicates
// of the served descriptions of the original's table src.
func dupServed(fds, src *fdTable) error {
	for fd, v := range fds.All() {
		if o := src.At(fd); o != nil && o.ours >= 0 {
			var err error
			if v.ours, err = unix.Dup(o.ours); err != nil {
				return err
			}
			unix.CloseOnExec(v.ours)
		}
	}
	return nil
}

// Restore starts a world in the checkpoint's state: it copies the Go
// state again and gives each node processes forked from the frozen ones,
// at once with EagerRestore, else when the world first needs them
// (lazy_linux.go). The checkpoint stays usable.
func (cp *Checkpoint) Restore() (*World, error) {
	nw, err := cp.w.copyState()
	if err != nil {
		return nil, err
	}
	for _, n := range nw.nodes {
		if !n.exited {
			n.pid = -1 // not the frozen process: Close must not end it
		}
		for _, p := range n.procs[min(1, len(n.procs)):] {
			p.pid = 0 // not a frozen process either (and ended ones have none)
		}
	}
	if err := cp.start(nw); err != nil {
		nw.Close()
		return nil, fmt.Errorf("checkpoint: %v", err)
	}
	if EagerRestore {
		if err := nw.materialiseAll(); err != nil {
			nw.Close()
			return nil, err
		}
	}
	return nw, nil
}

// start gives nw, a copy of the checkpoint's state, descriptors and data
// directories of its own; its nodes with frozen processes are left to
// materialise (startNode).
func (cp *Checkpoint) start(nw *World) error {
	l := &lazyNodes{cp: cp, pending: make([]bool, len(nw.nodes)), fill: make([]*procSlot, len(nw.nodes))}
	for i, n := range nw.nodes {
		n.memcg, n.memUnbounded = nil, false // the checkpointed world's (nodebounds_linux.go)
		if err := n.ownDescs(cp.w.nodes[i]); err != nil {
			return err
		}
		if cp.frozen[i] != nil {
			// No stale id stays in the copy (copyState keeps the
			// checkpointed world's, whose processes run on in that
			// world): every process's and thread's is -1 until
			// startNode, children's too.
			n.setPid(-1)
			for j, p := range n.procs {
				if j > 0 && !p.ended() {
					n.setProcPid(j, -1)
				}
			}
			l.pending[i] = true
			cp.restored++
		}
	}
	nw.lazy = l
	cp.refs++
	return nw.copyDataDirs(cp.w, cp.roots)
}

// startNode gives node n of nw, restored from the checkpoint, processes
// forked from the frozen ones, pidfds and bounds of their own, and runs
// each process to its parked call.
func (cp *Checkpoint) startNode(nw *World, n *node) error {
	i := n.id
	if err := cp.forkNode(n); err != nil {
		return err
	}
	if err := nw.rebindTree(n, true); err != nil {
		return err
	}
	if err := n.ownPidfds(); err != nil {
		return err
	}
	opened := map[int]int{}
	defer closeAll(opened)
	for _, m := range n.members() {
		fp := cp.frozen[i]
		if m.idx > 0 {
			fp = cp.kids[i][m.idx]
		}
		if err := cp.resume(nw, n, m, fp, opened); err != nil {
			return err
		}
	}
	// The restore ran no code of the node's and left its memory as
	// the frozen process's (hashMemory): the digest of one restore,
	// read before it runs, serves every later one.
	if cp.mem[i] == nil {
		cp.mem[i] = &memSlot{}
	}
	n.memo = memMemo{pid: n.memPid(), ran: n.cpuTime(), slot: cp.mem[i], base: cp.bases[i]}
	return nil
}

// forkNode forks each frozen process of node n, the copy's, and gives n
// their pids, all or none (a node left with pid -1 is not ended by
// Close: nothing of it is the copy's).
func (cp *Checkpoint) forkNode(n *node) error {
	fp := cp.frozen[n.id]
	if fp == nil {
		return nil
	}
	pids := map[int]int{}
	var err error
	for j, k := range cp.kids[n.id] {
		if k != nil {
			if pids[j], err = k.fork(cp.w.nodes[n.id].listener); err != nil {
				break
			}
		}
	}
	if err == nil {
		pids[0], err = fp.fork(cp.w.nodes[n.id].listener)
	}
	if err != nil {
		for _, pid := range pids {
			if pid > 0 {
				unix.Kill(pid, unix.SIGKILL)
				wait4(pid, 0)
			}
		}
		return err
	}
	n.setPid(pids[0])
	for j, pid := range pids {
		if j > 0 {
			n.setProcPid(j, pid)
		}
	}
	return nil
}

// rebindTree puts every live process of node n, forked from a
// checkpoint (forked: whether it has any), under bounds of its own
// (rebindBounds).
func (w *World) rebindTree(n *node, forked bool) error {
	if !forked {
		return nil
	}
	if len(n.procs) == 0 {
		return w.rebindBounds(n, n.pid)
	}
	for j, p := range n.procs {
		if j > 0 && p.ended() {
			continue
		}
		if err := w.rebindBounds(n, p.pid); err != nil {
			return err
		}
	}
	return nil
}

// closeAll closes the descriptors of a map's values.
func closeAll(fds map[int]int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// resume prepares process m of node n, forked from fp and stopped at
// birth, and lets its threads issue their parked calls again
// (makeThreads, in its data directory), with the shared descriptions'
// state and its host files (opened: the node's descriptions opened so
// far, shared between its processes).
func (cp *Checkpoint) resume(nw *World, n *node, m member, fp *frozenProc, opened map[int]int) error {
	defer n.asMember(m.idx)()
	dir := ""
	if nw.dataRoot != "" {
		dir = nw.DataDir(n.id)
	}
	if err := writeDescs(n, cp.flags[procKey{n.id, m.idx}]); err != nil {
		return err
	}
	if err := onLauncher(n.tracer, func() error { return makeThreads(n, fp.threads, fp.sysIP, dir) }); err != nil {
		return err
	}
	return nw.reopen(n, m.idx, m.tasks, cp.files[n.id], cp.w.dataRoot, n.tasks[fp.threads[fp.fk].k].tid, fp.sysIP, opened)
}

// setPid makes pid the host id of n's process and, until the threads
// are recreated (makeThreads), of each of its live threads: no stale id
// of another process stays in the tasks.
func (n *node) setPid(pid int) {
	n.pid = pid
	if len(n.procs) > 0 {
		n.procs[0].pid = pid
	}
	for _, t := range n.tasks {
		if !t.exited && t.p == nil {
			t.tid = pid
		}
	}
}

// Memory is the memory the checkpoint's frozen processes hold alone, in
// bytes: the sum of their private dirty pages (/proc/PID/smaps_rollup's
// Private_Dirty), which closing the checkpoint gives back. Pages a
// frozen process still shares with a live node or another copy are not
// counted; its share grows as they move on. A process that cannot be
// read counts 0. A frozen process several checkpoints hold
// (frozenProc.holders) counts its share in each, so that the sum over
// live checkpoints counts it once (sched's fitMemory).
func (cp *Checkpoint) Memory() int64 {
	var total int64
	for _, fp := range cp.frozenAll() {
		total += privateDirty(fp.pid) / int64(max(fp.holders, 1))
	}
	return total
}

// frozenAll lists every frozen process of the checkpoint, shared ones
// included.
func (cp *Checkpoint) frozenAll() []*frozenProc {
	var out []*frozenProc
	for i, fp := range cp.frozen {
		if fp != nil {
			out = append(out, fp)
		}
		for _, k := range cp.kids[i] {
			if k != nil {
				out = append(out, k)
			}
		}
	}
	return out
}

// privateDirty reads process pid's Private_Dirty, in bytes; 0 if it
// cannot.
func privateDirty(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Private_Dirty:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			return kb << 10
		}
	}
	return 0
}

// drop lets go of one holder's hold on the frozen process, and kills and
// reaps it if that was the last; it reports whether it did.
func (fp *frozenProc) drop() bool {
	fp.holders--
	if fp.holders > 0 {
		return false
	}
	unix.Kill(fp.pid, unix.SIGKILL)
	wait4(fp.pid, 0)
	return true
}

// Close kills the frozen processes and reaps them, or, while restored
// worlds still have nodes to give processes (lazy_linux.go), leaves that
// to the last of them. Safe to call more than once.
func (cp *Checkpoint) Close() {
	cp.closed = true
	if cp.refs > 0 {
		return
	}
	cp.shut()
}

// shut kills the frozen processes no other checkpoint holds and reaps
// them, and closes their memory bases.
func (cp *Checkpoint) shut() {
	for i, fp := range cp.frozen {
		if fp != nil && fp.drop() {
			cp.bases[i].close()
		}
		for _, k := range cp.kids[i] {
			if k != nil {
				k.drop()
			}
		}
	}
	clear(cp.frozen)
	clear(cp.kids)
	lingering.retry() // the node cgroups the frozen processes were left in (memCgroup.remove)
	cp.roots.close()
	if cp.w != nil {
		for _, n := range cp.w.nodes {
			n.releaseKids()
			n.release()
		}
		cp.w.closeStopFD()
		if cp.w.dataRoot != "" {
			releaseDataRoot(cp.w.dataRoot)
			cp.w.dataRoot = ""
		}
	}
}
