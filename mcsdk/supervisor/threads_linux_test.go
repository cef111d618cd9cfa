//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// buildThreads compiles testdata/threads.c once per test binary.
func buildThreads(tb testing.TB) string { return buildProbe(tb, "threads", "-O1", "-pthread") }

// runThreads runs one threads workload to its end, taking the k-th
// enabled action at each step (pick), and returns the world, closed.
func runThreads(tb testing.TB, cfg Config, pick func(acts []sched.Action, step int) sched.Action) (*World, []sched.Action) {
	tb.Helper()
	return runThreadsChecking(tb, cfg, pick, nil)
}

// runThreadsChecking is runThreads that first hands check (if not nil)
// the choices each step offers.
func runThreadsChecking(tb testing.TB, cfg Config, pick func(acts []sched.Action, step int) sched.Action, check func(w *World, acts []sched.Action, step int)) (*World, []sched.Action) {
	tb.Helper()
	w, err := Start(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	defer w.Close()
	var path []sched.Action
	for step := 0; step < 10000 && w.Failure() == nil; step++ {
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if check != nil {
			check(w, acts, step)
		}
		a := pick(acts, step)
		path = append(path, a)
		if err := w.Apply(a); err != nil {
			break
		}
	}
	return w, path
}

func first(acts []sched.Action, _ int) sched.Action { return acts[0] }
func last(acts []sched.Action, _ int) sched.Action  { return acts[len(acts)-1] }

// TestThreads runs real pthread programs under the one scheduler: every
// thread a task, futex waits virtual, thread ids virtual.
func TestThreads(t *testing.T) {
	bin := buildThreads(t)
	cases := []struct {
		mode     string
		pick     func([]sched.Action, int) sched.Action
		out      []string // substrings of the node's output
		fail     string   // substring of the failure, "" none
		signal   string   // the node's ending signal
		exit     int      // the node's exit status
		runs     bool     // the path holds Run choices
		maxWall  time.Duration
		watchdog time.Duration
	}{
		{mode: "join", pick: first, runs: true, out: []string{"t1 tid 1001 counter", "t2 tid 1002 counter", "main tid 100 pid 100 total 6 results 10 20"}},
		{mode: "join", pick: last, runs: true, out: []string{"main tid 100 pid 100 total 6 results 10 20"}},
		{mode: "hold", pick: first, runs: true, out: []string{"flag after create 0"}},
		{mode: "hold", pick: last, runs: true, out: []string{"flag after create 1"}},
		{mode: "condwait", pick: first, out: []string{"timedwait rc=110 waited 10s"}, maxWall: time.Second},
		{mode: "sleep", pick: first, runs: true, out: []string{"slept 100ms\nslept 300ms\nboth slept"}},
		{mode: "abort", pick: first, out: []string{"aborting"}, signal: "SIGABRT"},
		{mode: "mainexit", pick: first, out: []string{"last thread exits the process"}, exit: 3},
		{mode: "mainexit", pick: last, out: []string{"last thread exits the process"}, exit: 3},
		{mode: "exitheld", pick: first, out: []string{"exiting with the thread held"}, exit: 5},
		{mode: "groupexit", pick: first, out: []string{"thread ends the group"}, exit: 4},
		{mode: "sigthread", pick: first, out: []string{"SIGUSR1 handled in tid 1001"}},
		{mode: "spin", pick: last, fail: "watchdog: thread n0/t1 ran", watchdog: 2 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			start := time.Now()
			w, path := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{tc.mode}}}, Watchdog: tc.watchdog}, tc.pick)
			wall := time.Since(start)
			out := string(w.Output(0))
			f := w.Failure()
			switch {
			case tc.fail != "" && (f == nil || !strings.Contains(f.Error(), tc.fail)):
				t.Fatalf("failure %v, want %q\noutput:\n%s", f, tc.fail, out)
			case tc.fail == "" && f != nil:
				t.Fatalf("failure: %v\noutput:\n%s", f, out)
			}
			for _, s := range tc.out {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			if st := w.Status(0); st.Signal != tc.signal || st.ExitCode != tc.exit || !st.Exited {
				t.Errorf("status %+v, want exit %d signal %q", st, tc.exit, tc.signal)
			}
			runs := 0
			for _, a := range path {
				if a.Kind == sched.Run {
					runs++
				}
			}
			if tc.runs && runs == 0 {
				t.Errorf("no thread interleaving was a choice: %v", path)
			}
			if tc.maxWall > 0 && wall > tc.maxWall {
				t.Errorf("took %v of wall time, want under %v", wall, tc.maxWall)
			}
		})
	}
}

// threadsWall runs the threads workload mode with argument n under weft
// (first enabled action each step) or natively, and returns the wall time.
func threadsWall(tb testing.TB, bin, mode string, n int, supervised bool) time.Duration {
	tb.Helper()
	args := []string{mode, fmt.Sprint(n)}
	start := time.Now()
	if !supervised {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			tb.Fatalf("%v: %s", err, out)
		}
		return time.Since(start)
	}
	w, _ := runThreads(tb, Config{Nodes: []NodeSpec{{Path: bin, Args: args}}}, first)
	if f := w.Failure(); f != nil {
		tb.Fatal(f)
	}
	if !strings.Contains(string(w.Output(0)), "done") {
		tb.Fatalf("%s %d did not finish: %s", mode, n, w.Output(0))
	}
	return time.Since(start)
}

// benchThreads reports the cost of one operation of a threads workload,
// supervised and native, with their ratio.
func benchThreads(b *testing.B, mode string, n int, unit string) {
	bin := buildThreads(b)
	var sup, nat float64
	for i := 0; i < b.N; i++ {
		sup += perOp(threadsWall(b, bin, mode, n, true), threadsWall(b, bin, mode, 0, true), n)
		nat += perOp(threadsWall(b, bin, mode, n, false), threadsWall(b, bin, mode, 0, false), n)
	}
	b.ReportMetric(sup/float64(b.N)/1e3, "µs/supervised-"+unit)
	b.ReportMetric(nat/float64(b.N)/1e3, "µs/native-"+unit)
	b.ReportMetric(sup/nat, "ratio")
}

// BenchmarkFutexPingPong hands a turn back and forth between two threads
// (mutex and condition variable: futex wait and wake) supervised and
// native. One hand-off is one thread switch under weft: the waker goes
// on to its next syscall, where the woken thread is ready and the
// scheduler switches.
func BenchmarkFutexPingPong(b *testing.B) { benchThreads(b, "pingpong", 500, "handoff") }

// BenchmarkThreadClone creates and joins one thread at a time: under weft
// a clone holds parent and child with ptrace and the child's exit is
// collected before its joiner runs.
func BenchmarkThreadClone(b *testing.B) { benchThreads(b, "clones", 100, "clone+join") }

// TestFutexOpsMatchNative runs every futex operation weft models (wait,
// wake, the bitset forms, requeue, cmp_requeue, wake_op, private and
// shared, relative and absolute timeouts on both clocks) natively and
// under weft, with each interleaving order: the program prints every
// result, and the outputs must be equal.
func TestFutexOpsMatchNative(t *testing.T) {
	bin := buildThreads(t)
	native, err := exec.Command(bin, "futexops").CombinedOutput()
	if err != nil {
		t.Fatalf("native: %v\n%s", err, native)
	}
	for name, pick := range map[string]func([]sched.Action, int) sched.Action{"first": first, "last": last} {
		w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"futexops"}}}}, pick)
		if f := w.Failure(); f != nil {
			t.Fatalf("%s: %v\n%s", name, f, w.Output(0))
		}
		if got := string(w.Output(0)); got != string(native) {
			t.Errorf("%s: under weft:\n%s\nnatively:\n%s", name, got, native)
		}
	}
}

// TestThreadedCrashRestart crashes a node whose threads are parked (every
// thread is killed and collected) and restarts it: the new process runs
// its threads to the end.
func TestThreadedCrashRestart(t *testing.T) {
	bin := buildThreads(t)
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"sleep"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for step := 0; len(w.Timers()) < 2; step++ {
		acts := w.Enabled()
		if step > 100 || len(acts) == 0 {
			t.Fatalf("the threads never both slept: %v %v", acts, w.Failure())
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Apply(sched.Action{Kind: sched.Crash, Node: 0}); err != nil {
		t.Fatal(err)
	}
	if st := w.Status(0); !st.Killed || st.Alive {
		t.Fatalf("after the crash: %+v", st)
	}
	if err := w.Apply(sched.Action{Kind: sched.Restart, Node: 0}); err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 100 && w.Failure() == nil; step++ {
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if err := w.Apply(acts[len(acts)-1]); err != nil {
			t.Fatal(err)
		}
	}
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	if out := string(w.Output(0)); !strings.Contains(out, "both slept") || w.Restarts(0) != 1 {
		t.Errorf("after the restart (restarts %d):\n%s", w.Restarts(0), out)
	}
}

// TestThreadsFixed runs threaded programs with ThreadsFixed: no Run
// choice is ever enabled, the threads still all run (round-robin at
// syscalls) to the same result as some explored interleaving, two runs
// give the same path and output, and the state hash covers which thread
// ran last (it decides the next).
func TestThreadsFixed(t *testing.T) {
	bin := buildThreads(t)
	for _, tc := range []struct {
		mode string
		out  string
	}{
		{"join", "main tid 100 pid 100 total 6 results 10 20"},
		{"sleep", "slept 100ms\nslept 300ms\nboth slept"},
		{"pingpong", "done"},
		{"mainexit", "last thread exits the process"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cfg := Config{Nodes: []NodeSpec{{Path: bin, Args: []string{tc.mode, "20"}}}, Threads: ThreadsFixed}
			var outs [2]string
			var paths [2][]sched.Action
			for k := range outs {
				w, path := runThreads(t, cfg, first)
				if f := w.Failure(); f != nil {
					t.Fatalf("failure: %v\noutput:\n%s", f, w.Output(0))
				}
				for _, a := range path {
					if a.Kind == sched.Run {
						t.Fatalf("a Run choice under ThreadsFixed: %v", path)
					}
				}
				if w.Threads(0) < 2 {
					t.Errorf("%d threads: the probe did not create any", w.Threads(0))
				}
				outs[k], paths[k] = string(w.Output(0)), path
			}
			if !strings.Contains(outs[0], tc.out) {
				t.Errorf("output lacks %q:\n%s", tc.out, outs[0])
			}
			if outs[0] != outs[1] || fmt.Sprint(paths[0]) != fmt.Sprint(paths[1]) {
				t.Errorf("two runs differ:\n%s%v\n---\n%s%v", outs[0], paths[0], outs[1], paths[1])
			}
		})
	}
}

// TestNextReadyRoundRobin: with ThreadsFixed the next ready thread is the
// first after the one that ran last, wrapping around; the only ready
// thread runs under either schedule; with ThreadsExplore two ready
// threads are the scheduler's choice.
func TestNextReadyRoundRobin(t *testing.T) {
	for _, tc := range []struct {
		threads ThreadSchedule
		ready   []int
		last    int
		want    int // -1: none
	}{
		{ThreadsFixed, []int{0, 1, 2}, 0, 1},
		{ThreadsFixed, []int{0, 1, 2}, 1, 2},
		{ThreadsFixed, []int{0, 1, 2}, 2, 0},
		{ThreadsFixed, []int{0, 2}, 0, 2},
		{ThreadsFixed, []int{1}, 1, 1},
		{ThreadsFixed, nil, 1, -1},
		{ThreadsExplore, []int{0, 1}, 0, -1},
		{ThreadsExplore, []int{1}, 0, 1},
	} {
		n := &node{lastRun: tc.last}
		for k := 0; k < 3; k++ {
			n.tasks = append(n.tasks, &task{n: n, k: k})
		}
		for _, k := range tc.ready {
			n.tasks[k].ready = true
		}
		w := &World{cfg: Config{Threads: tc.threads}}
		got := -1
		if t := w.nextReady(n); t != nil {
			got = t.k
		}
		if got != tc.want {
			t.Errorf("%q ready %v last %d: next %d, want %d", tc.threads, tc.ready, tc.last, got, tc.want)
		}
	}
}

// TestHashCoversLastRun: under ThreadsFixed the thread that ran last is
// state (it decides which ready thread runs next), so two nodes that
// differ only in it hash differently; under ThreadsExplore it is not
// state and is left out.
func TestHashCoversLastRun(t *testing.T) {
	sum := func(threads ThreadSchedule, last int) string {
		n := &node{lastRun: last}
		for k := 0; k < 2; k++ {
			n.tasks = append(n.tasks, &task{n: n, k: k, ready: true})
		}
		w := &World{cfg: Config{Threads: threads}}
		var words []uint64
		w.hashTasks(n, func(v uint64) { words = append(words, v) })
		return fmt.Sprint(words)
	}
	if sum(ThreadsFixed, 0) == sum(ThreadsFixed, 1) {
		t.Error("ThreadsFixed: the hash does not cover the thread that ran last")
	}
	if sum(ThreadsExplore, 0) != sum(ThreadsExplore, 1) {
		t.Error("ThreadsExplore: the hash depends on the thread that ran last")
	}
}
