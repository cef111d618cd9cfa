package mcsdk

import (
	"fmt"
	"slices"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
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
	return ShrinkWithProgress(m, variant, seed, opts, nil)
}

// ShrinkTry is one candidate run of a shrink, reported as it ends: the
// try's number (the original run is 0), the faults it kept, its end
// (virtual µs) and whether it still violated the invariant.
type ShrinkTry struct {
	Try      int
	Faults   int
	EndUS    int64
	Violated bool
}

// ShrinkWithProgress is Shrink, calling progress (if non-nil) after every
// run it makes.
func ShrinkWithProgress(m *model.Model, variant string, seed uint64, opts RunOptions, progress func(ShrinkTry)) (*ShrinkResult, error) {
	opts.Variant, opts.Seed = variant, seed
	orig, err := Run(m, opts)
	if err != nil {
		return nil, err
	}
	if orig.Verdict != Violated || len(orig.Violated) == 0 {
		return nil, fmt.Errorf("seed %d of %s is not a violating run (%s)", seed, variant, orig.Verdict)
	}
	target := orig.Violated[0]
	tries := 0
	report := func(faults int, end int64, violated bool) {
		if progress != nil {
			progress(ShrinkTry{Try: tries, Faults: faults, EndUS: end, Violated: violated})
		}
		tries++
	}
	report(len(orig.Faults), int64(orig.VirtualTime/1000), true)
	sr := &ShrinkResult{Original: orig, Shrunk: orig}
	given := make([]sched.FaultEvent, 0, len(orig.Faults))
	for _, f := range orig.Faults {
		given = append(given, sched.FaultEvent(f))
	}
	// The search is the scheduler's; each candidate is a real run, and the
	// last one that still fails is the shrunk run.
	out, err := sched.Shrink(given, int64(orig.VirtualTime/1000), int64(orig.FirstViolationTime/1000), func(faults []sched.FaultEvent, end int64) (bool, error) {
		o := opts
		o.Faults = make([]FaultEvent, 0, len(faults))
		for _, f := range faults {
			o.Faults = append(o.Faults, FaultEvent(f))
		}
		o.EndUS = end
		r, err := Run(m, o)
		if err != nil {
			return false, err
		}
		ok := r.Verdict == Violated && slices.Contains(r.Violated, target)
		report(len(faults), end, ok)
		if ok {
			sr.Shrunk = r
		}
		return ok, nil
	})
	if err != nil {
		return nil, err
	}
	sr.Tries, sr.Steps, sr.EndUS = out.Tries, out.Steps, out.EndUS
	sr.Faults = []FaultEvent{}
	for _, f := range out.Faults {
		sr.Faults = append(sr.Faults, FaultEvent(f))
	}
	return sr, nil
}
