package sched

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"testing"
)

// chain is a stand-in for a seeded run, driven by a lineage as the
// runner drives the scheduler: one random stream of the lineage's seed,
// reseeded at each fork (once its step's actions are applied). Each of
// its steps draws a link, kept with probability 1/8; the abstract state
// is how many links were kept in a row from the start (and whether the
// chain broke). It is violated once the first depth links are all kept:
// 8^-depth for a plain seeded run.
func chain(g *SeededGuide, l Lineage, steps, depth int) bool {
	r := rand.New(rand.NewPCG(l.Seed, 0))
	kept, broken, fork := 0, false, 0
	for step := 0; step < steps; step++ {
		for fork < len(l.Forks) && l.Forks[fork].Step <= step {
			if l.Forks[fork].Step == step {
				r = rand.New(rand.NewPCG(l.Forks[fork].Seed, 0))
			}
			fork++
		}
		if r.IntN(8) == 0 && !broken {
			kept++
		} else {
			broken = true
		}
		g.Visit(step+1, sha256.Sum256(fmt.Appendf(nil, "%d %v", kept, broken)))
		if kept == depth {
			return true
		}
	}
	return false
}

// searchChain runs the guide on chain until a violation or runs
// executions; it returns the executions run (runs+1: none found) and
// every lineage, in order.
func searchChain(seed uint64, plain bool, runs int) (int, []string) {
	g := NewSeededGuide(seed)
	g.Plain = plain
	var log []string
	for i := 1; i <= runs; i++ {
		l := g.Next()
		log = append(log, fmt.Sprint(l))
		bad := chain(g, l, 20, 6)
		g.Done()
		if bad {
			return i, log
		}
	}
	return runs + 1, log
}

// TestSeededGuideDeterministic: the executions are a function of the
// seed (the same lineages in the same order, the same outcome, twice);
// another seed draws others; the first execution is the seeded run of the
// seed itself; every fork of an execution lies after the one before.
func TestSeededGuideDeterministic(t *testing.T) {
	n1, a := searchChain(1, false, 300)
	n2, b := searchChain(1, false, 300)
	_, c := searchChain(2, false, 300)
	if n1 != n2 || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("seed 1 twice: %d and %d executions, lineages equal: %v", n1, n2, fmt.Sprint(a) == fmt.Sprint(b))
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("seeds 1 and 2 made the same executions")
	}
	if a[0] != fmt.Sprint(Lineage{Seed: 1}) {
		t.Errorf("the first execution is %s, want the seeded run of seed 1", a[0])
	}
	g := NewSeededGuide(7)
	forked := 0
	for range 200 {
		l := g.Next()
		for i := 1; i < len(l.Forks); i++ {
			if l.Forks[i].Step <= l.Forks[i-1].Step {
				t.Fatalf("forks out of order: %+v", l)
			}
		}
		if len(l.Forks) > 0 {
			forked++
		}
		chain(g, l, 20, 99)
		g.Done()
	}
	if forked == 0 || g.Corpus() == 0 || g.Abstract() == 0 {
		t.Errorf("200 executions: %d forked, corpus %d, %d abstract states", forked, g.Corpus(), g.Abstract())
	}
}

// TestSeededGuideFinds: guidance finds the chain's violation (8^-6 per
// plain seeded run) in far fewer executions than plain seeded runs, on
// each of several seeds; plain seeded runs find none in the same budget.
func TestSeededGuideFinds(t *testing.T) {
	const budget = 3000
	for seed := uint64(1); seed <= 5; seed++ {
		guided, _ := searchChain(seed, false, budget)
		plain, _ := searchChain(seed, true, budget)
		t.Logf("seed %d: guided %d executions, plain %d", seed, guided, plain)
		if guided > budget || plain <= budget {
			t.Errorf("seed %d: guided found the violation after %d executions, plain seeded runs after %d (budget %d)", seed, guided, plain, budget)
		}
	}
}
