package sched

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Observation is what the caller makes of a quiescent state.
type Observation struct {
	// Extra is mixed into the state hash: the caller's abstraction (for
	// example the declared globals when memory is not hashed).
	Extra []byte
	// CrashAllowed, if set, says whether a crash of node is a legal fault
	// here (a fault precondition); nil allows every crash.
	CrashAllowed func(node int) bool
	// Data is handed to the children's Observe as their parent's.
	Data any
	// Visible is everything the invariants (and the crash preconditions)
	// read in this state, in a canonical encoding: an action after which
	// it differs is visible, and the reduction keeps the order of visible
	// actions. Nil means unknown: every action is then visible.
	Visible []byte
}

// Explorer is a depth-first search over every order of the enabled actions
// up to a depth bound, with stateless replay (a sibling branch starts a
// fresh world and replays the prefix) and a state cache.
//
// The cache keeps, for each state, the largest remaining depth with which
// it was expanded; a state met again with more depth left is expanded
// again. Without that, a state first met deep would hide what lies within
// the bound beyond its shallower occurrence: the search is complete up to
// Depth for the abstraction the hash implements.
//
// # Partial-order reduction
//
// By default (Reduction DPOR) the search explores one order of each class
// of equivalent orders: source-DPOR with sleep sets (Abdulla, Aronis,
// Jonsson, Sagonas, "Optimal dynamic partial order reduction", POPL 2014,
// Algorithm 1). Each state starts with one action in its backtrack set;
// when an executed event races with an earlier one (they are dependent,
// the earlier did not make the later possible, and nothing between them
// orders them), an initial of the reversed order is added to the
// backtrack set of the state before the earlier event; an explored action
// goes to sleep for its later siblings and their subtrees until a
// dependent event wakes it.
//
// Independence is decided from what the world observes, conservatively
// (dpor.go): an event's footprint is its own node (a delivery's receiver,
// a timer's or thread's node, a client request's server), every node the
// world saw it run or whose sockets it changed (World.Touched), a
// delivery's sender (a crash closes the sender's sockets), and shared
// resources: network names allocated, the one random stream, the crash
// budget and preconditions. Events sharing any of these are dependent;
// a delivery nobody receives, a timer that moves the clock, partitions,
// heals, drops, duplicates and expiries are dependent with everything.
// Happens-before adds each event's origin (World.Origin: the step that
// sent a delivery's message; for the rest, the step since which the
// action has been enabled without a break).
//
// Soundness for invariants checked at every state (Peled's visibility
// condition): an event after which Observation.Visible differs is
// visible, and visible events are dependent with each other. Equivalent
// executions then have the same visible events in the same order, and,
// an event's effect on the observed state being a function of its own
// node's history (the same in equivalent executions), every state of one
// has the observed state of some state of the other: the invariants see
// the same set of observed states. An action an event disables, and with
// a bag the other deliveries of its channel (whose indices it shifts),
// are added to the backtrack set where that event ran, since no later
// race could bring them back.
//
// The depth bound: equivalent executions have the same length, so the
// executions within the bound are closed under equivalence; but the bound
// itself disables what lies beyond it, hiding races with events that do
// not fit (an invisible a explored first at depth 1 leaves no room for a
// visible b). At a leaf at the bound, each enabled action not asleep is
// therefore taken as an event dependent with everything after the path,
// and its races reversed (lookahead): the search is complete for the
// observed states within the bound.
//
// The cache: a state met again is pruned only when an earlier expansion
// had at least as much depth left and a sleep set contained in the
// current one (a smaller sleep set asks for more), and the pruned subtree
// is treated as a frontier like the bound (its events are not on the
// current path, so their races with it are reversed by the same
// lookahead). Met with no more depth left but with actions awake that
// were asleep then, the state is expanded again with those actions only
// (Godefroid's sleep sets with state caching; the rest is covered, with
// the same lookahead). TestReductionPreservesStates checks on random systems that
// the observed states, the verdicts and the shortest violations are the
// same without reduction; TestExplore's testdata/explore/reduction.txt
// fails if visibility or either lookahead is dropped.
type Explorer struct {
	Start  func() (World, error) // a fresh world in the initial state
	Depth  int
	Faults Faults
	// Observe reads a state; parent is the Data of the state it was
	// reached from (nil at the root).
	Observe func(w World, parent any) (Observation, error)
	// Check evaluates the invariants in a state about to be expanded;
	// true stops the search with this state's path as the result.
	Check func(w World, ob Observation, path []Action) (bool, error)
	// Progress, if set, is called after every 64 new states.
	Progress func(Stats)
	// Stop, if set, is asked before each expansion; true ends the search
	// early with Result.Stopped (what was explored is then all it says).
	Stop func() bool
	// Reduction is the partial-order reduction; "" is DPOR.
	Reduction Reduction
	// VerifyReplays checks that every replayed prefix reaches the state
	// it first reached (one more hash per replay; ErrNondeterministic
	// otherwise). weft check turns it on (mcsdk/check.go).
	VerifyReplays bool
	// Workers, above 1, explores in parallel: the sequential search,
	// with the same reduction, whose pending branches idle workers take
	// (work stealing), each worker with its own worlds, all sharing the
	// state cache (parallel.go). Start, Observe and Check are then
	// called from several goroutines at once; Progress and Stop are not.
	Workers int
	// Checkpoints, above 0, is how many checkpoints may be alive at once
	// (per worker): a state whose later siblings may need it is copied
	// before its first child (worlds that implement Checkpointer), and
	// the siblings start from the copy instead of replaying the prefix
	// (checkpoint.go). States beyond the bound, and worlds that refuse,
	// are replayed. The search is the same either way.
	Checkpoints int
	// CheckpointMem, above 0, bounds the memory the live checkpoints
	// hold (per worker, in bytes, as they measure it: Measured); over it,
	// the deepest are closed first (checkpoint.go).
	CheckpointMem int64
	// Deepen searches iteratively deeper: bound 1, 2, ... up to Depth,
	// each a complete search of its own (a fresh state cache), so that a
	// search stopped early can say which depth it fully covered
	// (Result.Covered); see deepen.
	Deepen bool
	// Deepened, if set, is called with deepening each time a bound is
	// fully covered, with the counts of that bound's search.
	Deepened func(covered int, r Result)
	// Strategy chooses the executions (strategy.go); "" is DFS, the only
	// one that uses Reduction, Workers, Checkpoints and Deepen (BFS
	// covers depth after depth by itself).
	Strategy Strategy
	// Seed is what PCT and the guided strategy draw from.
	Seed uint64
	// PCTDepth is the bug depth d PCT aims at (d-1 priority change
	// points per execution); below 1, 1.
	PCTDepth int
	// Runs bounds the executions of PCT and the guided strategy; 0: until
	// Stop.
	Runs int
	_    struct{}
}

// Stats counts the work of a search.
type Stats struct {
	States     int // distinct states
	Expansions int // states expanded, counting re-expansions with more depth left
	Executions int // paths ended at a leaf, the bound or a known state
	Replays    int // fresh worlds started to replay a prefix
	// ReplayedSteps counts the actions those replays applied again.
	ReplayedSteps int
	ByDepth       []int // distinct states first met at each depth
	// SleepBlocked counts the executions the reduction pruned: states
	// whose every enabled action was asleep (explored from an equivalent
	// order already).
	SleepBlocked int
	// Fallbacks counts planned reversals the state did not offer (so it
	// was expanded fully instead); nonzero means a world's origins or
	// footprints were too optimistic somewhere.
	Fallbacks int
	// Checkpoint counts the checkpoints (Explorer.Checkpoints).
	Checkpoint CheckpointStats
	// Truncated counts the states the bound cut: met with no depth left
	// and actions enabled. None means a deeper bound explores nothing
	// more (the same tree, each remaining depth one larger).
	Truncated int
}

// Result is the outcome of a search.
type Result struct {
	Stats
	Violated bool     // Check returned true
	Path     []Action // the path to the violating state
	Stopped  bool     // Stop ended the search before it was complete
	// Covered is the depth the search fully covered: every state within
	// that many actions was checked (with the reduction: every observed
	// state of the executions that long). Depth for a complete search;
	// -1 when not even the initial state was; see search.covered.
	Covered int
	// Reached is the deepest depth at which a new state was met.
	Reached int
	// Chains is, for PCT, the most chains (its n) one execution met.
	Chains int
	// Abstract and Corpus are, for the guided strategy, the abstract
	// states reached and the prefixes kept.
	Abstract, Corpus int
}

type search struct {
	x      *Explorer
	seen   *cache
	res    Result
	events []event  // the current execution (reduction only)
	frames []*frame // the states along it (reduction only)
	// Set by a parallel search (parallel.go): par is the search the
	// worker belongs to (its frames are shared, under par.mu); quit ends
	// the worker's work early; report is Progress made safe for several
	// workers.
	par    *parallel
	quit   func() bool
	report func(Stats)
	live   int                 // checkpoints alive
	slots  map[int]*Checkpoint // by depth: where the path's states keep theirs (checkpoint.go)
	stopAt int                 // the length of the path whose state Stop refused
}

var (
	errStop = errors.New("sched: stop")
	errQuit = errors.New("sched: another worker's subtree decides")
)

// Run explores from the initial state. An error is the world's Failure or
// a tool problem; a violation is a result.
func (x *Explorer) Run() (Result, error) {
	switch x.Strategy {
	case BFS:
		return x.runBFS()
	case PCT:
		return x.runPCT()
	case Guided:
		// weft check's guided strategy runs seeded runs (SeededGuide, and
		// mcsdk's checkGuided), not the world's actions one by one.
		return Result{Covered: -1}, errors.New("sched: the guided strategy runs seeded runs (SeededGuide), not an Explorer")
	case "", DFS:
	default:
		_, err := ParseStrategy(string(x.Strategy))
		return Result{Covered: -1}, err
	}
	if x.Deepen {
		return x.deepen()
	}
	if x.Workers > 1 {
		return x.runParallel()
	}
	s := &search{x: x, seen: newCache()}
	s.res.Covered = -1
	w, err := x.Start()
	if err != nil {
		return s.res, err
	}
	err = s.visit(w, nil, nil, nil)
	if err == errStop {
		err = nil
	}
	s.res.Reached = len(s.res.ByDepth) - 1
	switch {
	case err != nil:
	case s.res.Violated:
		s.res.Covered = s.covered(len(s.res.Path), true)
	case s.res.Stopped:
		s.res.Covered = s.covered(s.stopAt, false)
	default:
		s.res.Covered = x.Depth
	}
	return s.res, err
}

// covered is the depth a sequential search stopped by Stop (or by a
// violation) fully covered: checked, not necessarily holding; at is the
// length of the path where it stopped, checked whether that state was.
// Depth-first without reduction, the work left is, for each state on
// the current path, its actions not yet explored, besides the one whose
// subtree is in progress (for the deepest, whose child Stop refused,
// that one too): work left at the state at depth d reaches
// depth d+1 and below only, so the shallowest such d is covered. A state
// the cache pruned was expanded before with at least as much depth left,
// completely or as an ancestor on the current path (whose work left is
// counted), so what lies beyond it within the bound is reachable within
// it through that ancestor. With the reduction, a race found later in
// the current subtree may add an action to any state on the path
// (source-DPOR's backtrack sets grow), so only the initial state is
// known to be covered; Explorer.Deepen covers depth after depth instead.
func (s *search) covered(at int, checked bool) int {
	if at == 0 && !checked {
		return -1
	}
	if s.x.reduce() || len(s.frames) < at {
		return 0
	}
	for d, f := range s.frames[:at] {
		left := 0
		for i := range f.acts {
			if f.back[i] && !f.done[i] {
				left++
			}
		}
		if left > 1 || (d == at-1 && !checked) {
			return d
		}
	}
	return at
}

// deepen is Run with Deepen: a complete search with bound 1, then 2, and
// so on up to Depth, each from scratch (a fresh state cache, so each is
// exactly the search with that bound, with its verdict and, for a
// violation, its canonical path). A search stopped early has then fully
// covered the last bound whose search completed, with the reduction or
// without, whatever the order within a search; and the first violation
// found is a shortest one (none lies within the bound before). A bound
// whose search the bound cut nowhere (Stats.Truncated 0) explores all
// there is: deeper bounds would repeat it, so the deepening ends there
// with Covered Depth. The cost over one search with the full bound is
// the shallower searches: small when the states grow geometrically with
// depth, as they do here.
//
// The counts are the sums over the searches (the work done), except
// States and ByDepth, which are the largest one search's (each counts
// distinct states afresh), Truncated (the last search's) and Reached
// (the deepest).
func (x *Explorer) deepen() (Result, error) {
	total := Result{Covered: -1}
	for k := 1; k <= max(x.Depth, 1); k++ {
		y := *x
		y.Deepen, y.Deepened, y.Depth = false, nil, k
		r, err := y.Run()
		total.add(r)
		if err != nil || r.Violated {
			total.Violated, total.Path = r.Violated, r.Path
			total.Covered = max(total.Covered, r.Covered)
			return total, err
		}
		if r.Stopped {
			total.Stopped = true
			total.Covered = max(total.Covered, r.Covered)
			return total, nil
		}
		total.Covered = k
		if r.Truncated == 0 {
			total.Covered = x.Depth
		}
		if x.Deepened != nil {
			x.Deepened(total.Covered, r)
		}
		if r.Truncated == 0 {
			break
		}
	}
	return total, nil
}

// add counts one deepening search's work in r (see deepen).
func (r *Result) add(o Result) {
	if o.States >= r.States {
		r.States, r.ByDepth = o.States, o.ByDepth
	}
	r.Expansions += o.Expansions
	r.Executions += o.Executions
	r.Replays += o.Replays
	r.ReplayedSteps += o.ReplayedSteps
	r.SleepBlocked += o.SleepBlocked
	r.Fallbacks += o.Fallbacks
	r.Checkpoint.Add(o.Checkpoint)
	r.Truncated = o.Truncated
	r.Reached = max(r.Reached, o.Reached)
}

// stateBytes is the scheduler's part of the state: each partition's
// phase and the crash budget used. It decides which faults are enabled.
func (x *Explorer) stateBytes(path []Action) []byte {
	var b []byte
	for k := range x.Faults.Partitions {
		b = append(b, byte(PartitionPhase(path, k)))
	}
	return binary.LittleEndian.AppendUint64(b, uint64(CrashesOn(path)))
}

// CrashesOn counts the crashes on path.
func CrashesOn(path []Action) int {
	n := 0
	for _, a := range path {
		if a.Kind == Crash {
			n++
		}
	}
	return n
}

// PartitionPhase is 0 before partition k began on path, 1 while it is
// active, 2 after it healed.
func PartitionPhase(path []Action, k int) int {
	phase := 0
	for _, a := range path {
		if a.Req == k && (a.Kind == Partition || a.Kind == Heal) {
			phase++
		}
	}
	return phase
}

// Enabled lists the world's actions and the faults the model allows
// after path: deliveries across an active partition wait; each partition
// may begin, then heal; an eligible live node may crash while the budget
// lasts (and its precondition allows); a killed node may restart.
func (x *Explorer) Enabled(w World, path []Action, ob Observation) []Action {
	var active []int
	for k := range x.Faults.Partitions {
		if PartitionPhase(path, k) == 1 {
			active = append(active, k)
		}
	}
	var acts []Action
	for _, a := range w.Enabled() {
		if a.Kind == Deliver && len(active) > 0 {
			from, to := w.Endpoints(a)
			cut := false
			for _, k := range active {
				cut = cut || x.Faults.Partitions[k](from, to)
			}
			if cut {
				continue
			}
		}
		acts = append(acts, a)
	}
	for k := range x.Faults.Partitions {
		switch PartitionPhase(path, k) {
		case 0:
			acts = append(acts, Action{Kind: Partition, Req: k})
		case 1:
			acts = append(acts, Action{Kind: Heal, Req: k})
		}
	}
	crashes := CrashesOn(path)
	for _, n := range x.Faults.Nodes {
		st := w.Status(n)
		switch {
		case st.Alive && crashes < x.Faults.Crashes:
			if ob.CrashAllowed == nil || ob.CrashAllowed(n) {
				acts = append(acts, Action{Kind: Crash, Node: n})
			}
		case st.Killed && x.Faults.Restart:
			acts = append(acts, Action{Kind: Restart, Node: n})
		}
	}
	return acts
}

// replay starts a fresh world and applies path.
func (s *search) replay(path []Action) (World, error) {
	s.res.Replays++
	s.res.ReplayedSteps += len(path)
	return startAt(s.x.Start, path)
}

// startAt starts a world with start and applies path to it.
func startAt(start func() (World, error), path []Action) (World, error) {
	w, err := start()
	if err != nil {
		return nil, err
	}
	for _, a := range path {
		if err := w.Apply(a); err != nil {
			w.Close()
			return nil, err
		}
	}
	return w, nil
}

func (x *Explorer) reduce() bool { return x.Reduction != NoReduction }

// arrival is the event a visit's state was reached by: the action and
// what was known of it before its visibility (decided by the child's
// observation), with the parent's observation to compare.
type arrival struct {
	ev      event
	visible []byte // the parent's Observation.Visible
	sleep   []sleeper
	// at is the frame of the state the event left; posted says that the
	// event's footprint went into its explored list (post).
	at     *frame
	posted bool
}

// visit expands the state of w, reached by path (through in, nil at the
// root). It owns w: w is closed, or handed to a child, before visit
// returns.
func (s *search) visit(w World, path []Action, parent any, in *arrival) error {
	ob, err := s.observe(w, parent)
	if err != nil {
		if err == errStop {
			s.stopAt = len(path)
		}
		return err
	}
	var sleep []sleeper
	if in != nil && s.x.reduce() {
		ev := in.ev
		if ob.Visible == nil || in.visible == nil || !bytes.Equal(ob.Visible, in.visible) {
			ev.fp.res |= resVisible
		}
		s.push(ev)
		s.post(in, s.events[len(s.events)-1].fp)
		for _, z := range in.sleep {
			if !z.fp.dependent(ev.fp) {
				sleep = append(sleep, z)
			}
		}
	}
	return s.state(w, path, ob, sleep)
}

// observe asks Stop, the world's failure and the caller's observation,
// closing w if the search goes no further.
func (s *search) observe(w World, parent any) (Observation, error) {
	x := s.x
	if x.Stop != nil && x.Stop() {
		s.res.Stopped = true
		w.Close()
		return Observation{}, errStop
	}
	if s.quit != nil && s.quit() {
		w.Close()
		return Observation{}, errQuit
	}
	if err := w.Failure(); err != nil {
		w.Close()
		return Observation{}, err
	}
	ob, err := x.Observe(w, parent)
	if err != nil {
		w.Close()
	}
	return ob, err
}

// state expands the state of w, reached by path and observed as ob, with
// the sleep set sleep.
func (s *search) state(w World, path []Action, ob Observation, sleep []sleeper) error {
	x := s.x
	h, err := w.Hash(append(x.stateBytes(path), ob.Extra...))
	if err != nil {
		w.Close()
		return err
	}
	left := x.Depth - len(path)
	covered, fresh, missing := s.seen.enter(h, left, sleep)
	if !x.reduce() {
		missing = nil
	}
	if covered {
		s.res.Executions++
		if x.reduce() {
			acts := x.Enabled(w, path, ob)
			s.conflicts(path, acts)
			s.lookahead(w, path, acts, sleep)
		}
		w.Close()
		return nil
	}
	if fresh {
		s.res.States++
		for len(s.res.ByDepth) <= len(path) {
			s.res.ByDepth = append(s.res.ByDepth, 0)
		}
		s.res.ByDepth[len(path)]++
		s.progress()
	}
	s.res.Expansions++
	bad, err := x.Check(w, ob, path)
	if err != nil {
		w.Close()
		return err
	}
	if bad {
		s.res.Violated, s.res.Path = true, append([]Action(nil), path...)
		w.Close()
		return errStop
	}
	acts := x.Enabled(w, path, ob)
	if x.reduce() {
		s.conflicts(path, acts)
	}
	if left <= 0 && len(acts) > 0 {
		s.res.Truncated++
	}
	if left <= 0 || len(acts) == 0 {
		s.res.Executions++
		if x.reduce() && len(acts) > 0 {
			s.lookahead(w, path, acts, sleep)
		}
		w.Close()
		return nil
	}
	if missing != nil {
		// Explored before with actions asleep that are awake now: the
		// rest is covered, as at a known state (hence the lookahead).
		s.lookahead(w, path, acts, sleep)
	}
	return s.expand(w, path, ob, acts, sleep, missing, h)
}

// progress reports the counts after every 64 new states.
func (s *search) progress() {
	if s.res.States%64 != 0 {
		return
	}
	if s.report != nil {
		s.report(s.res.Stats)
	} else if s.x.Progress != nil {
		s.x.Progress(s.res.Stats)
	}
}

// expand explores the children of the state of w: every enabled action
// without reduction; with it, the backtrack set (the first action not
// asleep, then whatever the races below add), each child with the sleep
// set of the actions explored before it that it commutes with.
//
// With only (a re-expansion of a state explored before with a larger
// sleep set), just those actions are explored; the others count as done.
func (s *search) expand(w World, path []Action, ob Observation, acts []Action, sleep []sleeper, only []Action, h [32]byte) error {
	x := s.x
	d := len(path)
	f := &frame{acts: acts, back: make([]bool, len(acts)), done: make([]bool, len(acts)), busy: make([]bool, len(acts)),
		depth: d, path: path, ob: ob, h: h, sleep: sleep}
	for i, a := range acts {
		if only != nil {
			f.done[i] = !slices.Contains(only, a)
			f.back[i] = !f.done[i]
		} else if !x.reduce() {
			f.back[i] = true
		} else if !asleep(sleep, a) {
			f.back[i] = true
			break
		}
	}
	if f.next(sleep) < 0 {
		s.res.SleepBlocked++
		w.Close()
		return nil
	}
	s.frames = append(s.frames[:d], f)
	// The first child is claimed before the other workers can see the
	// frame: it goes on in w.
	first := s.claim(f)
	s.open(f)
	var cp Checkpoint
	defer s.drop(d, &cp)
	return s.children(f, w, &cp, first)
}

// children explores the actions of f's backtrack set one after the
// other while one is left (claim): first, if not -1, an action already
// claimed, first. w, if not nil, is a world in f's state for the first
// child; the others start from the state's checkpoint *cp or replay its
// path. Each child's sleep set is f's with the actions taken at f before
// it. Then f leaves the search's path.
func (s *search) children(f *frame, w World, cp *Checkpoint, first int) error {
	x := s.x
	d := f.depth
	for {
		i := first
		first = -1
		if i < 0 {
			i = s.claim(f)
		}
		if i < 0 {
			break
		}
		child := w
		w = nil
		var err error
		if child == nil {
			replayed := *cp == nil
			if child, err = s.sibling(cp, f.path); err != nil {
				s.settle(f, i, nil, false)
				return err
			}
			if replayed && x.VerifyReplays {
				if err := s.sameState(child, f.path, f.ob, f.h); err != nil {
					s.settle(f, i, nil, false)
					return err
				}
			}
		} else if err = s.checkpoint(child, f, i, d, f.sleep, cp); err != nil {
			child.Close()
			s.settle(f, i, nil, false)
			return err
		}
		in := &arrival{visible: f.ob.Visible, sleep: s.sleepAt(f), at: f}
		a := f.acts[i]
		if x.reduce() {
			in.ev = event{a: a, fp: static(child, a), origin: s.origin(child, d, f.acts, a)}
		}
		if err := child.Apply(a); err != nil {
			child.Close()
			s.settle(f, i, in, false)
			return err
		}
		if x.reduce() {
			in.ev.fp = in.ev.fp.withTouched(child.Touched())
		}
		err = s.visit(child, append(f.path[:d:d], a), f.ob.Data, in)
		s.settle(f, i, in, err == nil)
		if err != nil {
			return err
		}
		if x.reduce() {
			s.events = s.events[:d]
		}
	}
	if w != nil {
		w.Close()
	}
	s.leave(f)
	return nil
}

// sameState checks that w, a fresh world replayed along path, is in the
// state first reached by path (hash h, observed as ob): a replay that
// reaches another state means that something a node observed did not
// pass through the scheduler, and every count after it would be wrong, so
// the search ends with an error naming the depth (ErrNondeterministic).
// Replays only: a checkpoint's restore is checked by the checkpoint
// tests, not here, where a second hash per sibling would cost what the
// checkpoint saves.
func (s *search) sameState(w World, path []Action, ob Observation, h [32]byte) error {
	got, err := w.Hash(append(s.x.stateBytes(path), ob.Extra...))
	if err != nil {
		w.Close()
		return err
	}
	if got != h {
		w.Close()
		return fmt.Errorf("%w: replaying the %d steps to a state reached another one (hash %x, first %x)", ErrNondeterministic, len(path), got[:6], h[:6])
	}
	return nil
}

// ErrNondeterministic is the error of a search whose replay of a path
// reached a state other than the one the path first reached.
var ErrNondeterministic = errors.New("nondeterministic run")

// next is the first action in the backtrack set not yet explored nor
// being explored and not asleep, or -1.
func (f *frame) next(sleep []sleeper) int {
	for i, a := range f.acts {
		if f.back[i] && !f.done[i] && !f.busy[i] && !asleep(sleep, a) {
			return i
		}
	}
	return -1
}
