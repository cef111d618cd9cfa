package sched

import (
	"fmt"
	"slices"
)

// Candidate is one run a shrinking search tries: the seed's run with
// these faults, these omissions, ended at EndUS.
type Candidate struct {
	Faults []FaultEvent
	Omit   Omit
	EndUS  int64
}

// Still reports whether a candidate run still fails the way the original
// did.
type Still func(Candidate) (bool, error)

// Parts are what a shrinking search may remove besides the fault
// schedule: the plan's partitions (by index), the nodes with a clock
// fault, drops and duplicates, and each workload client's operations.
type Parts struct {
	Partitions int
	ClockNodes []int
	Drops      bool
	Ops        []int // per client: the operations it made
}

// Shrunk is the result of a shrinking search.
type Shrunk struct {
	Faults []FaultEvent // the faults kept
	Omit   Omit         // what was removed besides them
	EndUS  int64        // the run's end, µs
	Steps  []string     // what each accepted reduction did
	Tries  int          // runs tried
}

// Shrink searches for a locally minimal failing run: first without each
// crash in turn (a crash's later restart of the same node goes with it),
// then without each partition, each node's clock fault, and drops; then
// with fewer workload operations per client (the fewest that still fail,
// by bisection); then ended as early as possible, by bisection to the
// millisecond between the first violation (lowUS) and the end. Every
// candidate is judged by still; each accepted one is kept.
func Shrink(faults []FaultEvent, parts Parts, endUS, lowUS int64, still Still) (Shrunk, error) {
	s := Shrunk{Faults: slices.Clone(faults), EndUS: endUS}
	try := func(c Candidate) (bool, error) {
		s.Tries++
		if c.Faults == nil {
			c.Faults = []FaultEvent{}
		}
		return still(c)
	}
	// keep tries c and keeps it if it still fails, saying what it did.
	keep := func(c Candidate, did string) (bool, error) {
		ok, err := try(c)
		if ok && err == nil {
			s.Faults, s.Omit, s.EndUS = c.Faults, c.Omit, c.EndUS
			s.Steps = append(s.Steps, did)
		}
		return ok, err
	}
	if err := s.removeCrashes(keep); err != nil {
		return s, err
	}
	if err := s.removeOthers(parts, keep); err != nil {
		return s, err
	}
	if err := s.fewerOps(parts.Ops, keep, try); err != nil {
		return s, err
	}
	return s, s.endEarlier(lowUS, try)
}

type keepFunc func(Candidate, string) (bool, error)

// removeCrashes tries the run without each crash in turn.
func (s *Shrunk) removeCrashes(keep keepFunc) error {
	for i := 0; i < len(s.Faults); {
		f := s.Faults[i]
		if f.Kind != Crash {
			i++
			continue
		}
		cand := slices.DeleteFunc(slices.Clone(s.Faults), func(g FaultEvent) bool {
			return g.Node == f.Node && (g == f || (g.Kind == Restart && g.AtUS > f.AtUS))
		})
		ok, err := keep(Candidate{Faults: cand, Omit: s.Omit, EndUS: s.EndUS}, fmt.Sprintf("removed %s %d at %dus", f.Kind, f.Node, f.AtUS))
		if err != nil {
			return err
		}
		if !ok {
			i++
		}
	}
	return nil
}

// removeOthers tries the run without each partition, each clock fault,
// and drops.
func (s *Shrunk) removeOthers(parts Parts, keep keepFunc) error {
	for i := 0; i < parts.Partitions; i++ {
		o := s.Omit.clone()
		o.Partitions = append(o.Partitions, i)
		if _, err := keep(Candidate{Faults: s.Faults, Omit: o, EndUS: s.EndUS}, fmt.Sprintf("removed partition %d", i)); err != nil {
			return err
		}
	}
	for _, n := range parts.ClockNodes {
		o := s.Omit.clone()
		o.Clocks = append(o.Clocks, n)
		if _, err := keep(Candidate{Faults: s.Faults, Omit: o, EndUS: s.EndUS}, fmt.Sprintf("removed the clock fault of n%d", n)); err != nil {
			return err
		}
	}
	if parts.Drops {
		o := s.Omit.clone()
		o.NoDrops = true
		if _, err := keep(Candidate{Faults: s.Faults, Omit: o, EndUS: s.EndUS}, "removed drops and duplicates"); err != nil {
			return err
		}
	}
	return nil
}

// fewerOps bounds each client's operations to the fewest that still fail
// (bisection: a run that fails with k operations is taken to fail with
// more).
func (s *Shrunk) fewerOps(ops []int, keep keepFunc, try func(Candidate) (bool, error)) error {
	for c, n := range ops {
		lo, hi := -1, n // fails with hi operations; lo is below any known failure
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			o := s.Omit.clone()
			o.Ops = withOps(o.Ops, len(ops), c, mid)
			ok, err := try(Candidate{Faults: s.Faults, Omit: o, EndUS: s.EndUS})
			if err != nil {
				return err
			}
			if ok {
				hi = mid
			} else {
				lo = mid
			}
		}
		if hi < n {
			o := s.Omit.clone()
			o.Ops = withOps(o.Ops, len(ops), c, hi)
			s.Omit = o
			s.Steps = append(s.Steps, fmt.Sprintf("kept %d of client c%d's %d operations", hi, c, n))
		}
	}
	return nil
}

// withOps returns ops (of clients entries, -1 = all) with client c bounded
// to k.
func withOps(ops []int, clients, c, k int) []int {
	if ops == nil {
		ops = make([]int, clients)
		for i := range ops {
			ops[i] = -1
		}
	}
	ops[c] = k
	return ops
}

// endEarlier bisects the run's end to the millisecond.
func (s *Shrunk) endEarlier(lowUS int64, try func(Candidate) (bool, error)) error {
	lo, hi := lowUS, s.EndUS
	for hi-lo > 1000 { // to the millisecond
		mid := lo + (hi-lo)/2
		ok, err := try(Candidate{Faults: s.Faults, Omit: s.Omit, EndUS: mid})
		if err != nil {
			return err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	if hi < s.EndUS {
		s.Steps = append(s.Steps, fmt.Sprintf("ended the run at %.3fms instead of %.3fms", float64(hi)/1000, float64(s.EndUS)/1000))
		s.EndUS = hi
	}
	return nil
}
