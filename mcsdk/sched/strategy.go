package sched

import (
	"fmt"
	"slices"
)

// Strategy is how a search chooses its executions (Explorer.Strategy).
// Every strategy is a pure function of the world's behaviour and
// Explorer.Seed: the same model and seed give the same executions in the
// same order, and so the same result.
type Strategy string

// Strategies.
const (
	// DFS is the exhaustive depth-first search with partial-order
	// reduction, checkpoints and parallel workers (Explorer's doc). The
	// default; it draws nothing from the seed.
	DFS Strategy = "dfs"
	// BFS is exhaustive too: breadth-first over the same successor
	// function (Explorer.Enabled), every state at depth d checked before
	// any at d+1, each state met first at its shallowest depth. Without
	// reduction, so it meets the same states within the bound as DFS with
	// Reduction NoReduction; its first violation is a shortest one, and a
	// search stopped early has fully covered every completed depth.
	BFS Strategy = "bfs"
	// PCT is probabilistic concurrency testing (Burckhardt, Kothari,
	// Musuvathi, Nagarakatte, "A randomized scheduler with probabilistic
	// guarantees of finding bugs", ASPLOS 2010), over the world's chains
	// of actions (pct.go). Random: no coverage claim beyond its bound.
	PCT Strategy = "pct"
	// Guided prefers executions that reach new abstract states
	// (guided.go). A heuristic: no completeness claim.
	Guided Strategy = "guided"
)

// Strategies lists the strategies' names, the default first.
var Strategies = []Strategy{DFS, BFS, PCT, Guided}

// ParseStrategy checks a strategy's name; "" is DFS.
func ParseStrategy(s string) (Strategy, error) {
	if s == "" {
		return DFS, nil
	}
	if slices.Contains(Strategies, Strategy(s)) {
		return Strategy(s), nil
	}
	return "", fmt.Errorf("unknown strategy %q (dfs, bfs, pct, guided)", s)
}

// walk is the state of a search that runs whole executions one after
// another (BFS, PCT, guided) rather than backtracking: every world is
// started fresh and driven along one path.
type walk struct {
	x    *Explorer
	res  Result
	seen map[[32]byte]bool // the states met (their hashes)
}

func newWalk(x *Explorer) *walk {
	k := &walk{x: x, seen: map[[32]byte]bool{}}
	k.res.Covered = -1
	return k
}

// look observes the state of w reached by path (parent is the Data of
// the state before it), counts it if it is new and checks the invariants
// there; a state met before was checked then. It does not close w.
// errStop means Stop refused to go on (Result.Stopped).
func (k *walk) look(w World, path []Action, parent any) (ob Observation, bad, fresh bool, err error) {
	x := k.x
	if x.Stop != nil && x.Stop() {
		k.res.Stopped = true
		return ob, false, false, errStop
	}
	if err := w.Failure(); err != nil {
		return ob, false, false, err
	}
	if ob, err = x.Observe(w, parent); err != nil {
		return ob, false, false, err
	}
	h, err := w.Hash(append(x.stateBytes(path), ob.Extra...))
	if err != nil || k.seen[h] {
		return ob, false, false, err
	}
	k.seen[h] = true
	k.res.States++
	for len(k.res.ByDepth) <= len(path) {
		k.res.ByDepth = append(k.res.ByDepth, 0)
	}
	k.res.ByDepth[len(path)]++
	k.res.Reached = max(k.res.Reached, len(path))
	if x.Progress != nil && k.res.States%64 == 0 {
		x.Progress(k.res.Stats)
	}
	k.res.Expansions++
	bad, err = x.Check(w, ob, path)
	return ob, bad, true, err
}

// replay starts a fresh world and applies path (one more replay unless
// path is empty).
func (k *walk) replay(path []Action) (World, error) {
	if len(path) > 0 {
		k.res.Replays++
		k.res.ReplayedSteps += len(path)
	}
	return startAt(k.x.Start, path)
}

// violated records a violation at path.
func (k *walk) violated(path []Action) {
	k.res.Violated, k.res.Path = true, slices.Clone(path)
}

// finish ends a walk's search with err: errStop (Stop refused, or a
// violation was found) is no error.
func (k *walk) finish(err error) (Result, error) {
	if err == errStop {
		err = nil
	}
	return k.res, err
}

// extend drives the execution in w (at path, observed as ob) to the
// bound or to a state with nothing enabled, choosing each action with
// pick (given the enabled actions and the step's number, 1-based) and
// telling step about every state reached. It owns w. A violation ends
// the search (errStop with Result.Violated).
func (k *walk) extend(w World, path []Action, ob Observation, pick func(acts []Action, step int) int, step func(path []Action, ob Observation)) error {
	defer w.Close()
	x := k.x
	for len(path) < x.Depth {
		acts := x.Enabled(w, path, ob)
		if len(acts) == 0 {
			break
		}
		a := acts[pick(acts, len(path)+1)]
		if err := w.Apply(a); err != nil {
			return err
		}
		path = append(path, a)
		next, bad, _, err := k.look(w, path, ob.Data)
		if err != nil {
			return err
		}
		if bad {
			k.violated(path)
			return errStop
		}
		ob = next
		if step != nil {
			step(path, ob)
		}
	}
	if len(path) >= x.Depth && len(x.Enabled(w, path, ob)) > 0 {
		k.res.Truncated++
	}
	k.res.Executions++
	return nil
}

// bfsNode is a state of the breadth-first frontier: the path that first
// reached it and its observation.
type bfsNode struct {
	path []Action
	ob   Observation
}

// runBFS is Run with Strategy BFS: level by level, each state of the
// frontier replayed from a fresh world once per child (stateless, as the
// depth-first search's siblings are without checkpoints).
func (x *Explorer) runBFS() (Result, error) {
	k := newWalk(x)
	w, err := x.Start()
	if err != nil {
		return k.res, err
	}
	ob, bad, _, err := k.look(w, nil, nil)
	w.Close()
	if err != nil {
		return k.finish(err)
	}
	if bad {
		k.violated(nil)
		k.res.Covered = 0
		return k.res, nil
	}
	k.res.Covered = 0
	level := []bfsNode{{ob: ob}}
	for d := 0; d < x.Depth && len(level) > 0; d++ {
		var next []bfsNode
		for _, n := range level {
			if next, err = k.children(n, next); err != nil {
				return k.finish(err)
			}
		}
		level = next
		k.res.Covered = d + 1
		if x.Deepened != nil && d+1 < x.Depth && len(level) > 0 {
			x.Deepened(d+1, k.res)
		}
	}
	if x.Depth <= 0 {
		k.res.Executions++
	}
	k.res.Covered = x.Depth
	return k.res, nil
}

// children checks every child of n not met before and appends to next
// those to expand at the next depth. A violation ends the search
// (errStop with Result.Violated).
func (k *walk) children(n bfsNode, next []bfsNode) ([]bfsNode, error) {
	x := k.x
	w, err := k.replay(n.path)
	if err != nil {
		return next, err
	}
	acts := x.Enabled(w, n.path, n.ob)
	if len(acts) == 0 {
		k.res.Executions++
		w.Close()
		return next, nil
	}
	for i, a := range acts {
		if i > 0 {
			if w, err = k.replay(n.path); err != nil {
				return next, err
			}
		}
		if err := w.Apply(a); err != nil {
			w.Close()
			return next, err
		}
		path := append(slices.Clip(n.path), a)
		ob, bad, fresh, err := k.look(w, path, n.ob.Data)
		switch {
		case err != nil:
		case bad:
			k.violated(path)
			err = errStop
		case fresh && len(path) < x.Depth:
			next = append(next, bfsNode{path: path, ob: ob})
		case fresh:
			// At the bound: an execution, cut there if it could go on.
			k.res.Executions++
			if len(x.Enabled(w, path, ob)) > 0 {
				k.res.Truncated++
			}
		default:
			k.res.Executions++ // a known state ends this path
		}
		w.Close()
		if err != nil {
			return next, err
		}
	}
	return next, nil
}
