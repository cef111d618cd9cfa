package sched

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
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
// A lineage without forks is exactly that seeded run. Faults, when not
// nil, replaces the seed's fault schedule (as shrinking's given one
// does, Plan.Given): a corpus entry's with one fault moved or two
// swapped (Mallory-style fault-schedule mutation). The streams stay
// those of the seed, so the run is the entry's up to the first fault
// that changed.
type Lineage struct {
	Seed   uint64
	Forks  []Fork
	Faults []FaultEvent
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
// caller's abstraction: mcsdk's is the model's [state] values, the nodes'
// liveness and which faults have happened) and a corpus of executions
// that reached abstract states no execution had reached before, with the
// times they reached them and the fault schedule they ran.
//
// Each execution (Next) is, half the time or while the corpus is
// empty, a fresh seeded run of a seed drawn from the stream; else it
// picks a corpus entry (weight (log(2+new states it found)+new states
// found by the executions derived from it)/(1+picks): AFL-style energy)
// and, half the time when the entry has faults, runs it again with its
// fault schedule mutated (mutateFaults: mostly a crash moved to just
// after a moment the entry reached a new abstract state); else it cuts
// the entry at its last new abstract state, or half the time at a point
// drawn uniformly between its start and that state, and replays the
// entry up to the cut (the same seed, forks and faults: the same draws)
// before continuing with a fresh seed drawn from the stream. Everything
// is drawn from one stream of the guide's seed, so the executions are a
// function of the model and the seed; the first is the seeded run of
// the seed itself.
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
	from   int64 // the fault window [from, until] µs (SetFaultWindow)
	until  int64
}

// seededEntry is a corpus entry: an execution, the number of actions up
// to the last new abstract state it reached and how many it reached, the
// fault schedule it used (Schedule), how often it was picked and how
// many new abstract states the executions derived from it found (its
// energy, AFL-style: an entry whose children find new states is picked
// more, one whose children find none less and less). parent is the
// entry the execution was derived from (nil: a fresh seeded run).
type seededEntry struct {
	l      Lineage
	last   int
	news   int
	picks  int
	found  int
	faults []FaultEvent
	parent *seededEntry
	times  []int64 // when it reached its new abstract states, µs (up to maxTimes)
	// changed is, by node, when the node's state changed, µs (up to
	// maxTimes each; Changed).
	changed map[int][]int64
}

// maxTimes bounds the times an entry keeps of its new abstract states.
const maxTimes = 256

// NewSeededGuide starts a guide drawing from seed.
func NewSeededGuide(seed uint64) *SeededGuide {
	return &SeededGuide{seed: seed, r: rand.New(rand.NewPCG(seed, 0x677569646564)), cov: map[[32]byte]bool{}} // "guided"
}

// Next draws the next execution.
func (g *SeededGuide) Next() Lineage {
	g.n++
	var l Lineage
	var parent *seededEntry
	switch {
	case g.n == 1:
		l = Lineage{Seed: g.seed}
	case g.Plain || len(g.corpus) == 0 || g.r.IntN(2) == 0:
		l = Lineage{Seed: g.r.Uint64()}
	default:
		e := g.choose()
		e.picks++
		parent = e
		if len(e.faults) > 0 && g.r.IntN(2) == 0 {
			l = Lineage{Seed: e.l.Seed, Forks: e.l.Forks, Faults: g.mutateFaults(e.faults, e.times, e.changed)}
			break
		}
		cut := e.last // continue from its last new abstract state
		if g.r.IntN(2) == 0 {
			cut = g.r.IntN(e.last + 1)
		}
		l.Seed, l.Faults = e.l.Seed, e.l.Faults
		for _, f := range e.l.Forks {
			if f.Step < cut {
				l.Forks = append(l.Forks, f)
			}
		}
		l.Forks = append(l.Forks, Fork{Step: cut, Seed: g.r.Uint64()})
	}
	g.cur = seededEntry{l: l, last: -1, parent: parent}
	return l
}

// mutateFaults returns a copy of a fault schedule with one change drawn
// from the stream: half the time, a crash moved to just after (within a
// 64th of the fault window) a moment at which the crashing node's state
// changed (changed; say it promised a ballot it had not yet made
// durable), or, if it never changed in the window, at which the run
// reached a new abstract state (times); else, in equal parts, a crash moved to a
// time drawn uniformly in the fault window, a restart's delay redrawn
// uniformly in (0, twice it], or, when two nodes crash, the two crashes'
// times swapped. A crash's restart moves with it (the restart delay
// kept). Notices are not in a schedule: they follow the crashes.
func (g *SeededGuide) mutateFaults(in []FaultEvent, times []int64, changed map[int][]int64) []FaultEvent {
	f := slices.Clone(in)
	var crashes []int
	for i, e := range f {
		if e.Kind == Crash {
			crashes = append(crashes, i)
		}
	}
	if len(crashes) == 0 {
		return f
	}
	restartOf := func(i int) int { // the restart after crash i, or -1
		for j := i + 1; j < len(f); j++ {
			if f[j].Node == f[i].Node && f[j].Kind == Restart {
				return j
			}
		}
		return -1
	}
	shift := func(i int, at int64) {
		d := at - f[i].AtUS
		if j := restartOf(i); j >= 0 {
			f[j].AtUS += d
		}
		f[i].AtUS = at
	}
	inWindow := func(ts []int64) []int64 {
		var in []int64
		for _, t := range ts {
			if t >= g.from && t <= g.until {
				in = append(in, t)
			}
		}
		return in
	}
	i := crashes[g.r.IntN(len(crashes))]
	moments := inWindow(changed[f[i].Node])
	if len(moments) == 0 {
		moments = inWindow(times)
	}
	op := g.r.IntN(6)
	if op >= 3 && len(moments) == 0 {
		op = 2
	}
	switch {
	case op >= 3:
		at := moments[g.r.IntN(len(moments))] + g.r.Int64N(max((g.until-g.from)/64, 1)+1)
		shift(i, min(at, g.until))
	case op == 0 && len(crashes) >= 2:
		a := crashes[g.r.IntN(len(crashes))]
		b := crashes[g.r.IntN(len(crashes)-1)]
		if b == a {
			b = crashes[len(crashes)-1]
		}
		ta, tb := f[a].AtUS, f[b].AtUS
		shift(a, tb)
		shift(b, ta)
	case op == 1 && restartOf(i) >= 0:
		if j := restartOf(i); j >= 0 {
			d := f[j].AtUS - f[i].AtUS
			f[j].AtUS = f[i].AtUS + 1 + g.r.Int64N(max(2*d, 1))
		}
	default:
		at := g.from
		if g.until > g.from {
			at += g.r.Int64N(g.until - g.from + 1)
		}
		shift(i, at)
	}
	sort.SliceStable(f, func(i, j int) bool { return f[i].AtUS < f[j].AtUS })
	return f
}

// SetFaultWindow tells the guide the model's fault window, [from, until]
// µs, within which mutations move crashes.
func (g *SeededGuide) SetFaultWindow(from, until int64) { g.from, g.until = from, until }

// Changed tells the guide that the current execution changed node's
// state at atUS (µs since the start): a moment to crash it just after.
func (g *SeededGuide) Changed(node int, atUS int64) {
	if g.cur.changed == nil {
		g.cur.changed = map[int][]int64{}
	}
	if len(g.cur.changed[node]) < maxTimes {
		g.cur.changed[node] = append(g.cur.changed[node], atUS)
	}
}

// Schedule tells the guide the fault schedule the current execution
// used (drawn from its seed or its lineage's), for later mutations.
func (g *SeededGuide) Schedule(f []FaultEvent) { g.cur.faults = slices.Clone(f) }

// choose draws a corpus entry: weight (log(2+news)+found)/(1+picks).
func (g *SeededGuide) choose() *seededEntry {
	weight := func(e *seededEntry) float64 {
		return (math.Log(2+float64(e.news)) + float64(e.found)) / float64(1+e.picks)
	}
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
// key once step actions were applied, at virtual time atUS (µs since the
// start), and reports whether it was new.
func (g *SeededGuide) Visit(step int, atUS int64, key [32]byte) bool {
	if g.cov[key] {
		return false
	}
	g.cov[key] = true
	g.cur.last, g.cur.news = step, g.cur.news+1
	if len(g.cur.times) < maxTimes {
		g.cur.times = append(g.cur.times, atUS)
	}
	return true
}

// Done ends the current execution: when it reached a new abstract state
// (after its first action), it joins the corpus.
func (g *SeededGuide) Done() {
	if g.cur.last > 0 && !g.Plain {
		e := g.cur
		g.corpus = append(g.corpus, &e)
		if e.parent != nil {
			e.parent.found += e.news
		}
	}
}

// Abstract is the number of abstract states reached.
func (g *SeededGuide) Abstract() int { return len(g.cov) }

// Corpus is the number of executions kept.
func (g *SeededGuide) Corpus() int { return len(g.corpus) }
