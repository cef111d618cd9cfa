package sched

import (
	"math"
	"math/rand/v2"
)

// Fork is where an execution of the seeded guided strategy changes its
// draws: once Step actions are applied, before the scheduler draws the
// next event, it is reseeded with Seed (Seeded.Reseed).
type Fork struct {
	Step int
	Seed uint64
}

// Lineage is one execution of the seeded guided strategy: the seeded run
// of Seed (as weft run --seed Seed draws it: faults, partitions, clocks,
// the nodes' seed) whose later draws change at each fork, in step order.
// A lineage without forks is exactly that seeded run.
type Lineage struct {
	Seed  uint64
	Forks []Fork
}

// At is the seed to reseed with once step actions are applied, if any.
func (l Lineage) At(step int) (uint64, bool) {
	for _, f := range l.Forks {
		if f.Step == step {
			return f.Seed, true
		}
	}
	return 0, false
}

// SeededGuide is the guided strategy over seeded runs, in which the
// model's timing distributions ([network], [faults], timers) draw every
// event, so that elections and faults come at the moments a real run
// would have them, rather than among all enabled actions uniformly (the
// Explorer's guide). Its memory is a coverage map of abstract states (the
// same abstraction as the Explorer's: what the invariants read, the
// nodes' liveness, the network's shape) and a corpus of executions that
// reached abstract states no execution had reached before.
//
// Each execution (Next) is, a quarter of the time or while the corpus is
// empty, a fresh seeded run of a seed drawn from the stream; else it
// picks a corpus entry (weight log(2+new states it found)/(1+picks)),
// cuts it at its last new abstract state, or half the time at a point
// drawn uniformly between its start and that state, and replays the entry up to the cut (the same seed and forks:
// the same draws) before continuing with a fresh seed drawn from the
// stream. Everything is drawn from one stream of the guide's seed, so
// the executions are a function of the model and the seed; the first is
// the seeded run of the seed itself.
//
// A heuristic: it claims no coverage.
type SeededGuide struct {
	// Plain turns the guidance off: every execution after the first is
	// a fresh seeded run (the baseline guidance is measured against).
	Plain  bool
	seed   uint64
	r      *rand.Rand
	n      int
	cov    map[[32]byte]bool
	corpus []*seededEntry
	cur    seededEntry
}

// seededEntry is a corpus entry: an execution, the number of actions up
// to the last new abstract state it reached and how many it reached.
type seededEntry struct {
	l     Lineage
	last  int
	news  int
	picks int
}

// NewSeededGuide starts a guide drawing from seed.
func NewSeededGuide(seed uint64) *SeededGuide {
	return &SeededGuide{seed: seed, r: rand.New(rand.NewPCG(seed, 0x677569646564)), cov: map[[32]byte]bool{}} // "guided"
}

// Next draws the next execution.
func (g *SeededGuide) Next() Lineage {
	g.n++
	var l Lineage
	switch {
	case g.n == 1:
		l = Lineage{Seed: g.seed}
	case g.Plain || len(g.corpus) == 0 || g.r.IntN(4) == 0:
		l = Lineage{Seed: g.r.Uint64()}
	default:
		e := g.choose()
		e.picks++
		cut := e.last // continue from its last new abstract state
		if g.r.IntN(2) == 0 {
			cut = g.r.IntN(e.last + 1)
		}
		l.Seed = e.l.Seed
		for _, f := range e.l.Forks {
			if f.Step < cut {
				l.Forks = append(l.Forks, f)
			}
		}
		l.Forks = append(l.Forks, Fork{Step: cut, Seed: g.r.Uint64()})
	}
	g.cur = seededEntry{l: l, last: -1}
	return l
}

// choose draws a corpus entry: weight log(2+news)/(1+picks).
func (g *SeededGuide) choose() *seededEntry {
	weight := func(e *seededEntry) float64 { return math.Log(2+float64(e.news)) / float64(1+e.picks) }
	total := 0.0
	for _, e := range g.corpus {
		total += weight(e)
	}
	at := g.r.Float64() * total
	for _, e := range g.corpus {
		if at -= weight(e); at < 0 {
			return e
		}
	}
	return g.corpus[len(g.corpus)-1]
}

// Visit records that the current execution reached the abstract state
// key once step actions were applied, and reports whether it was new.
func (g *SeededGuide) Visit(step int, key [32]byte) bool {
	if g.cov[key] {
		return false
	}
	g.cov[key] = true
	g.cur.last, g.cur.news = step, g.cur.news+1
	return true
}

// Done ends the current execution: when it reached a new abstract state
// (after its first action), it joins the corpus.
func (g *SeededGuide) Done() {
	if g.cur.last > 0 && !g.Plain {
		e := g.cur
		g.corpus = append(g.corpus, &e)
	}
}

// Abstract is the number of abstract states reached.
func (g *SeededGuide) Abstract() int { return len(g.cov) }

// Corpus is the number of executions kept.
func (g *SeededGuide) Corpus() int { return len(g.corpus) }
