package mcsdk

import (
	"fmt"
	"slices"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// ShrinkResult is a locally minimal failing run and how it was reached.
type ShrinkResult struct {
	Original *RunResult
	Shrunk   *RunResult
	Faults   []FaultEvent // the faults kept
	EndUS    int64        // the run's end, µs
	Tries    int          // runs executed while shrinking
	Steps    []string     // what each accepted reduction did
}

// Shrink reduces a failing seeded run to a locally minimal one that still
// violates the same invariant: first it removes faults one at a time
// (keeping a removal when the violation persists), then it shortens the run
// by bisection on its end time. Every candidate is a real run of the same
// seed with an overridden fault schedule and end, so the result replays
// like any other recording.
func Shrink(m *model.Model, variant string, seed uint64, opts RunOptions) (*ShrinkResult, error) {
	opts.Variant, opts.Seed = variant, seed
	orig, err := Run(m, opts)
	if err != nil {
		return nil, err
	}
	if orig.Verdict != Violated || len(orig.Violated) == 0 {
		return nil, fmt.Errorf("seed %d of %s is not a violating run (%s)", seed, variant, orig.Verdict)
	}
	target := orig.Violated[0]
	sr := &ShrinkResult{Original: orig, Shrunk: orig, Faults: slices.Clone(orig.Faults), EndUS: int64(orig.VirtualTime / 1000)}
	still := func(faults []FaultEvent, end int64) (*RunResult, bool, error) {
		o := opts
		o.Faults = faults
		if o.Faults == nil {
			o.Faults = []FaultEvent{}
		}
		o.EndUS = end
		sr.Tries++
		r, err := Run(m, o)
		if err != nil {
			return nil, false, err
		}
		return r, r.Verdict == Violated && slices.Contains(r.Violated, target), nil
	}
	// Fewer faults: a restart goes with its crash.
	for i := 0; i < len(sr.Faults); {
		f := sr.Faults[i]
		if f.Kind != supervisor.Crash {
			i++
			continue
		}
		cand := slices.DeleteFunc(slices.Clone(sr.Faults), func(g FaultEvent) bool {
			return g.Node == f.Node && (g == f || (g.Kind == supervisor.Restart && g.AtUS > f.AtUS))
		})
		r, ok, err := still(cand, sr.EndUS)
		if err != nil {
			return nil, err
		}
		if ok {
			sr.Faults, sr.Shrunk = cand, r
			sr.Steps = append(sr.Steps, fmt.Sprintf("removed %s", f))
			continue
		}
		i++
	}
	// Shorter: bisect the end between the first violation and now.
	lo := int64(sr.Shrunk.FirstViolationTime / 1000)
	hi := sr.EndUS
	for hi-lo > 1000 { // to the millisecond
		mid := lo + (hi-lo)/2
		r, ok, err := still(sr.Faults, mid)
		if err != nil {
			return nil, err
		}
		if ok {
			hi, sr.Shrunk = mid, r
		} else {
			lo = mid
		}
	}
	if hi < sr.EndUS {
		sr.Steps = append(sr.Steps, fmt.Sprintf("ended the run at %.3fms instead of %.3fms", float64(hi)/1000, float64(sr.EndUS)/1000))
		sr.EndUS = hi
	}
	return sr, nil
}
