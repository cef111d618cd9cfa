package mcsdk

import (
	"fmt"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// DefaultPCTDepth is pct's bug depth when CheckOptions.PCTDepth is 0:
// two ordering constraints (one change point), enough for a message race
// between two nodes, cheap in the bound's k^(d-1).
const DefaultPCTDepth = 2

// checkStrategy parses opts.Strategy, fills its defaults and refuses the
// options only dfs has.
func checkStrategy(opts *CheckOptions) (sched.Strategy, error) {
	s, err := sched.ParseStrategy(opts.Strategy)
	if err != nil {
		return "", err
	}
	opts.Strategy = string(s)
	if s == sched.DFS {
		return s, nil
	}
	if opts.Workers > 1 {
		return "", fmt.Errorf("parallel workers (-j %d) need strategy dfs, not %s", opts.Workers, s)
	}
	opts.Deepen = false // bfs covers depth after depth by itself; pct and guided cover nothing
	opts.Checkpoints = 0
	opts.Reduction = ""
	if s == sched.BFS {
		opts.Reduction = string(sched.NoReduction)
	}
	if s == sched.PCT && opts.PCTDepth <= 0 {
		opts.PCTDepth = DefaultPCTDepth
	}
	return s, nil
}

// describeStrategy records the strategy and its settings in r.
func (r *CheckResult) describeStrategy(opts CheckOptions) {
	r.Strategy, r.Reduction = opts.Strategy, opts.Reduction
	switch sched.Strategy(opts.Strategy) {
	case sched.PCT:
		r.Seed, r.PCTDepth = opts.Seed, opts.PCTDepth
	case sched.Guided:
		r.Seed = opts.Seed
	}
}

// strategyCounts copies what the strategy counted; for pct, its bound
// with the chains met (n) and the depth bound (k).
func (r *CheckResult) strategyCounts(out sched.Result, s sched.Strategy) {
	r.Chains, r.Abstract, r.Corpus = out.Chains, out.Abstract, out.Corpus
	switch s {
	case sched.BFS:
		r.Shortest = out.Violated // breadth-first: nothing shorter was left
	case sched.PCT:
		r.Bound = sched.PCTBound(max(out.Chains, 1), max(r.Depth, 1), r.PCTDepth)
	}
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}
