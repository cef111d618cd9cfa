package sched

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
)

// cpWorld is a msgWorld that can be copied; every refuse-th checkpoint is
// refused and every fail-th restore fails, so the search mixes restores
// and replays.
type cpWorld struct {
	*msgWorld
	refuse, fail int
	asked        *atomic.Int64
	restores     *atomic.Int64
	live         *atomic.Int64 // checkpoints not closed
}

func (w cpWorld) Checkpoint() (Checkpoint, string, error) {
	if k := w.asked.Add(1); w.refuse > 0 && k%int64(w.refuse) == 0 {
		return nil, "refused for the test", nil
	}
	w.live.Add(1)
	return &cpCopy{w: w, saved: w.copyState()}, "", nil
}

func (w *msgWorld) copyState() *msgWorld {
	c := *w
	c.local, c.dead = slices.Clone(w.local), slices.Clone(w.dead)
	c.chans = make([][]msg, len(w.chans))
	for i, ch := range w.chans {
		c.chans[i] = slices.Clone(ch)
	}
	c.last.Nodes = slices.Clone(w.last.Nodes)
	return &c
}

type cpCopy struct {
	w      cpWorld
	saved  *msgWorld
	closed bool
}

func (c *cpCopy) Restore() (World, error) {
	if c.closed {
		return nil, errors.New("restore from a closed checkpoint")
	}
	if k := c.w.restores.Add(1); c.w.fail > 0 && k%int64(c.w.fail) == 0 {
		return nil, errors.New("failed for the test")
	}
	w := c.w
	w.msgWorld = c.saved.copyState()
	return w, nil
}

// cpCopyMem is what each cpCopy says it holds (Measured).
const cpCopyMem = 1000

func (c *cpCopy) Memory() int64 { return cpCopyMem }

func (c *cpCopy) Close() {
	if !c.closed {
		c.closed = true
		c.w.live.Add(-1)
	}
}

// exploreCP is msgSystem.explore with checkpoints (bound cps, every
// refuse-th refused); it also checks that every world and checkpoint is
// closed.
func (s *msgSystem) exploreCP(f Faults, depth int, red Reduction, workers, cps, refuse, fail int) (Result, error) {
	return s.exploreCPMem(f, depth, red, workers, cps, refuse, fail, 0)
}

// exploreCPMem is exploreCP with Explorer.CheckpointMem mem (each copy
// holds cpCopyMem bytes).
func (s *msgSystem) exploreCPMem(f Faults, depth int, red Reduction, workers, cps, refuse, fail int, mem int64) (Result, error) {
	var closes, asked, restores, live atomic.Int64
	x := &Explorer{
		Start: func() (World, error) {
			return cpWorld{msgWorld: s.start(&closes), refuse: refuse, fail: fail, asked: &asked, restores: &restores, live: &live}, nil
		},
		Depth: depth, Faults: f, Reduction: red, Workers: workers, Checkpoints: cps, CheckpointMem: mem,
		Observe: func(w World, _ any) (Observation, error) {
			return Observation{Visible: []byte(w.(cpWorld).observed())}, nil
		},
		Check: func(World, Observation, []Action) (bool, error) { return false, nil },
	}
	res, err := x.Run()
	if err != nil {
		return res, err
	}
	if started := res.Replays + 1 + res.Checkpoint.Restores; int(closes.Load()) != started {
		return res, fmt.Errorf("%d worlds started, %d closed", started, closes.Load())
	}
	if live.Load() != 0 {
		return res, fmt.Errorf("%d checkpoints never closed", live.Load())
	}
	return res, nil
}

// TestCheckpointsPreserveSearch explores random systems with and without
// checkpoints, with and without the reduction, sequentially and with
// three workers, with a bound of 2 live checkpoints, every third refused
// and every seventh restore failing: the search is the same (states, executions, expansions, states
// by depth, sleep-blocked executions; in parallel, the states without the
// reduction), the replays fewer (sequentially), every world and
// checkpoint closed, and the bound kept.
func TestCheckpointsPreserveSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 20))
	var replayed, restored, failed int
	for k := 0; k < 150; k++ {
		s, f := randomSystem(r)
		depth := 1 + r.IntN(6)
		for _, red := range []Reduction{NoReduction, DPOR} {
			for _, workers := range []int{1, 3} {
				name := fmt.Sprintf("system %d (seed %d, depth %d, reduction %s, workers %d)", k, s.seed, depth, red, workers)
				off, err := s.exploreCP(f, depth, red, workers, 0, 0, 0)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				on, err := s.exploreCP(f, depth, red, workers, 2, 3, 7)
				if err != nil {
					t.Fatalf("%s, checkpoints: %v", name, err)
				}
				if workers == 1 && !sameSearch(off.Stats, on.Stats) {
					t.Fatalf("%s: without checkpoints %+v, with %+v", name, off.Stats, on.Stats)
				}
				// In parallel, with the reduction, which states are met
				// depends on timing (parallel.go); without it every one
				// within the bound is. The workers that take branches
				// replay them, as many as timing makes them take.
				if workers > 1 && red == NoReduction && off.States != on.States {
					t.Fatalf("%s: %d states without checkpoints, %d with", name, off.States, on.States)
				}
				if workers == 1 && on.Replays > off.Replays || on.Checkpoint.MaxLive > 2 {
					t.Fatalf("%s: %d replays against %d, %d checkpoints alive at once", name, on.Replays, off.Replays, on.Checkpoint.MaxLive)
				}
				replayed += off.Replays
				restored += on.Checkpoint.Restores
				failed += on.Checkpoint.Failed
			}
		}
	}
	t.Logf("%d replays without checkpoints; with, %d siblings restored, %d restores failed (replayed)", replayed, restored, failed)
	if restored == 0 || failed == 0 {
		t.Error("no sibling was ever restored, or no restore failed")
	}
}

// sameSearch compares what a search explored, not how it started worlds.
func sameSearch(a, b Stats) bool {
	a.Replays, a.ReplayedSteps, a.Checkpoint = 0, 0, CheckpointStats{}
	b.Replays, b.ReplayedSteps, b.Checkpoint = 0, 0, CheckpointStats{}
	return reflect.DeepEqual(a, b)
}
