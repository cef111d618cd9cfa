//go:build linux

package mcsdk_test

import (
	"os"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// TestCheckpointsProcTree checks a pre-forking server (each node a master
// and two forked workers: supervisor/testdata/prefork.c) with and without
// checkpoints: the same verdict, distinct states, executions, expansions
// and states by depth (checkBothWays), and with checkpoints process trees
// are copied (taken, restored) and fewer steps replayed. CI checks depth 4
// (70 states, 56 executions; with checkpoints 5 trees taken and 5
// restored, 110 steps replayed against 124): the workers are forked
// before the first choice, so every checkpoint already copies a tree, and
// a deeper search repeats the same take and restore paths (depth 8: 507
// states, 126 taken, 74 s at load 7); WEFT_FULL=1 the model's depth, 10
// (1116 states, 1189 executions; 516 s at load 40).
func TestCheckpointsProcTree(t *testing.T) {
	m, err := model.Load("supervisor/testdata/prefork.model")
	if err != nil {
		t.Fatal(err)
	}
	depth := 4
	if os.Getenv("WEFT_FULL") == "1" {
		depth = 0
	}
	on, off := checkBothWays(t, m, "main", depth, mcsdk.DefaultCheckpoints)
	c := on.Checkpoints
	if c.Failed > 0 {
		t.Errorf("%d restores failed (%s)", c.Failed, c.FailedWhy)
	}
	if c.Taken == 0 || c.Restores == 0 || on.ReplayedSteps >= off.ReplayedSteps {
		t.Errorf("checkpoints saved nothing: %d taken, %d restores, %d replayed steps against %d (refused %d: %s)",
			c.Taken, c.Restores, on.ReplayedSteps, off.ReplayedSteps, c.Refused, c.Why)
	}
}
