//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
)

// Checkpoints. An exhaustive search continues sibling branches from a copy
// of the world taken at a quiescent point instead of starting the nodes
// again and replaying the prefix (sched.Explorer.Checkpoints). The copy has
// two halves:
//
//   - each live node's process, forked while it is parked: weft takes the
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
// What cannot be copied this way is refused with a reason, and the
// explorer replays instead: threads, process trees, host pipes or
// sockets, deleted open files, shared writable memory, native TSC, a
// survey, calls interrupted by signals, open state queries.

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
	pid    int
	sysIP  uint64          // the parked call's syscall instruction
	regs   unix.PtraceRegs // registers that issue the parked call again
	tracer *launcher
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
			n.pid, n.tasks[0].tid = fp.pid, fp.pid
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

// relocate points the recorded host files that lie in the world's data
// directories (root) at the checkpoint's copies.
func (cp *Checkpoint) relocate(root string) {
	if root == "" {
		return
	}
	roots := []string{root}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		roots = append(roots, r)
	}
	for _, fs := range cp.files {
		for k, f := range fs {
			for _, r := range roots {
				if strings.HasPrefix(f.path, r+"/") {
					fs[k].path = cp.w.dataRoot + strings.TrimPrefix(f.path, r)
					break
				}
			}
		}
	}
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
	case len(n.procs) > 0:
		return errors.New("has child processes")
	case len(n.tasks) != 1:
		return errors.New("has threads")
	case n.cur != nil:
		return errors.New("is running")
	case n.sigScan:
		return errors.New("has a native signalfd")
	}
	t := n.tasks[0]
	switch {
	case t.call == nil || t.held || t.ready || t.exited:
		return errors.New("is not parked in a call")
	case t.call.intr != nil:
		return errors.New("has a call a signal interrupted")
	case t.call.req.Data.InstructionPointer < 2:
		return errors.New("has no syscall instruction")
	}
	return n.sharedMemory()
}

// hostFiles lists the files and directories the node opened natively,
// with their flags and offsets, to be opened again in each copy; other
// descriptors weft does not serve are refused (pipes and sockets of the
// host would be shared between copies), except character devices (the
// standard streams on /dev/null) and those weft passed on itself.
func (n *node) hostFiles() ([]hostFile, error) {
	dir := fmt.Sprintf("/proc/%d/fd", n.pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []hostFile
	for _, e := range ents {
		var fd int
		if _, err := fmt.Sscan(e.Name(), &fd); err != nil || n.fds[fd] != nil {
			continue
		}
		var st unix.Stat_t
		if err := unix.Stat(dir+"/"+e.Name(), &st); err != nil {
			return nil, err
		}
		link, _ := os.Readlink(dir + "/" + e.Name())
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFCHR:
			continue
		case unix.S_IFREG, unix.S_IFDIR:
			if st.Nlink == 0 || !filepath.IsAbs(link) {
				return nil, fmt.Errorf("has a deleted file open, %d (%s)", fd, link)
			}
			f := hostFile{fd: fd, path: link}
			if f.flags, f.pos, err = fdInfo(n.pid, fd); err != nil {
				return nil, err
			}
			out = append(out, f)
			continue
		}
		if !inherited(fd, st) {
			return nil, fmt.Errorf("has a host descriptor, %d (%s)", fd, link)
		}
	}
	return out, nil
}

// fdInfo reads a descriptor's open flags and offset from /proc.
func fdInfo(pid, fd int) (flags int, pos int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", pid, fd))
	if err != nil {
		return 0, 0, err
	}
	seen := 0
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch {
		case !ok:
		case k == "pos":
			_, err = fmt.Sscan(v, &pos)
			seen++
		case k == "flags":
			_, err = fmt.Sscanf(v, "%o", &flags)
			seen++
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if seen != 2 {
		return 0, 0, fmt.Errorf("descriptor %d: no pos or flags in fdinfo", fd)
	}
	return flags, pos, nil
}

// reopen gives n's restored process descriptions of its own for the host
// files the checkpoint recorded, in place (SECCOMP_ADDFD_FLAG_SETFD, for
// the parked call's notification): files in the checkpoint's data
// directories are opened in the world's, others where they are.
func (w *World) reopen(n *node, files []hostFile, cpRoot string) error {
	for _, f := range files {
		path := f.path
		if cpRoot != "" && strings.HasPrefix(path, cpRoot+"/") {
			path = w.dataRoot + strings.TrimPrefix(path, cpRoot)
		}
		fl := f.flags&^(unix.O_CREAT|unix.O_EXCL|unix.O_TRUNC|unix.O_NOCTTY|unix.O_CLOEXEC) | unix.O_CLOEXEC
		ours, err := unix.Open(path, fl, 0)
		if err != nil {
			return fmt.Errorf("reopening %s: %v", path, err)
		}
		if _, err := unix.Seek(ours, f.pos, 0); err != nil && f.pos != 0 {
			unix.Close(ours)
			return fmt.Errorf("seeking %s: %v", path, err)
		}
		a := notifAddfd{ID: n.tasks[0].call.req.ID, Flags: unix.SECCOMP_ADDFD_FLAG_SETFD, SrcFD: uint32(ours), NewFD: uint32(f.fd)}
		if f.flags&unix.O_CLOEXEC != 0 {
			a.NewFDFlags = unix.O_CLOEXEC
		}
		_, err = addFD(n.listener, &a)
		unix.Close(ours)
		if err != nil {
			return fmt.Errorf("installing %s as %d: %v", path, f.fd, err)
		}
	}
	return nil
}

// inherited reports whether descriptor fd, with status st, is one weft
// itself holds at the same number (inherited from weft's own parent
// without close-on-exec): every node shares it with weft already.
func inherited(fd int, st unix.Stat_t) bool {
	var own unix.Stat_t
	return unix.Fstat(fd, &own) == nil && own.Dev == st.Dev && own.Ino == st.Ino
}

// sharedMemory refuses shared writable mappings, which a fork shares.
func (n *node) sharedMemory() error {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", n.pid))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && len(f[1]) >= 4 && f[1][1] == 'w' && f[1][3] == 's' {
			return fmt.Errorf("has shared writable memory at %s", f[0])
		}
	}
	return nil
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
		dc := newDeepCopier(reflect.TypeFor[*launcher]())
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
	cw.net.OnEnvClose = func(*netsim.Socket) {}
	cw.stops = -1
	cw.dataRoot = "" // copyDataDirs gives it its own
	for _, n := range cw.nodes {
		n.pidfd, n.listener = -1, -1
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
		if fp := cp.frozen[i]; fp != nil {
			pid, err := fp.fork(cp.w.nodes[i].listener)
			if err != nil {
				return fmt.Errorf("node %d: %v", i, err)
			}
			n.pid, n.tasks[0].tid = pid, pid
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
// and lets it issue its parked call again: its data directory, the shared
// descriptions' state, its host files.
func (cp *Checkpoint) resume(nw *World, n *node, fp *frozenProc) error {
	if nw.dataRoot != "" {
		if err := n.chdir(fp, nw.DataDir(n.id)); err != nil {
			return fmt.Errorf("moving to its data directory: %v", err)
		}
	}
	if err := writeDescs(n, cp.flags[n.id]); err != nil {
		return err
	}
	if err := onLauncher(n.tracer, func() error { return reissue(n.pid, fp.regs, fp.sysIP) }); err != nil {
		return err
	}
	if err := receiveReissued(n); err != nil {
		return err
	}
	return nw.reopen(n, cp.files[n.id], cp.w.dataRoot)
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
			os.RemoveAll(cp.w.dataRoot)
			cp.w.dataRoot = ""
		}
	}
}

// freeze forks node n, parked, into a frozen process, and lets n issue
// its parked call again. The process work runs on the tracer thread in
// one go (every ptrace request must come from it; one hop, not one per
// request).
func freeze(n *node) (*frozenProc, error) {
	c := n.tasks[0].call
	fp := &frozenProc{sysIP: c.req.Data.InstructionPointer - 2, tracer: n.tracer}
	err := onLauncher(n.tracer, func() error {
		if err := ptraceInterrupt(n.pid); err != nil {
			return fmt.Errorf("interrupt: %v", err)
		}
		// The wait is killable only once received: answer it, and the
		// thread stops at the interrupt before it returns to user space.
		r := notifResp{ID: c.req.ID, Val: -1, Error: -int32(unix.EINTR)}
		if err := sendResp(n.listener, &r); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("answering the parked call: %v", err)
		}
		if _, err := awaitStop(n.pid, nil); err != nil {
			return err
		}
		if err := unix.PtraceGetRegs(n.pid, &fp.regs); err != nil {
			return err
		}
		fp.regs.Rax = fp.regs.Orig_rax // the call's number, to issue it again
		var err error
		if fp.pid, err = injectFork(n.pid, n.listener, fp.sysIP); err != nil {
			return err
		}
		return reissue(n.pid, fp.regs, fp.sysIP)
	})
	if err == nil {
		err = receiveReissued(n)
	}
	if err != nil {
		if fp.pid > 0 {
			unix.Kill(fp.pid, unix.SIGKILL)
			wait4(fp.pid, 0)
		}
		return nil, err
	}
	return fp, nil
}

// fork starts a process in the frozen one's state, stopped where the
// parked call is issued again.
func (fp *frozenProc) fork(listener int) (int, error) {
	var pid int
	err := onLauncher(fp.tracer, func() error {
		var err error
		pid, err = injectFork(fp.pid, listener, fp.sysIP)
		return err
	})
	return pid, err
}

// injectFork makes tid, in a ptrace stop, run the clone at its syscall
// instruction sysIP; the child stays stopped at birth and tid at the
// clone's exit. It returns the child's pid. On the tracer thread.
func injectFork(tid, listener int, sysIP uint64) (int, error) {
	var regs unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &regs); err != nil {
		return -1, err
	}
	regs.Rip, regs.Rax, regs.Orig_rax = sysIP, cloneNr, ^uint64(0)
	regs.Rdi, regs.Rsi, regs.Rdx, regs.R10, regs.R8 = cloneFlags, 0, 0, 0, 0
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
	if nf.Data.Nr != cloneNr || nf.Data.Args[0] != cloneFlags || nf.Data.InstructionPointer != sysIP+2 {
		return -1, fmt.Errorf("expected the injected clone, got syscall %d at %#x", nf.Data.Nr, nf.Data.InstructionPointer)
	}
	if err := sendResp(listener, &notifResp{ID: nf.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}); err != nil {
		return -1, err
	}
	if _, err := awaitStop(tid, func(ws unix.WaitStatus) bool { return ws.TrapCause() == unix.PTRACE_EVENT_FORK }); err != nil {
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
	if _, err := awaitStop(tid, syscallStop); err != nil {
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

// receiveReissued receives the notification of n's parked call issued
// again (reissue), which becomes the call's.
func receiveReissued(n *node) error {
	c := n.tasks[0].call
	var nf notif
	err := onLauncher(n.tracer, func() error {
		var err error
		nf, err = awaitNotif(n.pid, n.listener)
		return err
	})
	if err != nil {
		return err
	}
	if nf.Data.Nr != c.req.Data.Nr || nf.Data.Args != c.req.Data.Args || nf.Data.InstructionPointer != c.req.Data.InstructionPointer {
		return fmt.Errorf("the parked call came back as syscall %d at %#x", nf.Data.Nr, nf.Data.InstructionPointer)
	}
	c.req = nf
	return nil
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

// awaitStop waits for tid's next ptrace stop that want accepts (any, if
// want is nil); it blocks: every caller has just made the stop certain.
// A signal meant for the process (none is expected: a checkpoint's
// processes have no signals of their own, weft's are virtual) is
// suppressed. On the tracer thread.
func awaitStop(tid int, want func(unix.WaitStatus) bool) (unix.WaitStatus, error) {
	for {
		_, ws, err := wait4(tid, 0)
		switch {
		case err != nil:
			return ws, err
		case ws.Exited() || ws.Signaled():
			return ws, fmt.Errorf("process %d ended (%s)", tid, describeWait(ws))
		case ws.Stopped() && (want == nil || want(ws)):
			return ws, nil
		case ws.Stopped() && ws.TrapCause() <= 0 && ws.StopSignal() != unix.SIGTRAP:
			if err := unix.PtraceCont(tid, 0); err != nil {
				return ws, err
			}
		default:
			return ws, fmt.Errorf("process %d: unexpected stop %#x", tid, uint32(ws))
		}
	}
}

// awaitNotif waits for tid's next notification on listener, suppressing
// the signals it stops for meanwhile. On the tracer thread.
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
			if !ws.Stopped() || ws.TrapCause() > 0 || ws.StopSignal() == unix.SIGTRAP {
				return notif{}, fmt.Errorf("process %d: unexpected wait status %#x", tid, uint32(ws))
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

// copyDataDirs gives cw, a copy of src, data directories of its own with
// src's content; the inode numbers weft keys fsync contents and file
// times by are translated to the copies'.
func (cw *World) copyDataDirs(src *World) error {
	if src.dataRoot == "" {
		return nil
	}
	root, err := os.MkdirTemp("", "weft-data-")
	if err != nil {
		return err
	}
	cw.dataRoot = root
	inodes := map[fileKey]fileKey{}
	if err := copyTree(src.dataRoot, root, inodes); err != nil {
		return err
	}
	for i := range cw.runDirs {
		if cw.runDirs[i], err = filepath.EvalSymlinks(cw.DataDir(i)); err != nil {
			return err
		}
	}
	if cw.synced != nil {
		synced := map[uint64][]byte{}
		for ino, b := range cw.synced {
			for from, to := range inodes {
				if from.ino == ino {
					ino = to.ino
					break
				}
			}
			synced[ino] = b
		}
		cw.synced = synced
	}
	clocks := map[fileKey]*fileClock{}
	for k, v := range cw.fileClocks {
		if to, ok := inodes[k]; ok {
			k = to
		}
		clocks[k] = v
	}
	cw.fileClocks = clocks
	return nil
}

// copyTree copies the directory tree src into the existing directory dst
// (directories, regular files, symbolic links, with their permissions),
// recording each copied entry's inode against its original's.
func copyTree(src, dst string, inodes map[fileKey]fileKey) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if rel != "." {
				if err := os.Mkdir(to, info.Mode().Perm()); err != nil {
					return err
				}
			}
		case d.Type().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := os.WriteFile(to, b, info.Mode().Perm()); err != nil {
				return err
			}
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, to)
		default:
			return fmt.Errorf("%s: cannot copy a %v", path, d.Type())
		}
		var a, b unix.Stat_t
		if unix.Lstat(path, &a) == nil && unix.Lstat(to, &b) == nil {
			inodes[fileKey{a.Dev, a.Ino}] = fileKey{b.Dev, b.Ino}
		}
		return nil
	})
}

// chdir moves n's process, stopped at its birth from fp, to dir: a chdir
// injected at the syscall instruction, its path written over the top of
// the stack for the call and put back after it.
func (n *node) chdir(fp *frozenProc, dir string) error {
	return onLauncher(n.tracer, func() error {
		var saved unix.PtraceRegs
		if err := unix.PtraceGetRegs(n.pid, &saved); err != nil {
			return err
		}
		path := append([]byte(dir), 0)
		addr := uintptr(saved.Rsp)
		old := make([]byte, len(path))
		if k, err := readMem(n.pid, addr, old); k != len(old) {
			return fmt.Errorf("reading the stack: %v", err)
		}
		if k, err := writeMem(n.pid, addr, path); k != len(path) {
			return fmt.Errorf("writing the stack: %v", err)
		}
		regs := saved
		regs.Rip, regs.Rax, regs.Orig_rax, regs.Rdi = fp.sysIP, unix.SYS_CHDIR, ^uint64(0), uint64(addr)
		if err := unix.PtraceSetRegs(n.pid, &regs); err != nil {
			return err
		}
		for stop := 0; stop < 2; stop++ { // the call's entry, then its exit
			if err := unix.PtraceSyscall(n.pid, 0); err != nil {
				return err
			}
			if _, err := awaitStop(n.pid, syscallStop); err != nil {
				return err
			}
		}
		if err := unix.PtraceGetRegs(n.pid, &regs); err != nil {
			return err
		}
		if k, err := writeMem(n.pid, addr, old); k != len(old) {
			return fmt.Errorf("restoring the stack: %v", err)
		}
		if e := int64(regs.Rax); e < 0 {
			return unix.Errno(-e)
		}
		return nil
	})
}
