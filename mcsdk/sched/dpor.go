package sched

import (
	"slices"
	"sync"
)

// Reduction selects the explorer's partial-order reduction.
type Reduction string

// Reductions.
const (
	// DPOR is source-set dynamic partial-order reduction with sleep sets
	// (Abdulla, Aronis, Jonsson, Sagonas, "Optimal dynamic partial order
	// reduction", POPL 2014, Algorithm 1, "source-DPOR"), made sound for
	// invariants checked at every state, for the depth bound and for the
	// state cache as Explorer's doc comment argues. The default.
	DPOR Reduction = "dpor"
	// NoReduction explores every enabled action at every state.
	NoReduction Reduction = "none"
)

// Resources of a footprint beyond the nodes.
const (
	resVisible = 1 << iota // changed what the invariants read
	resAlloc               // names every node shares (sockets, channels, ports)
	resRandom              // the world's one random stream
	resFault               // the crash budget and the crash preconditions
)

// footprint is what an event touched: two events are dependent when
// their footprints share a resource, or either is global.
type footprint struct {
	global  bool
	res     int   // resVisible | resAlloc | ...
	nodes   []int // nodes it ran or changed
	senders []int // a delivery's sender; a crash's or restart's node
}

func (f footprint) dependent(g footprint) bool {
	if f.global || g.global || f.res&g.res != 0 {
		return true
	}
	return intersects(f.nodes, g.nodes) || intersects(f.senders, g.senders)
}

func intersects(a, b []int) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// static is a's footprint as far as it is known before a is applied at
// w: its own node, from its kind and endpoints. Deliveries nobody
// receives, timers that move the clock and every action whose reach the
// kind does not bound (partitions, heals, drops, duplicates, expiries,
// notices) are global.
func static(w World, a Action) footprint {
	switch a.Kind {
	case Deliver, Client:
		from, to := w.Endpoints(a)
		if to < 0 {
			return footprint{global: true}
		}
		f := footprint{nodes: []int{to}}
		if from >= 0 {
			f.senders = []int{from}
		}
		return f
	case Timer, Run:
		return footprint{nodes: []int{a.Node}}
	case Crash, Restart:
		// A crash closes the node's sockets (deliveries from it), spends
		// the budget other crashes share, and shows in the observation.
		return footprint{nodes: []int{a.Node}, senders: []int{a.Node}, res: resFault | resVisible}
	}
	return footprint{global: true}
}

// withTouched adds what the world saw a's application reach.
func (f footprint) withTouched(t Touched) footprint {
	f.global = f.global || t.Global || t.Clock
	for _, n := range t.Nodes {
		if !slices.Contains(f.nodes, n) {
			f.nodes = append(f.nodes, n)
		}
	}
	if t.Alloc {
		f.res |= resAlloc
	}
	if t.Random {
		f.res |= resRandom
	}
	return f
}

// bits is a set of event positions.
type bits []uint64

func (b bits) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

func (b *bits) add(i int) {
	for len(*b) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

func (b *bits) union(c bits) {
	for len(*b) < len(c) {
		*b = append(*b, 0)
	}
	for k, w := range c {
		(*b)[k] |= w
	}
}

func (b bits) intersects(c bits) bool {
	for k := 0; k < len(b) && k < len(c); k++ {
		if b[k]&c[k] != 0 {
			return true
		}
	}
	return false
}

// event is one step of the current execution.
type event struct {
	a      Action
	fp     footprint
	origin int  // the step (1-based) that made a possible, 0 for none
	hb     bits // the earlier positions that happen before it
}

// sleeper is an action in a sleep set, with the footprint it had when it
// was explored.
type sleeper struct {
	a  Action
	fp footprint
}

// frame is the DPOR bookkeeping of one state on the current path. In a
// parallel search the frames are shared by the workers whose paths pass
// through the state, and read and written under parallel.mu (parallel.go).
type frame struct {
	acts     []Action
	back     []bool // in the backtrack set
	done     []bool // explored
	busy     []bool // being explored
	explored []sleeper
	// The state: its depth, path, observation, hash and sleep set.
	depth int
	path  []Action
	ob    Observation
	h     [32]byte
	sleep []sleeper
	// Parallel search only: the frame of the state before, the events of
	// path, how many workers have the state on their path, and how many
	// actions taken there have not posted their footprint yet.
	parent   *frame
	events   []event
	on       int
	inflight int
}

// cached is one expansion of a state: with how much depth left and which
// sleep set. A later visit is covered by it when it has no more depth
// left and a sleep set that contains this one (a smaller sleep set asks
// for more, so covering needs the stored one to be a subset).
type cached struct {
	left  int
	sleep []Action
}

func (c cached) covers(left int, sleep []sleeper) bool {
	if c.left < left {
		return false
	}
	for _, a := range c.sleep {
		if !asleep(sleep, a) {
			return false
		}
	}
	return true
}

func asleep(sleep []sleeper, a Action) bool {
	for _, s := range sleep {
		if s.a == a {
			return true
		}
	}
	return false
}

func actionsOf(sleep []sleeper) []Action {
	out := make([]Action, len(sleep))
	for i, s := range sleep {
		out[i] = s.a
	}
	return out
}

// cache is the state cache: for each state hash, its expansions. It is
// shared by the workers of a parallel search.
type cache struct {
	mu     sync.Mutex
	m      map[[32]byte][]cached
	states int
}

func newCache() *cache { return &cache{m: map[[32]byte][]cached{}} }

// enter looks h up with left depth and sleep set: covered if an earlier
// expansion covers this visit; otherwise this expansion is recorded
// (dropping those it covers), and fresh says the state is new.
//
// When an earlier expansion had at least as much depth left but a sleep
// set with actions now awake, only those (missing) need exploring: the
// traces from the state that avoid the current sleep set either avoid
// the earlier one too (explored then) or begin with one of them (Godefroid,
// "Partial-Order Methods for the Verification of Concurrent Systems",
// 1996, ch. 5, sleep sets with state caching). missing is the smallest
// such set over the entries (nil if none qualifies).
func (c *cache) enter(h [32]byte, left int, sleep []sleeper) (covered, fresh bool, missing []Action) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.m[h]
	for _, o := range old {
		if o.covers(left, sleep) {
			return true, false, nil
		}
	}
	for _, o := range old {
		if o.left < left {
			continue
		}
		var m []Action
		for _, a := range o.sleep {
			if !asleep(sleep, a) {
				m = append(m, a)
			}
		}
		if missing == nil || len(m) < len(missing) {
			missing = m
		}
	}
	e := cached{left: left, sleep: actionsOf(sleep)}
	kept := old[:0]
	for _, o := range old {
		if !(o.left <= left && subset(e.sleep, o.sleep)) {
			kept = append(kept, o)
		}
	}
	c.m[h] = append(kept, e)
	if !ok {
		c.states++
	}
	return false, !ok, missing
}

func subset(a, b []Action) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// push appends the event just executed to the current execution, computes
// what happens before it and reverses its races: for every earlier event
// e it is in a race with (dependent, not its origin, nothing between them
// ordered after e and before it), an initial of notdep(e).it is added to
// the backtrack set of the state before e, unless one is there already
// (source-DPOR's rule).
func (s *search) push(ev event) {
	n := len(s.events)
	var direct []int
	for i := range s.events {
		if s.events[i].fp.dependent(ev.fp) {
			direct = append(direct, i)
		}
	}
	if ev.origin > 0 && ev.origin <= n {
		ev.hb.add(ev.origin - 1)
		ev.hb.union(s.events[ev.origin-1].hb)
	}
	for _, i := range direct {
		ev.hb.add(i)
		ev.hb.union(s.events[i].hb)
	}
	var indirect bits
	for k := 0; k < n; k++ {
		if ev.hb.has(k) {
			indirect.union(s.events[k].hb)
		}
	}
	s.events = append(s.events, ev)
	for _, i := range direct {
		if ev.origin == i+1 || indirect.has(i) {
			continue
		}
		s.reverse(i, n, ev.hb, ev.a)
	}
}

// reverse adds to the backtrack set of the state before event i an
// initial of v = notdep(i).a, where a (at position at, with happens-before
// set hb; at is one past the execution for a lookahead action) races
// with i.
func (s *search) reverse(i, at int, hb bits, a Action) {
	var v bits
	for k := i + 1; k < at && k < len(s.events); k++ {
		if !s.events[k].hb.has(i) {
			v.add(k)
		}
	}
	var initials []Action
	for k := i + 1; k < at && k < len(s.events); k++ {
		if v.has(k) && !s.events[k].hb.intersects(v) {
			initials = append(initials, s.events[k].a)
		}
	}
	if !hb.intersects(v) {
		initials = append(initials, a)
	}
	s.addBacktrack(i, initials)
}

// addBacktrack adds the first of initials (in the state's canonical
// order) to frame i's backtrack set unless one of them is there already.
// An initial the state does not offer (the world's origins or
// independence were wrong) makes the state fully expanded: safe.
func (s *search) addBacktrack(i int, initials []Action) {
	s.lock()
	defer s.unlock()
	f := s.frames[i]
	best := -1
	for _, a := range initials {
		k := slices.Index(f.acts, a)
		if k < 0 {
			s.res.Fallbacks++
			for k := range f.back {
				f.back[k] = true
			}
			s.wake()
			return
		}
		if f.back[k] || f.done[k] {
			return
		}
		if best < 0 || k < best {
			best = k
		}
	}
	if best >= 0 {
		f.back[best] = true
		s.wake()
	}
}

// lookahead handles a frontier of the search (the depth bound, or a state
// already explored from another path): every action q enabled there and
// not asleep may lead, within the bound or in the cached subtree, to
// events that race with the current path. q is taken as dependent with
// every event (the bound disables it; what follows it in the cached
// subtree is unknown), so it races with each event that nothing later
// happens after, unless that event made q possible.
func (s *search) lookahead(w World, path []Action, acts []Action, sleep []sleeper) {
	n := len(s.events)
	var later bits
	for k := 0; k < n; k++ {
		later.union(s.events[k].hb)
	}
	for _, q := range acts {
		if asleep(sleep, q) {
			continue
		}
		origin := s.origin(w, len(path), acts, q)
		var hb bits
		for k := 0; k < n; k++ {
			hb.add(k)
		}
		for i := 0; i < n; i++ {
			if later.has(i) || origin == i+1 {
				continue
			}
			s.reverse(i, n, hb, q)
		}
	}
}

// origin is the step that made a possible, as a lower bound: a is
// enabled at every state from the one after that step to the current one
// (at depth d, with acts enabled there); for a delivery, not before the
// step that sent its message either (the world's Origin). Reversing a
// race with an event at or after the origin would need a before it was
// possible; before it, the reversal is planned and, if a lower bound was
// too low, the state simply expands fully.
func (s *search) origin(w World, d int, acts []Action, a Action) int {
	o := 0
	if slices.Contains(acts, a) {
		o = d
		for o > 0 && o-1 < len(s.frames) && slices.Contains(s.frames[o-1].acts, a) {
			o--
		}
	}
	if a.Kind == Deliver {
		o = max(o, w.Origin(a))
	}
	return o
}

// conflicts adds to the backtrack set of the parent state (the one before
// the last action p of path) the actions p disabled there (enabled in the
// parent, not in acts, the child's) and, with p a delivery, the other
// deliveries on p's channel (in a bag their indices shift, so they are
// not recognisable after p). An action that p disabled is dependent with
// p but is never executed after it, so no race would bring it back.
func (s *search) conflicts(path []Action, acts []Action) {
	d := len(path) - 1
	if d < 0 || d >= len(s.frames) {
		return
	}
	f, p := s.frames[d], path[d]
	s.lock()
	defer s.unlock()
	for k, q := range f.acts {
		if q == p || f.back[k] {
			continue
		}
		if !slices.Contains(acts, q) || (p.Kind == Deliver && q.Kind == Deliver && q.Chan == p.Chan) {
			f.back[k] = true
			s.wake()
		}
	}
}
