//go:build linux

package mcsdk_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
)

// TestParallelKeepsReduction checks the parallel search with the
// reduction (two workers taking each other's pending branches,
// sched/parallel.go) against the sequential one on every target with a
// reduction test (TestReductionKeepsVerdicts, TestCheckpointsKeepSearch),
// at depths that keep it small: the same verdict; where it holds, the
// same set of verdict states judged (CheckOptions.Visit: the model's
// state and whether a run ends there); where it is violated, the same
// invariant and the same reported path (mcsdk.Check searches again with
// one worker at the shortest length). The counts of both are logged:
// which branches a worker takes depends on timing, so they may differ
// (sched.Explorer.Workers).
//
// Both searches are sharedCheck's: the one-worker search of a target is
// the one TestCheckpointsKeepSearch (without checkpoints),
// TestReductionKeepsVerdicts (dpor) and TestParallelCheck make, and
// quorum's searches with two workers are TestParallelCheck's, which is
// why quorum's fixed variant is searched to quorumFixedSmallDepth (6, as
// there) rather than 5. Sharing leaves the comparison the same: a
// one-worker search is deterministic, and each shared result keeps the
// verdict states its search judged.
func TestParallelKeepsReduction(t *testing.T) {
	tests := []struct {
		model, variant string
		depth          int // 0: the model's
	}{
		{"repl/repl.model", "correct", 0},
		{"repl/repl.model", "bug", 0},
		{"quorum/quorum.model", "fixed", quorumFixedSmallDepth()},
		{"quorum/quorum.model", "bug", 0},
		{"election/election.model", "fixed", 0},
		{"election/election.model", "bug", 0},
		{"bank/bank.model", "bug", 0},
		{"bank/bank.model", "fixed", 6},
		{"quorum/register.model", "bug", 4},
		{"paxos/paxos.model", "correct", 1},
		{"depth.c", "", 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s/depth%d", tc.model, tc.variant, tc.depth), func(t *testing.T) {
			check := func(opts mcsdk.CheckOptions) (*mcsdk.CheckResult, map[string]bool) {
				return sharedCheckSeen(t, tc.model, opts)
			}
			if tc.model == "depth.c" {
				m := depthModel(t)
				check = func(opts mcsdk.CheckOptions) (*mcsdk.CheckResult, map[string]bool) {
					seen := recordVisits(&opts)
					r, err := mcsdk.Check(m, opts)
					if err != nil {
						t.Fatal(err)
					}
					return r, seen
				}
			}
			var res [2]*mcsdk.CheckResult
			var seen [2]map[string]bool
			for k, j := range []int{1, 2} {
				var r *mcsdk.CheckResult
				r, seen[k] = check(mcsdk.CheckOptions{Variant: tc.variant, Depth: tc.depth, Workers: j})
				if r.Verdict == mcsdk.Error {
					t.Fatalf("-j %d: error: %s", j, r.Failure)
				}
				res[k] = r
				t.Logf("-j %d: %s, %d states, %d executions, %d sleep-blocked, %d replays, %d verdict states, %.2fs",
					j, r.Verdict, r.States, r.Executions, r.SleepBlocked, r.Replays, len(seen[k]), r.Duration.Seconds())
			}
			one, two := res[0], res[1]
			if one.Verdict != two.Verdict {
				t.Fatalf("verdict %s with one worker, %s with two", one.Verdict, two.Verdict)
			}
			if one.Violation == nil {
				a, b := slices.Sorted(maps.Keys(seen[0])), slices.Sorted(maps.Keys(seen[1]))
				if len(a) == 0 || !slices.Equal(a, b) {
					t.Fatalf("verdict states with one worker %q, with two %q", a, b)
				}
				return
			}
			a, b := fmt.Sprint(one.Violation.Path), fmt.Sprint(two.Violation.Path)
			if a != b || one.Violation.Invariant != two.Violation.Invariant || one.Shortest != two.Shortest {
				t.Fatalf("violation %s at %s (shortest %v) with one worker, %s at %s (shortest %v) with two",
					one.Violation.Invariant, a, one.Shortest, two.Violation.Invariant, b, two.Shortest)
			}
		})
	}
}
