package vkernel

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// A tree for the tests: main process 100; children 1001, 1002 (fork),
// 1003 (clone with exit signal 0: a "clone" child for wait), and 1001's
// child 2001.
func testTree() *ProcTable {
	t := NewProcTable(100)
	for _, f := range []struct {
		parent, child int64
		sig           int
	}{{100, 1001, SIGCHLD}, {100, 1002, SIGCHLD}, {100, 1003, 0}, {1001, 2001, SIGCHLD}} {
		t.Fork(f.parent, f.child, f.sig)
	}
	return t
}

// endedTree is testTree with 1002 leading its own group, 1001 exited with
// status 3 and 1003 killed by SIGSEGV with a core: the waits' fixture.
func endedTree() *ProcTable {
	tab := testTree()
	tab.Setpgid(1002, 1002, 0)
	never := func() bool { return false }
	tab.Exit(1001, ExitedStatus(3), never)
	tab.Exit(1003, KilledStatus(11, true), never)
	return tab
}

// treeString renders the table: pid, parent, state, status.
func treeString(t *ProcTable) string {
	var b strings.Builder
	for _, p := range t.All() {
		fmt.Fprintf(&b, "%d<%d:%s", p.Pid, t.Getppid(p.Pid), [...]string{"alive", "zombie", "reaped"}[p.State])
		if p.Ended() {
			fmt.Fprintf(&b, "(%#x)", p.Status)
		}
		b.WriteString(" ")
	}
	return strings.TrimSpace(b.String())
}

// TestProcExit follows exit_notify: a process ends a zombie its parent is
// told of, unless its parent is gone (outside the node) or auto-reaps
// (SIGCHLD ignored, SA_NOCLDWAIT: do_notify_parent); its children are
// orphaned (forget_original_parent), their zombies reaped by init.
func TestProcExit(t *testing.T) {
	never := func() bool { return false }
	cases := []struct {
		name   string
		steps  func(t *ProcTable) []bool // each Exit's answer
		want   []bool
		result string
	}{
		{"child ends a zombie (wait(2): until its parent waits)",
			func(t *ProcTable) []bool { return []bool{t.Exit(1002, ExitedStatus(7), never)} },
			[]bool{true}, "100<1:alive 1001<100:alive 1002<100:zombie(0x700) 1003<100:alive 2001<1001:alive"},
		{"parent ignores SIGCHLD: reaped at once (wait(2) NOTES, do_notify_parent autoreap)",
			func(t *ProcTable) []bool {
				return []bool{t.Exit(1002, KilledStatus(9, false), func() bool { return true })}
			},
			[]bool{false}, "100<1:alive 1001<100:alive 1002<100:reaped(0x9) 1003<100:alive 2001<1001:alive"},
		{"parent ends first: the child is orphaned to init (forget_original_parent)",
			func(t *ProcTable) []bool {
				return []bool{t.Exit(1001, ExitedStatus(0), never), t.Exit(2001, ExitedStatus(1), never)}
			},
			[]bool{true, false}, "100<1:alive 1001<100:zombie(0x0) 1002<100:alive 1003<100:alive 2001<1:reaped(0x100)"},
		{"parent ends after the child: its zombie goes to init, which reaps it",
			func(t *ProcTable) []bool {
				return []bool{t.Exit(2001, ExitedStatus(1), never), t.Exit(1001, ExitedStatus(0), never)}
			},
			[]bool{true, true}, "100<1:alive 1001<100:zombie(0x0) 1002<100:alive 1003<100:alive 2001<1:reaped(0x100)"},
		{"autoReaped is not asked without a parent in the node",
			func(t *ProcTable) []bool {
				t.Exit(1001, ExitedStatus(0), never)
				return []bool{t.Exit(2001, ExitedStatus(1), func() bool { panic("asked") })}
			},
			[]bool{false}, "100<1:alive 1001<100:zombie(0x0) 1002<100:alive 1003<100:alive 2001<1:reaped(0x100)"},
		{"a second end, or an unknown pid, changes nothing",
			func(t *ProcTable) []bool {
				return []bool{t.Exit(1002, ExitedStatus(7), never), t.Exit(1002, ExitedStatus(8), never), t.Exit(4242, 0, never)}
			},
			[]bool{true, false, false}, "100<1:alive 1001<100:alive 1002<100:zombie(0x700) 1003<100:alive 2001<1001:alive"},
		{"the node dies: live processes are gone, ended ones reaped",
			func(t *ProcTable) []bool {
				z := t.Exit(1002, ExitedStatus(7), never)
				for _, p := range t.All() {
					if p.Ended() {
						t.Reap(p.Pid)
					} else {
						t.Gone(p.Pid)
					}
				}
				return []bool{z}
			},
			[]bool{true}, "100<1:reaped(0x0) 1001<100:reaped(0x0) 1002<100:reaped(0x700) 1003<100:reaped(0x0) 2001<1001:reaped(0x0)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := testTree()
			got := tc.steps(tab)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("zombies %v, want %v", got, tc.want)
			}
			if s := treeString(tab); s != tc.result {
				t.Errorf("tree\n %s\nwant\n %s", s, tc.result)
			}
		})
	}
}

// TestWait4 checks wait4's decisions (wait(2), kernel/exit.c
// kernel_wait4, do_wait, eligible_pid, eligible_child,
// wait_consider_task) from process 100 of testTree after its children
// 1001 (exit 3) and 1003 (clone, exit signal 0; killed by SIGSEGV with a
// core) have ended and 1002 is alive, 1002 in its own group 1002.
func TestWait4(t *testing.T) {
	cases := []struct {
		name    string
		caller  int64
		pid     int64
		options uint64
		want    string // err, park, none, or pid:status
		after   string // the child's state after, when one is reported
	}{
		{"pid > 0 names the child (zombie: reaped)", 100, 1001, 0, "1001:0x300", "reaped"},
		{"pid > 0, a live child: parks until it changes state", 100, 1002, 0, "park", ""},
		{"pid > 0, a live child, WNOHANG: 0", 100, 1002, WNOHANG, "none", ""},
		{"pid > 0, not a child (a grandchild): ECHILD", 100, 2001, 0, "ECHILD", ""},
		{"pid > 0, no such process: ECHILD", 100, 4242, 0, "ECHILD", ""},
		{"-1: any child, the first zombie in fork order", 100, -1, 0, "1001:0x300", "reaped"},
		{"0: a child in the caller's group (1001)", 100, 0, 0, "1001:0x300", "reaped"},
		{"-pgid: a child in that group, alive: parks", 100, -1002, 0, "park", ""},
		{"-pgid: no child in that group: ECHILD", 100, -4242, 0, "ECHILD", ""},
		{"INT_MIN: ESRCH (kernel_wait4: -INT_MIN names no group)", 100, -1 << 31, 0, "ESRCH", ""},
		{"a childless process: ECHILD", 1002, -1, 0, "ECHILD", ""},
		{"a childless process, WNOHANG: still ECHILD", 1002, -1, WNOHANG, "ECHILD", ""},
		{"a clone child is not waited for without __WCLONE (eligible_child)", 100, 1003, 0, "ECHILD", ""},
		{"__WCLONE waits for clone children only", 100, 1003, WCLONE, "1003:0x8b", "reaped"},
		{"__WCLONE skips SIGCHLD children", 100, 1001, WCLONE, "ECHILD", ""},
		{"__WALL waits for both", 100, 1003, WALL, "1003:0x8b", "reaped"},
		{"WUNTRACED|WCONTINUED: children never stop, the zombie is still reported", 100, -1, WUNTRACED | WCONTINUED, "1001:0x300", "reaped"},
		{"WNOWAIT is waitid's only: EINVAL", 100, -1, WNOWAIT, "EINVAL", ""},
		{"WEXITED is waitid's only: EINVAL", 100, -1, WEXITED, "EINVAL", ""},
		{"an unknown option: EINVAL", 100, -1, 0x100, "EINVAL", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := endedTree()
			ready := tab.Wait4Ready(Leader(tc.caller), tc.pid, tc.options)
			a := tab.Wait4(Leader(tc.caller), tc.pid, tc.options)
			if got := answerString(a); got != tc.want {
				t.Fatalf("answer %s, want %s", got, tc.want)
			}
			if ready != (a.Child != nil) {
				t.Errorf("Wait4Ready %v, but the answer is %s", ready, answerString(a))
			}
			if a.Child != nil {
				if st := [...]string{"alive", "zombie", "reaped"}[a.Child.State]; st != tc.after {
					t.Errorf("child %s after, want %s", st, tc.after)
				}
				if _, e := tab.Getpgid(100, a.Child.Pid); e != ESRCH {
					t.Errorf("reaped child %d still in a process group (getpgid: %v, want ESRCH)", a.Child.Pid, e)
				}
				if again := tab.Wait4(Leader(tc.caller), a.Child.Pid, tc.options); again.Err != ECHILD {
					t.Errorf("waiting again for the reaped child: %s, want ECHILD", answerString(again))
				}
			}
		})
	}
}

// TestWaitid checks waitid's decisions (waitid(2), kernel_waitid,
// do_wait) on the tree of TestWait4.
func TestWaitid(t *testing.T) {
	cases := []struct {
		name    string
		idtype  uint64
		id      int64
		options uint64
		want    string
		after   string
	}{
		{"P_ALL: any child", PAll, 12345, WEXITED, "1001:0x300", "reaped"},
		{"P_PID", PPid, 1001, WEXITED, "1001:0x300", "reaped"},
		{"P_PID 0: EINVAL", PPid, 0, WEXITED, "EINVAL", ""},
		{"P_PID < 0: EINVAL", PPid, -1, WEXITED, "EINVAL", ""},
		{"P_PIDFD: the child the pidfd names", PPidfd, 1001, WEXITED, "1001:0x300", "reaped"},
		{"P_PGID 0: the caller's group (since 5.4)", PPgid, 0, WEXITED, "1001:0x300", "reaped"},
		{"P_PGID of a live child's group: parks", PPgid, 1002, WEXITED, "park", ""},
		{"P_PGID of no child's group: ECHILD", PPgid, 4242, WEXITED, "ECHILD", ""},
		{"P_PGID < 0: EINVAL", PPgid, -5, WEXITED, "EINVAL", ""},
		{"an unknown idtype: EINVAL", 9, 0, WEXITED, "EINVAL", ""},
		{"WNOWAIT leaves the zombie", PPid, 1001, WEXITED | WNOWAIT, "1001:0x300", "zombie"},
		{"WNOHANG, a live child: nothing", PPid, 1002, WEXITED | WNOHANG, "none", ""},
		{"no WEXITED, WSTOPPED or WCONTINUED: EINVAL", PAll, 0, WNOHANG, "EINVAL", ""},
		{"an unknown option: EINVAL", PAll, 0, WEXITED | 0x100, "EINVAL", ""},
		{"WSTOPPED with a live child: parks (it may stop)", PAll, 0, WSTOPPED, "park", ""},
		{"WSTOPPED, only a zombie: ECHILD (wait_task_zombie declines without WEXITED)", PPid, 1001, WSTOPPED, "ECHILD", ""},
		{"WCONTINUED|WNOHANG with a live child: nothing", PPid, 1002, WCONTINUED | WNOHANG, "none", ""},
		{"a clone child with __WALL", PPid, 1003, WEXITED | WALL, "1003:0x8b", "reaped"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := endedTree()
			a := tab.Waitid(Leader(100), tc.idtype, tc.id, tc.options)
			if got := answerString(a); got != tc.want {
				t.Fatalf("answer %s, want %s", got, tc.want)
			}
			if a.Child != nil {
				if st := [...]string{"alive", "zombie", "reaped"}[a.Child.State]; st != tc.after {
					t.Errorf("child %s after, want %s", st, tc.after)
				}
				if _, e := tab.Getpgid(100, a.Child.Pid); (e == 0) != (tc.after == "zombie") {
					t.Errorf("child %d %s: getpgid answers %v", a.Child.Pid, tc.after, e)
				}
			}
		})
	}
}

func answerString(a WaitAnswer) string {
	switch {
	case a.Err != 0:
		return a.Err.Error()
	case a.Park:
		return "park"
	case a.Child == nil:
		return "none"
	}
	return fmt.Sprintf("%d:%#x", a.Child.Pid, a.Child.Status)
}

// TestWaitOrder: among several zombies, wait reports them in fork order
// (the kernel walks the parent's children list, to which fork appends),
// each once; then ECHILD.
func TestWaitOrder(t *testing.T) {
	tab := NewProcTable(100)
	for k := int64(1); k <= 3; k++ {
		tab.Fork(100, 1000+k, SIGCHLD)
	}
	for _, pid := range []int64{1003, 1001, 1002} { // ended out of order
		tab.Exit(pid, ExitedStatus(int(pid-1000)), nil)
	}
	var got []string
	for {
		a := tab.Wait4(Leader(100), -1, 0)
		if a.Err != 0 || a.Child == nil {
			got = append(got, answerString(a))
			break
		}
		got = append(got, answerString(a))
	}
	if want := "[1001:0x100 1002:0x200 1003:0x300 ECHILD]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// TestWaitSelectsGroupNow: a -pgid wait selects by the child's group at
// the time of the wait (eligible_pid looks the group up then), so a child
// that moved into the group after the call started is found.
func TestWaitSelectsGroupNow(t *testing.T) {
	tab := testTree()
	tab.Exit(1002, ExitedStatus(1), nil)
	if a := tab.Wait4(Leader(100), -1002, WNOHANG); a.Err != ECHILD {
		t.Fatalf("before setpgid: %s, want ECHILD", answerString(a))
	}
	tab.Setpgid(1002, 1002, 0) // as if done before its end
	if a := tab.Wait4(Leader(100), -1002, WNOHANG); a.Child == nil || a.Child.Pid != 1002 {
		t.Errorf("after setpgid: %s, want 1002", answerString(a))
	}
}

// TestExitSignalTo: a child's end is signalled to its parent with its
// exit signal (do_notify_parent); nobody in the node is told when the
// parent is outside it or ended, or the exit signal is 0.
func TestExitSignalTo(t *testing.T) {
	tab := testTree()
	cases := []struct {
		pid    int64
		parent int64
		sig    int
		ok     bool
	}{
		{1001, 100, SIGCHLD, true},
		{1003, 0, 0, false}, // exit signal 0
		{100, 0, 0, false},  // the main process: its parent is outside
		{2001, 1001, SIGCHLD, true},
		{4242, 0, 0, false},
	}
	for _, tc := range cases {
		p, sig, ok := tab.ExitSignalTo(tc.pid)
		if p != tc.parent || sig != tc.sig || ok != tc.ok {
			t.Errorf("ExitSignalTo(%d) = %d, %d, %v; want %d, %d, %v", tc.pid, p, sig, ok, tc.parent, tc.sig, tc.ok)
		}
	}
	tab.Exit(1001, 0, nil)
	if _, _, ok := tab.ExitSignalTo(2001); ok {
		t.Error("an orphan's end is signalled to its dead parent")
	}
	if got := tab.Getppid(2001); got != 1 {
		t.Errorf("orphan's getppid %d, want 1", got)
	}
}

// TestWaitCode checks the status word's decoding into waitid's and
// SIGCHLD's CLD_* code and si_status (wait_task_zombie), and the siginfo
// waitid writes.
func TestWaitCode(t *testing.T) {
	cases := []struct {
		status uint32
		code   int32
		value  int32
	}{
		{ExitedStatus(0), CLDExited, 0},
		{ExitedStatus(255), CLDExited, 255},
		{KilledStatus(9, false), CLDKilled, 9},
		{KilledStatus(11, true), CLDDumped, 11},
		{KilledStatus(64, false), CLDKilled, 64},
	}
	for _, tc := range cases {
		code, value := WaitCode(tc.status)
		if code != tc.code || value != tc.value {
			t.Errorf("WaitCode(%#x) = %d, %d; want %d, %d", tc.status, code, value, tc.code, tc.value)
		}
	}
	info := WaitidInfo(&Process{Pid: 1002, Status: KilledStatus(6, true)}, 1000)
	le := binary.LittleEndian
	if len(info) != WaitidSize || le.Uint32(info[SiSignoOff:]) != SIGCHLD || Code(info) != CLDDumped ||
		SiginfoPid(info) != 1002 || le.Uint32(info[SiUIDOff:]) != 1000 || SiginfoStatus(info) != 6 {
		t.Errorf("waitid siginfo %x", info)
	}
	for i, b := range WaitidInfo(nil, 1000) {
		if b != 0 {
			t.Fatalf("nothing to report: byte %d is %d, want all zero", i, b)
		}
	}
}

// TestProcDigest: the digest covers each process's pid, parent, state,
// the edge's words and an ended one's status, and nothing else.
func TestProcDigest(t *testing.T) {
	digest := func(tab *ProcTable, flag bool) string {
		var b strings.Builder
		tab.Digest(func(v uint64) { fmt.Fprint(&b, v, ",") }, func(i int) (bool, uint64) { return flag && i == 1, uint64(i) })
		return b.String()
	}
	tab := testTree()
	base := digest(tab, false)
	if want := "100,1,0,0,1001,100,0,1,1002,100,0,2,1003,100,0,3,2001,1001,0,4,"; base != want {
		t.Errorf("digest %s, want %s", base, want)
	}
	if digest(tab, true) == base {
		t.Error("the edge's flag is not hashed")
	}
	seen := map[string]bool{base: true}
	tab.Exit(1002, ExitedStatus(1), nil)
	for _, step := range []func(){
		func() {},
		func() { tab.Process(1002).Status = ExitedStatus(2) },
		func() { tab.Wait4(Leader(100), 1002, 0) },
		func() { tab.Exit(1001, 0, nil) }, // orphans 2001
	} {
		step()
		d := digest(tab, false)
		if seen[d] {
			t.Errorf("state %s hashed like an earlier one", treeString(tab))
		}
		seen[d] = true
	}
}

// TestWaitNoThread checks __WNOTHREAD: a thread waits for its own
// children only (the ones it forked, while it lives); an ended thread's
// pass to the first live thread of its process (forget_original_parent),
// and without __WNOTHREAD every thread waits for all of them.
func TestWaitNoThread(t *testing.T) {
	const leader, t1, t2 = 100, 1001, 1002
	cases := []struct {
		name    string
		forker  int64   // the thread that forked child 2000
		threads []int64 // the process's live threads
		caller  int64
		options uint64
		want    Errno // 0: the child is reported
	}{
		{"own child", t1, []int64{leader, t1, t2}, t1, WNOTHREAD | WNOHANG, 0},
		{"another thread's", t1, []int64{leader, t1, t2}, leader, WNOTHREAD | WNOHANG, ECHILD},
		{"another thread's, without __WNOTHREAD", t1, []int64{leader, t1, t2}, leader, WNOHANG, 0},
		{"the leader's, asked by a thread", leader, []int64{leader, t1}, t1, WNOTHREAD | WNOHANG, ECHILD},
		{"an ended thread's, asked by the first live one", t1, []int64{leader, t2}, leader, WNOTHREAD | WNOHANG, 0},
		{"an ended thread's, asked by another", t1, []int64{leader, t2}, t2, WNOTHREAD | WNOHANG, ECHILD},
		{"an ended thread's, the leader ended too", t1, []int64{t2}, t2, WNOTHREAD | WNOHANG, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := NewProcTable(leader)
			tab.ForkBy(leader, tc.forker, 2000, SIGCHLD)
			tab.Exit(2000, ExitedStatus(7), func() bool { return false })
			w := Waiter{Pid: leader, Tid: tc.caller, Threads: tc.threads}
			a := tab.Wait4(w, -1, tc.options)
			if a.Err != tc.want || (tc.want == 0) != (a.Child != nil) {
				t.Errorf("wait4: %+v, want errno %v", a, tc.want)
			}
			tab = NewProcTable(leader)
			tab.ForkBy(leader, tc.forker, 2000, SIGCHLD)
			tab.Exit(2000, ExitedStatus(7), func() bool { return false })
			if a := tab.Waitid(w, PAll, 0, tc.options|WEXITED); a.Err != tc.want {
				t.Errorf("waitid: %+v, want errno %v", a, tc.want)
			}
		})
	}
}

// TestForkSibling follows copy_process for CLONE_PARENT: the child's
// parent is its caller's parent (and the thread that forked the caller),
// its exit signal its caller's, its group and session its caller's; a
// caller whose parent is outside the node (the main process, an orphan)
// records nothing.
func TestForkSibling(t *testing.T) {
	tab := NewProcTable(100)
	tab.ForkBy(100, 105, 1001, SIGUSR1) // forked by thread 105 of the main process, exit signal SIGUSR1
	if e := tab.Setpgid(1001, 1001, 0); e != 0 {
		t.Fatal(e)
	}
	s := tab.ForkSibling(1001, 1002)
	if s == nil {
		t.Fatal("ForkSibling(1001): nil")
	}
	want := Process{Pid: 1002, Parent: 100, Thread: 105, ExitSignal: SIGUSR1, Pgid: 1001, Sid: Session}
	if s.Pid != want.Pid || s.Parent != want.Parent || s.Thread != want.Thread || s.ExitSignal != want.ExitSignal ||
		s.Pgid != want.Pgid || s.Sid != want.Sid || s.State != Alive {
		t.Errorf("sibling %+v, want %+v", *s, want)
	}
	if got := tab.Getppid(1002); got != 100 {
		t.Errorf("getppid of the sibling %d, want 100", got)
	}
	// The main process waits for it (with __WCLONE: its exit signal is
	// not SIGCHLD); its caller has no child.
	tab.Exit(1002, ExitedStatus(4), func() bool { return false })
	if a := tab.Wait4(Leader(1001), 1002, 0); a.Err != ECHILD {
		t.Errorf("the caller's wait4(sibling): %+v, want ECHILD", a)
	}
	if a := tab.Wait4(Waiter{Pid: 100, Tid: 105, Threads: []int64{100, 105}}, 1002, WCLONE); a.Child == nil || a.Child.Pid != 1002 {
		t.Errorf("the parent's wait4(sibling, __WCLONE): %+v, want the sibling", a)
	}
	for _, caller := range []int64{100, 999} { // the main process; no such process
		if p := tab.ForkSibling(caller, 3000); p != nil || tab.Process(3000) != nil {
			t.Errorf("ForkSibling(%d): %+v, want nil and nothing recorded", caller, p)
		}
	}
}
