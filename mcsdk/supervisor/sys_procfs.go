//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// /proc and /sys as a node sees them: the table, the own-process path
// mapping and every virtual file's content are vkernel's (procfs.go).
// Here the supervisor decodes an open, fills the snapshot the table's
// renderers read (vkernel.ProcSnapshot), opens the host's file for a
// native row (the caller's own process's, by its host pid and tid) and
// hands the node the descriptor.

// procCaller is the caller as vkernel's /proc table knows it: its
// process's virtual pid, its virtual tid and its process's live threads.
func (c *call) procCaller() vkernel.ProcCaller {
	who := vkernel.ProcCaller{Pid: c.n.vpid(), Tid: c.t.vtid()}
	for _, t := range c.n.procTasks(c.n.procOf(c.t)) {
		who.Threads = append(who.Threads, t.vtid())
	}
	return who
}

// procOwn is an open of the caller's own process directory: the path
// it is looked up as (/proc/self/…) and the host's name of the file
// (its host pid and tid), or absent when the path names a process the
// node may not see.
type procOwn struct {
	key, host string
	dir       string // the host's process or thread directory host is in
	tid       int64  // the thread whose directory it names (vkernel.ProcOwn.Tid)
	absent    bool
}

// ownProcPath maps a /proc path naming a process directory (self,
// thread-self, a pid, a task) to the table's /proc/self form
// (vkernel.OwnProcPath) and the host's name of the file.
func (c *call) ownProcPath(path string) (procOwn, bool) {
	o, ok := vkernel.OwnProcPath(path, c.procCaller())
	if !ok || o.Absent {
		return procOwn{absent: o.Absent}, ok
	}
	hostPid, hostTid := c.n.memPid(), c.n.memPid()
	switch {
	case o.Tid == 0: // the process's directory
	case o.Tid == c.t.vtid(): // the caller's own thread (thread-self)
		hostTid = c.t.tid
	default:
		t := c.ownTask(o.Tid)
		if t == nil {
			return procOwn{absent: true}, true
		}
		hostTid = t.tid
	}
	dir := fmt.Sprintf("/proc/%d/task/%d", hostPid, hostTid)
	if hostTid == hostPid {
		dir = fmt.Sprintf("/proc/%d", hostPid)
	}
	return procOwn{key: o.Key, host: strings.TrimSuffix(dir+"/"+o.Sub, "/"), dir: dir, tid: o.Tid}, true
}

// ownTask is the live thread of the caller's process with virtual id v
// (its pid names its main thread), or nil.
func (c *call) ownTask(v int64) *task {
	me := c.n.procOf(c.t)
	for _, t := range c.n.procTasks(me) {
		if t.vtid() == v {
			return t
		}
	}
	return nil
}

// openProcFile serves an open of the clean absolute path if the table
// covers it; ok is false for any other path. An open for writing of one
// of the caller's own native files is refused unless it names a thread's
// name (comm) or a descriptor of the run directory.
func (c *call) openProcFile(path string, oflags uint64) (result, bool) {
	key, own := path, procOwn{}
	if o, ok := c.ownProcPath(path); ok {
		if o.absent {
			return errno(unix.ENOENT), true
		}
		key, own = o.key, o
	}
	f, ok := vkernel.LookupProcFile(key)
	if !ok {
		return result{}, false
	}
	// A random device takes writes, as Linux's does (randomDev).
	if f.Serve != vkernel.ProcNative && f.Serve != vkernel.ProcAbsent && f.Serve != vkernel.ProcRandom && openWrites(oflags) {
		return c.refuseWrite(path), true
	}
	switch f.Serve {
	case vkernel.ProcAbsent:
		return errno(unix.ENOENT), true
	case vkernel.ProcRandom:
		return c.installRandom(key, oflags), true
	case vkernel.ProcVirtual:
		snap := c.procSnapshot(f.Needs, own)
		if f.Needs&vkernel.NeedFdinfo != 0 && snap.Fdinfo == nil {
			return errno(unix.ENOENT), true // no such descriptor
		}
		return c.installFile(f.Render(snap), oflags), true
	}
	if openWrites(oflags) && key != "/proc/self/comm" && !c.mayWrite(own.host, true, true) {
		// A descriptor reopened for writing: only one of the run
		// directory's. The refusal names the path as the node spelled
		// it, never the host's pids.
		return c.refuseWrite(path), true
	}
	return c.openHostProc(own.host, oflags), true
}

// openHostProc opens the host's name of one of the caller's own /proc
// files for it (by its host pid: the node's path never reaches the host).
func (c *call) openHostProc(host string, oflags uint64) result {
	fd, err := unix.Open(host, int(oflags)|unix.O_CLOEXEC, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	defer unix.Close(fd)
	tfd, err := injectFD(c.n.listener, c.req.ID, fd, oflags&unix.O_CLOEXEC != 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	return ret(int64(tfd))
}

// procSnapshot is what the table's renderers read of the caller and its
// world (vkernel.ProcSnapshot) for an open of own's file (the zero
// procOwn for a file of the machine). The parts needs names are read
// from the host's files of the caller's own process (of the thread own
// names, in a thread's directory), or drawn from the run's stream, only
// for the rows that need them.
func (c *call) procSnapshot(needs vkernel.ProcNeeds, own procOwn) *vkernel.ProcSnapshot {
	real, _ := c.w.nodeNow(c.n, unix.CLOCK_REALTIME)
	s := &vkernel.ProcSnapshot{
		Node: c.n.id, Nodes: len(c.w.nodes), CPUs: c.w.cpus(),
		Pid: c.n.vpid(), PPid: c.vppid(), Pgrp: c.n.group(), Tid: own.tid,
		Threads:  len(c.n.procTasks(c.n.procOf(c.t))),
		Start:    c.n.started - Epoch + monotonicOffset,
		Uptime:   c.w.uptime(c.n),
		Realtime: real,
	}
	s.Sleeping = c.shownSleeping(own)
	dir := own.dir
	if dir == "" {
		dir = fmt.Sprintf("/proc/%d", c.n.memPid())
	}
	if needs&vkernel.NeedComm != 0 {
		s.Comm = "node"
		if b, err := os.ReadFile(dir + "/comm"); err == nil {
			s.Comm = strings.TrimSpace(string(b))
		}
	}
	if needs&vkernel.NeedStatus != 0 {
		s.KernelStatus, _ = os.ReadFile(dir + "/status")
	}
	if needs&vkernel.NeedMaps != 0 {
		s.Maps = c.ownMaps()
	}
	if needs&vkernel.NeedLimits != 0 {
		s.Limits = c.limits()
	}
	if needs&vkernel.NeedRandom != 0 {
		c.w.rand.Read(s.Random[:])
	}
	if needs&vkernel.NeedAuxv != 0 {
		b, _ := os.ReadFile(dir + "/auxv")
		s.Auxv = vkernel.VirtualAuxvFile(b, hostCPUID)
	}
	if needs&vkernel.NeedFdinfo != 0 {
		c.fdinfoSnapshot(s, dir, filepath.Base(own.host))
	}
	return s
}

// shownSleeping reports whether the thread a stat or status file shows
// (own's thread, else the caller's process's main thread) waits in a
// parked call: not the caller, which runs, nor one ready to run or held
// at a clone.
func (c *call) shownSleeping(own procOwn) bool {
	var t *task
	if own.tid != 0 {
		t = c.n.taskByVtid(own.tid)
	} else if ts := c.n.procTasks(c.n.procOf(c.t)); len(ts) > 0 {
		t = ts[0]
	}
	return t != nil && t != c.t && !t.exited && t.call != nil && !t.ready && !t.held
}

// fdinfoSnapshot reads the kernel's fdinfo of the caller's descriptor
// fd (a number, in the process or thread directory dir) into s, with its
// file's virtual inode number and, for a pidfd, its process's virtual
// pid (redteam fdinfo-ino, fdinfo-pidfd: the kernel's lines hold host
// ones).
func (c *call) fdinfoSnapshot(s *vkernel.ProcSnapshot, dir, fd string) {
	b, err := os.ReadFile(dir + "/fdinfo/" + fd)
	if err != nil {
		return
	}
	s.Fdinfo = b
	sp := statPlace{host: dir + "/fd/" + fd, follow: true, fd: true}
	var st unix.Stat_t
	if unix.Stat(sp.host, &st) == nil {
		s.FdIno = c.virtualIno(sp, st.Dev, st.Ino, nil)
	}
	if _, rest, ok := strings.Cut(string(b), "\nPid:\t"); ok {
		var host int
		fmt.Sscan(rest, &host)
		s.FdPid = c.virtualPidOf(host)
	}
}

// virtualPidOf is the virtual pid of the node's live process whose host
// pid is host, 0 if the node has none (-1, an ended pidfd's, stays).
func (c *call) virtualPidOf(host int) int64 {
	if host < 0 {
		return int64(host)
	}
	for _, p := range c.n.procs {
		if p.pid == host && !p.gone() {
			return p.vpid
		}
	}
	for _, t := range c.n.tasks {
		if !t.exited && t.p == nil && t.tid == host {
			return virtualPidBase + int64(c.n.id)
		}
	}
	return 0
}

// vppid is the caller's virtual parent pid: its parent in the node's
// tree, or 1.
func (c *call) vppid() int64 {
	if p := c.t.p; p != nil {
		return c.n.ptab.Getppid(p.vpid)
	}
	return 1
}

// ownMaps reads the calling process's mappings, each file named as its
// view names it.
func (c *call) ownMaps() []vkernel.Mapping {
	ms, _ := readMaps(c.n.memPid())
	out := make([]vkernel.Mapping, len(ms))
	for i, m := range ms {
		out[i] = vkernel.Mapping{Start: m.start, End: m.end, Perms: m.perms, Offset: m.offset}
		if v, ok := c.viewName(m.name); ok {
			out[i].Name = v
		} // else a file outside the view shows as anonymous memory
	}
	return out
}

// viewName is the name the node sees for a name the host kernel gives
// one of its files (a /proc link's target, a mapping's file): a path
// below a mount as the view shows it (a deleted file's too, " (deleted)"
// kept), and a name that is no path ("pipe:[…]", "[heap]", a memfd's
// "/memfd:…", an allowed device) as it is. It is false for a host path
// the view does not show.
func (c *call) viewName(host string) (string, bool) {
	if !strings.HasPrefix(host, "/") || strings.HasPrefix(host, "/memfd:") || vkernel.Devices[strings.TrimSuffix(host, " (deleted)")] {
		return host, true
	}
	p, deleted := strings.CutSuffix(host, " (deleted)")
	v, ok := c.view().Locate(p)
	if !ok {
		return "", false
	}
	if deleted {
		v += " (deleted)"
	}
	return v, true
}

// absentProcPath is a name no file has: where a /proc or /sys path the
// node may not see leads the supervisor's own calls (stat, readlink), so
// that they fail with ENOENT.
const absentProcPath = "/proc/weft-absent"

// procHostPath is the supervisor's name for the file at the absolute
// path the node names: below /proc and /sys by the table (the caller's
// own process by its host pid and tid; what the table says is absent, or
// another process, leads nowhere); any other path as it is.
func (c *call) procHostPath(path string) string {
	clean := filepath.Clean(path)
	if o, ok := c.ownProcPath(clean); ok {
		if f, _ := vkernel.LookupProcFile(o.key); o.absent || f.Serve == vkernel.ProcAbsent {
			return absentProcPath
		}
		return o.host
	}
	if f, ok := vkernel.LookupProcFile(clean); ok && f.Serve == vkernel.ProcAbsent {
		return absentProcPath
	}
	return path
}
