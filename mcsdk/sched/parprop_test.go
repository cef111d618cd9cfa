package sched

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// jitter makes an explorer's workers interleave differently from run to
// run: before some observations (drawn from seed and a shared counter)
// a worker yields once or a few dozen times (the package does not
// import time: TestPure), so that steals happen after owners left their
// frames, races are found in stolen subtrees while the frame's owner is
// elsewhere, and claims wait on footprints not yet posted. The search's outcome must not depend on it.
func jitter(seed uint64) func(*Explorer) {
	return func(x *Explorer) {
		var n atomic.Uint64
		observe := x.Observe
		x.Observe = func(w World, parent any) (Observation, error) {
			h := seed ^ n.Add(1)*0x9e3779b97f4a7c15
			h ^= h >> 31
			h *= 0xbf58476d1ce4e5b9
			h ^= h >> 29
			switch h % 8 {
			case 0:
				for k := uint64(0); k < h>>8%64; k++ {
					runtime.Gosched()
				}
			case 1, 2:
				runtime.Gosched()
			}
			return observe(w, parent)
		}
	}
}

// TestParallelMatchesSequential compares the parallel search with the
// reduction (2 and 4 workers, their timing perturbed by jitter) with the
// sequential one on random systems, half of them observing every node's
// whole state: the same observed states, a violation found exactly when
// the sequential search finds one, the whole bound covered, and no
// fallback (the worlds' footprints and origins are honest, so a fallback
// means a worker reversed a race against events of another path than its
// own). Run it with the race detector.
func TestParallelMatchesSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 31))
	systems := 200
	if testing.Short() {
		systems = 40
	}
	var compared, states int
	for k := 0; k < systems; k++ {
		s, f := randomSystem(r)
		s.fine = r.IntN(2) == 0
		if r.IntN(3) == 0 {
			s.nodes = 4
			s.target += "0"
			s.init = append(s.init, [2]int{3, r.IntN(3)})
		}
		depth := 2 + r.IntN(6)
		seed := r.Uint64()
		name := fmt.Sprintf("system %d (seed %d, %d nodes, bag %v, timers %v, fine %v, faults %+v, depth %d)", k, s.seed, s.nodes, s.bag, s.timers, s.fine, f, depth)
		_, seq, err := s.explore(f, depth, DPOR, false, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seqV, _, err := s.explore(f, depth, DPOR, true, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, workers := range []int{2, 4} {
			res, par, err := s.explore(f, depth, DPOR, false, workers, jitter(seed))
			if err != nil {
				t.Fatalf("%s, %d workers: %v", name, workers, err)
			}
			if !slices.Equal(seq, par) {
				t.Fatalf("%s, %d workers: observed states sequentially %v, in parallel %v", name, workers, seq, par)
			}
			if res.Fallbacks != 0 || res.Covered != depth || res.Stopped || res.Violated {
				t.Fatalf("%s, %d workers: %d fallbacks, covered %d, stopped %v, violated %v", name, workers, res.Fallbacks, res.Covered, res.Stopped, res.Violated)
			}
			parV, _, err := s.explore(f, depth, DPOR, true, workers, jitter(seed+1))
			if err != nil {
				t.Fatalf("%s, %d workers: %v", name, workers, err)
			}
			if parV.Violated != seqV.Violated {
				t.Fatalf("%s, %d workers: violated sequentially %v, in parallel %v", name, workers, seqV.Violated, parV.Violated)
			}
			if parV.Violated && len(parV.Path) > depth {
				t.Fatalf("%s, %d workers: violating path %v beyond the bound", name, workers, parV.Path)
			}
			compared++
			states += res.States
		}
	}
	t.Logf("%d parallel searches compared, %d states", compared, states)
}
