package sched

import (
	"fmt"
	"slices"
)

// Still reports whether a run with these faults, ended at endUS, still
// fails the way the original did.
type Still func(faults []FaultEvent, endUS int64) (bool, error)

// Shrunk is the result of a shrinking search.
type Shrunk struct {
	Faults []FaultEvent // the faults kept
	EndUS  int64        // the run's end, µs
	Steps  []string     // what each accepted reduction did
	Tries  int          // runs tried
}

// Shrink searches for a locally minimal failing run: first without each
// crash in turn (a crash's later restart of the same node goes with it),
// then ended as early as possible, by bisection to the millisecond between
// the first violation (lowUS) and the end. Every candidate is judged by
// still; each accepted one is kept.
func Shrink(faults []FaultEvent, endUS, lowUS int64, still Still) (Shrunk, error) {
	s := Shrunk{Faults: slices.Clone(faults), EndUS: endUS}
	try := func(f []FaultEvent, end int64) (bool, error) {
		s.Tries++
		if f == nil {
			f = []FaultEvent{}
		}
		return still(f, end)
	}
	for i := 0; i < len(s.Faults); {
		f := s.Faults[i]
		if f.Kind != Crash {
			i++
			continue
		}
		cand := slices.DeleteFunc(slices.Clone(s.Faults), func(g FaultEvent) bool {
			return g.Node == f.Node && (g == f || (g.Kind == Restart && g.AtUS > f.AtUS))
		})
		ok, err := try(cand, s.EndUS)
		if err != nil {
			return s, err
		}
		if ok {
			s.Faults = cand
			s.Steps = append(s.Steps, fmt.Sprintf("removed %s %d at %dus", f.Kind, f.Node, f.AtUS))
			continue
		}
		i++
	}
	lo, hi := lowUS, s.EndUS
	for hi-lo > 1000 { // to the millisecond
		mid := lo + (hi-lo)/2
		ok, err := try(s.Faults, mid)
		if err != nil {
			return s, err
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
	return s, nil
}
