//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// hostMark is what the id sweep could change in a host process, read from
// the host: alive, nice, scheduling policy, I/O priority, RLIMIT_CORE.
func hostMark(t *testing.T, pid int) string {
	t.Helper()
	f := procStat(pid, pid)
	if len(f) < 41 {
		return "gone"
	}
	var core unix.Rlimit
	unix.Prlimit(pid, unix.RLIMIT_CORE, nil, &core)
	return fmt.Sprintf("state %s nice %s policy %s ioprio %#x core %+v", f[2], f[16], f[40], hostIoprio(t, pid), core)
}

// TestIDSweep runs testdata/idsweep.c: every call of issue 36 §3 that
// takes a pid, tid, process group or session (kill, tkill, tgkill,
// rt_[tg]sigqueueinfo, sched_*affinity, sched_getparam,
// sched_setscheduler, get/setpriority with PRIO_PROCESS and PRIO_PGRP,
// ioprio_get/set with IOPRIO_WHO_PROCESS and IOPRIO_WHO_PGRP, capget,
// prlimit, pidfd_open, waitid with P_PID and P_PGID, wait4(-pgid),
// setpgid, getpgid, getsid, F_SETOWN and F_SETOWN_EX with a pid, a group
// and a tid, the terminal ioctls that name a group) named by an id of
// the node, by a host pid, by another node's virtual pid and by a pid no
// process has (answered as the host pid: no call tells whether a host
// pid exists). Each answer
// is Linux's (own ids served; others ESRCH, EPERM where weft's table says
// so, ECHILD for waits, ENOTTY for a terminal the node has not), and,
// judged from the host, neither a sacrificial host process nor the other
// node's process was signalled, reniced, moved to another class or had a
// limit changed.
func TestIDSweep(t *testing.T) {
	bin := buildProbe(t, "idsweep", "-O1", "-Wall")
	victim := exec.Command("sleep", "1000")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	vp := victim.Process.Pid
	before := hostMark(t, vp)
	other := virtualPidBase + 1
	w, err := Start(Config{Nodes: []NodeSpec{
		{Path: bin, Args: []string{"sweep", fmt.Sprint(vp), fmt.Sprint(other), fmt.Sprint(freePid(t))}},
		{Path: bin, Args: []string{"idle"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	otherHost := w.Pid(1)
	otherBefore := hostMark(t, otherHost)
	for step := 0; step < 5000 && w.Failure() == nil && !strings.Contains(string(w.Output(0)), "done\n"); step++ {
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
	got := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok {
			got[k] = v
		}
	}
	for _, tc := range idSweepWant {
		for i, kind := range []string{"own", "host", "other", "none"} {
			key, want := tc.call+" "+kind, tc.want[min(i, 2)]
			if got[key] != want {
				t.Errorf("%s: %q, want %q", key, got[key], want)
			}
		}
	}
	if len(got) != 4*len(idSweepWant) {
		t.Errorf("%d answers for %d calls:\n%s", len(got), len(idSweepWant), out)
	}
	if after := hostMark(t, vp); after != before {
		t.Errorf("the host process changed: %s, was %s", after, before)
	}
	if after := hostMark(t, otherHost); after != otherBefore {
		t.Errorf("the other node's process changed: %s, was %s", after, otherBefore)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", otherHost)); err != nil {
		t.Errorf("the other node's process is gone: %v", err)
	}
}

// freePid is a pid no host process has now.
func freePid(t *testing.T) int {
	for pid := 4194303; pid > 1<<20; pid-- {
		if unix.Kill(pid, 0) == unix.ESRCH {
			return pid
		}
	}
	t.Fatal("no free pid")
	return 0
}

// idSweepWant is each call's answer for an own id, a host pid and another
// node's virtual pid (a free pid is answered as a host pid). Signalling
// a process outside the node is EPERM, weft's answer for any pid its tree
// does not hold (sys_killtree.go, sys_sigtree.go); tkill names a thread,
// ESRCH; a node-made group as a descriptor's owner is EPERM (refused: the
// host kernel cannot signal it alone, vkernel.Unmodelled).
var idSweepWant = []struct {
	call string
	want [3]string
}{
	{"kill", [3]string{"ok", "EPERM", "EPERM"}},
	{"kill -pgid", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"tkill", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"tgkill", [3]string{"ok", "EPERM", "EPERM"}},
	{"rt_sigqueueinfo", [3]string{"ok", "EPERM", "EPERM"}},
	{"rt_tgsigqueueinfo", [3]string{"ok", "EPERM", "EPERM"}},
	{"sched_getaffinity", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"sched_setaffinity", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"sched_getparam", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"sched_setscheduler", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"getpriority", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"setpriority", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"getpriority PRIO_PGRP", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"setpriority PRIO_PGRP", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"ioprio_get", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"ioprio_set", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"ioprio_get IOPRIO_WHO_PGRP", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"ioprio_set IOPRIO_WHO_PGRP", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"capget", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"prlimit", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"pidfd_open", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"waitid P_PID", [3]string{"ok", "ECHILD", "ECHILD"}},
	{"waitid P_PGID", [3]string{"ok", "ECHILD", "ECHILD"}},
	{"wait4 -pgid", [3]string{"ok", "ECHILD", "ECHILD"}},
	{"setpgid", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"getpgid", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"getsid", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"F_SETOWN", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"F_SETOWN -pgid", [3]string{"EPERM", "ESRCH", "ESRCH"}},
	{"F_SETOWN_EX F_OWNER_PGRP", [3]string{"EPERM", "ESRCH", "ESRCH"}},
	{"F_SETOWN_EX F_OWNER_TID", [3]string{"ok", "ESRCH", "ESRCH"}},
	{"TIOCSPGRP", [3]string{"ENOTTY", "ENOTTY", "ENOTTY"}},
	{"TIOCGPGRP", [3]string{"ENOTTY", "ENOTTY", "ENOTTY"}},
	{"TIOCGSID", [3]string{"ENOTTY", "ENOTTY", "ENOTTY"}},
}
