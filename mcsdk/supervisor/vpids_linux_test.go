//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// hostNice is a host process's nice value (/proc's stat, field 19).
func hostNice(t *testing.T, pid int) string {
	f := procStat(pid, pid)
	if len(f) < 17 {
		t.Fatalf("no stat for %d", pid)
	}
	return f[16]
}

// hostIoprio is a host process's I/O priority.
func hostIoprio(t *testing.T, pid int) uintptr {
	r, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(pid), 0)
	if e != 0 {
		t.Fatalf("ioprio_get %d: %v", pid, e)
	}
	return r
}

// TestVirtualIDs runs testdata/vpids.c under real seccomp: a thread names
// itself by its virtual tid (sched_getaffinity, as the JVM's
// pthread_getattr_np does; prlimit, priorities, sched_*, capget, capset);
// F_SETOWN and F_SETOWN_EX take the node's own virtual ids and give them
// back; and every attempt to name a sacrificial host process (by its host
// pid, or through PRIO_USER, PRIO_PGRP, IOPRIO_WHO_USER) reaches nothing:
// the test checks from the host that its nice value, I/O priority and
// limits did not change, nor this process's own. It also checks the
// ioctl and fcntl allow-lists: FS_IOC_SETFLAGS on a read-only descriptor
// and TIOCSTI refused with notes; a read lease, a dnotify watch, a flock
// and a record lock on a file outside the run directory granted
// virtually, so that the host takes the same locks while the node holds
// them (TestLeases judges leases further).
// reniceSelf sets every thread of the test's process to nice, and back to
// the value it had at the end of the test (lowering it needs root, which
// the supervisor's tests have in CI).
func reniceSelf(t *testing.T, nice int) {
	t.Helper()
	tids, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	was, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	set := func(v int) error {
		tids, _ := os.ReadDir("/proc/self/task")
		for _, d := range tids {
			tid, _ := strconv.Atoi(d.Name())
			if err := unix.Setpriority(unix.PRIO_PROCESS, tid, v); err != nil && err != unix.ESRCH {
				return err
			}
		}
		return nil
	}
	if len(tids) == 0 || set(nice) != nil {
		t.Fatalf("renicing the test's threads to %d: %v", nice, set(nice))
	}
	t.Cleanup(func() {
		if err := set(20 - was); err != nil { // the raw syscall's 20 - nice
			t.Errorf("restoring the test's niceness %d: %v", 20-was, err)
		}
	})
}

func TestVirtualIDs(t *testing.T) {
	bin := buildProbe(t, "vpids", "-O1", "-Wall", "-pthread")
	victim := exec.Command("sleep", "1000")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	vp := victim.Process.Pid
	// weft runs reniced (as under nice(1), or a CI runner's niceness): its
	// nodes' processes inherit the host value, and must never read it.
	reniceSelf(t, 3)
	var limit0 unix.Rlimit
	unix.Prlimit(vp, unix.RLIMIT_NOFILE, nil, &limit0)
	nice0, ioprio0, myNice0 := hostNice(t, vp), hostIoprio(t, vp), hostNice(t, os.Getpid())
	file := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(file, []byte("host data\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{fmt.Sprint(vp), file}}}, DataDirs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	out, checked := judgeWhenSaid(t, w, "locked\n", func() { checkHostLocks(t, file) })
	if !checked {
		t.Errorf("the node never held its locks:\n%s", out)
	}
	for _, want := range []string{
		"thread affinity own tid: 1 \n", "thread pthread_getattr_np: 0 \n", "thread prlimit own tid: 0 \n",
		"thread getpriority own tid: 0 \n", "thread sched_getscheduler own tid: 0 \n", "thread sched_getparam own tid: 0 \n",
		"thread capget own tid: 1 \n", "thread capset own tid: 0 \n",
		"affinity host: -1 ESRCH\n", "setaffinity host: -1 ESRCH\n", "prlimit host: -1 ESRCH\n",
		"setpriority host: -1 ESRCH\n", "setpriority user: 0 \n", "setpriority pgrp: 0 \n", "setpriority pgrp host: -1 ESRCH\n",
		"getpriority self: 6 \n", "ioprio_set user: 0 \n", "ioprio_set host: -1 ESRCH\n", "sched_setscheduler host: -1 ESRCH\n",
		"capget host: -1 ESRCH\n", "capget self: 1 \n",
		"F_SETOWN self: 0 \n", "F_GETOWN is self: 1 \n", "F_SETOWN group: 0 \n", "F_GETOWN is group: 1 \n",
		"F_SETOWN host: -1 ESRCH\n", "F_SETOWN_EX tid: 0 \n", "F_GETOWN_EX is tid: 1 \n", "F_SETOWN_EX host: -1 ESRCH\n",
		"F_SETSIG: 0 \n", "F_GETFL: 1 \n", "F_SETLEASE: 0 \n", "F_GETLEASE: 0 \n", "F_NOTIFY: 0 \n",
		"fcntl 4242: -1 EINVAL\n", "FS_IOC_SETFLAGS read-only: -1 EPERM\n", "TIOCSTI: -1 EPERM\n", "TCGETS stdout: -1 ENOTTY\n",
		"FIONREAD pipe: 0 \n", "ioctl 0x1234: -1 ENOTTY\n", "flock outside: 0 \n", "F_SETLK outside: 0 \n", "unlock: 0 \n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var limit unix.Rlimit
	unix.Prlimit(vp, unix.RLIMIT_NOFILE, nil, &limit)
	if limit != limit0 {
		t.Errorf("the host process's RLIMIT_NOFILE changed: %+v, was %+v", limit, limit0)
	}
	if n := hostNice(t, vp); n != nice0 {
		t.Errorf("the host process was reniced: %s, was %s", n, nice0)
	}
	if n := hostNice(t, os.Getpid()); n != myNice0 {
		t.Errorf("weft's own process was reniced: %s, was %s", n, myNice0)
	}
	if p := hostIoprio(t, vp); p != ioprio0 {
		t.Errorf("the host process's I/O priority changed: %#x, was %#x", p, ioprio0)
	}
	notes := fmt.Sprint(w.Notes())
	for _, want := range []string{
		"n0/t0: fcntl request 0x1092 refused (EINVAL)", "n0/t0: fcntl request F_SETOWN (0x8) refused (ESRCH)",
		"n0/t0: ioctl request FS_IOC_SETFLAGS (0x40086602) refused (EPERM)", "n0/t0: ioctl request TIOCSTI (0x5412) refused (EPERM)",
		"n0/t0: ioctl request 0x1234 refused (ENOTTY)",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// checkHostLocks takes, from the host, the locks a node holds on file:
// they must be free, since the node's were granted virtually.
func checkHostLocks(t *testing.T, file string) {
	t.Helper()
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Errorf("a host flock on a file the node locked: %v (a node's lock blocks host processes)", err)
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk); err != nil {
		t.Errorf("a host write lock on a file the node locked: %v", err)
	}
}

// judgeWhenSaid runs w's one node, applying each step's first action,
// for at most 1000 steps or until nothing is enabled, and calls judge
// once, from the host side, as soon as the node's output says said; it
// returns the node's output and whether judge ran. A failure of the run
// fails the test.
func judgeWhenSaid(t *testing.T, w *World, said string, judge func()) (string, bool) {
	t.Helper()
	judged := false
	for step := 0; step < 1000 && w.Failure() == nil; step++ {
		if !judged && strings.Contains(string(w.Output(0)), said) {
			judge()
			judged = true
		}
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	out := string(w.Output(0))
	if f := w.Failure(); f != nil {
		t.Fatalf("failure: %v\n%s", f, out)
	}
	return out, judged
}
