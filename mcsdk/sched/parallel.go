package sched

import (
	"slices"
	"sync"
)

// runParallel is Run with Workers > 1: the sequential search, reduced
// alike, with idle workers taking pending branches from the others
// (work stealing).
//
// One worker starts the depth-first search at the initial state. Every
// state a worker expands is a shared frame: its enabled actions, its
// backtrack set (which actions are taken, being taken or still to take),
// its sleep set, the path to it and the events along that path. A worker
// with nothing to do takes (claims) one pending action of the shallowest
// frame some worker has on its path, replays that frame's path in a
// fresh world of its own and explores the action's subtree; after that
// it carries on as the frame's owner would, with the frame's other
// pending actions and then with its ancestors', each replayed, until its
// path is empty; then it takes another.
//
// The reduction's bookkeeping is the sequential one's, on the shared
// frames. A race found in a subtree adds to the backtrack set of a state
// on the path of the worker that found it: whoever has that state on its
// path (and the finder does) may take the action. A state leaves a
// worker's path only when none of its pending actions is left to claim,
// so the last worker to leave it has seen every addition (only workers
// with the state on their path add to it). A child's sleep set is the
// state's with the actions claimed there before it, with the footprints
// their execution showed: a worker claims at a state only once every
// earlier claim there has posted its footprint (post), the footprint
// being known after one step. Claims at a state thus come in one order,
// and each child sleeps on the siblings claimed before it, as in a
// sequential search that chose its actions in that order; source-DPOR
// lets the search take the actions of a backtrack set in any order. A
// race that a sequential search would find already covered (the
// initial it reverses taken earlier, in a subtree still in progress
// here) may add one more action: the parallel search explores at least
// the equivalence classes the sequential one does.
//
// All workers share the state cache, whose entries are recorded when a
// state is entered: a state another worker is still expanding is
// covered (that worker completes it), as an ancestor on the current
// path is in a sequential search, with the same lookahead. Which
// occurrence of a state is expanded, and so which states are met at all
// beyond the verdict's observed states, depends on the workers' timing:
// the counts may differ from the sequential search's and from run to
// run; the observed states checked, and the verdict, do not.
//
// The first violation, failure or Stop ends the search. The violating
// path reported is the first one found, which depends on timing:
// callers wanting one path (mcsdk.Check) search again sequentially at
// the shortest violating length. The counts are sums over the workers.
func (x *Explorer) runParallel() (Result, error) {
	y := *x
	if x.Stop != nil {
		var mu sync.Mutex
		y.Stop = func() bool {
			mu.Lock()
			defer mu.Unlock()
			return x.Stop()
		}
	}
	p := &parallel{x: &y, seen: newCache(), busy: 1, latest: make([]Stats, x.Workers)}
	p.cond = sync.NewCond(&p.mu)
	var wg sync.WaitGroup
	for k := 0; k < x.Workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := p.newSearch(k)
			if k == 0 {
				p.finish(s, p.root(s))
			}
			for {
				f, i, ok := p.steal()
				if !ok {
					break
				}
				p.finish(s, p.resume(s, f, i))
			}
			p.merge(s.res)
		}()
	}
	wg.Wait()
	r := p.res
	r.Violated, r.Path = p.violated, p.found
	r.Stopped = p.stopped
	r.Reached = len(r.ByDepth) - 1
	switch {
	case p.err == nil && !r.Violated && !r.Stopped:
		r.Covered = x.Depth
	case r.States > 0:
		r.Covered = 0 // the initial state, checked first; see search.covered
	default:
		r.Covered = -1
	}
	return r, p.err
}

type parallel struct {
	x    *Explorer
	seen *cache
	// mu guards what follows and every frame of the workers' paths.
	mu   sync.Mutex
	cond *sync.Cond // signalled when work may be there to take, or the search ends
	// open are the frames on some worker's path; busy counts the workers
	// with a path.
	open []*frame
	busy int
	// quit ends the search: violated says a violation did, found is its
	// path; err is the failure; stopped says Stop ended it.
	quit     bool
	violated bool
	found    []Action
	err      error
	stopped  bool
	res      Result
	latest   []Stats // each worker's counts at its last report
}

func (p *parallel) newSearch(k int) *search {
	s := &search{x: p.x, seen: p.seen, par: p}
	s.quit = func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.quit
	}
	s.report = func(st Stats) {
		if p.x.Progress == nil {
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		p.latest[k] = st
		var sum Result
		for _, o := range p.latest {
			sum.add(Result{Stats: o})
		}
		sum.States = p.seen.count()
		p.x.Progress(sum.Stats)
	}
	return s
}

func (c *cache) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.states
}

// merge adds a worker's counts.
func (p *parallel) merge(r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.res.States += r.States
	p.res.Expansions += r.Expansions
	p.res.Executions += r.Executions
	p.res.Replays += r.Replays
	p.res.ReplayedSteps += r.ReplayedSteps
	p.res.SleepBlocked += r.SleepBlocked
	p.res.Fallbacks += r.Fallbacks
	p.res.Checkpoint.Add(r.Checkpoint)
	p.res.Truncated += r.Truncated
	for len(p.res.ByDepth) < len(r.ByDepth) {
		p.res.ByDepth = append(p.res.ByDepth, 0)
	}
	for d, n := range r.ByDepth {
		p.res.ByDepth[d] += n
	}
}

// root starts the search at the initial state.
func (p *parallel) root(s *search) error {
	w, err := p.x.Start()
	if err != nil {
		return err
	}
	return s.visit(w, nil, nil, nil)
}

// finish ends a worker's path, with the error its work returned: a
// violation, a failure or Stop ends the search (the first one found
// decides it).
func (p *parallel) finish(s *search, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.busy--
	switch {
	case err == nil || err == errQuit:
	case err == errStop && s.res.Violated:
		if !p.violated && p.err == nil {
			p.violated, p.found = true, s.res.Path
		}
		p.quit = true
	case err == errStop:
		p.stopped, p.quit = true, true
	default:
		if !p.violated && p.err == nil {
			p.err = err
		}
		p.quit = true
	}
	p.cond.Broadcast()
}

// steal waits for a pending action of a frame some worker has on its path
// (the shallowest such frame: the largest subtree, as a guess) and claims
// it for the caller, whose path becomes the frame's; false when the search
// is over: ended, or no worker has a path left, so none can add work.
func (p *parallel) steal() (*frame, int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.quit {
			return nil, -1, false
		}
		var best *frame
		for _, f := range p.open {
			if f.inflight == 0 && (best == nil || f.depth < best.depth) && f.next(f.sleep) >= 0 {
				best = f
			}
		}
		if best != nil {
			i := best.next(best.sleep)
			p.take(best, i)
			for g := best; g != nil; g = g.parent {
				g.on++
			}
			p.busy++
			return best, i, true
		}
		if p.busy == 0 {
			return nil, -1, false
		}
		p.cond.Wait()
	}
}

// take claims action i of f (under mu).
func (p *parallel) take(f *frame, i int) {
	f.busy[i] = true
	if p.x.reduce() {
		f.inflight++
	}
}

// resume explores action i of f, claimed by steal, in a world replayed to
// f's state, and then what is left of f and of its ancestors, deepest
// first, as their owner would.
func (p *parallel) resume(s *search, f *frame, i int) error {
	s.frames = make([]*frame, f.depth+1)
	for g := f; g != nil; g = g.parent {
		s.frames[g.depth] = g
	}
	s.events = cloneEvents(f.events)
	for d := f.depth; d >= 0; d-- {
		var cp Checkpoint
		if err := s.children(s.frames[d], nil, &cp, i); err != nil {
			return err
		}
		i = -1
		if p.x.reduce() && d > 0 {
			s.events = s.events[:d-1]
		}
	}
	return nil
}

func cloneEvents(evs []event) []event {
	out := make([]event, len(evs))
	for k, e := range evs {
		e.hb = slices.Clone(e.hb)
		out[k] = e
	}
	return out
}

// lock and unlock guard the frames of a parallel search; a sequential
// search's are its own.
func (s *search) lock() {
	if s.par != nil {
		s.par.mu.Lock()
	}
}

func (s *search) unlock() {
	if s.par != nil {
		s.par.mu.Unlock()
	}
}

// wake tells idle workers that a frame may have a new pending action
// (under mu).
func (s *search) wake() {
	if s.par != nil {
		s.par.cond.Broadcast()
	}
}

// open puts f, just expanded at the end of the search's path, on it: in
// a parallel search, where the other workers can take its actions, with
// the events of its path.
func (s *search) open(f *frame) {
	p := s.par
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if f.depth > 0 {
		f.parent = s.frames[f.depth-1]
	}
	f.events = cloneEvents(s.events[:min(f.depth, len(s.events))])
	f.on = 1
	p.open = append(p.open, f)
	p.cond.Broadcast()
}

// leave takes f, none of whose actions is left to claim, off the
// search's path.
func (s *search) leave(f *frame) {
	s.frames = s.frames[:f.depth]
	p := s.par
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	f.on--
	if f.on == 0 {
		if k := slices.Index(p.open, f); k >= 0 {
			p.open = slices.Delete(p.open, k, k+1)
		}
	}
}

// claim takes f's next pending action, or -1 if none is left: in a
// parallel search, once the actions claimed there before have posted
// their footprints (the next child's sleep set needs them), and -1 once
// the search is over.
func (s *search) claim(f *frame) int {
	p := s.par
	if p == nil {
		i := f.next(f.sleep)
		if i >= 0 {
			f.busy[i] = true
		}
		return i
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for f.inflight > 0 && !p.quit {
		p.cond.Wait()
	}
	if p.quit {
		return -1
	}
	i := f.next(f.sleep)
	if i >= 0 {
		p.take(f, i)
	}
	return i
}

// sleepAt is the sleep set of f's next child: f's, with the actions
// taken at f before it.
func (s *search) sleepAt(f *frame) []sleeper {
	s.lock()
	defer s.unlock()
	return append(slices.Clip(f.sleep), f.explored...)
}

// post records, once an action's event is known (its footprint, with its
// visibility), that the action was taken at its state: its later
// siblings sleep on it.
func (s *search) post(in *arrival, fp footprint) {
	if in.at == nil || in.posted {
		return
	}
	s.lock()
	defer s.unlock()
	in.posted = true
	in.at.explored = append(in.at.explored, sleeper{in.ev.a, fp})
	if s.par != nil {
		in.at.inflight--
		s.par.cond.Broadcast()
	}
}

// settle marks action i of f explored once its subtree is done (ok), or
// no longer being explored after an error (the search ends: search.covered
// counts it as left); in is its arrival, nil if it never got one.
func (s *search) settle(f *frame, i int, in *arrival, ok bool) {
	s.lock()
	defer s.unlock()
	f.busy[i], f.done[i] = false, ok
	if s.par != nil && s.x.reduce() && (in == nil || !in.posted) {
		if in != nil {
			in.posted = true
		}
		f.inflight--
		s.par.cond.Broadcast()
	}
}
