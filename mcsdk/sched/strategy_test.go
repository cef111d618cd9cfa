package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// TestBFSMatchesDFS checks the breadth-first search on random
// message-passing systems against the depth-first one without reduction
// (the same successor function): the same distinct states, the same
// observed states, the same executions cut by the bound being reported
// as such (none iff none), and, stopping at the invariant's violation,
// a violation exactly when a shortest one exists, of that length.
func TestBFSMatchesDFS(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 3))
	for k := 0; k < 200; k++ {
		s, f := randomSystem(r)
		depth := 1 + r.IntN(6)
		name := fmt.Sprintf("system %d (seed %d, faults %+v, depth %d)", k, s.seed, f, depth)
		a, oa, err := s.explore(f, depth, NoReduction, false, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, ob, err := s.explore(f, depth, NoReduction, false, 1, func(x *Explorer) { x.Strategy = BFS })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if a.States != b.States || !slices.Equal(oa, ob) || (a.Truncated == 0) != (b.Truncated == 0) {
			t.Fatalf("%s: dfs %d states %v truncated %d, bfs %d states %v truncated %d", name, a.States, oa, a.Truncated, b.States, ob, b.Truncated)
		}
		if b.Covered != depth || b.Stopped {
			t.Fatalf("%s: bfs covered %d of %d (stopped %v)", name, b.Covered, depth, b.Stopped)
		}
		want, err := s.shortest(f, depth, NoReduction, 1)
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := s.explore(f, depth, NoReduction, true, 1, func(x *Explorer) { x.Strategy = BFS })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := -1
		if c.Violated {
			got = len(c.Path)
		}
		if got != want {
			t.Fatalf("%s: bfs's first violation after %d actions, shortest %d", name, got, want)
		}
	}
}

// TestBFSStopCovers checks that a breadth-first search stopped early
// says which depth it fully covered: every state within it.
func TestBFSStopCovers(t *testing.T) {
	s := &msgSystem{seed: 7, nodes: 3, bag: true, timers: true, init: [][2]int{{0, 1}, {1, 2}, {2, 0}}, target: "zzz"}
	full, _, err := s.explore(Faults{}, 6, NoReduction, false, 1, func(x *Explorer) { x.Strategy = BFS })
	if err != nil {
		t.Fatal(err)
	}
	for _, stop := range []int{1, 5, full.States / 2, full.States - 1} {
		res, _, err := s.explore(Faults{}, 6, NoReduction, false, 1, func(x *Explorer) {
			x.Strategy = BFS
			asked := 0
			x.Stop = func() bool { asked++; return asked > stop }
		})
		if err != nil {
			t.Fatal(err)
		}
		within := 0
		for d := 0; d <= res.Covered; d++ {
			within += full.ByDepth[d]
		}
		if !res.Stopped || res.Covered < 0 || res.States < within {
			t.Errorf("stopped after %d: covered %d with %d states, but %d lie within it (stopped %v)", stop, res.Covered, res.States, within, res.Stopped)
		}
	}
}

// recorder wraps a system's worlds to record every action applied, world
// by world: the sequence of executions a strategy made.
func recorder(s *msgSystem, log *strings.Builder) func(*Explorer) {
	return func(x *Explorer) {
		var closes atomic.Int64
		x.Start = func() (World, error) {
			log.WriteString("\n")
			return &loggedWorld{msgWorld: s.start(&closes), log: log}, nil
		}
		observe, check := x.Observe, x.Check
		x.Observe = func(w World, parent any) (Observation, error) {
			return observe(w.(*loggedWorld).msgWorld, parent)
		}
		x.Check = func(w World, ob Observation, path []Action) (bool, error) {
			return check(w.(*loggedWorld).msgWorld, ob, path)
		}
	}
}

type loggedWorld struct {
	*msgWorld
	log *strings.Builder
}

func (w *loggedWorld) Apply(a Action) error {
	fmt.Fprintf(w.log, "%s; ", a)
	return w.msgWorld.Apply(a)
}

// TestRandomStrategiesDeterministic checks that PCT and the guided
// strategy are functions of the seed: the same seed makes the same
// executions (every action of every world, in order) and the same
// result; another seed other executions (where the system has several).
func TestRandomStrategiesDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 4))
	for k := 0; k < 30; k++ {
		s, f := randomSystem(r)
		for _, st := range []Strategy{PCT} {
			run := func(seed uint64) (Result, string) {
				var log strings.Builder
				res, _, err := s.explore(f, 8, NoReduction, true, 1, func(x *Explorer) {
					x.Strategy, x.Seed, x.Runs, x.PCTDepth = st, seed, 40, 2
				}, recorder(s, &log))
				if err != nil {
					t.Fatalf("system %d, %s: %v", k, st, err)
				}
				return res, log.String()
			}
			a, la := run(1)
			b, lb := run(1)
			_, lc := run(2)
			if la != lb || fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("system %d, %s: seed 1 twice differs:\n%+v\n%+v", k, st, a, b)
			}
			distinct := map[string]bool{}
			for _, e := range strings.Split(la, "\n") {
				distinct[e] = true
			}
			if la == lc && len(distinct) > 3 {
				t.Errorf("system %d, %s: seeds 1 and 2 made the same %d executions", k, st, a.Executions)
			}
		}
	}
}

// TestRandomStrategiesFind checks that PCT and the guided strategy find
// the violations the exhaustive search finds on random systems, within
// 300 executions, on nearly every system (they are random: a miss is
// possible, not likely), and that what they report is a violating path.
func TestRandomStrategiesFind(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 5))
	found := map[Strategy]int{}
	bugs := 0
	for k := 0; bugs < 40 && k < 1000; k++ {
		s, f := randomSystem(r)
		if n, err := s.shortest(f, 6, DPOR, 1); err != nil || n < 2 {
			continue // none, or too easy to tell anything
		}
		bugs++
		for _, st := range []Strategy{PCT} {
			res, _, err := s.explore(f, 6, NoReduction, true, 1, func(x *Explorer) {
				x.Strategy, x.Seed, x.Runs, x.PCTDepth = st, uint64(k), 300, 3
			})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Violated {
				continue
			}
			found[st]++
			var closes atomic.Int64
			w := s.start(&closes)
			for _, a := range res.Path {
				if err := w.Apply(a); err != nil {
					t.Fatalf("system %d, %s: its path does not replay: %v", k, st, err)
				}
			}
			if w.observed() != s.target {
				t.Fatalf("system %d, %s: its path reaches %s, not the violation %s", k, st, w.observed(), s.target)
			}
		}
	}
	t.Logf("%d systems with a violation: pct found %d", bugs, found[PCT])
	for _, st := range []Strategy{PCT} {
		if found[st] < bugs*3/4 {
			t.Errorf("%s found %d of %d violations", st, found[st], bugs)
		}
	}
}

// TestPCTChangePoints checks PCT's schedule: d-1 distinct change points
// within the k steps, and a chain lowered at one runs only when no chain
// of higher priority has an action.
func TestPCTChangePoints(t *testing.T) {
	for _, c := range []struct{ d, k int }{{1, 5}, {3, 10}, {4, 2}, {2, 1}} {
		p := newPCTRun(9, 1, c.d, c.k)
		if want := min(c.d-1, c.k); len(p.change) != want {
			t.Errorf("d %d k %d: %d change points, want %d", c.d, c.k, len(p.change), want)
		}
		for s, j := range p.change {
			if s < 1 || s > c.k || j < 1 || j >= c.d {
				t.Errorf("d %d k %d: change point %d at step %d", c.d, c.k, j, s)
			}
		}
	}
	p := newPCTRun(9, 1, 2, 3)
	p.change = map[int]int{2: 1}
	acts := []Action{{Kind: Deliver, Chan: 0}, {Kind: Deliver, Chan: 1}, {Kind: Timer, Node: 2}}
	first := acts[p.pick(acts, 1)]
	if again := acts[p.pick(acts, 3)]; again != first {
		t.Errorf("without a change point the same chain runs: %s then %s", first, again)
	}
	if lowered := acts[p.pick(acts, 2)]; lowered == first {
		t.Errorf("at the change point %s kept running", first)
	}
	if after := acts[p.pick(acts, 3)]; after == first {
		t.Errorf("the lowered chain %s ran while others were enabled", first)
	}
}

// TestParseStrategy checks the names.
func TestParseStrategy(t *testing.T) {
	for in, want := range map[string]string{"": "dfs", "dfs": "dfs", "bfs": "bfs", "pct": "pct", "guided": "guided", "random": "error", "DFS": "error"} {
		got, err := ParseStrategy(in)
		if err != nil {
			got = "error"
		}
		if string(got) != want {
			t.Errorf("ParseStrategy(%q) = %q, want %q", in, got, want)
		}
	}
	x := &Explorer{Strategy: "sideways"}
	if _, err := x.Run(); err == nil || !strings.Contains(err.Error(), "unknown strategy") {
		t.Errorf("Run with an unknown strategy: %v", err)
	}
}
