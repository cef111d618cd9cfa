package mcsdk

import (
	"fmt"
	"slices"
	"strings"

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
	Omit     sched.Omit   // what was removed besides crashes
	Remains  string       // what the shrunk run keeps, for people
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
	// Remains says what the try kept, e.g. "1 crash, 1 restart, 1 of 1
	// partitions, drops, 12 operations".
	Remains string
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
	parts, err := shrinkParts(m, orig)
	if err != nil {
		return nil, err
	}
	tries := 0
	report := func(c sched.Candidate, violated bool) {
		if progress != nil {
			progress(ShrinkTry{Try: tries, Faults: len(c.Faults), EndUS: c.EndUS, Violated: violated, Remains: remains(c, parts)})
		}
		tries++
	}
	given := make([]sched.FaultEvent, 0, len(orig.Faults))
	for _, f := range orig.Faults {
		given = append(given, sched.FaultEvent(f))
	}
	report(sched.Candidate{Faults: given, EndUS: int64(orig.VirtualTime / 1000)}, true)
	sr := &ShrinkResult{Original: orig, Shrunk: orig}
	// The search is the scheduler's; each candidate is a real run, and the
	// last one that still fails is the shrunk run.
	out, err := sched.Shrink(given, parts, int64(orig.VirtualTime/1000), int64(orig.FirstViolationTime/1000), func(c sched.Candidate) (bool, error) {
		o := opts
		o.Faults = make([]FaultEvent, 0, len(c.Faults))
		for _, f := range c.Faults {
			o.Faults = append(o.Faults, FaultEvent(f))
		}
		o.EndUS, o.Omit = c.EndUS, c.Omit
		r, err := Run(m, o)
		if err != nil {
			return false, err
		}
		ok := r.Verdict == Violated && slices.Contains(r.Violated, target)
		report(c, ok)
		if ok {
			sr.Shrunk = r
		}
		return ok, nil
	})
	if err != nil {
		return nil, err
	}
	sr.Tries, sr.Steps, sr.EndUS, sr.Omit = out.Tries, out.Steps, out.EndUS, out.Omit
	sr.Faults = []FaultEvent{}
	for _, f := range out.Faults {
		sr.Faults = append(sr.Faults, FaultEvent(f))
	}
	sr.Remains = remains(sched.Candidate{Faults: out.Faults, Omit: out.Omit, EndUS: out.EndUS}, parts)
	return sr, nil
}

// shrinkParts lists what a shrink of orig may remove besides its crashes:
// the model's seeded partitions, every node's clock fault when the model
// draws them, drops when it drops or duplicates datagrams, and each
// workload client's operations.
func shrinkParts(m *model.Model, orig *RunResult) (sched.Parts, error) {
	sp := specsOf(m)
	var p sched.Parts
	for _, ps := range sp.faults.Partition {
		if ps.Until != 0 || ps.Duration != "" { // as plan: seeded partitions only
			p.Partitions++
		}
	}
	if sp.clock.Any() {
		for i := 0; i < m.Nodes; i++ {
			p.ClockNodes = append(p.ClockNodes, i)
		}
	}
	p.Drops = sp.net.Drop > 0 || sp.net.Duplicate > 0
	for _, op := range orig.History {
		for len(p.Ops) <= op.Call.Client {
			p.Ops = append(p.Ops, 0)
		}
		p.Ops[op.Call.Client]++
	}
	return p, nil
}

// remains says, for people, what candidate c of a shrink keeps of parts:
// its crashes and restarts, partitions, clock faults, drops and workload
// operations.
func remains(c sched.Candidate, parts sched.Parts) string {
	n := map[sched.Kind]int{}
	for _, f := range c.Faults {
		n[f.Kind]++
	}
	var out []string
	out = append(out, plural(n[sched.Crash], "crash", "crashes"), plural(n[sched.Restart], "restart", "restarts"))
	if parts.Partitions > 0 {
		out = append(out, fmt.Sprintf("%d of %d partitions", parts.Partitions-len(c.Omit.Partitions), parts.Partitions))
	}
	if len(parts.ClockNodes) > 0 {
		out = append(out, fmt.Sprintf("clock faults on %d of %d nodes", len(parts.ClockNodes)-len(c.Omit.Clocks), len(parts.ClockNodes)))
	}
	if parts.Drops && !c.Omit.NoDrops {
		out = append(out, "drops")
	}
	if len(parts.Ops) > 0 {
		ops, all := 0, 0
		for cl, k := range parts.Ops {
			all += k
			if cl < len(c.Omit.Ops) && c.Omit.Ops[cl] >= 0 {
				k = min(k, c.Omit.Ops[cl])
			}
			ops += k
		}
		out = append(out, fmt.Sprintf("at most %d of %d operations", ops, all))
	}
	return strings.Join(out, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
