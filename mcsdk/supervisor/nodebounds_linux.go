//go:build linux && amd64

package supervisor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Bounds on what one node may hold (issue 36, §4), beside its live
// processes and threads (Config.MaxTasks, task.go): the descriptors of
// each of its processes (Config.MaxFDs) and its memory (Config.MaxMemory).
// A node that reaches one ends the run with verdict error naming the node
// and the bound, and teardown reaps every process, as for the task bound.
//
// A bound is not a limit of the node's own: a program that lowers its
// RLIMIT_NOFILE (virtual, sys_rlimit.go) and meets EMFILE below weft's
// bound sees what Linux gives it, and the run goes on. The bound is the
// hard ceiling above that, which no program of a healthy run reaches.
//
//   - Descriptors: each process of the node starts with its host
//     RLIMIT_NOFILE at the bound (its native launcher sets it as root,
//     before it becomes the node's user, launchHead; applyBounds sets it
//     again for a node of weft's own user and checks it for another
//     user's, whose limits weft may not set), so the host kernel never
//     lets it hold more, whatever it calls; before weft serves a call that
//     makes descriptors with the caller's virtual soft limit at or above
//     the bound, it checks that the caller's process has room for them
//     (overFDBound) and otherwise ends the run.
//   - Memory: each node's processes run in a memory cgroup of their own
//     (cgroup v1, below weft's own memory cgroup) whose limit is the bound;
//     the kernel kills the process that would exceed it (the cgroup's OOM
//     killer, never the host's), and weft, seeing a process of the node
//     end, reads the cgroup's count of OOM kills (memBoundHit). Where no
//     memory cgroup can be made (no v1 memory controller, not root), the
//     run says so in its refusals (rule ruleMemory); it is never silently
//     unbounded. A checkpoint's processes are forks of the node's and stay
//     in its cgroup until the checkpoint closes (held, stopped, and
//     counted by the explorer's checkpoint budget; the cgroup outlives
//     its world until then: memCgroup.remove), and a node restored from
//     one gets a cgroup of its own (rebindBounds). Pages a checkpoint shares with the node stay charged
//     where they were first written.

// DefaultMaxFDs is Config.MaxFDs's default: the open descriptors of one
// process of a node.
const DefaultMaxFDs = 4096

// DefaultMaxMemory is Config.MaxMemory's default, in bytes: the memory of
// all of one node's processes together.
const DefaultMaxMemory = 2 << 30

// ruleMemory is the rule a refusal names when a node's memory cannot be
// bounded.
const ruleMemory = "weft bounds a node's memory with a memory cgroup (v1) of its own, below weft's; without one the node's memory is bounded only by the host's"

// maxFDs is the world's descriptor bound.
func (w *World) maxFDs() int {
	if w.cfg.MaxFDs > 0 {
		return w.cfg.MaxFDs
	}
	return DefaultMaxFDs
}

// maxMemory is the world's memory bound, in bytes.
func (w *World) maxMemory() int64 {
	if w.cfg.MaxMemory > 0 {
		return w.cfg.MaxMemory
	}
	return DefaultMaxMemory
}

// applyBounds puts the node's new main process, pid, under its bounds:
// its host descriptor limit, no core dumps (noCores) and its memory
// cgroup, made at the node's first start and kept over restarts. A
// process the node forks inherits them.
func (w *World) applyBounds(n *node, pid int) error {
	lim := unix.Rlimit{Cur: uint64(w.maxFDs()), Max: uint64(w.maxFDs())}
	var err error
	if w.cfg.Nodes[n.id].User != nil {
		// Another user's process: setting its limits would take
		// CAP_SYS_RESOURCE, which a container may withhold from root
		// (CI's does). Its launcher set the bound as root, before it
		// became the user (launchHead); weft checks it from the host.
		err = checkFDLimit(pid, lim)
	} else {
		err = unix.Prlimit(pid, unix.RLIMIT_NOFILE, &lim, nil)
	}
	if err != nil {
		return fmt.Errorf("node %d: cannot bound its descriptors at %d (Config.MaxFDs): %v", n.id, lim.Max, err)
	}
	if err := noCores(pid); err != nil && w.cfg.Nodes[n.id].User == nil {
		return fmt.Errorf("node %d: cannot stop its core dumps: %v", n.id, err)
	}
	if n.memcg == nil && !n.memUnbounded {
		g, err := newMemCgroup(n.id, w.maxMemory())
		if err != nil {
			n.memUnbounded = true
			w.refuse(n.id, "memory", err.Error(), "unbounded", ruleMemory)
			return nil
		}
		n.memcg = g
	}
	if n.memcg == nil {
		return nil
	}
	if err := n.memcg.add(pid); err != nil {
		return fmt.Errorf("node %d: cannot bound its memory: %v", n.id, err)
	}
	return nil
}

// checkFDLimit checks that process pid's RLIMIT_NOFILE is lim, from
// /proc/PID/limits, which anyone may read (prlimit(2), even to read,
// takes CAP_SYS_RESOURCE for another user's process).
func checkFDLimit(pid int, lim unix.Rlimit) error {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
	if err != nil {
		return err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			if f := strings.Fields(rest); len(f) >= 2 && f[0] == strconv.FormatUint(lim.Cur, 10) && f[1] == strconv.FormatUint(lim.Max, 10) {
				return nil
			}
			return fmt.Errorf("its launcher left the limit at %q", strings.Join(strings.Fields(rest), " "))
		}
	}
	return fmt.Errorf("no descriptor limit in /proc/%d/limits", pid)
}

// rebindBounds puts a node restored from a checkpoint, whose process pid
// is a fork of the checkpoint's, under bounds of its own: a memory cgroup
// of its own, not the checkpointed world's (Checkpoint.start forgets that
// one for every node, so a node not running at the checkpoint makes its
// own when it starts).
func (w *World) rebindBounds(n *node, pid int) error { return w.applyBounds(n, pid) }

// releaseBounds removes the node's memory cgroup once none of its
// processes is left, or leaves it to lingering while a checkpoint's
// processes are still in it (memCgroup.remove).
func (n *node) releaseBounds() {
	if n.memcg != nil {
		n.memcg.remove()
	}
}

// memBoundHit ends the run if the node's memory cgroup killed one of its
// processes: weft calls it when a process of the node has ended.
func (w *World) memBoundHit(n *node) {
	if n.memcg == nil || n.memcg.oomKills() == 0 {
		return
	}
	w.fail(n, "", fmt.Sprintf("bound: node %d reached its bound of %s of memory (Config.MaxMemory): its memory cgroup killed a process of it",
		n.id, sizeText(w.maxMemory())))
}

// sizeText writes a byte count in the largest binary unit that divides it.
func sizeText(b int64) string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if b >= 1<<u.shift && b%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", b>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", b)
}

// fdsMade is how many descriptors call c makes if it succeeds: 0 for a
// call that makes none (or replaces one the caller holds).
func (c *call) fdsMade() int {
	switch int(c.req.Data.Nr) {
	case unix.SYS_OPEN, unix.SYS_OPENAT, unix.SYS_OPENAT2, unix.SYS_CREAT, unix.SYS_DUP, unix.SYS_SOCKET,
		unix.SYS_ACCEPT, unix.SYS_ACCEPT4, unix.SYS_EPOLL_CREATE, unix.SYS_EPOLL_CREATE1, unix.SYS_EVENTFD,
		unix.SYS_EVENTFD2, unix.SYS_TIMERFD_CREATE, unix.SYS_PIDFD_OPEN, unix.SYS_MEMFD_CREATE, unix.SYS_OPEN_BY_HANDLE_AT:
		return 1
	case unix.SYS_PIPE, unix.SYS_PIPE2, unix.SYS_SOCKETPAIR:
		return 2
	case unix.SYS_SIGNALFD, unix.SYS_SIGNALFD4:
		if int32(c.arg(0)) == -1 {
			return 1
		}
	case unix.SYS_FCNTL:
		if cmd := int(c.arg(1)); cmd == unix.F_DUPFD || cmd == unix.F_DUPFD_CLOEXEC {
			return 1
		}
	case unix.SYS_DUP2, unix.SYS_DUP3:
		if !c.fdOpen(int(int32(c.arg(1)))) {
			return 1
		}
	}
	return 0
}

// fdOpen reports whether the caller's process holds descriptor fd.
func (c *call) fdOpen(fd int) bool {
	if fd < 0 {
		return false
	}
	var st unix.Stat_t
	return unix.Lstat(fmt.Sprintf("/proc/%d/fd/%d", c.t.tid, fd), &st) == nil
}

// overFDBound reports whether call c would take the caller's process past
// the descriptor bound, and the failure that ends the run. Below its own
// soft RLIMIT_NOFILE the node meets EMFILE as on Linux instead.
func (c *call) overFDBound() (result, bool) {
	k := c.fdsMade()
	if k == 0 {
		return result{}, false
	}
	bound := c.w.maxFDs()
	if own, _ := c.limits().Get(vkernel.RlimitNOFILE); own.Cur < uint64(bound) {
		return result{}, false
	}
	// The host limit keeps every descriptor below the bound: while the top
	// k slots are free there is room, and only a process near its bound
	// (or one that placed a descriptor at the top) is counted.
	room := true
	for i := 1; i <= k; i++ {
		room = room && !c.fdOpen(bound-i)
	}
	if room {
		return result{}, false
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", c.t.tid))
	if err != nil || len(ents)+k <= bound {
		return result{}, false // a process gone: its call fails on its own
	}
	return failf("bound: node %d reached its bound of %d open descriptors in one process (Config.MaxFDs)", c.n.id, bound), true
}

// memCgroup is one node's memory cgroup (cgroup v1), a directory below
// weft's own memory cgroup.
type memCgroup struct {
	dir string
}

// memCgroupRoot is the cgroup v1 memory controller's mount point.
const memCgroupRoot = "/sys/fs/cgroup/memory"

// ownMemCgroup is the directory of weft's own memory cgroup.
func ownMemCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
		f := strings.SplitN(sc.Text(), ":", 3)
		if len(f) == 3 && (f[1] == "memory" || strings.Contains(","+f[1]+",", ",memory,")) {
			dir := filepath.Join(memCgroupRoot, f[2])
			if _, err := os.Stat(filepath.Join(dir, "memory.limit_in_bytes")); err != nil {
				return "", fmt.Errorf("no memory cgroup v1 at %s: %v", dir, err)
			}
			return dir, nil
		}
	}
	return "", errors.New("no memory cgroup v1 controller (weft's /proc/self/cgroup names none)")
}

// newMemCgroup makes node id's memory cgroup, limited to limit bytes of
// memory (and of memory and swap, where swap is accounted), its processes
// killed by the cgroup's OOM killer beyond it. It first removes the empty
// cgroups that weft processes no longer alive left behind.
func newMemCgroup(id int, limit int64) (*memCgroup, error) {
	parent, err := memCgroupParent()
	if err != nil {
		return nil, err
	}
	lingering.retry()
	dir, err := os.MkdirTemp(parent, fmt.Sprintf("weft-%d-n%d-", os.Getpid(), id))
	if err != nil {
		return nil, fmt.Errorf("cannot make a memory cgroup: %v", err)
	}
	g := &memCgroup{dir: dir}
	lim := strconv.FormatInt(limit, 10)
	if err := g.write("memory.limit_in_bytes", lim); err != nil {
		g.remove()
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "memory.memsw.limit_in_bytes")); err == nil {
		if err := g.write("memory.memsw.limit_in_bytes", lim); err != nil {
			g.remove()
			return nil, err
		}
	}
	return g, nil
}

// memCgroupParent is weft's own memory cgroup, found once per process
// (it does not move), when the cgroups that ended weft processes left
// below it are also swept, once: a search starts thousands of worlds.
var memCgroupParent = sync.OnceValues(func() (string, error) {
	parent, err := ownMemCgroup()
	if err == nil {
		sweepMemCgroups(parent)
	}
	return parent, err
})

// sweepMemCgroups removes the node cgroups below parent whose weft
// process has ended (a weft killed before its teardown).
func sweepMemCgroups(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "weft-")
		if !ok || !e.IsDir() {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || pid == os.Getpid() || unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		_ = unix.Rmdir(filepath.Join(parent, e.Name()))
	}
}

// write writes value to the cgroup's file name.
func (g *memCgroup) write(name, value string) error {
	if err := os.WriteFile(filepath.Join(g.dir, name), []byte(value), 0); err != nil {
		return fmt.Errorf("memory cgroup: %v", err)
	}
	return nil
}

// add moves process pid (all its threads) into the cgroup.
func (g *memCgroup) add(pid int) error { return g.write("cgroup.procs", strconv.Itoa(pid)) }

// oomKills is how many processes the cgroup's OOM killer has killed.
func (g *memCgroup) oomKills() int {
	b, err := os.ReadFile(filepath.Join(g.dir, "memory.oom_control"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "oom_kill "); ok {
			k, _ := strconv.Atoi(v)
			return k
		}
	}
	return 0
}

// remove removes the cgroup, or leaves it to lingering while processes
// are left in it: a checkpoint's frozen processes (a checkpoint outlives
// the world it was taken from), which stay there until the checkpoint
// closes (Checkpoint.shut retries lingering). They never run again, so
// they charge it nothing more (their pages stay charged where they were
// first written, whichever cgroup holds them), and moving them out would
// take a migration: every write to a cgroup.procs waits for an RCU grace
// period (the kernel's thread-group semaphore, taken for writing),
// milliseconds off the CPU at every close of a restored world.
func (g *memCgroup) remove() {
	if unix.Rmdir(g.dir) == unix.EBUSY {
		lingering.add(g.dir)
	}
}

// lingering holds this process's node cgroups that could not be removed
// when their world closed: a killed process still dying is in it, or a
// checkpoint's frozen processes are. Each new node cgroup first retries
// them, and so does a checkpoint's close and weft's end (ReleaseHost,
// which waits for the dying, boundedly), so that a long search
// in one weft process (worlds restored from checkpoints by the thousand)
// does not pile up empty cgroups; sweepMemCgroups removes those of weft
// processes that have ended. It is process-wide because cgroups are: a
// host resource the process owns, whichever world made it.
var lingering lingeringCgroups

type lingeringCgroups struct {
	mu   sync.Mutex
	dirs []string
}

func (l *lingeringCgroups) add(dir string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dirs = append(l.dirs, dir)
}

// retry removes the lingering cgroups that have emptied since.
func (l *lingeringCgroups) retry() {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.dirs[:0]
	for _, dir := range l.dirs {
		if err := unix.Rmdir(dir); err == unix.EBUSY {
			kept = append(kept, dir)
		}
	}
	l.dirs = kept
}

// lingeringWait bounds how long ReleaseHost waits for the processes still
// dying in lingering cgroups: a killed process leaves its cgroup when its
// exit is done, which takes milliseconds (its address space torn down);
// one that takes longer is reported, never waited for forever.
const lingeringWait = 2 * time.Second

// ReleaseHost removes what this process's worlds left on the host once
// every world and checkpoint is closed (weft calls it before it exits;
// so may a test or program that runs worlds): the lingering node
// cgroups, retried while their killed processes finish dying (at most
// lingeringWait), and the spare data roots. It returns an error naming
// what is left: a cgroup still holding processes, a data root still in
// use (a world or checkpoint not closed).
func ReleaseHost() error {
	deadline := time.Now().Add(lingeringWait)
	for {
		lingering.retry()
		if lingering.left() == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	var errs []error
	lingering.mu.Lock()
	for _, dir := range lingering.dirs {
		procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		errs = append(errs, fmt.Errorf("memory cgroup %s is left, its processes (%s) still in it", dir, strings.Join(strings.Fields(string(procs)), " ")))
	}
	lingering.mu.Unlock()
	for _, root := range releaseDataRoots() {
		errs = append(errs, fmt.Errorf("data root %s is left, still in use", root))
	}
	return errors.Join(errs...)
}

// left is how many cgroups linger.
func (l *lingeringCgroups) left() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.dirs)
}

// noCores sets the host RLIMIT_CORE of the node's process pid to one
// byte, soft and hard: the kernel then writes no core file (a core is at
// least a page), and with a core_pattern that pipes to a host program
// (apport, systemd-coredump) it aborts the dump rather than run the
// program (the limit 1 is its own guard against a crashing helper). A
// node's crash would otherwise have the kernel write a core into its
// working directory, which may be a host directory it may only read
// (redteam core-outdir), or start a host program. The node's own limit is
// virtual (sys_rlimit.go) and never reaches the host's: its core is not
// modelled. Another user's process (Config.Nodes[i].User) is set where
// weft may (CAP_SYS_RESOURCE): a container without it leaves that node's
// cores to the kernel, a gap README names.
func noCores(pid int) error {
	one := unix.Rlimit{Cur: 1, Max: 1}
	return unix.Prlimit(pid, unix.RLIMIT_CORE, &one, nil)
}
