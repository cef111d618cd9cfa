package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/gocheck"
	"github.com/weft-mc/weft/mcsdk/model"
)

func init() {
	var (
		variant     string
		depth       int
		abstraction string
		save        string
		asJSON      bool
		replay      string
		reduction   string
		compare     bool
		jobs        int
		threads     string
		checkpoints bool
		maxCP       int
		cpMem       byteSize
		budget      wallDuration
		strategy    string
		seed        seedFlag
		pctDepth    int
		runs        int
	)
	register(&command{
		name:    "check",
		usage:   "check MODEL [--variant V] [--depth N] [--abstraction memory|globals] [--reduction dpor|none] [--compare] [--threads explore|fixed|visible] [-j N] [--checkpoints [--max-checkpoints N] [--checkpoint-mem SIZE]] [--strategy dfs|bfs|pct|guided [--seed S] [--pct-depth d] [--runs N]] [--time D] [--save FILE] [--json]",
		summary: "explore every delivery order exhaustively; exit 0 holds (with --time: up to the depth covered), 1 violated, 2 error, 3 invalid, 130 interrupted",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&variant, "variant", "", "variant to check (default: the model's first)")
			boundedInt(fs, &depth, "depth", 1, maxDepth, " (leave it out for the model's environment.depth)", "depth bound in actions, `N` ≥ 1 (default: the model's environment.depth)")
			fs.StringVar(&abstraction, "abstraction", "memory", "state identity: memory (sound) or globals (coarse)")
			fs.StringVar(&save, "save", "", "where to save a violating path (default MODEL-VARIANT.weftpath in the current directory)")
			fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
			fs.StringVar(&replay, "replay", "", "re-execute a saved violating path (MODEL defaults to the one it names)")
			fs.StringVar(&reduction, "reduction", "dpor", "partial-order reduction: dpor (source sets and sleep sets) or none")
			fs.BoolVar(&compare, "compare", false, "check again without the reduction and print both counts and the reduction factor")
			fs.StringVar(&threads, "threads", "explore", "a node's threads: explore (every interleaving at syscalls is a choice), fixed (round-robin at syscalls, one schedule per node; the bound says so) or visible (a choice only among threads stopped in visible calls: network, futex, files, clocks...; private calls such as gettid run on; complete for threads that synchronise through visible calls, the bound says so)")
			boundedInt(fs, &jobs, "j", 1, maxJobs, "", "`N` ≥ 1 parallel workers, each with its own nodes (default 1); the verdict and path do not depend on it")
			fs.BoolVar(&checkpoints, "checkpoints", false, "continue sibling branches from a copy of the nodes (a fork of each parked process) instead of replaying the prefix; states that cannot be copied are replayed")
			maxCP = mcsdk.DefaultCheckpoints
			boundedInt(fs, &maxCP, "max-checkpoints", 1, maxJobs, "", "with --checkpoints, at most `N` ≥ 1 copies alive at once (per worker)")
			cpMem = byteSize{mcsdk.DefaultCheckpointMem}
			fs.Var(&cpMem, "checkpoint-mem", "with --checkpoints, the memory the copies may hold alone (their private dirty pages), `SIZE` per worker, e.g. 512M; over it the deepest are dropped and replayed")
			fs.StringVar(&strategy, "strategy", "dfs", "how executions are chosen: dfs (exhaustive depth-first, with --reduction, -j and --checkpoints), bfs (exhaustive breadth-first, without reduction: its first violation is a shortest one), pct (random priorities with d-1 change points, a probability bound per run) or guided (seeded runs as weft run draws them, half of them fresh seeds, half derived from runs that reached new abstract states: a run's draws kept up to a cut, then reseeded, or its fault schedule mutated; --depth does not apply, --save writes the violating run as a recording for weft replay; a heuristic); pct and guided claim no coverage")
			fs.Var(&seed, "seed", "with --strategy pct or guided, the seed `S` their executions derive from (default 1): the same seed, the same executions")
			boundedInt(fs, &pctDepth, "pct-depth", 1, maxDepth, "", "with --strategy pct, the bug depth `d` ≥ 1 it aims at: d-1 priority change points per run (default 2)")
			boundedInt(fs, &runs, "runs", 1, maxSeeds, "", "with --strategy pct or guided, at most `N` ≥ 1 executions (default 1000, or until --time)")
			fs.Var(&budget, "time", "stop after `D` of wall time (e.g. 30s, 5m) with a summary: the search deepens (depth 1, 2, ... each complete) so that it can say which depth it fully covered; exit 0 then means the invariants hold up to that depth, 1 a violation (a shortest one), 130 an interrupt first")
		},
		run: func(args []string) (int, error) {
			if replay != "" {
				return replayPath(replay, args, asJSON)
			}
			if len(args) != 1 {
				return exitUsage, fmt.Errorf("want exactly one MODEL, got %d arguments", len(args))
			}
			if err := strategyFlags(strategy, seed, pctDepth, runs, jobs, compare, checkpoints); err != nil {
				return exitUsage, err
			}
			if (strategy == "pct" || strategy == "guided") && runs == 0 && budget.d == 0 {
				runs = defaultRuns
			}
			m, err := loadModel(args[0])
			if err != nil {
				return exitUsage, err
			}
			ctx, done := stopOnInterrupt(budget.d)
			defer done()
			opts := mcsdk.CheckOptions{Variant: variant, Depth: depth, Abstraction: mcsdk.Abstraction(abstraction),
				Context: ctx, Progress: checkProgress(os.Stderr), Researching: researchProgress(os.Stderr), Reduction: reduction, Workers: jobs, Threads: threads, Host: host(),
				Strategy: strategy, Seed: seedOr1(seed), PCTDepth: pctDepth, Runs: runs}
			if checkpoints {
				opts.Checkpoints, opts.CheckpointMem = maxCP, cpMem.n
			}
			switch {
			case budget.d > 0 && strategy == "dfs":
				opts.Deepen, opts.Deepened = true, deepenProgress(os.Stderr)
			case strategy == "bfs":
				opts.Deepened = deepenProgress(os.Stderr) // breadth-first covers depth after depth
			}
			res, err := mcsdk.Check(m, opts)
			if err != nil {
				return exitUsage, err
			}
			var other *mcsdk.CheckResult
			if compare && !res.Interrupted {
				opts.Reduction = "none"
				if reduction == "none" {
					opts.Reduction = "dpor"
				}
				if other, err = mcsdk.Check(m, opts); err != nil {
					return exitUsage, err
				}
			}
			if res.Interrupted && res.Violation == nil {
				code := exitInterrupted
				if res.StoppedBy == "time" || res.StoppedBy == "runs" {
					code = exitHolds
				}
				if asJSON {
					return code, printJSON(res)
				}
				printStopped(res, budget.d)
				return code, nil
			}
			if res.Violation != nil {
				if err := saveViolation(&save, args[0], m, res); err != nil {
					return exitUsage, err
				}
			}
			if other != nil && !other.Interrupted && (other.Verdict != res.Verdict || (res.Violation != nil && len(other.Violation.Path) != len(res.Violation.Path))) {
				return exitUsage, fmt.Errorf("the reductions disagree: %s with %s, %s with %s", res.Verdict, res.Reduction, other.Verdict, other.Reduction)
			}
			if asJSON {
				if other != nil {
					return res.Verdict.ExitCode(), printJSON(map[string]*mcsdk.CheckResult{res.Reduction: res, other.Reduction: other})
				}
				return res.Verdict.ExitCode(), printJSON(res)
			}
			printCheck(res, save)
			if other != nil {
				printCompare(res, other)
			}
			return res.Verdict.ExitCode(), nil
		},
	})
}

// threadsBound names a fixed or reduced thread schedule in the bound a
// check states.
func threadsBound(res *mcsdk.CheckResult) string {
	switch res.Threads {
	case "fixed":
		return ", threads fixed"
	case "visible":
		return ", threads visible"
	}
	return ""
}

// threadsHolds qualifies a verdict found with a fixed or reduced thread
// schedule: what it covers, and for which programs.
func threadsHolds(res *mcsdk.CheckResult) string {
	switch res.Threads {
	case "fixed":
		return ", with each node's threads run round-robin at syscalls (one schedule, not every interleaving)"
	case "visible":
		return ", with threads switched only at visible calls (a thread's code around a private call such as gettid is one step: " +
			"complete for threads that synchronise only through intercepted calls, a bound for lock-free code such as a mutex's fast path or the Go runtime)"
	}
	return ""
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// printHeader names the check and its bounds (how: the settings).
func printHeader(res *mcsdk.CheckResult, how string) {
	if res.Strategy == "guided" { // seeded runs: no depth bound, no state abstraction
		fmt.Printf("weft check %s --variant %s (seeded runs of up to %d actions%s)\n", res.Model, res.Variant, res.Depth, how)
		return
	}
	fmt.Printf("weft check %s --variant %s (depth %d, abstraction %s%s)\n", res.Model, res.Variant, res.Depth, res.Abstraction, how)
}

func printCheck(res *mcsdk.CheckResult, saved string) {
	how := ""
	if res.Reduction != "" {
		how = ", reduction " + res.Reduction
	}
	how += threadsBound(res)
	if res.Workers > 1 {
		how += fmt.Sprintf(", %d workers", res.Workers)
	}
	if res.PerfectClocks {
		how += ", clocks: perfect"
	}
	if res.Deepened {
		how += ", deepened"
	}
	how += strategyBound(res)
	printHeader(res, how)
	if res.PerfectClocks {
		fmt.Println("the model's clock faults apply to seeded runs (weft run, weft campaign) only: every clock here was perfect")
	}
	printFinal(res)
	switch res.Verdict {
	case mcsdk.Holds:
		for _, inv := range res.Invariants {
			fmt.Printf("%s holds over %d distinct states, within depth %d under the %s abstraction%s\n", inv, res.States, res.Depth, res.Abstraction, threadsHolds(res))
		}
	case mcsdk.Violated:
		v := res.Violation
		fmt.Printf("violated: %s\n  %s\n", v.Invariant, strings.ReplaceAll(v.Why, "\n", "\n  "))
		if v.Summary != "" {
			fmt.Printf("  state: %s\n", v.Summary)
		}
		switch {
		case res.Run != nil:
		case res.Shortest && len(v.Path) > 1:
			fmt.Printf("  path (%d actions; shortest: no violation within %d):\n", len(v.Path), len(v.Path)-1)
		case res.Interrupted:
			fmt.Printf("  path (%d actions; not known to be a shortest: the search for a shorter one was %s):\n", len(v.Path), stoppedHow(res))
		default:
			fmt.Printf("  path (%d actions):\n", len(v.Path))
		}
		for i, s := range v.Steps {
			fmt.Printf("    %d. %s\n", i+1, s)
		}
		for i, out := range v.Output {
			for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
				if line != "" {
					fmt.Printf("  n%d| %s\n", i, line)
				}
			}
		}
		if res.Run != nil {
			printGuidedRun(res, saved)
			break
		}
		if saved != "" {
			fmt.Printf("  saved to %s (re-execute: weft check --replay %s)\n", saved, saved)
			if v.Linearizability != nil && saved != os.DevNull {
				fmt.Printf("  Porcupine's visualisation: %s\n", mcsdk.VisualisationPath(saved))
			}
		}
	case mcsdk.Error:
		fmt.Printf("error: %s\n", res.Failure)
	}
	fmt.Printf("explored %d distinct states, %d executions, %d replays in %.2fs (%.0f states/s)\n",
		res.States, res.Executions, res.Replays, res.Duration.Seconds(), res.StatesPerSecond())
	if res.Reduction == "dpor" {
		fmt.Printf("reduction dpor: %d executions pruned (sleep-set blocked)", res.SleepBlocked)
		if res.Fallbacks > 0 {
			fmt.Printf(", %d planned reversals not offered (those states fully expanded)", res.Fallbacks)
		}
		fmt.Println()
	}
	printCheckpoints(res)
	printStrategy(res)
}

// printCheckpoints says what the checkpoints did, and why states were
// replayed instead.
func printCheckpoints(res *mcsdk.CheckResult) {
	c := res.Checkpoints
	if c.Taken == 0 && c.Refused == 0 && c.Bounded == 0 && c.Failed == 0 && c.Evicted == 0 {
		return
	}
	if c.Taken > 0 {
		fmt.Printf("checkpoints: %d taken (at most %d alive), %d sibling branches continued from one instead of replayed", c.Taken, c.MaxLive, c.Restores)
		if c.Bounded > 0 {
			fmt.Printf("; %d states replayed at the bound", c.Bounded)
		}
		if c.Evicted > 0 {
			fmt.Printf("; %d dropped over the memory bound", c.Evicted)
		}
		if c.PeakMem > 0 {
			fmt.Printf("; at most %.1f MiB held", float64(c.PeakMem)/(1<<20))
		}
		fmt.Println()
	}
	if c.Refused > 0 {
		fmt.Printf("checkpoints: %d states replayed instead: %s\n", c.Refused, c.Why)
	}
	if c.Failed > 0 {
		fmt.Printf("checkpoints: %d restores failed, their states replayed instead (a weft bug; please report): %s\n", c.Failed, c.FailedWhy)
	}
}

// printCompare prints the counts of the same check with and without the
// reduction, side by side, and the reduction factor.
func printCompare(a, b *mcsdk.CheckResult) {
	if a.Reduction != "dpor" {
		a, b = b, a
	}
	fmt.Printf("%-10s %10s %12s %10s %10s %9s\n", "reduction", "states", "executions", "pruned", "replays", "seconds")
	for _, r := range []*mcsdk.CheckResult{a, b} {
		fmt.Printf("%-10s %10d %12d %10d %10d %9.2f\n", r.Reduction, r.States, r.Executions, r.SleepBlocked, r.Replays, r.Duration.Seconds())
	}
	if a.Executions+a.SleepBlocked > 0 {
		fmt.Printf("reduction factor: %.2f× fewer executions, %.2f× fewer replays, %.2f× less time\n",
			float64(b.Executions)/float64(a.Executions+a.SleepBlocked), ratio(b.Replays, a.Replays), b.Duration.Seconds()/max(a.Duration.Seconds(), 1e-9))
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func replayPath(file string, args []string, asJSON bool) (int, error) {
	p, err := mcsdk.LoadPath(file)
	if err != nil {
		return exitUsage, err
	}
	modelPath := p.Model
	if len(args) == 1 {
		modelPath = args[0]
	}
	m, err := model.Load(modelPath)
	if err != nil {
		return exitUsage, err
	}
	res, err := mcsdk.ReplayPathOn(m, p, nil, host())
	if err != nil {
		return exitViolated, fmt.Errorf("replay of %s diverged: %v", file, err)
	}
	if asJSON {
		return res.Verdict.ExitCode(), printJSON(res)
	}
	fmt.Printf("replayed %d actions from %s\n", len(p.Actions), file)
	res.Abstraction = "replay"
	printCheck(res, "")
	if res.Violation != nil && res.Violation.Invariant != p.Invariant {
		return exitViolated, fmt.Errorf("the saved path violated %s, the replay %s", p.Invariant, res.Violation.Invariant)
	}
	return res.Verdict.ExitCode(), nil
}

// printFinal says, under [campaign] check = "final", that only the states
// where a run ends were judged, and how many the search reached (none
// makes every "holds" empty).
func printFinal(res *mcsdk.CheckResult) {
	if !res.Final {
		return
	}
	none := ""
	if res.FinalStates == 0 {
		none = " (none: nothing was judged, the holds below are empty)"
	}
	fmt.Printf("check = final: invariants judged only where a run ends (nothing left enabled); end states reached: %d%s\n", res.FinalStates, none)
}

// printStopped is the summary of a search stopped by its time budget or
// an interrupt before it covered its bound, without a violation: the
// depth it fully covered (the invariants hold up to it), the deepest it
// reached, its counts and rate.
func printStopped(res *mcsdk.CheckResult, budget time.Duration) {
	how := threadsBound(res)
	if res.Reduction != "" {
		how = ", reduction " + res.Reduction + how
	}
	how += strategyBound(res)
	if budget > 0 {
		how += ", time " + budget.String()
	}
	printHeader(res, how)
	if printSampled(res, budget) {
		return
	}
	why := "interrupted"
	if res.StoppedBy == "time" {
		why = "time budget of " + budget.String() + " reached"
	}
	fmt.Printf("%s: no violation within what was explored; the depth bound %d was not covered\n", why, res.Depth)
	printFinal(res)
	switch {
	case res.Covered > 0:
		fmt.Printf("%s holds up to depth %d: every state within %d actions checked, under the %s abstraction%s\n",
			strings.Join(res.Invariants, ", "), res.Covered, res.Covered, res.Abstraction, threadsHolds(res))
	case res.Covered == 0:
		fmt.Printf("depth fully covered: 0 (the initial state only)%s\n", coverHint(res))
	default:
		fmt.Printf("depth fully covered: none (not even the initial state was checked)\n")
	}
	if res.Reached > res.Covered {
		fmt.Printf("deepest partially covered: depth %d (states met down to it, not every one within it)\n", res.Reached)
	}
	fmt.Printf("explored %d distinct states, %d executions, %d replays in %.2fs (%.0f states/s)\n",
		res.States, res.Executions, res.Replays, res.Duration.Seconds(), res.StatesPerSecond())
	if res.Deepened {
		fmt.Println("(the search deepened: depth 1, 2, ... each searched completely; executions and replays count every depth's search, states the largest one's)")
	}
}

// coverHint says why a search stopped with depth 0 covered could say no
// more.
func coverHint(res *mcsdk.CheckResult) string {
	if res.Deepened || res.Reached == 0 || res.Strategy == "bfs" {
		return ""
	}
	return "; an interrupted depth-first search covers no depth before it completes (with the reduction, a race found later may add a branch anywhere on its path): --time D deepens depth after depth instead"
}

// stopOnInterrupt returns a context that the first SIGINT or SIGTERM
// cancels, and that expires after budget if it is above 0: the search is
// asked before each expansion, so the nodes of the world in hand are not
// killed under it and no false verdict results. A second signal exits at
// once (the nodes die with weft).
func stopOnInterrupt(budget time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stop := cancel
	if budget > 0 {
		ctx, stop = context.WithTimeout(ctx, budget)
	}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
			fmt.Fprintln(os.Stderr, "weft check: interrupted: stopping the search (again to exit at once)")
		case <-quit:
			return
		}
		select {
		case <-ch:
			gocheck.Shutdown()
			os.Exit(exitInterrupted)
		case <-quit:
		}
	}()
	return ctx, func() { signal.Stop(ch); close(quit); stop(); cancel() }
}

// wallDuration is a flag of wall time (--time).
type wallDuration struct{ d time.Duration }

func (d *wallDuration) String() string {
	if d == nil || d.d == 0 {
		return ""
	}
	return d.d.String()
}

func (d *wallDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil || v <= 0 {
		return fmt.Errorf("want a positive duration with a unit, e.g. 30s or 5m")
	}
	d.d = v
	return nil
}

// deepenProgress reports each depth a deepening search fully covers.
func deepenProgress(w io.Writer) func(covered, states, executions int) {
	start := time.Now()
	return func(covered, states, executions int) {
		fmt.Fprintf(w, "weft check: depth %d fully covered: %d distinct states, %d executions (%.1fs)\n", covered, states, executions, time.Since(start).Seconds())
	}
}

// stoppedHow says what stopped an interrupted search, as the end of a
// sentence ("... was interrupted").
func stoppedHow(res *mcsdk.CheckResult) string {
	if res.StoppedBy == "time" {
		return "stopped by the time budget"
	}
	return "interrupted"
}

// researchProgress says on w when a check searches below the violation
// it found for a shorter one: that search proves the path a shortest one,
// and can take longer than finding it.
func researchProgress(w io.Writer) func(bound int) {
	return func(bound int) {
		fmt.Fprintf(w, "weft check: violation found after %d actions; searching within %d for a shorter one (interrupt to keep this one, not known to be a shortest)\n", bound+1, bound)
	}
}

// checkProgress reports the search's counts on w at most every two
// seconds: long explorations show they are moving.
func checkProgress(w io.Writer) func(states, executions int) {
	start, last := time.Now(), time.Now()
	return func(states, executions int) {
		if time.Since(last) < 2*time.Second {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "weft check: %d distinct states, %d executions, %.0f states/s\n", states, executions, float64(states)/time.Since(start).Seconds())
	}
}
