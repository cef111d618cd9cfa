//go:build linux

package mcsdk_test

import (
	"slices"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
)

// TestThreadsVisibleSound is the soundness test of the thread reduction
// (--threads visible, supervisor/reduce.go) on the example models with
// threads: the C pthread bank (both variants) and the Go programs
// gothreads and goquorum (both models), each at a depth CI can afford.
// The Go Raft store is compared by scripts/bench.sh instead: its depth 1
// alone is 51 executions of three Go nodes, minutes for each schedule. For each, the search with every thread interleaving
// (explore) and the reduced one agree on the verdict and the violated
// invariant, the reduced violation is no longer, and every verdict state
// (the model's [state] values and logs) that explore judges within the
// depth is judged by the reduced search within the same depth: a thread
// step that starts with a private call takes no action, so the reduced
// search reaches each such state along a path with fewer actions. The
// reverse does not hold at a depth bound (the reduced search gets further
// per action); the counts are logged. The bank's bug is a lost update
// preempted at a write to stdout: were write classified private, the
// reduced search would run each transfer to its end and miss it. The bank's
// fixed variant is the test that made a thread's start a choice
// (privateStep): with starts private, the state in which the west teller's
// transfer completed first was missed.
func TestThreadsVisibleSound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		load    func(*testing.T) *model.Model
		variant string
		depth   int
		want    mcsdk.Verdict
	}{
		{"bank-bug", func(t *testing.T) *model.Model { return loadTarget(t, "bank/bank.model") }, "bug", 12, mcsdk.Violated},
		{"bank-fixed", func(t *testing.T) *model.Model { return loadTarget(t, "bank/bank.model") }, "fixed", 6, mcsdk.Holds},
		{"gothreads", loadGoThreads, "", 2, mcsdk.Holds},
		{"goquorum", func(t *testing.T) *model.Model { return goQuorumModels(t)["goquorum.model"] }, "", 1, mcsdk.Holds},
		{"goquorum-bug", func(t *testing.T) *model.Model { return goQuorumModels(t)["goquorum-bug.model"] }, "", 1, mcsdk.Holds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.load(t)
			var res [2]*mcsdk.CheckResult
			var seen [2]map[string]bool
			for k, th := range []string{"explore", "visible"} {
				seen[k] = map[string]bool{}
				r, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: tc.variant, Depth: tc.depth, Threads: th,
					Visit: func(st string, _ bool) { seen[k][st] = true }})
				if err != nil {
					t.Fatal(err)
				}
				if r.Verdict != tc.want || r.Threads != th {
					t.Fatalf("%s: verdict %s (threads %s), want %s: %s", th, r.Verdict, r.Threads, tc.want, r.Failure)
				}
				res[k] = r
				t.Logf("%s depth %d threads %s: %s, %d states, %d executions, %d verdict states, %.1fs",
					tc.name, tc.depth, th, r.Verdict, r.States, r.Executions, len(seen[k]), r.Duration.Seconds())
			}
			explore, visible := res[0], res[1]
			if explore.Violation != nil {
				ev, vv := explore.Violation, visible.Violation
				if ev.Invariant != vv.Invariant || len(vv.Path) > len(ev.Path) {
					t.Fatalf("violation %s after %d actions explored, %s after %d reduced", ev.Invariant, len(ev.Path), vv.Invariant, len(vv.Path))
				}
				t.Logf("%s violated after %d actions explored, %d reduced", ev.Invariant, len(ev.Path), len(vv.Path))
				return // a violating search stops early: its states are no complete set
			}
			var missed []string
			for st := range seen[0] {
				if !seen[1][st] {
					missed = append(missed, st)
				}
			}
			slices.Sort(missed)
			if len(missed) > 0 {
				t.Errorf("%d verdict states explore judges within depth %d that the reduced search does not, e.g. %s",
					len(missed), tc.depth, missed[0])
			}
		})
	}
}

// TestThreadsVisiblePath: a violation found with the reduction is saved
// with its schedule and replays to the same violation (a path of the
// reduced search runs private steps without actions, so it replays only
// with the same schedule).
func TestThreadsVisiblePath(t *testing.T) {
	m := loadTarget(t, "bank/bank.model")
	res, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: "bug", Threads: "visible"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != mcsdk.Violated {
		t.Fatalf("verdict %s, want violated", res.Verdict)
	}
	for _, a := range res.Violation.Path {
		if a.Kind != sched.Run {
			t.Errorf("path has %s, want only thread switches", a)
		}
	}
	file := t.TempDir() + "/bank.weftpath"
	if err := mcsdk.SavePath(file, m, res); err != nil {
		t.Fatal(err)
	}
	p, err := mcsdk.LoadPath(file)
	if err != nil {
		t.Fatal(err)
	}
	if p.Threads != "visible" {
		t.Fatalf("saved path has threads %q, want visible", p.Threads)
	}
	again, err := mcsdk.ReplayPath(m, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Verdict != mcsdk.Violated || again.Violation.Invariant != "conserved" || again.Threads != "visible" {
		t.Fatalf("replayed: %s (threads %s)", again.Verdict, again.Threads)
	}
}
