package sched

import (
	"errors"
	"slices"
	"sync"
)

// runParallel is Run with Workers > 1. A first pass explores the states
// above depth 2 (1 with a bound of 1) sequentially, expanding them fully
// (every action not asleep: a superset of any backtrack set, so no race
// found later needs to add to them) and checking them, and collects the
// states at that depth as items, in canonical order. Workers take the
// items, each replaying its item's path in a world of its own and
// exploring its subtree sequentially with the path's events and sleep
// set; all share the state cache, whose entries are recorded when a
// state is entered (a state another worker is still expanding is
// covered: that worker completes it).
//
// The verdict is the sequential one (the search is complete either way);
// the violating path or failure reported is that of the first item in
// canonical order that found one, but which states each worker prunes
// depends on timing, so the path may differ from run to run: callers
// wanting one path (mcsdk.Check) search again sequentially at the
// shortest violating length. The counts are sums over the workers.
func (x *Explorer) runParallel() (Result, error) {
	r, err := x.fanOut()
	r.Reached = len(r.ByDepth) - 1
	switch {
	case err == nil && !r.Violated && !r.Stopped:
		r.Covered = x.Depth
	case r.States > 0:
		r.Covered = 0 // the initial state, checked first; see search.covered
	default:
		r.Covered = -1
	}
	return r, err
}

// fanOut is runParallel's search.
func (x *Explorer) fanOut() (Result, error) {
	p := &parallel{x: x, seen: newCache()}
	root := p.newSearch()
	root.split = min(2, x.Depth)
	root.collect = func(path []Action, parent any, sleep []sleeper) {
		it := item{path: slices.Clone(path), parent: parent, sleep: slices.Clone(sleep)}
		for _, e := range root.events {
			e.hb = slices.Clone(e.hb)
			it.events = append(it.events, e)
		}
		for _, f := range root.frames[:len(path)] {
			it.acts = append(it.acts, f.acts)
		}
		p.items = append(p.items, it)
	}
	w, err := x.Start()
	if err != nil {
		return root.res, err
	}
	err = root.visit(w, nil, nil, nil)
	p.merge(root.res)
	if err == errStop || err != nil || root.res.Violated {
		if err == errStop {
			err = nil
		}
		p.res.Violated, p.res.Path = root.res.Violated, root.res.Path
		return p.res, err
	}
	p.fan()
	if p.found != nil {
		p.res.Violated, p.res.Path = true, p.found
	}
	return p.res, p.err
}

// item is a state at the first pass's depth: its path, its parent's
// observation data, its sleep set, the path's events and the actions
// enabled along it.
type item struct {
	path   []Action
	parent any
	sleep  []sleeper
	events []event
	acts   [][]Action
}

type parallel struct {
	x    *Explorer
	seen *cache
	mu   sync.Mutex
	res  Result
	// cut is the first item that found a violation or failed: items
	// after it are not needed.
	cut   int
	found []Action
	err   error
	items []item
}

func (p *parallel) newSearch() *search {
	s := &search{x: p.x, seen: p.seen}
	s.report = func(Stats) {
		if p.x.Progress == nil {
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		st := p.res.Stats
		st.States = p.seen.count()
		p.x.Progress(st)
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
	p.res.Stopped = p.res.Stopped || r.Stopped
	for len(p.res.ByDepth) < len(r.ByDepth) {
		p.res.ByDepth = append(p.res.ByDepth, 0)
	}
	for d, n := range r.ByDepth {
		p.res.ByDepth[d] += n
	}
}

// fan explores the items with the workers.
func (p *parallel) fan() {
	p.cut = len(p.items)
	next := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < min(p.x.Workers, len(p.items)); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p.item(i)
			}
		}()
	}
	for i := range p.items {
		if p.after(i) {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
}

// after reports whether item i comes after one that decided the result.
func (p *parallel) after(i int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return i > p.cut
}

// item explores the subtree of item i.
func (p *parallel) item(i int) {
	it := p.items[i]
	s := p.newSearch()
	s.quit = func() bool { return p.after(i) }
	for _, acts := range it.acts {
		f := &frame{acts: acts, back: make([]bool, len(acts)), done: make([]bool, len(acts))}
		for k := range f.back {
			f.back[k] = true
		}
		s.frames = append(s.frames, f)
	}
	for _, e := range it.events {
		e.hb = slices.Clone(e.hb)
		s.events = append(s.events, e)
	}
	err := p.explore(s, it)
	if s.res.Violated {
		err = errStop
	}
	p.merge(s.res)
	if err == nil || errors.Is(err, errQuit) || (err == errStop && !s.res.Violated) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if i < p.cut {
		p.cut = i
		p.found, p.err = nil, nil
		if s.res.Violated {
			p.found = s.res.Path
		} else {
			p.err = err
		}
	}
}

// explore replays an item's path in a fresh world and explores from it.
func (p *parallel) explore(s *search, it item) error {
	w, err := s.replay(it.path)
	if err != nil {
		return err
	}
	ob, err := s.observe(w, it.parent)
	if err != nil {
		return err
	}
	return s.state(w, it.path, ob, it.sleep)
}
