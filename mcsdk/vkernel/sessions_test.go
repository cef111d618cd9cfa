package vkernel

import (
	"fmt"
	"strings"
	"testing"
)

// sessionStep is one call on a node's process table (its groups and
// sessions: setsid(2), setpgid(2), getpgid(2), getsid(2), kill(2), wait(2);
// its tree: fork, execve, _exit, wait) and its answer: a value,
// an errno name, or "-" for a call that answers nothing.
type sessionStep struct {
	op      string
	a, b, c int64
	want    string
}

// runSessions plays steps on node 0's table (main process 100) and
// reports every answer that differs.
func runSessions(t *testing.T, name string, steps []sessionStep) *ProcTable {
	t.Helper()
	s := NewProcTable(100)
	for i, st := range steps {
		if got := sessionOp(s, st); got != st.want {
			t.Errorf("%s step %d: %s(%d, %d, %d) = %s, want %s", name, i, st.op, st.a, st.b, st.c, got, st.want)
		}
	}
	return s
}

func answer(v int64, e Errno) string {
	if e != 0 {
		return e.Error()
	}
	return fmt.Sprint(v)
}

func sessionOp(s *ProcTable, st sessionStep) string {
	switch st.op {
	case "fork":
		s.Fork(st.a, st.b, SIGCHLD)
	case "exec":
		s.Exec(st.a)
	case "exit": // a zombie unless its parent is gone
		s.Exit(st.a, ExitedStatus(0), nil)
	case "exit-autoreaped": // its parent ignores SIGCHLD
		s.Exit(st.a, ExitedStatus(0), func() bool { return true })
	case "reap":
		s.Reap(st.a)
	case "wait4": // wait4(b, WNOHANG) by a: the pid reaped
		a := s.Wait4(Leader(st.a), st.b, WNOHANG)
		switch {
		case a.Err != 0:
			return a.Err.Error()
		case a.Child == nil:
			return "none"
		}
		return fmt.Sprint(a.Child.Pid)
	case "setsid":
		return answer(s.Setsid(st.a))
	case "setpgid":
		return answer(0, s.Setpgid(st.a, st.b, st.c))
	case "getpgid":
		return answer(s.Getpgid(st.a, st.b))
	case "getsid":
		return answer(s.Getsid(st.a, st.b))
	case "kill":
		pids, e := s.KillTargets(st.a, st.b)
		if e != 0 {
			return e.Error()
		}
		return fmt.Sprint(pids)
	case "wait":
		return fmt.Sprint(s.Selects(st.a, st.b, st.c))
	case "table":
		var b strings.Builder
		for _, m := range s.Members() {
			fmt.Fprintf(&b, "%d<%d g%d s%d ", m.Pid, s.Getppid(m.Pid), m.Pgid, m.Sid)
		}
		return strings.TrimSpace(b.String())
	default:
		return "unknown op " + st.op
	}
	return "-"
}

// TestSessionsStart: the main process leads its group in session 1; a
// child inherits both; ids outside the node are ESRCH.
func TestSessionsStart(t *testing.T) {
	runSessions(t, "start", []sessionStep{
		{op: "getpgid", a: 100, b: 0, want: "100"},
		{op: "getsid", a: 100, b: 0, want: "1"},
		{op: "getpgid", a: 100, b: 1, want: "ESRCH"}, // pid 1 is outside the node
		{op: "getsid", a: 100, b: 5000, want: "ESRCH"},
		{op: "getpgid", a: 100, b: -100, want: "ESRCH"},
		{op: "setsid", a: 100, want: "EPERM"}, // a group leader
		{op: "setpgid", a: 100, b: 0, c: 0, want: "0"},
		{op: "setpgid", a: 100, b: 0, c: 1, want: "EPERM"}, // no group 1 in the node
		{op: "setpgid", a: 100, b: 0, c: -3, want: "EINVAL"},
		{op: "setpgid", a: 100, b: 5000, c: 0, want: "ESRCH"},
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "getpgid", a: 1001, b: 0, want: "100"},
		{op: "getsid", a: 1001, b: 0, want: "1"},
		{op: "getpgid", a: 100, b: 1001, want: "100"},
		{op: "table", want: "100<1 g100 s1 1001<100 g100 s1"},
	})
}

// TestSetsid: a child makes a session; the second setsid is EPERM (it
// leads a group now); its group and session are its pid for everyone;
// its own children inherit them.
func TestSetsid(t *testing.T) {
	runSessions(t, "setsid", []sessionStep{
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "setsid", a: 1001, want: "1001"},
		{op: "setsid", a: 1001, want: "EPERM"},
		{op: "getsid", a: 1001, b: 0, want: "1001"},
		{op: "getpgid", a: 1001, b: 0, want: "1001"},
		{op: "getsid", a: 100, b: 1001, want: "1001"},
		{op: "getsid", a: 100, b: 0, want: "1"},
		{op: "fork", a: 1001, b: 1002, want: "-"},
		{op: "getsid", a: 1002, b: 0, want: "1001"},
		{op: "getpgid", a: 1002, b: 0, want: "1001"},
		{op: "setsid", a: 1002, want: "1002"}, // it leads no group: a session of its own
		{op: "getpgid", a: 1001, b: 1002, want: "1002"},
	})
	// A process that once led a group that still has members may not.
	runSessions(t, "setsid-leader", []sessionStep{
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "setsid", a: 1001, want: "1001"},
		{op: "fork", a: 1001, b: 1002, want: "-"},
		{op: "setsid", a: 1002, want: "1002"},
		{op: "getsid", a: 1001, b: 1002, want: "1002"},
		// A process whose old group still has members may not take its
		// pid as a session: 1003 led group 1003, which 1004 is still in.
		{op: "fork", a: 100, b: 1003, want: "-"},
		{op: "setpgid", a: 1003, b: 0, c: 0, want: "0"},
		{op: "fork", a: 1003, b: 1004, want: "-"},
		{op: "setpgid", a: 1003, b: 0, c: 100, want: "0"},
		{op: "setsid", a: 1003, want: "EPERM"},
		{op: "table", want: "100<1 g100 s1 1001<100 g1001 s1001 1002<1001 g1002 s1002 1003<100 g100 s1 1004<1003 g1003 s1"},
	})
}

// TestSetpgid: Linux's rules and errnos, in the kernel's order.
func TestSetpgid(t *testing.T) {
	runSessions(t, "setpgid", []sessionStep{
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "fork", a: 100, b: 1002, want: "-"},
		{op: "fork", a: 1001, b: 1003, want: "-"},
		// The parent puts a child in a group of its own, the other child
		// joins it.
		{op: "setpgid", a: 100, b: 1001, c: 0, want: "0"},
		{op: "setpgid", a: 100, b: 1002, c: 1001, want: "0"},
		{op: "getpgid", a: 100, b: 1002, want: "1001"},
		// A grandchild is not the caller's child.
		{op: "setpgid", a: 100, b: 1003, c: 1001, want: "ESRCH"},
		// A sibling is not one's child either.
		{op: "setpgid", a: 1002, b: 1001, c: 0, want: "ESRCH"},
		// A group that does not exist, or a negative one.
		{op: "setpgid", a: 100, b: 1002, c: 4242, want: "EPERM"},
		{op: "setpgid", a: 100, b: 1002, c: -1, want: "EINVAL"},
		// The grandchild (in 100's group, inherited) moves into 1001's.
		{op: "setpgid", a: 1001, b: 1003, c: 1001, want: "0"},
		// After execve the parent may no longer move the child.
		{op: "exec", a: 1002, want: "-"},
		{op: "setpgid", a: 100, b: 1002, c: 100, want: "EACCES"},
		// but the child itself may.
		{op: "setpgid", a: 1002, b: 0, c: 100, want: "0"},
		// A child in another session: EPERM; a session leader cannot move.
		{op: "fork", a: 100, b: 1004, want: "-"},
		{op: "setsid", a: 1004, want: "1004"},
		{op: "setpgid", a: 100, b: 1004, c: 100, want: "EPERM"},
		{op: "setpgid", a: 1004, b: 0, c: 1004, want: "EPERM"},
		// A group of another session may not be joined.
		{op: "setpgid", a: 100, b: 0, c: 1004, want: "EPERM"},
		{op: "table", want: "100<1 g100 s1 1001<100 g1001 s1 1002<100 g100 s1 1003<1001 g1001 s1 1004<100 g1004 s1004"},
	})
}

// TestKillTargets: kill(0), kill(-pgid) and kill(-1) name exactly the
// members, zombies included; nothing outside the node.
func TestKillTargets(t *testing.T) {
	runSessions(t, "kill", []sessionStep{
		{op: "kill", a: 100, b: 0, want: "[100]"},
		{op: "kill", a: 100, b: -1, want: "ESRCH"}, // no other process in the node
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "fork", a: 100, b: 1002, want: "-"},
		{op: "fork", a: 100, b: 1003, want: "-"},
		{op: "setpgid", a: 100, b: 1002, c: 0, want: "0"},
		{op: "setpgid", a: 100, b: 1003, c: 1002, want: "0"},
		{op: "kill", a: 100, b: 0, want: "[100 1001]"},
		{op: "kill", a: 1001, b: -1002, want: "[1002 1003]"},
		{op: "kill", a: 1002, b: 0, want: "[1002 1003]"},
		{op: "kill", a: 1002, b: -1, want: "[100 1001 1003]"},
		{op: "kill", a: 100, b: -1, want: "[1001 1002 1003]"},
		{op: "kill", a: 100, b: -4242, want: "ESRCH"},
		{op: "kill", a: 100, b: -5000, want: "ESRCH"}, // a host group, say
		{op: "kill", a: 100, b: 7, want: "EINVAL"},
		// A zombie stays in its group until reaped.
		{op: "exit", a: 1003, want: "-"},
		{op: "kill", a: 100, b: -1002, want: "[1002 1003]"},
		{op: "reap", a: 1003, want: "-"},
		{op: "kill", a: 100, b: -1002, want: "[1002]"},
		{op: "exit", a: 1002, want: "-"},
		{op: "reap", a: 1002, want: "-"},
		{op: "kill", a: 100, b: -1002, want: "ESRCH"},
	})
}

// TestWaitSelects: wait4's 0 and -pgid select by the child's group now.
func TestWaitSelects(t *testing.T) {
	runSessions(t, "wait", []sessionStep{
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "fork", a: 100, b: 1002, want: "-"},
		{op: "setpgid", a: 100, b: 1002, c: 0, want: "0"},
		{op: "wait", a: 100, b: 0, c: 1001, want: "true"},
		{op: "wait", a: 100, b: 0, c: 1002, want: "false"},
		{op: "wait", a: 100, b: -1002, c: 1002, want: "true"},
		{op: "wait", a: 100, b: -1002, c: 1001, want: "false"},
		{op: "wait", a: 100, b: -100, c: 1001, want: "true"},
		{op: "wait", a: 100, b: -1, c: 1002, want: "true"},
		{op: "wait", a: 100, b: 1002, c: 1002, want: "true"},
		{op: "wait", a: 100, b: 1001, c: 1002, want: "false"},
		{op: "wait", a: 100, b: -4242, c: 1001, want: "false"},
	})
}

// TestSessionsExit: orphans go to pid 1; those already ended are reaped
// by it; a reaped pid names nothing.
func TestSessionsExit(t *testing.T) {
	runSessions(t, "exit", []sessionStep{
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "fork", a: 1001, b: 1002, want: "-"},
		{op: "fork", a: 1001, b: 1003, want: "-"},
		{op: "exit", a: 1003, want: "-"},
		{op: "exit", a: 1001, want: "-"},
		{op: "table", want: "100<1 g100 s1 1001<100 g100 s1 1002<1 g100 s1"},
		{op: "getpgid", a: 100, b: 1001, want: "100"}, // a zombie
		{op: "reap", a: 1001, want: "-"},
		{op: "getpgid", a: 100, b: 1001, want: "ESRCH"},
		{op: "setpgid", a: 100, b: 1002, c: 0, want: "ESRCH"}, // no longer its child
		// A reused pid starts afresh.
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "getsid", a: 100, b: 1001, want: "1"},
	})
}

// TestSessionsOrphanedZombieGroup: a grandchild zombie orphaned by its
// parent's end leaves its group at once (init reaps it: release_task), so
// once the group's zombie leader is reaped the group is gone: kill(-pgid)
// ESRCH, setpgid into it EPERM (the supervisor's probe: procs.c
// orphangroup).
func TestSessionsOrphanedZombieGroup(t *testing.T) {
	runSessions(t, "orphaned zombie", []sessionStep{
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "setpgid", a: 1001, b: 0, c: 0, want: "0"},
		{op: "fork", a: 1001, b: 1002, want: "-"},
		{op: "exit", a: 1002, want: "-"}, // a zombie in group 1001
		{op: "kill", a: 100, b: -1001, want: "[1001 1002]"},
		{op: "exit", a: 1001, want: "-"}, // orphans 1002, which init reaps
		{op: "table", want: "100<1 g100 s1 1001<100 g1001 s1"},
		{op: "kill", a: 100, b: -1001, want: "[1001]"}, // its zombie leader
		{op: "reap", a: 1001, want: "-"},
		{op: "kill", a: 100, b: -1001, want: "ESRCH"},
		{op: "setpgid", a: 100, b: 0, c: 1001, want: "EPERM"},
	})
}

// TestSessionsDigest: tables that answer differently hash differently.
func TestSessionsDigest(t *testing.T) {
	digest := func(steps ...sessionStep) string {
		s := NewProcTable(100)
		for _, st := range steps {
			sessionOp(s, st)
		}
		var out []uint64
		s.SessionsDigest(func(v uint64) { out = append(out, v) })
		return fmt.Sprint(out)
	}
	fork := sessionStep{op: "fork", a: 100, b: 1001}
	tables := map[string]string{
		"start":   digest(),
		"fork":    digest(fork),
		"setsid":  digest(fork, sessionStep{op: "setsid", a: 1001}),
		"setpgid": digest(fork, sessionStep{op: "setpgid", a: 1001, b: 0, c: 0}),
		"exec":    digest(fork, sessionStep{op: "exec", a: 1001}),
		"zombie":  digest(fork, sessionStep{op: "exit", a: 1001}),
	}
	seen := map[string]string{}
	for name, d := range tables {
		if other, ok := seen[d]; ok {
			t.Errorf("%s and %s hash alike: %s", name, other, d)
		}
		seen[d] = name
	}
	if again := digest(fork, sessionStep{op: "setsid", a: 1001}); again != tables["setsid"] {
		t.Errorf("one table hashes differently twice: %s, %s", again, tables["setsid"])
	}
}

// TestSessionsFollowTree: the groups are read from the process table, the
// one record of parents and ends, so what the tree does the groups see
// with no second call: a zombie stays in its group (setpgid(2): a group
// is not empty while a zombie is in it) until a wait reaps it; a child
// its parent auto-reaps (SIGCHLD ignored) or whose parent ended is in no
// group at once; an orphan's parent is pid 1, so setpgid(2) by its old
// parent is ESRCH ("pid is not the calling process and not a child of
// the calling process"), and setsid(2) by a process whose own group
// still has a zombie member is EPERM.
func TestSessionsFollowTree(t *testing.T) {
	cases := []struct {
		name  string
		steps []sessionStep
	}{
		{"a wait reaps the zombie out of its group", []sessionStep{
			{op: "fork", a: 100, b: 1001, want: "-"},
			{op: "setpgid", a: 100, b: 1001, c: 0, want: "0"},
			{op: "exit", a: 1001, want: "-"},
			{op: "kill", a: 100, b: -1001, want: "[1001]"},
			{op: "getpgid", a: 100, b: 1001, want: "1001"},
			{op: "wait4", a: 100, b: -1001, want: "1001"},
			{op: "kill", a: 100, b: -1001, want: "ESRCH"},
			{op: "getpgid", a: 100, b: 1001, want: "ESRCH"},
			{op: "setpgid", a: 100, b: 0, c: 1001, want: "EPERM"},
			{op: "table", want: "100<1 g100 s1"},
		}},
		{"an auto-reaped child is in no group", []sessionStep{
			{op: "fork", a: 100, b: 1001, want: "-"},
			{op: "exit-autoreaped", a: 1001, want: "-"},
			{op: "getsid", a: 100, b: 1001, want: "ESRCH"},
			{op: "kill", a: 100, b: -1, want: "ESRCH"},
			{op: "wait4", a: 100, b: -1, want: "ECHILD"},
		}},
		{"a child of an ended parent is reaped by init at its end", []sessionStep{
			{op: "fork", a: 100, b: 1001, want: "-"},
			{op: "fork", a: 1001, b: 1002, want: "-"},
			{op: "setpgid", a: 1001, b: 1002, c: 0, want: "0"},
			{op: "exit", a: 1001, want: "-"},
			{op: "table", want: "100<1 g100 s1 1001<100 g100 s1 1002<1 g1002 s1"},
			{op: "setpgid", a: 1001, b: 1002, c: 100, want: "ESRCH"}, // a zombie's orphan is nobody's child
			{op: "exit", a: 1002, want: "-"},
			{op: "kill", a: 100, b: -1002, want: "ESRCH"},
			{op: "table", want: "100<1 g100 s1 1001<100 g100 s1"},
		}},
		{"setsid is EPERM while a zombie is in the caller's group", []sessionStep{
			{op: "fork", a: 100, b: 1001, want: "-"},
			{op: "setpgid", a: 1001, b: 0, c: 0, want: "0"},
			{op: "fork", a: 1001, b: 1002, want: "-"},
			{op: "setpgid", a: 1001, b: 0, c: 100, want: "0"},
			{op: "exit", a: 1002, want: "-"},
			{op: "setsid", a: 1001, want: "EPERM"},
			{op: "wait4", a: 1001, b: 0, want: "ECHILD"}, // 1002 is in group 1001, not the caller's 100
			{op: "wait4", a: 1001, b: -1001, want: "1002"},
			{op: "setsid", a: 1001, want: "1001"},
		}},
	}
	for _, tc := range cases {
		runSessions(t, tc.name, tc.steps)
	}
}

// TestSessionsDigestLayout pins what the world's state hash takes of the
// groups: the number of processes not reaped, then each one's pid,
// parent (1 outside the node), group, session and exec'd|zombie<<1, in
// fork order; a reaped process adds nothing.
func TestSessionsDigestLayout(t *testing.T) {
	s := runSessions(t, "layout", []sessionStep{
		{op: "fork", a: 100, b: 1001, want: "-"},
		{op: "fork", a: 100, b: 1002, want: "-"},
		{op: "fork", a: 1001, b: 1003, want: "-"},
		{op: "setsid", a: 1001, want: "1001"},
		{op: "exec", a: 1002, want: "-"},
		{op: "exit", a: 1003, want: "-"},
		{op: "fork", a: 100, b: 1004, want: "-"},
		{op: "exit", a: 1004, want: "-"},
		{op: "wait4", a: 100, b: 1004, want: "1004"},
	})
	var got []uint64
	s.SessionsDigest(func(v uint64) { got = append(got, v) })
	want := []uint64{4,
		100, 1, 100, 1, 0,
		1001, 100, 1001, 1001, 0,
		1002, 100, 100, 1, 1,
		1003, 1001, 100, 1, 2, // forked before its parent's setsid
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("digest %v, want %v", got, want)
	}
}
