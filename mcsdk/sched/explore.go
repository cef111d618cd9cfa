package sched

import (
	"encoding/binary"
	"errors"
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
	_    struct{}
}

// Stats counts the work of a search.
type Stats struct {
	States     int   // distinct states
	Expansions int   // states expanded, counting re-expansions with more depth left
	Executions int   // paths ended at a leaf, the bound or a known state
	Replays    int   // fresh worlds started to replay a prefix
	ByDepth    []int // distinct states first met at each depth
}

// Result is the outcome of a search.
type Result struct {
	Stats
	Violated bool     // Check returned true
	Path     []Action // the path to the violating state
	Stopped  bool     // Stop ended the search before it was complete
}

type search struct {
	x    *Explorer
	seen map[[32]byte]int
	res  Result
}

var errStop = errors.New("sched: stop")

// Run explores from the initial state. An error is the world's Failure or
// a tool problem; a violation is a result.
func (x *Explorer) Run() (Result, error) {
	s := &search{x: x, seen: map[[32]byte]int{}}
	w, err := x.Start()
	if err != nil {
		return s.res, err
	}
	err = s.visit(w, nil, nil)
	if err == errStop {
		err = nil
	}
	return s.res, err
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
	w, err := s.x.Start()
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

// visit expands the state of w, reached by path. It owns w: w is closed,
// or handed to the last child, before visit returns.
func (s *search) visit(w World, path []Action, parent any) error {
	x := s.x
	if x.Stop != nil && x.Stop() {
		s.res.Stopped = true
		w.Close()
		return errStop
	}
	if err := w.Failure(); err != nil {
		w.Close()
		return err
	}
	ob, err := x.Observe(w, parent)
	if err != nil {
		w.Close()
		return err
	}
	h, err := w.Hash(append(x.stateBytes(path), ob.Extra...))
	if err != nil {
		w.Close()
		return err
	}
	left := x.Depth - len(path)
	if done, ok := s.seen[h]; ok && done >= left {
		s.res.Executions++
		w.Close()
		return nil
	} else if !ok {
		s.res.States++
		for len(s.res.ByDepth) <= len(path) {
			s.res.ByDepth = append(s.res.ByDepth, 0)
		}
		s.res.ByDepth[len(path)]++
		if x.Progress != nil && s.res.States%64 == 0 {
			x.Progress(s.res.Stats)
		}
	}
	s.seen[h] = left
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
	if left <= 0 || len(acts) == 0 {
		s.res.Executions++
		w.Close()
		return nil
	}
	for i, a := range acts {
		child := w
		if i < len(acts)-1 {
			if child, err = s.replay(path); err != nil {
				w.Close()
				return err
			}
		}
		if err := child.Apply(a); err != nil {
			child.Close()
			if child != w {
				w.Close()
			}
			return err
		}
		if err := s.visit(child, append(path[:len(path):len(path)], a), ob.Data); err != nil {
			if child != w {
				w.Close()
			}
			return err
		}
	}
	return nil
}
