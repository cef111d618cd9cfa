//go:build linux

package mcsdk_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// depthModel writes the model of testdata/depth.c (a state reachable at
// two depths, the violation two steps after it).
func depthModel(t *testing.T) *model.Model {
	t.Helper()
	src, err := filepath.Abs("testdata/depth.c")
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`[target]
nodes = 2
source = %q
args = ["{id}", "{base_port}"]
base_port = 7360

[state]
a = "int32"
b = "int32"
bad = "int32"

[environment]
depth = 5

[invariants]
never_bad = "node[0].bad == 0"
`, src)
	path := filepath.Join(t.TempDir(), "depth.model")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReductionKeepsVerdicts checks the real targets with and without the
// partial-order reduction: the same verdict, the same violated invariant
// and the same shortest violation length, with the counts of both logged;
// where the reduction has independent deliveries to work on (quorum), it
// must explore fewer executions.
//
// The search without the reduction continues siblings from checkpoints
// instead of replaying their prefixes: it explores the same states and
// executions and reports the same violation either way (checkBothWays,
// TestCheckpointsKeepSearch), and it is the expensive side (quorum's
// fixed variant at depth 12: 129 s replaying, 54 s with checkpoints, run
// side by side). The reduced search is the default one the other tests
// share (sharedCheck), without checkpoints.
//
// CI searches bank's fixed variant to bankFixedDepth, 8 (WEFT_FULL=1: the
// model's depth, 12): the variant holds at either depth, so the comparison
// is the same one over a smaller search (bank's reduction saves nothing at
// either depth: its fewer is false). CI searches quorum's fixed variant
// to quorumFixedDepth, 6 (WEFT_FULL=1: the model's, 12; 74 s of the
// test's 134 s in CI's 2026-12-05 idle rehearsal, 744 executions without
// the reduction against 606 and 30 sleep-blocked with it). The reduction
// prunes nothing there at 8 (396 executions both ways) or 6 (132), so in
// CI its fewer is false and its verdicts alone are compared; that the
// reduction explores fewer executions of a whole search that holds is
// then election's fixed variant's claim, at its model's depth (48
// executions against 42, none sleep-blocked), beside quorum's bug (16
// against 11 up to the violation).
func TestReductionKeepsVerdicts(t *testing.T) {
	tests := []struct {
		model, variant string
		fewer          bool // the reduction must save executions
		depth          int  // 0: the model's
	}{
		{"repl/repl.model", "correct", false, 0},
		{"repl/repl.model", "bug", false, 0},
		{"quorum/quorum.model", "fixed", fullRun(), quorumFixedDepth()},
		{"quorum/quorum.model", "bug", true, 0},
		{"election/election.model", "fixed", true, 0},
		{"election/election.model", "bug", false, 0},
		{"bank/bank.model", "bug", false, 0},
		{"bank/bank.model", "fixed", false, bankFixedDepth()},
		{"depth.c", "", false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.model+"/"+tc.variant, func(t *testing.T) {
			check := func(opts mcsdk.CheckOptions) *mcsdk.CheckResult { return sharedCheck(t, tc.model, opts) }
			if tc.model == "depth.c" {
				m := depthModel(t)
				check = func(opts mcsdk.CheckOptions) *mcsdk.CheckResult {
					r, err := mcsdk.Check(m, opts)
					if err != nil {
						t.Fatal(err)
					}
					return r
				}
			}
			var res [2]*mcsdk.CheckResult
			for k, red := range []string{"none", "dpor"} {
				opts := mcsdk.CheckOptions{Variant: tc.variant, Reduction: red, Depth: tc.depth}
				if red == "none" {
					opts.Checkpoints = mcsdk.DefaultCheckpoints
				}
				r := check(opts)
				if r.Verdict == mcsdk.Error {
					t.Fatalf("%s: error: %s", red, r.Failure)
				}
				res[k] = r
				t.Logf("%s: %s, %d states, %d executions, %d sleep-blocked, %d replays, %.2fs", red, r.Verdict, r.States, r.Executions, r.SleepBlocked, r.Replays, r.Duration.Seconds())
			}
			none, dpor := res[0], res[1]
			if none.Verdict != dpor.Verdict {
				t.Fatalf("verdict %s without reduction, %s with", none.Verdict, dpor.Verdict)
			}
			if none.Violation != nil {
				if none.Violation.Invariant != dpor.Violation.Invariant || len(none.Violation.Path) != len(dpor.Violation.Path) || none.Shortest != dpor.Shortest {
					t.Fatalf("violation %s after %d (shortest %v) without reduction, %s after %d (shortest %v) with",
						none.Violation.Invariant, len(none.Violation.Path), none.Shortest, dpor.Violation.Invariant, len(dpor.Violation.Path), dpor.Shortest)
				}
			}
			if tc.fewer && dpor.Executions+dpor.SleepBlocked >= none.Executions {
				t.Errorf("the reduction saved nothing: %d (+%d sleep-blocked) executions against %d", dpor.Executions, dpor.SleepBlocked, none.Executions)
			}
		})
	}
}

// TestParallelCheck checks with one worker and with two: the same
// verdict and the same reported path, on repl and quorum. CI searches
// quorum's fixed variant to quorumFixedSmallDepth, 6 (the one worker's
// search is TestReplStateSpaceIsDeterministic's), WEFT_FULL=1 to the
// model's depth, 12 (at depth 8, 431 states and 396 executions, one
// worker took 107 s and two 97 s in CI's 2026-12-05 rehearsal): the same
// parallel search, smaller; the variant holds at either depth, so the
// verdicts are what is compared.
func TestParallelCheck(t *testing.T) {
	fixedDepth := quorumFixedSmallDepth()
	if fullRun() {
		fixedDepth = 0
	}
	tests := []struct {
		model, variant string
		depth          int // 0: the model's
	}{
		{"repl/repl.model", "correct", 0},
		{"repl/repl.model", "bug", 0},
		{"quorum/quorum.model", "fixed", fixedDepth},
		{"quorum/quorum.model", "bug", 0},
	}
	for _, tc := range tests {
		t.Run(tc.model+"/"+tc.variant, func(t *testing.T) {
			var res [2]*mcsdk.CheckResult
			for k, j := range []int{1, 2} {
				r := sharedCheck(t, tc.model, mcsdk.CheckOptions{Variant: tc.variant, Workers: j, Depth: tc.depth})
				res[k] = r
				t.Logf("-j %d: %s, %d states, %d executions, %d replays, %.2fs", j, r.Verdict, r.States, r.Executions, r.Replays, r.Duration.Seconds())
			}
			if res[0].Verdict != res[1].Verdict {
				t.Fatalf("verdict %s with one worker, %s with two", res[0].Verdict, res[1].Verdict)
			}
			if res[0].Violation != nil {
				a, b := fmt.Sprint(res[0].Violation.Path), fmt.Sprint(res[1].Violation.Path)
				if a != b || res[0].Violation.Invariant != res[1].Violation.Invariant {
					t.Fatalf("path %s (%s) with one worker, %s (%s) with two", a, res[0].Violation.Invariant, b, res[1].Violation.Invariant)
				}
			}
		})
	}
}
