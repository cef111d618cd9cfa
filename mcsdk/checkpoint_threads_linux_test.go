//go:build linux

package mcsdk_test

import (
	"testing"

	"github.com/weft-mc/weft/mcsdk"
)

// TestCheckpointsThreadedSearch checks targets/gothreads (the Go
// runtime's threads, each switch a choice) to a small depth with and
// without checkpoints: the searches agree (checkBothWays), and threaded
// states were checkpointed and their siblings restored. A state may be
// refused (a thread held at its clone); that is counted, not an error.
func TestCheckpointsThreadedSearch(t *testing.T) {
	m := loadGoThreads(t)
	on, _ := checkBothWays(t, m, "", 4, mcsdk.DefaultCheckpoints)
	c := on.Checkpoints
	if c.Failed > 0 {
		t.Errorf("%d restores failed (%s)", c.Failed, c.FailedWhy)
	}
	if c.Taken == 0 || c.Restores == 0 {
		t.Errorf("%d checkpoints taken, %d restores (%d refused: %s)", c.Taken, c.Restores, c.Refused, c.Why)
	}
}

// TestCheckpointsRaftSearch checks targets/raft's correct variant (etcd's
// raft in Go, three nodes, each thread switch a choice) to depth 1 with
// and without checkpoints: the searches agree (checkBothWays), and the
// initial state, where every thread of every node is held in a ptrace
// stop (none parked in a call), was checkpointed and its siblings
// restored from it instead of replayed. Depth 1 already has 51
// executions; each deeper level multiplies them by about 50.
func TestCheckpointsRaftSearch(t *testing.T) {
	m := loadTarget(t, "raft/kv/raft-correct.model")
	on, _ := checkBothWays(t, m, "", 1, mcsdk.DefaultCheckpoints)
	c := on.Checkpoints
	if c.Failed > 0 {
		t.Errorf("%d restores failed (%s)", c.Failed, c.FailedWhy)
	}
	if c.Taken == 0 || c.Restores == 0 {
		t.Errorf("%d checkpoints taken, %d restores (%d refused: %s)", c.Taken, c.Restores, c.Refused, c.Why)
	}
}
