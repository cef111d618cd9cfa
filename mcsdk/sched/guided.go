package sched

import (
	"math/rand/v2"
	"slices"
)

// guide is the guided strategy's memory: a coverage map of abstract
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
