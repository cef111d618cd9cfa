package sched

import (
	"math"
	"math/rand/v2"
	"slices"
)

// guide is the Explorer's guided strategy (Explorer.Strategy Guided,
// over any World, choosing among the enabled actions; weft check's
// guided strategy runs seeded runs instead: SeededGuide). Its memory is
// a coverage map of abstract
// states (Explorer.abstract: what the invariants read, the network's
// shape, the faults' phase; Observation.Abstract), the actions already
// tried from each, and a corpus of prefixes that reached abstract states
// no execution had reached before (in the manner of the coverage-guided
// searches of SandTable, FlyMC and Mallory: keep what was new, start
// from it again).
//
// Each execution picks a prefix from the corpus (entries picked less
// often weigh more: weight 1/(1+picks)), keeps it whole half the time
// (extend) or cuts it at a point drawn uniformly (mutate), replays it and
// extends it to the bound, choosing at each state uniformly among the
// actions not yet tried from its abstract state, or among all when every
// one was. The prefix up to the last new abstract state of the execution
// joins the corpus. Everything is drawn from one stream of Seed, so the
// executions are a function of the model and the seed.
//
// A heuristic: it claims no coverage. The abstraction merges states that
// differ in memory the invariants do not read, so an action tried from
// one may never be tried from the other; exhaustive search stays DFS or
// BFS.
type guide struct {
	r      *rand.Rand
	cov    map[[32]byte]bool
	tried  map[[32]byte]map[Action]bool
	corpus []*prefix
}

// prefix is a corpus entry: a path and the observation of every state
// along it (index 0: the initial state), so that a cut needs no
// observation again.
type prefix struct {
	path  []Action
	obs   []Observation
	picks int
}

// choose draws the corpus entry to start from: weight 1/(1+picks).
func (g *guide) choose() *prefix {
	total := 0.0
	for _, e := range g.corpus {
		total += 1 / float64(1+e.picks)
	}
	at := g.r.Float64() * total
	for _, e := range g.corpus {
		if at -= 1 / float64(1+e.picks); at < 0 {
			return e
		}
	}
	return g.corpus[len(g.corpus)-1]
}

// pick chooses among acts from the abstract state key: uniformly among
// the actions not yet tried from it, else among all.
func (g *guide) pick(key [32]byte, acts []Action) int {
	tried := g.tried[key]
	if tried == nil {
		tried = map[Action]bool{}
		g.tried[key] = tried
	}
	var fresh []int
	for i, a := range acts {
		if !tried[a] {
			fresh = append(fresh, i)
		}
	}
	i := g.r.IntN(len(acts))
	if len(fresh) > 0 {
		i = fresh[g.r.IntN(len(fresh))]
	}
	tried[acts[i]] = true
	return i
}

// runGuided is Run with Strategy Guided: executions 1, 2, ... (up to
// Runs, or until Stop), each from a corpus prefix (see guide).
func (x *Explorer) runGuided() (Result, error) {
	k := newWalk(x)
	g := &guide{r: rand.New(rand.NewPCG(x.Seed, 0x677569646564)), cov: map[[32]byte]bool{}, tried: map[[32]byte]map[Action]bool{}} // "guided"
	w, err := x.Start()
	if err != nil {
		return k.res, err
	}
	ob, bad, _, err := k.look(w, nil, nil)
	w.Close()
	if err != nil || bad {
		if bad {
			k.violated(nil)
		}
		return k.finish(err)
	}
	g.cov[x.abstract(nil, ob)] = true
	g.corpus = []*prefix{{obs: []Observation{ob}}}
	k.res.Abstract, k.res.Corpus = 1, 1
	for i := 1; x.Runs <= 0 || i <= x.Runs; i++ {
		if err := x.guided(k, g); err != nil {
			return k.finish(err)
		}
	}
	return k.res, nil
}

// guided runs one execution of the guided strategy.
func (x *Explorer) guided(k *walk, g *guide) error {
	e := g.choose()
	e.picks++
	cut := len(e.path)
	if g.r.IntN(2) == 0 {
		cut = g.r.IntN(len(e.path) + 1)
	}
	w, err := k.replay(e.path[:cut])
	if err != nil {
		return err
	}
	path := slices.Clone(e.path[:cut])
	obs := slices.Clone(e.obs[:cut+1])
	key := x.abstract(path, obs[cut])
	last := -1 // the length of the path to the last new abstract state
	pick := func(acts []Action, _ int) int { return g.pick(key, acts) }
	step := func(p []Action, ob Observation) {
		obs = append(obs, ob)
		key = x.abstract(p, ob)
		if !g.cov[key] {
			g.cov[key] = true
			last = len(p)
		}
	}
	err = k.extend(w, path, obs[cut], pick, func(p []Action, ob Observation) { path = p; step(p, ob) })
	k.res.Abstract = len(g.cov)
	if err == nil && last > 0 {
		g.corpus = append(g.corpus, &prefix{path: slices.Clone(path[:last]), obs: obs[:last+1]})
		k.res.Corpus = len(g.corpus)
	}
	return err
}

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
