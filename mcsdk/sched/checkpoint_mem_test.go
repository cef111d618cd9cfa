package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestCheckpointMemoryBound explores random systems with checkpoints
// whose copies each hold cpCopyMem bytes, under a bound of two and a half
// copies' worth (Explorer.CheckpointMem) and a count bound of 16: the
// search is the one without checkpoints, every world and checkpoint is
// closed, copies were dropped over the bound (deepest first), and the
// memory measured at once never exceeded three copies (the newest is
// measured before it is dropped).
func TestCheckpointMemoryBound(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 3))
	evicted, restored := 0, 0
	for k := 0; k < 60; k++ {
		s, f := randomSystem(r)
		depth := 2 + r.IntN(5)
		name := fmt.Sprintf("system %d (seed %d, depth %d)", k, s.seed, depth)
		off, err := s.exploreCP(f, depth, DPOR, 1, 0, 0, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		on, err := s.exploreCPMem(f, depth, DPOR, 1, 16, 0, 0, 5*cpCopyMem/2)
		if err != nil {
			t.Fatalf("%s, checkpoints: %v", name, err)
		}
		if !sameSearch(off.Stats, on.Stats) {
			t.Fatalf("%s: without checkpoints %+v, with %+v", name, off.Stats, on.Stats)
		}
		if c := on.Checkpoint; c.PeakMem > 3*cpCopyMem {
			t.Fatalf("%s: the live copies held %d bytes at once", name, c.PeakMem)
		}
		evicted += on.Checkpoint.Evicted
		restored += on.Checkpoint.Restores
	}
	t.Logf("%d copies dropped over the bound, %d siblings restored", evicted, restored)
	if evicted == 0 || restored == 0 {
		t.Error("no copy was dropped over the memory bound, or no sibling restored")
	}
}
