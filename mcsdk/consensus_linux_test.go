//go:build linux

package mcsdk_test

import (
	"os"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// consensusTargets are the consensus targets written for the consensus
// issue, each with its bug variant's known seed (found, first violation
// at a fixed step, every run), how many seeds the bug must be found
// within, how many seeds the correct variant must hold over (CI-sized; the
// 500-seed campaigns are scripts/consensus-campaigns.sh), and its shrunk
// recording.
var consensusTargets = []struct {
	model     string
	invariant string
	seed      uint64
	step      int
	within    int // the bug is violated on at least one of seeds 1..within
	holds     int // the correct variant holds on seeds 1..holds
	shrunk    string
}{
	{"zab/zab.model", "prefix", 1, 163, 10, 40, "zab/bug-1.shrunk.weftlog"},
	{"humming/humming.model", "one_value_per_version", 83, 184, 10, 40, "humming/bug-83.shrunk.weftlog"},
}

// TestConsensusTargets: each bug variant violates its invariant on its
// known seed at the known step and on one of the first seeds; the correct
// variant holds on the same seeds and a CI-sized range, with operations
// completing; and the shrunk recording in the target's directory replays
// to the same verdict.
//
// It runs in parallel with TestGoQuorumSeeded and TestRaftTargets, the
// package's other long runs of seeds (182 s, 165 s and about 120 s of
// test time at load 30): go test runs the three after every other test of
// the package, two at a time (GOMAXPROCS), so that the package's tail,
// which in CI runs beside fewer and fewer other packages, can use both
// cores. They share nothing (each its own models, binaries and run
// directories; no search cache) and assert nothing of the process; one
// process running two worlds at once is what the parallel search
// (Workers) does too.
func TestConsensusTargets(t *testing.T) {
	t.Parallel()
	for _, tc := range consensusTargets {
		t.Run(tc.model, func(t *testing.T) {
			m := loadTarget(t, tc.model)
			run := func(variant string, seed uint64) *mcsdk.RunResult {
				r, err := mcsdk.Run(m, mcsdk.RunOptions{Variant: variant, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			bug := run("bug", tc.seed)
			if bug.Verdict != mcsdk.Violated || len(bug.Violated) == 0 || bug.Violated[0] != tc.invariant || bug.FirstViolationStep != tc.step {
				t.Fatalf("bug seed %d: %s %v at step %d (%s), want %s at step %d", tc.seed, bug.Verdict, bug.Violated, bug.FirstViolationStep, bug.Detail, tc.invariant, tc.step)
			}
			found := false // the first violating seed settles it; the known seed is not run twice
			for seed := uint64(1); seed <= uint64(tc.within) && !found; seed++ {
				found = seed == tc.seed || run("bug", seed).Verdict == mcsdk.Violated
			}
			if !found {
				t.Errorf("the bug is not found on seeds 1..%d", tc.within)
			}
			ops := 0
			for seed := uint64(1); seed <= uint64(tc.holds); seed++ {
				r := run("correct", seed)
				if r.Verdict != mcsdk.Holds {
					t.Fatalf("correct seed %d: %s %v (%s)", seed, r.Verdict, r.Violated, r.Detail)
				}
				ops += r.Ops - r.OpsIndeterminate
			}
			if ops == 0 {
				t.Error("no operation of the correct variant completed")
			}
			data, err := os.ReadFile("../targets/" + tc.shrunk)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := weftlog.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			res, div, err := mcsdk.Replay(m, rec, mcsdk.RunOptions{})
			if err != nil || div != nil {
				t.Fatalf("replay of %s: %v %v", tc.shrunk, err, div)
			}
			if res.Verdict != mcsdk.Violated || res.Violated[0] != tc.invariant {
				t.Errorf("replay of %s: %s %v", tc.shrunk, res.Verdict, res.Violated)
			}
		})
	}
}
