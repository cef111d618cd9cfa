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
// (checkpoint_threads_linux.go).
//
// What cannot be copied this way is refused with a reason, and the
// explorer replays instead: a node with no thread parked or held outside
// a call, process trees,
// host pipes or sockets, deleted open files, shared writable memory,
// native TSC, a survey, calls interrupted by signals, open state queries.

// Checkpoint is a copy of a world at a quiescent point, from which new
// worlds in that state are started (Restore). Close releases it.
type Checkpoint struct {
	w      *World // the Go state; its nodes' pids are the frozen processes
	frozen []*frozenProc
	flags  map[int]map[int]descState // per node, per target fd: the shared description's state
	files  map[int][]hostFile        // per node: the host files it has open, reopened in each copy
}

// hostFile is a file or directory a node opened natively: a copy gets a
// description of its own (a fork would share the offset), opened again at
// the same offset — in the copy's own data directory if it lies in one.
type hostFile struct {
	fd    int
	path  string // absolute, at the checkpoint
	flags int    // open(2) flags, O_CLOEXEC included
	pos   int64
}

// frozenProc is one node's process kept stopped as a checkpoint.
type frozenProc struct {
	pid     int
	threads []threadState // each live thread's, the main thread's first
	fk      int           // the forker's index in threads
	sysIP   uint64        // the forker's syscall instruction, where calls are injected
	tracer  *launcher
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
	files, err := w.checkpointable()
	if err != nil {
		return nil, err
	}
	cp := &Checkpoint{frozen: make([]*frozenProc, len(w.nodes)), flags: map[int]map[int]descState{}, files: files}
	if err := cp.freeze(w); err != nil {
		cp.Close()
		return nil, err
	}
	cw, err := w.copyState()
	if err != nil {
		cp.Close()
		return nil, err
	}
	for i, n := range cw.nodes {
		if fp := cp.frozen[i]; fp != nil {
			n.setPid(fp.pid)
		}
	}
	cp.w = cw
	if err := cw.own(w); err != nil {
		cp.Close()
		return nil, noCheckpoint("%v", err)
	}
	if err := cw.copyDataDirs(w); err != nil {
		cp.Close()
		return nil, noCheckpoint("%v", err)
	}
	cp.relocate(w.dataRoot)
	return cp, nil
}

// freeze records each live node's descriptions and forks it into a
// frozen process.
func (cp *Checkpoint) freeze(w *World) error {
	for i, n := range w.nodes {
		if n.exited {
			continue
		}
		var err error
		if cp.flags[i], err = recordDescs(n); err != nil {
			return noCheckpoint("node %d: %v", i, err)
		}
		if cp.frozen[i], err = freeze(n); err != nil {
			w.fail(n, "", "checkpoint: "+err.Error())
			return err
		}
	}
	return nil
}

// checkpointable says why the world cannot be checkpointed, or lists
// each live node's host files (hostFiles).
func (w *World) checkpointable() (map[int][]hostFile, error) {
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
		if err := n.checkpointable(); err != nil {
			return nil, noCheckpoint("node %d %v", n.id, err)
		}
		fs, err := n.hostFiles()
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
	switch {
	case !n.traced:
		return errors.New("is not traced")
	case n.sess != nil && !n.sess.Default():
		return errors.New("has process groups or sessions of its own")
	case len(n.procs) > 0:
		return errors.New("has child processes")
	case n.cur != nil:
		return errors.New("is running")
	case n.sigScan:
		return errors.New("has a native signalfd")
	case n.hasSegments():
		return errors.New("has SysV shared memory segments")
	}
	if err := n.threadsCheckpointable(); err != nil {
		return err
	}
	return n.sharedMemory()
}

// recordDescs reads the state of the node's served descriptors' shared
// file descriptions.
func recordDescs(n *node) (map[int]descState, error) {
	out := map[int]descState{}
	for fd, v := range n.fds {
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
		v := n.fds[fd]
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
	case reflect.TypeFor[func(*netsim.Socket, []byte)](), reflect.TypeFor[func(*netsim.Socket)](), reflect.TypeFor[func(int, []byte)]():
		return true
	}
	return false
}

// copyState deep-copies the world's Go state; the copy's host resources
// (pids, descriptors) are still the original's and must be replaced.
func (w *World) copyState() (*World, error) {
	var cw *World
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = noCheckpoint("copying the world: %v", r)
			}
		}()
		dc := newDeepCopier(reflect.TypeFor[*launcher](), reflect.TypeFor[*nodeTemplate]())
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
	cw.stops = -1
	cw.dataRoot = "" // copyDataDirs gives it its own
	for _, n := range cw.nodes {
		n.pidfd, n.listener = -1, -1
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
		for _, p := range n.procs {
			p.vclock = vclock{}
		}
		for _, v := range n.fds {
			v.ours = -1
		}
	}
	return cw, nil
}

// own gives the copy cw, whose nodes are those of src, descriptors of its
// own: pidfds for the processes, duplicates of the listeners and of the
// supervisor's ends of the served descriptors.
func (cw *World) own(src *World) error {
	for i, n := range cw.nodes {
		s := src.nodes[i]
		if n.exited {
			continue
		}
		var err error
		if n.listener, err = unix.Dup(s.listener); err != nil {
			return err
		}
		unix.CloseOnExec(n.listener)
		if n.pidfd, err = unix.PidfdOpen(n.pid, 0); err != nil {
			return err
		}
		for fd, v := range n.fds {
			if o := s.fds[fd]; o != nil && o.ours >= 0 {
				if v.ours, err = unix.Dup(o.ours); err != nil {
					return err
				}
				unix.CloseOnExec(v.ours)
			}
		}
	}
	return nil
}

// Restore starts a world in the checkpoint's state: it forks each frozen
// process and copies the Go state again. The checkpoint stays usable.
func (cp *Checkpoint) Restore() (*World, error) {
	nw, err := cp.w.copyState()
	if err != nil {
		return nil, err
	}
	for _, n := range nw.nodes {
		if !n.exited {
			n.pid = -1 // not the frozen process: Close must not end it
		}
	}
	if err := cp.start(nw); err != nil {
		nw.Close()
		return nil, fmt.Errorf("checkpoint: %v", err)
	}
	return nw, nil
}

// start gives nw, a copy of the checkpoint's state, processes forked
// from the frozen ones, descriptors and data directories of its own, and
// runs each process to its parked call.
func (cp *Checkpoint) start(nw *World) error {
	for i, n := range nw.nodes {
		n.memcg, n.memUnbounded = nil, false // the checkpointed world's (nodebounds_linux.go)
		if fp := cp.frozen[i]; fp != nil {
			pid, err := fp.fork(cp.w.nodes[i].listener)
			if err != nil {
				return fmt.Errorf("node %d: %v", i, err)
			}
			n.setPid(pid)
			if err := nw.rebindBounds(n, pid); err != nil {
				return err
			}
		}
	}
	if err := nw.own(cp.w); err != nil {
		return err
	}
	if err := nw.copyDataDirs(cp.w); err != nil {
		return err
	}
	for i, n := range nw.nodes {
		if fp := cp.frozen[i]; fp != nil {
			if err := cp.resume(nw, n, fp); err != nil {
				return fmt.Errorf("node %d: %v", i, err)
			}
		}
	}
	return nil
}

// resume prepares node n's process, forked from fp and stopped at birth,
// and lets its threads issue their parked calls again (makeThreads, in
// its data directory), with the shared descriptions' state and its host
// files.
func (cp *Checkpoint) resume(nw *World, n *node, fp *frozenProc) error {
	dir := ""
	if nw.dataRoot != "" {
		dir = nw.DataDir(n.id)
	}
	if err := writeDescs(n, cp.flags[n.id]); err != nil {
		return err
	}
	if err := onLauncher(n.tracer, func() error { return makeThreads(n, fp.threads, fp.sysIP, dir) }); err != nil {
		return err
	}
	return nw.reopen(n, cp.files[n.id], cp.w.dataRoot, n.tasks[fp.threads[fp.fk].k].tid, fp.sysIP)
}

// setPid makes pid the host id of n's process and, until the threads
// are recreated (makeThreads), of each of its live threads: no stale id
// of another process stays in the tasks.
func (n *node) setPid(pid int) {
	n.pid = pid
	for _, t := range n.tasks {
		if !t.exited {
			t.tid = pid
		}
	}
}

// Memory is the memory the checkpoint's frozen processes hold alone, in
// bytes: the sum of their private dirty pages (/proc/PID/smaps_rollup's
// Private_Dirty), which closing the checkpoint gives back. Pages a
// frozen process still shares with a live node or another copy are not
// counted; its share grows as they move on. A process that cannot be
// read counts 0.
func (cp *Checkpoint) Memory() int64 {
	var total int64
	for _, fp := range cp.frozen {
		if fp != nil {
			total += privateDirty(fp.pid)
		}
	}
	return total
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

// Close kills the frozen processes and reaps them. Safe to call more
// than once.
func (cp *Checkpoint) Close() {
	for i, fp := range cp.frozen {
		if fp == nil {
			continue
		}
		unix.Kill(fp.pid, unix.SIGKILL)
		wait4(fp.pid, 0)
		cp.frozen[i] = nil
	}
	if cp.w != nil {
		for _, n := range cp.w.nodes {
			n.release()
		}
		cp.w.closeStopFD()
		if cp.w.dataRoot != "" {
			releaseDataRoot(cp.w.dataRoot)
			cp.w.dataRoot = ""
		}
	}
}
