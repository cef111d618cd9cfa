package sched

import (
	"errors"
	"sync"
)

// runParallel is Run with Workers > 1. The initial state is expanded
// fully (every enabled action is an item: a superset of any backtrack
// set, so the reduction's races into it need nothing); workers take the
// items in canonical order, each exploring its item's subtree
// sequentially with its own worlds, and all share the state cache, whose
// entries are recorded when a state is entered (a state another worker
// is still expanding is covered: that worker completes it).
//
// The verdict is the sequential one (the search is complete either way);
// which violating path or failure is reported is that of the first item
// in canonical order that found one, but which states each worker prunes
// depends on timing, so the path may differ from run to run: callers
// wanting one path (mcsdk.Check) search again sequentially at the
// shortest violating length. The counts are sums over the workers.
func (x *Explorer) runParallel() (Result, error) {
	p := &parallel{x: x, seen: newCache()}
	root := p.newSearch()
	root.fan = p.fan
	w, err := x.Start()
	if err != nil {
		return root.res, err
	}
	err = root.visit(w, nil, nil, nil)
	p.merge(root.res)
	if err == errStop {
		err = nil
	}
	if err == nil && p.err != nil {
		err = p.err
	}
	if p.found != nil {
		p.res.Violated, p.res.Path = true, p.found
	}
	if root.res.Violated {
		p.res.Violated, p.res.Path = true, root.res.Path
	}
	return p.res, err
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
	items int
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
	p.res.SleepBlocked += r.SleepBlocked
	p.res.Fallbacks += r.Fallbacks
	p.res.Stopped = p.res.Stopped || r.Stopped
	for len(p.res.ByDepth) < len(r.ByDepth) {
		p.res.ByDepth = append(p.res.ByDepth, 0)
	}
	for d, n := range r.ByDepth {
		p.res.ByDepth[d] += n
	}
}

// fan explores the initial state's actions with the workers.
func (p *parallel) fan(w World, ob Observation, acts []Action) error {
	w.Close()
	p.items, p.cut = len(acts), len(acts)
	next := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < min(p.x.Workers, len(acts)); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p.item(i, ob, acts)
			}
		}()
	}
	for i := range acts {
		if p.after(i) {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if p.found != nil || p.err != nil {
		return errStop
	}
	return nil
}

// after reports whether item i comes after one that decided the result.
func (p *parallel) after(i int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return i > p.cut
}

// item explores the subtree of the initial state's action i.
func (p *parallel) item(i int, ob Observation, acts []Action) {
	s := p.newSearch()
	s.quit = func() bool { return p.after(i) }
	f := &frame{acts: acts, back: make([]bool, len(acts)), done: make([]bool, len(acts))}
	for k := range f.back {
		f.back[k] = true
	}
	s.frames = []*frame{f}
	err := p.explore(s, ob, acts[i])
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

// explore starts a world, applies a and visits its subtree.
func (p *parallel) explore(s *search, ob Observation, a Action) error {
	x := p.x
	s.res.Replays++
	w, err := x.Start()
	if err != nil {
		return err
	}
	in := &arrival{visible: ob.Visible}
	if x.reduce() {
		in.ev = event{a: a, fp: static(w, a), origin: s.origin(w, 0, s.frames[0].acts, a)}
	}
	if err := w.Apply(a); err != nil {
		w.Close()
		return err
	}
	if x.reduce() {
		in.ev.fp = in.ev.fp.withTouched(w.Touched())
	}
	return s.visit(w, []Action{a}, ob.Data, in)
}
