package vkernel

import (
	"slices"
	"testing"
)

// TestTimerTaskNumbers checks the timer events' task numbers: the main
// process's are the numbers recordings always held (-1 ITIMER_REAL, -2-id
// POSIX timer id), another process's name its place in the table, and
// every (place, timer) pair has its own number that SplitTimerTask
// reads back.
func TestTimerTaskNumbers(t *testing.T) {
	for _, c := range []struct {
		proc, own, want int
	}{
		{0, RealTimerTask, -1},
		{0, TimerTask(0), -2},
		{0, TimerTask(5), -7},
		{1, RealTimerTask, -1 - 1<<32},
		{2, TimerTask(3), -5 - 2<<32},
	} {
		if got := ProcTimerTask(c.proc, c.own); got != c.want {
			t.Errorf("ProcTimerTask(%d, %d) = %d, want %d", c.proc, c.own, got, c.want)
		}
	}
	seen := map[int][2]int{}
	for _, proc := range []int{0, 1, 2, 7, 1 << 20} {
		for _, own := range []int{RealTimerTask, TimerTask(0), TimerTask(1), TimerTask(1<<31 - 1)} {
			task := ProcTimerTask(proc, own)
			if o, dup := seen[task]; dup {
				t.Errorf("task %d names both %v and %v", task, o, [2]int{proc, own})
			}
			seen[task] = [2]int{proc, own}
			p, o, ok := SplitTimerTask(task)
			if !ok || p != proc || o != own {
				t.Errorf("SplitTimerTask(%d) = %d, %d, %v; want %d, %d", task, p, o, ok, proc, own)
			}
		}
	}
	for _, task := range []int{0, 1, 5} {
		if _, _, ok := SplitTimerTask(task); ok {
			t.Errorf("SplitTimerTask(%d): a thread's task is no signal timer", task)
		}
	}
}

// timersTree is a main process 100 with ITIMER_REAL armed (5 s, every
// 7 s) and POSIX timer 0 armed (1 s), then forked children 1001 and 1002.
func timersTree(t *testing.T) *ProcTable {
	t.Helper()
	tab := NewProcTable(100)
	m := tab.Timers(100)
	m.Real.ArmAfter(nil, 5e9, 7e9, Epoch)
	tm, err := m.NewTimer(ClockMonotonic, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tm.ArmAfter(nil, 1e9, 0, Epoch)
	m.Add(tm)
	tab.Fork(100, 1001, SIGCHLD)
	tab.Fork(100, 1002, SIGCHLD)
	return tab
}

// TestProcTimersFork checks fork(2)'s rule: "The child does not inherit
// timers from its parent (setitimer(2), alarm(2), timer_create(2))". The
// child reads no ITIMER_REAL and none of its parent's POSIX ids; its own
// timers are events named by its place, resolved to it and not its parent.
func TestProcTimersFork(t *testing.T) {
	tab := timersTree(t)
	c := tab.Timers(1001)
	if c == nil || c.Used() || c.Timer(0) != nil || c.NextID() != 0 {
		t.Fatalf("a forked child's timers: %+v, want none", c)
	}
	if b, _ := c.Getitimer(ItimerReal, Epoch); !slices.Equal(b, make([]byte, 32)) {
		t.Errorf("the child's getitimer(ITIMER_REAL) reads %x, want zero", b)
	}
	want := []TimerEvent{{RealTimerTask, Epoch + 5e9}, {TimerTask(0), Epoch + 1e9}}
	if got := tab.TimerEvents(); !slices.Equal(got, want) {
		t.Errorf("events %v, want the main process's alone %v", got, want)
	}
	if old := c.Alarm(nil, 3, Epoch); old != 0 {
		t.Errorf("the child's first alarm returned %d s left, want 0", old)
	}
	want = append(want, TimerEvent{ProcTimerTask(1, RealTimerTask), Epoch + 3e9})
	if got := tab.TimerEvents(); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	if m := tab.Timers(100); m.Real.Deadline != Epoch+5e9 {
		t.Errorf("the child's alarm moved its parent's ITIMER_REAL to %d", m.Real.Deadline-Epoch)
	}
	for _, c := range []struct {
		task  int
		pid   int64
		place int
		timer *SigTimer
	}{
		{RealTimerTask, 100, 0, &tab.Timers(100).Real},
		{TimerTask(0), 100, 0, tab.Timers(100).Timer(0)},
		{ProcTimerTask(1, RealTimerTask), 1001, 1, &tab.Timers(1001).Real},
		{ProcTimerTask(2, RealTimerTask), 0, 0, nil}, // 1002 armed nothing
		{ProcTimerTask(1, TimerTask(0)), 0, 0, nil},  // 1001 has no POSIX timer 0
		{TimerTask(1), 0, 0, nil},
		{ProcTimerTask(3, RealTimerTask), 0, 0, nil}, // no such place
		{0, 0, 0, nil},
	} {
		p, place, tm := tab.TimerOf(c.task)
		if tm != c.timer || place != c.place || (p == nil) != (c.pid == 0) || p != nil && p.Pid != c.pid {
			t.Errorf("TimerOf(%d) = %v, %d, %p; want pid %d, place %d, %p", c.task, p, place, tm, c.pid, c.place, c.timer)
		}
	}
}

// TestProcTimersExec checks execve(2) in a forked child: its ITIMER_REAL
// stays (setitimer(2): "preserved across execve"), its POSIX timers are
// deleted (timer_create(2)), and its parent's are untouched.
func TestProcTimersExec(t *testing.T) {
	tab := timersTree(t)
	c := tab.Timers(1001)
	c.Real.ArmAfter(nil, 200e9, 3e9, Epoch)
	tm, _ := c.NewTimer(ClockMonotonic, nil, nil)
	tm.ArmAfter(nil, 2e9, 0, Epoch)
	c.Add(tm)
	tab.Exec(1001)
	if c.Timer(0) != nil || c.Real.Deadline != Epoch+200e9 || c.Real.Interval != 3e9 || c.NextID() != 1 {
		t.Errorf("the child after exec: POSIX timer 0 %v, ITIMER_REAL %d every %d, next id %d; want none, 200 s every 3 s, 1",
			c.Timer(0), c.Real.Deadline-Epoch, c.Real.Interval, c.NextID())
	}
	if m := tab.Timers(100); m.Timer(0) == nil || m.Real.Deadline != Epoch+5e9 {
		t.Error("a child's exec changed its parent's timers")
	}
}

// TestProcTimersEnd checks that a process's timers end with it: a zombie
// or a reaped process has none, and its events are gone.
func TestProcTimersEnd(t *testing.T) {
	for _, c := range []struct {
		name string
		end  func(tab *ProcTable)
	}{
		{"zombie", func(tab *ProcTable) { tab.Exit(1001, ExitedStatus(0), nil) }},
		{"auto-reaped", func(tab *ProcTable) { tab.Exit(1001, ExitedStatus(0), func() bool { return true }) }},
		{"gone with its node", func(tab *ProcTable) { tab.Gone(1001) }},
	} {
		tab := timersTree(t)
		tab.Timers(1001).Alarm(nil, 3, Epoch)
		tab.Timers(1002).Alarm(nil, 4, Epoch)
		p := tab.Process(1001)
		c.end(tab)
		if tab.Timers(1001) != nil || p.Timers.Used() {
			t.Errorf("%s: an ended process keeps timers %+v", c.name, p.Timers)
		}
		want := []TimerEvent{{RealTimerTask, Epoch + 5e9}, {TimerTask(0), Epoch + 1e9}, {ProcTimerTask(2, RealTimerTask), Epoch + 4e9}}
		if got := tab.TimerEvents(); !slices.Equal(got, want) {
			t.Errorf("%s: events %v, want %v", c.name, got, want)
		}
		if p, _, _ := tab.TimerOf(ProcTimerTask(1, RealTimerTask)); p != nil {
			t.Errorf("%s: the ended process's timer still resolves", c.name)
		}
	}
}

// TestProcTimersDigest checks the children's part of the hash: nothing
// while no child has used its timers (so trees hash as they did before
// children had timers of their own), and a change with any child's
// timer, which child it is, and its end.
func TestProcTimersDigest(t *testing.T) {
	digest := func(tab *ProcTable) []uint64 {
		var w []uint64
		tab.TimersDigest(func(v uint64) { w = append(w, v) })
		return w
	}
	tab := timersTree(t)
	if w := digest(tab); len(w) != 0 {
		t.Fatalf("children without timers put %v, want nothing (the main process's are hashed by the edge)", w)
	}
	first, second := timersTree(t), timersTree(t)
	first.Timers(1001).Alarm(nil, 3, Epoch)
	second.Timers(1002).Alarm(nil, 3, Epoch)
	a, b := digest(first), digest(second)
	if len(a) == 0 || slices.Equal(a, b) {
		t.Errorf("one child's alarm puts %v, the other's %v: want two different digests", a, b)
	}
	disarmed := timersTree(t)
	disarmed.Timers(1001).Real.ArmAfter(nil, 0, 2e9, Epoch) // an interval kept, nothing armed
	if len(digest(disarmed)) == 0 {
		t.Error("a child's disarmed timer with an interval puts nothing")
	}
	first.Exit(1001, ExitedStatus(0), nil)
	if w := digest(first); len(w) != 0 {
		t.Errorf("an ended child's timers put %v", w)
	}
}
