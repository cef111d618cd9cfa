//go:build linux

package mcsdk_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// TestCheckpointsKeepSearch checks real targets with and without
// checkpoints: the same verdict, the same distinct states, executions,
// expansions and states by depth, the same violation and path, and, with
// checkpoints, fewer replays and replayed steps (siblings restored from
// copies instead), no state refused, and the bound on live checkpoints
// kept. register exercises a workload's clients in the copy; election
// crashes and restarts nodes over data directories; paxos keeps a file
// open in its data directory (reopened in each copy) and loses unsynced
// writes at a crash. Quorum's fixed variant and register are compared at
// a depth that still restores siblings and, with bound 2, evicts copies
// (quorum at depth 4: 47 states, 23 restores, the bound reached 11 times;
// register at depth 4: 104 states, 71 restores, clients' operations in
// the copies): a deeper search repeats the same take, restore and evict
// paths. Quorum's bug keeps depth 6, where it violates; election's runs
// end before its depth (8 and 5 explore the same executions).
func TestCheckpointsKeepSearch(t *testing.T) {
	tests := []struct {
		model, variant string
		depth          int // 0: the model's
		bound          int // live checkpoints at most
	}{
		{"repl/repl.model", "correct", 0, mcsdk.DefaultCheckpoints},
		{"repl/repl.model", "bug", 0, mcsdk.DefaultCheckpoints},
		{"quorum/quorum.model", "fixed", 4, mcsdk.DefaultCheckpoints},
		{"quorum/quorum.model", "bug", 6, mcsdk.DefaultCheckpoints},
		{"quorum/quorum.model", "fixed", 4, 2},
		{"election/election.model", "fixed", 0, mcsdk.DefaultCheckpoints},
		{"election/election.model", "bug", 0, mcsdk.DefaultCheckpoints},
		{"quorum/register.model", "bug", 4, mcsdk.DefaultCheckpoints},
		{"paxos/paxos.model", "correct", 1, mcsdk.DefaultCheckpoints},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s/depth%d/bound%d", tc.model, tc.variant, tc.depth, tc.bound), func(t *testing.T) {
			on, off := checkBothWaysShared(t, tc.model, tc.variant, tc.depth, tc.bound)
			c := on.Checkpoints
			if c.Refused > 0 || c.Failed > 0 {
				t.Errorf("%d states refused (%s), %d restores failed (%s)", c.Refused, c.Why, c.Failed, c.FailedWhy)
			}
			if c.MaxLive > tc.bound {
				t.Errorf("%d checkpoints alive at once, bound %d", c.MaxLive, tc.bound)
			}
			if off.Replays > 0 {
				if on.Replays >= off.Replays || c.Restores == 0 || on.ReplayedSteps > off.ReplayedSteps ||
					off.ReplayedSteps > 0 && on.ReplayedSteps == off.ReplayedSteps {
					t.Errorf("checkpoints saved nothing: %d replays of %d steps (%d restores) against %d of %d", on.Replays, on.ReplayedSteps, c.Restores, off.Replays, off.ReplayedSteps)
				}
				if tc.bound < mcsdk.DefaultCheckpoints && c.Bounded == 0 {
					t.Errorf("bound %d never reached", tc.bound)
				}
			}
		})
	}
}

// checkBothWays checks model m without checkpoints and with at most bound
// alive, and fails unless both searches agree: the verdict, the distinct
// states, executions, expansions and states by depth, the violation and
// its path. It returns the results with and without.
func checkBothWays(t *testing.T, m *model.Model, variant string, depth, bound int) (on, off *mcsdk.CheckResult) {
	t.Helper()
	return compareBothWays(t, variant, depth, bound, func(opts mcsdk.CheckOptions) *mcsdk.CheckResult {
		r, err := mcsdk.Check(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	})
}

// checkBothWaysShared is checkBothWays on the target rel (as loadTarget
// names it) whose search without checkpoints is sharedCheck's: the
// one-worker search TestParallelKeepsReduction and
// TestReductionKeepsVerdicts (dpor) compare too.
func checkBothWaysShared(t *testing.T, rel, variant string, depth, bound int) (on, off *mcsdk.CheckResult) {
	t.Helper()
	m := loadTarget(t, rel)
	return compareBothWays(t, variant, depth, bound, func(opts mcsdk.CheckOptions) *mcsdk.CheckResult {
		if opts.Checkpoints == 0 {
			return sharedCheck(t, rel, opts)
		}
		r, err := mcsdk.Check(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	})
}

// compareBothWays is checkBothWays with check making the searches.
func compareBothWays(t *testing.T, variant string, depth, bound int, check func(mcsdk.CheckOptions) *mcsdk.CheckResult) (on, off *mcsdk.CheckResult) {
	t.Helper()
	var res [2]*mcsdk.CheckResult
	for k, cps := range []int{0, bound} {
		r := check(mcsdk.CheckOptions{Variant: variant, Depth: depth, Checkpoints: cps})
		if r.Verdict == mcsdk.Error {
			t.Fatalf("checkpoints %d: error: %s", cps, r.Failure)
		}
		res[k] = r
		c := r.Checkpoints
		t.Logf("checkpoints %d: %s, %d states, %d executions, %d replays (%d steps), %d taken, %d restores, %d bounded, %d alive at most, %.2fs",
			cps, r.Verdict, r.States, r.Executions, r.Replays, r.ReplayedSteps, c.Taken, c.Restores, c.Bounded, c.MaxLive, r.Duration.Seconds())
	}
	off, on = res[0], res[1]
	if off.Verdict != on.Verdict || off.States != on.States || off.Executions != on.Executions ||
		off.Expansions != on.Expansions || off.SleepBlocked != on.SleepBlocked || !slices.Equal(off.ByDepth, on.ByDepth) {
		t.Fatalf("without checkpoints %s, %d states %v, %d executions, %d expansions; with %s, %d states %v, %d executions, %d expansions",
			off.Verdict, off.States, off.ByDepth, off.Executions, off.Expansions, on.Verdict, on.States, on.ByDepth, on.Executions, on.Expansions)
	}
	if off.Violation != nil {
		a, b := fmt.Sprint(off.Violation.Path), fmt.Sprint(on.Violation.Path)
		if a != b || off.Violation.Invariant != on.Violation.Invariant || off.Shortest != on.Shortest {
			t.Fatalf("violation %s at %s without checkpoints, %s at %s with", off.Violation.Invariant, a, on.Violation.Invariant, b)
		}
	}
	return on, off
}

// TestCheckpointsParallel checks quorum with two workers and checkpoints:
// the verdict and the reported path are those of one worker without. The
// fixed variant at depth 4 (as in TestCheckpointsKeepSearch), the bug at
// depth 6, where it violates.
func TestCheckpointsParallel(t *testing.T) {
	m := loadTarget(t, "quorum/quorum.model")
	for _, tc := range []struct {
		variant string
		depth   int
	}{{"fixed", 4}, {"bug", 6}} {
		v, depth := tc.variant, tc.depth
		t.Run(v, func(t *testing.T) {
			a, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: v, Depth: depth})
			if err != nil {
				t.Fatal(err)
			}
			b, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: v, Depth: depth, Workers: 2, Checkpoints: mcsdk.DefaultCheckpoints})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("-j 1: %s, %d states, %d replays; -j 2 with checkpoints: %s, %d states, %d replays, %d restores", a.Verdict, a.States, a.Replays, b.Verdict, b.States, b.Replays, b.Checkpoints.Restores)
			if a.Verdict != b.Verdict || b.Verdict == mcsdk.Error {
				t.Fatalf("verdict %s, with two workers and checkpoints %s (%s)", a.Verdict, b.Verdict, b.Failure)
			}
			if b.Checkpoints.Restores == 0 {
				t.Error("no sibling restored")
			}
			if a.Violation != nil && fmt.Sprint(a.Violation.Path) != fmt.Sprint(b.Violation.Path) {
				t.Fatalf("path %v, with two workers and checkpoints %v", a.Violation.Path, b.Violation.Path)
			}
		})
	}
}
