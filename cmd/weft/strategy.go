package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
)

// defaultRuns is how many executions pct and guided make when neither
// --runs nor --time bounds them.
const defaultRuns = 1000

// strategyFlags checks --strategy and the flags that belong to some
// strategies only.
func strategyFlags(strategy string, seed seedFlag, pctDepth, runs, jobs int, compare, checkpoints bool) error {
	s, err := sched.ParseStrategy(strategy)
	if err != nil {
		return fmt.Errorf("--strategy: %v", err)
	}
	random := s == sched.PCT || s == sched.Guided
	switch {
	case strategy == "":
		return fmt.Errorf("--strategy: want dfs, bfs, pct or guided")
	case pctDepth != 0 && s != sched.PCT:
		return fmt.Errorf("--pct-depth applies to --strategy pct, not %s", s)
	case (seed.set || runs != 0) && !random:
		return fmt.Errorf("--seed and --runs apply to --strategy pct and guided; %s is exhaustive and draws nothing", s)
	case s != sched.DFS && jobs > 1:
		return fmt.Errorf("-j applies to --strategy dfs, not %s", s)
	case s != sched.DFS && compare:
		return fmt.Errorf("--compare applies to --strategy dfs, not %s", s)
	case s != sched.DFS && checkpoints:
		return fmt.Errorf("--checkpoints applies to --strategy dfs, not %s", s)
	}
	return nil
}

// strategyBound names a strategy other than dfs, and its seed, in the
// bound a check states.
func strategyBound(res *mcsdk.CheckResult) string {
	switch res.Strategy {
	case "pct":
		return fmt.Sprintf(", strategy pct, seed %d, pct-depth %d", res.Seed, res.PCTDepth)
	case "guided":
		return fmt.Sprintf(", strategy guided, seed %d", res.Seed)
	case "bfs":
		return ", strategy bfs"
	}
	return ""
}

// printStrategy says what a strategy's result claims: pct's bound,
// guided's coverage map, bfs's shortest path.
func printStrategy(res *mcsdk.CheckResult) {
	switch res.Strategy {
	case "pct":
		fmt.Printf("pct: %d executions, n = %d chains at most, k = %d steps: %s\n", res.Executions, res.Chains, res.Depth, res.Bound)
	case "guided":
		fmt.Printf("guided: %d seeded runs, %d abstract states reached, %d runs kept to fork from (a heuristic: no coverage claim)\n", res.Executions, res.Abstract, res.Corpus)
	}
}

// printSampled is the summary of a pct or guided search that found no
// violation: what it ran, that it claims no coverage, and pct's bound.
// It reports whether res was one.
func printSampled(res *mcsdk.CheckResult, budget time.Duration) bool {
	if res.Strategy != "pct" && res.Strategy != "guided" {
		return false
	}
	why := fmt.Sprintf("%d executions run", res.Executions)
	switch res.StoppedBy {
	case "time":
		why = "time budget of " + budget.String() + " reached"
	case "interrupt":
		why = "interrupted"
	}
	of := fmt.Sprintf("executions of up to %d actions", res.Depth)
	if res.Strategy == "guided" {
		of = fmt.Sprintf("seeded runs of up to %d actions", res.Depth)
	}
	fmt.Printf("%s: no violation found in %d %s; %s claims no coverage (exhaustive: --strategy dfs or bfs)\n", why, res.Executions, of, res.Strategy)
	fmt.Printf("explored %d distinct states, %d executions, %d replays in %.2fs (%.0f states/s)\n",
		res.States, res.Executions, res.Replays, res.Duration.Seconds(), res.StatesPerSecond())
	printStrategy(res)
	return true
}

// seedOr1 is --seed's value, 1 when it is not given.
func seedOr1(s seedFlag) uint64 {
	if !s.set {
		return 1
	}
	return s.v
}

// saveViolation saves a check's violation where --save says (*save,
// defaulted from the model's name): a path to re-execute with weft check
// --replay, or, for guided's seeded run, a recording for weft replay.
func saveViolation(save *string, modelArg string, m *model.Model, res *mcsdk.CheckResult) error {
	base := strings.TrimSuffix(baseName(modelArg), ".model") + "-" + res.Variant
	if res.Run == nil {
		if *save == "" {
			*save = base + ".weftpath"
		}
		return mcsdk.SavePath(*save, m, res)
	}
	if *save == "" {
		*save = base + ".weftlog"
	}
	if *save == os.DevNull {
		return nil // WriteFile renames a temporary file into place
	}
	if err := res.Run.Recording(m).WriteFile(*save); err != nil {
		return fmt.Errorf("saving the violating run: %v", err)
	}
	return nil
}

// printGuidedRun says which seeded run of the guided strategy violated
// the invariant, and where it is saved.
func printGuidedRun(res *mcsdk.CheckResult, saved string) {
	r := res.Run
	fmt.Printf("  in execution %d, a seeded run of %d actions (%s); first violated after action %d, at %s virtual time\n",
		res.Executions, r.Steps, mcsdk.DescribeLineage(*res.Lineage), r.FirstViolationStep, r.FirstViolationTime)
	if saved != "" {
		fmt.Printf("  saved to %s (re-execute: weft replay %s; trace: weft trace %s)\n", saved, saved, saved)
	}
}
