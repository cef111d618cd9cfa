//go:build linux && amd64

package supervisor

import (
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
	"golang.org/x/sys/unix"
)

// TestThreadClassCoversEverySyscall classifies every x86-64 syscall
// number for ThreadsVisible: each gets a class and a reason; only served
// rows named in privateCalls are private (a private name that is not a
// served row would be a typo that makes nothing private); unknown numbers
// are visible; and the calls the reduction's soundness depends on being
// visible are.
func TestThreadClassCoversEverySyscall(t *testing.T) {
	const self = 1001
	private := map[string]bool{}
	for nr := 0; nr <= maxSyscall+64; nr++ {
		p, why := threadClass(nr, [6]uint64{}, self)
		if why == "" {
			t.Errorf("syscall %d (%s) has no reason for its class", nr, sysName(nr))
		}
		e, known := syscallTable[nr]
		if p && (!known || e.decision != serve) {
			t.Errorf("syscall %d (%s) is private but not a served row", nr, sysName(nr))
		}
		if p {
			private[e.name] = true
		}
	}
	for name := range privateCalls {
		if !private[name] {
			t.Errorf("privateCalls names %q, which is no served row of the table", name)
		}
	}
	for _, nr := range []int{unix.SYS_READ, unix.SYS_WRITE, unix.SYS_FUTEX, unix.SYS_CLONE, unix.SYS_CLONE3,
		unix.SYS_EXIT, unix.SYS_EXIT_GROUP, unix.SYS_WAIT4, unix.SYS_EXECVE, unix.SYS_OPENAT, unix.SYS_CLOSE,
		unix.SYS_DUP, unix.SYS_SOCKET, unix.SYS_PIPE2, unix.SYS_EVENTFD2, unix.SYS_EPOLL_WAIT, unix.SYS_EPOLL_PWAIT,
		unix.SYS_KILL, unix.SYS_TGKILL, unix.SYS_RT_SIGTIMEDWAIT, unix.SYS_GETRANDOM, unix.SYS_CLOCK_GETTIME,
		unix.SYS_GETTIMEOFDAY, unix.SYS_NANOSLEEP, unix.SYS_CLOCK_NANOSLEEP, unix.SYS_SCHED_YIELD,
		unix.SYS_CONNECT, unix.SYS_ACCEPT4, unix.SYS_SENDTO, unix.SYS_RECVFROM, unix.SYS_POLL, unix.SYS_GETPPID,
		unix.SYS_SYSINFO, unix.SYS_TIMES, maxSyscall + 1} {
		if p, why := threadClass(nr, [6]uint64{}, self); p {
			t.Errorf("%s is private (%s): it must be visible", sysName(nr), why)
		}
	}
	for _, tc := range []struct {
		nr   int
		args [6]uint64
		want bool
	}{
		{unix.SYS_GETTID, [6]uint64{}, true},
		{unix.SYS_GETPID, [6]uint64{}, true},
		{unix.SYS_SIGALTSTACK, [6]uint64{}, true},
		{unix.SYS_SCHED_GETAFFINITY, [6]uint64{0, 8}, true},
		{unix.SYS_SCHED_GETAFFINITY, [6]uint64{self, 8}, true},
		{unix.SYS_SCHED_GETAFFINITY, [6]uint64{1002, 8}, false}, // another thread's: it may have ended
	} {
		if p, why := threadClass(tc.nr, tc.args, self); p != tc.want {
			t.Errorf("%s%v: private %v (%s), want %v", sysName(tc.nr), tc.args[:2], p, why, tc.want)
		}
	}
	if n := len(privateCalls); n == 0 || n > 20 {
		t.Errorf("%d private calls: the list is meant to be short and each one argued", n)
	}
}

// TestNextReadyVisible: with ThreadsVisible a thread stopped in a
// private call runs first, lowest index first; threads stopped in visible
// calls or held at their start are the scheduler's choice (Ready offers them
// only then); the only ready thread runs.
func TestNextReadyVisible(t *testing.T) {
	const held = -1
	for _, tc := range []struct {
		name  string
		ready map[int]int // thread index -> its pending call's number, or held
		want  int         // -1: the scheduler chooses, or none is ready
	}{
		{"two visible", map[int]int{0: unix.SYS_WRITE, 1: unix.SYS_FUTEX}, -1},
		{"private beats visible", map[int]int{0: unix.SYS_WRITE, 1: unix.SYS_GETTID}, 1},
		{"lowest private first", map[int]int{0: unix.SYS_FUTEX, 1: unix.SYS_GETPID, 2: unix.SYS_GETTID}, 1},
		{"held is a choice", map[int]int{0: unix.SYS_CLOCK_GETTIME, 2: held}, -1},
		{"private beats held", map[int]int{0: held, 2: unix.SYS_GETPID}, 2},
		{"clock reads are visible", map[int]int{0: unix.SYS_CLOCK_GETTIME, 1: unix.SYS_NANOSLEEP}, -1},
		{"only one", map[int]int{1: unix.SYS_WRITE}, 1},
		{"none", map[int]int{}, -1},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			n := &node{}
			w := &World{cfg: Config{Threads: ThreadsVisible}}
			for k := 0; k < 3; k++ {
				n.tasks = append(n.tasks, &task{n: n, k: k})
			}
			for k, nr := range tc.ready {
				tk := n.tasks[k]
				tk.ready = true
				if nr == held {
					tk.held = true
					continue
				}
				tk.call = &call{w: w, n: n, t: tk}
				tk.call.req.Data.Nr = int32(nr)
			}
			w.nodes = []*node{n}
			got := -1
			if tk := w.nextReady(n); tk != nil {
				got = tk.k
			}
			if got != tc.want {
				t.Errorf("next %d, want %d", got, tc.want)
			}
			runs := len(w.Ready())
			if wantRuns := len(tc.ready); got >= 0 || wantRuns < 2 {
				if runs != 0 {
					t.Errorf("%d Run choices, want none", runs)
				}
			} else if runs != wantRuns {
				t.Errorf("%d Run choices, want %d", runs, wantRuns)
			}
		})
	}
}

// TestThreadsVisible runs real pthread programs under ThreadsVisible with
// the first and the last choice at every step: they reach their expected
// output, every Run choice offered is among threads stopped in visible
// calls, and a run takes no more Run choices than the same run under
// ThreadsExplore (thread starts and private calls are no choice).
func TestThreadsVisible(t *testing.T) {
	bin := buildThreads(t)
	for _, tc := range []struct {
		mode string
		out  string
	}{
		{"join", "main tid 100 pid 100 total 6 results 10 20"},
		{"condwait", ""},
		{"sleep", "both slept"},
		{"pingpong", "done"},
		{"mainexit", "last thread exits the process"},
		{"clones", ""},
	} {
		for _, pick := range []struct {
			name string
			f    func([]sched.Action, int) sched.Action
		}{{"first", first}, {"last", last}} {
			t.Run(tc.mode+"/"+pick.name, func(t *testing.T) {
				runs := map[ThreadSchedule]int{}
				for _, th := range []ThreadSchedule{ThreadsExplore, ThreadsVisible} {
					cfg := Config{Nodes: []NodeSpec{{Path: bin, Args: []string{tc.mode, "3"}}}, Threads: th}
					w, path := runChecked(t, cfg, pick.f)
					if f := w.Failure(); f != nil {
						t.Fatalf("%q: failure: %v\noutput:\n%s", th, f, w.Output(0))
					}
					if !strings.Contains(string(w.Output(0)), tc.out) {
						t.Errorf("%q: output lacks %q:\n%s", th, tc.out, w.Output(0))
					}
					for _, a := range path {
						if a.Kind == sched.Run {
							runs[th]++
						}
					}
				}
				t.Logf("Run choices on the path: explore %d, visible %d", runs[ThreadsExplore], runs[ThreadsVisible])
				if runs[ThreadsVisible] > runs[ThreadsExplore] {
					t.Errorf("visible took %d Run choices, explore %d", runs[ThreadsVisible], runs[ThreadsExplore])
				}
			})
		}
	}
}

// runChecked is runThreads that also checks, before each step, that
// every Run choice offered names a ready thread stopped in a visible call
// when the schedule is ThreadsVisible.
func runChecked(tb testing.TB, cfg Config, pick func([]sched.Action, int) sched.Action) (*World, []sched.Action) {
	tb.Helper()
	return runThreadsChecking(tb, cfg, pick, func(w *World, acts []sched.Action, step int) {
		for _, a := range acts {
			if tk := w.task(a.Node, a.Task); a.Kind == sched.Run && cfg.Threads == ThreadsVisible && (tk == nil || tk.privateStep()) {
				tb.Errorf("step %d: Run choice %v names a thread whose step is private", step, a)
			}
		}
	})
}
