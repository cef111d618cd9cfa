package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestDrawSwarm: a configuration is a function of the stream (the same
// seed draws the same ones); over a model's kinds, every kind it has is
// left out by some draws and kept by others, the kinds it lacks are never
// left out, and no draw leaves out every kind; with fewer than two kinds
// every draw is the zero Swarm (the seeded run) and draws nothing from
// the stream.
func TestDrawSwarm(t *testing.T) {
	for _, k := range []FaultKinds{
		{},
		{Crashes: true},
		{Partitions: true},
		{Crashes: true, Partitions: true},
		{Crashes: true, Partitions: true, Clocks: true},
		{Crashes: true, Drops: true},
		{Crashes: true, Partitions: true, Drops: true, Clocks: true},
	} {
		t.Run(fmt.Sprintf("%+v", k), func(t *testing.T) {
			draw := func(seed uint64) ([]Swarm, uint64) {
				r := rand.New(rand.NewPCG(seed, 1))
				var out []Swarm
				for range 200 {
					out = append(out, DrawSwarm(r, k))
				}
				return out, r.Uint64()
			}
			a, next := draw(1)
			b, _ := draw(1)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("seed 1 twice drew different configurations")
			}
			if k.count() < 2 {
				if fresh := rand.New(rand.NewPCG(1, 1)).Uint64(); next != fresh {
					t.Errorf("with %d kinds DrawSwarm drew from the stream", k.count())
				}
				for _, s := range a {
					if !s.IsZero() {
						t.Fatalf("with %d kinds DrawSwarm drew %s, want the zero Swarm", k.count(), s)
					}
				}
				return
			}
			if c, _ := draw(2); fmt.Sprint(a) == fmt.Sprint(c) {
				t.Errorf("seeds 1 and 2 drew the same configurations")
			}
			out := map[string]int{}
			kept := map[string]int{}
			for _, s := range a {
				if s.noFaults(k) {
					t.Fatalf("%s leaves out every kind of %+v", s, k)
				}
				for _, c := range []struct {
					name     string
					has, off bool
				}{{"crashes", k.Crashes, s.NoCrashes}, {"partitions", k.Partitions, s.NoPartitions}, {"drops", k.Drops, s.NoDrops}, {"clocks", k.Clocks, s.NoClocks}} {
					if c.off && !c.has {
						t.Fatalf("%s leaves out %s, which %+v does not have", s, c.name, k)
					}
					if !c.has {
						continue
					}
					if c.off {
						out[c.name]++
					} else {
						kept[c.name]++
					}
				}
			}
			if len(out) != k.count() || len(kept) != k.count() {
				t.Errorf("over 200 draws, kinds left out %v, kept %v; want each of the %d kinds in both", out, kept, k.count())
			}
		})
	}
}

// TestSeededGuideSwarm: a guide over a model with one kind of fault
// makes the executions it makes without SetFaultKinds (every one the
// seed's configuration); with two kinds or more, fresh executions draw
// configurations (the first execution is still the plain seeded run of
// the seed), executions derived from a corpus entry redraw it (the same
// seed, forks and faults, another configuration) or keep it, and the
// lineages are a function of the seed.
func TestSeededGuideSwarm(t *testing.T) {
	search := func(k *FaultKinds, seed uint64) []Lineage {
		g := NewSeededGuide(seed)
		if k != nil {
			g.SetFaultKinds(*k)
		}
		var out []Lineage
		for range 300 {
			l := g.Next()
			out = append(out, l)
			chain(g, l, 20, 99)
			g.Done()
		}
		return out
	}
	none, one := search(nil, 3), search(&FaultKinds{Crashes: true}, 3)
	if fmt.Sprint(none) != fmt.Sprint(one) {
		t.Errorf("with one kind of fault, the guide made other executions than without kinds")
	}
	k := FaultKinds{Crashes: true, Partitions: true, Clocks: true}
	a, b := search(&k, 3), search(&k, 3)
	if fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
		t.Fatalf("seed 3 twice made different executions")
	}
	if !a[0].Swarm.IsZero() || a[0].Seed != 3 || a[0].Forks != nil {
		t.Errorf("the first execution is %+v, want the seeded run of seed 3", a[0])
	}
	byConfig := map[Swarm]int{}
	redrawn := 0
	for i, l := range a {
		byConfig[l.Swarm]++
		if i == 0 || len(l.Forks) > 0 || l.Faults != nil {
			continue
		}
		for _, e := range a[:i] { // a swarm mutation: an earlier execution's seed, another configuration
			if e.Seed == l.Seed && e.Forks == nil && e.Swarm != l.Swarm {
				redrawn++
				break
			}
		}
	}
	// crashes, partitions and clocks: seven configurations (the zero one too)
	if len(byConfig) != 7 || redrawn == 0 {
		t.Errorf("300 executions: configurations %v, %d redrawn for a corpus entry", byConfig, redrawn)
	}
	t.Logf("300 executions: configurations %v, %d redrawn for a corpus entry", byConfig, redrawn)
}
