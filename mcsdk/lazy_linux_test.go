//go:build linux

package mcsdk_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// TestLazyRestoreKeepsSearch checks models of several nodes with
// checkpoints twice, with restores that give every node its processes at
// once (supervisor.EagerRestore) and with lazy ones: the same verdict,
// states, executions, expansions, states by depth, violation, restores
// and checkpoints; the eager search gives every restored node its
// processes, the lazy one fewer on quorum (nodes that a sibling branch
// does not run stay unforked).
func TestLazyRestoreKeepsSearch(t *testing.T) {
	tests := []struct {
		model, variant string
		depth          int
		fewer          bool // some restored node is never forked
		// most restored nodes given processes lazily: a checkpoint records
		// what a hash reads of its nodes, so that no restore forks an
		// unrun node to hash it (Checkpoint.recordHash), and a checkpoint
		// of a restored world shares the frozen processes of the nodes it
		// has not forked rather than fork them to freeze them again
		// (sharePending); 0: no bound. Was 63 and 168 before
		// recordHash, every unrun node hashed forked once per checkpoint,
		// and 45, 106 and 117 before sharePending.
		most int
	}{
		{"quorum/quorum.model", "fixed", 4, true, 37},
		{"quorum/quorum.model", "bug", 6, true, 93},
		// election's restored worlds run or checkpoint every node (165 of
		// 165 given processes before Checkpoint.recordHash).
		{"election/election.model", "bug", 0, true, 83},
	}
	defer func(e bool) { supervisor.EagerRestore = e }(supervisor.EagerRestore)
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s/depth%d", tc.model, tc.variant, tc.depth), func(t *testing.T) {
			m := loadTarget(t, tc.model)
			var res [2]*mcsdk.CheckResult
			for k, eager := range []bool{true, false} {
				supervisor.EagerRestore = eager
				r, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: tc.variant, Depth: tc.depth, Checkpoints: mcsdk.DefaultCheckpoints})
				if err != nil {
					t.Fatal(err)
				}
				if r.Verdict == mcsdk.Error {
					t.Fatalf("eager %v: error: %s", eager, r.Failure)
				}
				c := r.Checkpoints
				t.Logf("eager %v: %s, %d states, %d executions, %d taken, %d restores, %d nodes restored, %d given processes",
					eager, r.Verdict, r.States, r.Executions, c.Taken, c.Restores, c.RestoredNodes, c.Materialised)
				res[k] = r
			}
			e, l := res[0], res[1]
			ec, lc := e.Checkpoints, l.Checkpoints
			if e.Verdict != l.Verdict || e.States != l.States || e.Executions != l.Executions || e.Expansions != l.Expansions ||
				!slices.Equal(e.ByDepth, l.ByDepth) || ec.Taken != lc.Taken || ec.Restores != lc.Restores || ec.RestoredNodes != lc.RestoredNodes {
				t.Fatalf("eager: %s, %d states %v, %d executions, %d expansions, %d taken, %d restores; lazy: %s, %d states %v, %d executions, %d expansions, %d taken, %d restores",
					e.Verdict, e.States, e.ByDepth, e.Executions, e.Expansions, ec.Taken, ec.Restores, l.Verdict, l.States, l.ByDepth, l.Executions, l.Expansions, lc.Taken, lc.Restores)
			}
			if e.Violation != nil {
				if a, b := fmt.Sprint(e.Violation.Path), fmt.Sprint(l.Violation.Path); a != b || e.Violation.Invariant != l.Violation.Invariant {
					t.Fatalf("violation %s at %s eagerly, %s at %s lazily", e.Violation.Invariant, a, l.Violation.Invariant, b)
				}
			}
			if ec.Restores == 0 || ec.RestoredNodes == 0 || ec.Materialised != ec.RestoredNodes {
				t.Errorf("eager: %d restores, %d nodes restored, %d given processes", ec.Restores, ec.RestoredNodes, ec.Materialised)
			}
			if tc.fewer && lc.Materialised >= lc.RestoredNodes || lc.Materialised > lc.RestoredNodes {
				t.Errorf("lazy: all %d restored nodes given processes (%d)", lc.RestoredNodes, lc.Materialised)
			}
			if tc.most > 0 && lc.Materialised > tc.most {
				t.Errorf("lazy: %d of %d restored nodes given processes, more than %d", lc.Materialised, lc.RestoredNodes, tc.most)
			}
		})
	}
}
