package mcsdk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// stopWith returns a Stop that is true once ctx is cancelled or stop is
// true; nil when neither is set.
func stopWith(ctx context.Context, stop func() bool) func() bool {
	if ctx == nil {
		return stop
	}
	return func() bool { return ctx.Err() != nil || stop != nil && stop() }
}

// describe renders an action for people, naming a workload's calls.
func (t *target) describe(w *supervisor.World, a sched.Action) string {
	switch {
	case a.Kind == sched.Expire:
		return fmt.Sprintf("client c%d gives up waiting (indeterminate)", a.Req)
	case a.Kind == sched.Client:
		if c, _, ok := t.call(a.Req); ok {
			return fmt.Sprintf("client c%d → n%d %s %q", c.Client, c.Node, c, t.m.Workload.RequestOf(c))
		}
	}
	return w.Describe(a)
}

// Abstraction selects how states are identified for merging.
type Abstraction string

// Abstractions.
const (
	// Memory hashes every node's writable memory, parked call, the network
	// and the environment: two states merge only if no node can later tell
	// them apart. The default.
	Memory Abstraction = "memory"
	// Globals hashes only the declared globals, the network and the
	// environment: coarser, faster, and unsound when undeclared memory
	// matters. Reported in the result.
	Globals Abstraction = "globals"
)

// CheckOptions configures Check. The zero value checks the first variant
// to the model's depth with the sound abstraction.
type CheckOptions struct {
	Variant     string
	Depth       int // 0: the model's [environment] depth
	Abstraction Abstraction
	Registry    model.Registry // Go invariants referenced as "go:NAME"
	Watchdog    time.Duration  // 0: 10 s of wall time per node step
	// Preconditions are Go fault preconditions ("go:NAME"); a crash that
	// breaks the model's precondition is not explored.
	Preconditions map[string]FaultPrecondition
	// FirstFound reports the first violation found instead of searching
	// below its length for a shortest one.
	FirstFound bool
	// Stop, if set, is asked before each expansion; true ends the search
	// early, and the result says Interrupted.
	Stop func() bool
	// Context, if set, stops the search as Stop does once it is
	// cancelled (in a notebook: display.Context(), which an interrupt
	// cancels).
	Context context.Context
	// Progress, if set, is called now and then with the counts so far.
	Progress func(states, executions int)
	// Researching, if set, is called before each search below a
	// violation's length for a shorter one, with that search's bound (the
	// violation's length less one): the search that proves a path a
	// shortest one can be the longest of a check.
	Researching func(bound int)
	// Visit, if set, is called at every state the search judges, with
	// its verdict state (the model's [state] values and ghost logs,
	// model.State.Summary) and whether a run ends there (nothing is left
	// to do: runEnds); calls may come from several workers at once, one
	// at a time. Tests compare these sets across schedules.
	Visit func(state string, ended bool)
	// Reduction is the partial-order reduction: "" or "dpor" (the
	// default), or "none".
	Reduction string
	// Workers, above 1, explores in parallel with that many worlds at a
	// time (sched.Explorer.Workers); the verdict and the reported path
	// are the same as with one.
	Workers int
	// Threads is how each node's threads are scheduled: "" or "explore"
	// (every interleaving at syscalls is explored, the default) or
	// "fixed" (round-robin at syscalls, one schedule per node: the check
	// then covers the world's choices only, a bound its result states) or
	// "visible" (threads switched only at visible calls: complete for
	// programs whose threads synchronise through those calls, a stated
	// bound otherwise; supervisor.ThreadsVisible, reduce.go).
	Threads string
	// Checkpoints, above 0, continues sibling branches from copies of the
	// world (at most this many alive at once) instead of replaying their
	// prefix (sched.Explorer.Checkpoints; DefaultCheckpoints is a good
	// bound); worlds that cannot be copied are replayed. 0: replay only.
	Checkpoints int
	// CheckpointMem, above 0, bounds the memory live checkpoints hold
	// alone, in bytes per worker, closing the deepest first
	// (sched.Explorer.CheckpointMem; DefaultCheckpointMem); 0: no bound.
	CheckpointMem int64
	// Deepen searches with bound 1, 2, ... up to the depth, each search
	// complete (sched.Explorer.Deepen), so that a search stopped early
	// (Stop, Context: an interrupt or a time budget) still says which
	// depth it fully covered (CheckResult.Covered); the first violation
	// found is then a shortest one. The counts add the shallower
	// searches' work.
	Deepen bool
	// Deepened, if set, is called with Deepen each time a depth is fully
	// covered, with that search's distinct states and executions.
	Deepened func(covered, states, executions int)
	// Host is how this host runs nodes (Host).
	Host Host
	// Strategy chooses the executions: "" or "dfs" (exhaustive
	// depth-first, the default), "bfs" (exhaustive breadth-first, without
	// reduction), "pct" or "guided" (random and heuristic: no coverage
	// claim; they stop at a violation, after Runs executions or when
	// stopped); see sched.Strategy and strategy.go.
	Strategy string
	// Seed is what pct and guided draw from: the same seed, the same
	// executions.
	Seed uint64
	// PCTDepth is pct's bug depth d (d-1 priority change points per
	// execution); 0: DefaultPCTDepth.
	PCTDepth int
	// Runs bounds pct's and guided's executions; 0: until stopped.
	Runs int
	_    struct{}
}

// CheckResult is the outcome of an exhaustive check.
type CheckResult struct {
	Model      string
	Variant    string
	Binary     Binary
	Verdict    Verdict
	Invariants []string // the invariants checked, in model order
	// Final is true under [campaign] check = "final": the invariants are
	// judged only in the states where a run ends (nothing left enabled,
	// as weft run judges a run's last state); FinalStates counts those
	// the search reached.
	Final       bool
	FinalStates int
	States      int // distinct states
	Executions  int // paths explored to a leaf, a depth bound or a known state
	Replays     int // worlds relaunched to replay a prefix
	// ReplayedSteps counts the actions those replays applied again.
	ReplayedSteps int
	Expansions    int // states expanded, counting re-expansions with more depth left
	Researches    int // searches below a violation's length for a shorter one
	// SleepBlocked counts the executions the reduction pruned (every
	// enabled action asleep: covered by an equivalent order).
	SleepBlocked int
	Reduction    string // "dpor" or "none"
	Workers      int    // parallel workers (1 or 0: sequential)
	// Fallbacks counts planned reversals a state did not offer, expanded
	// fully instead (safe; nonzero means origins or footprints were
	// imprecise somewhere).
	Fallbacks int
	Shortest  bool // the violating path is a shortest one (no violation within one action less)
	// Checkpoints counts the checkpoints (CheckOptions.Checkpoints),
	// summed over the searches.
	Checkpoints sched.CheckpointStats
	// Interrupted: Stop ended the search; Verdict is then Violated if a
	// violation was found, else Error-free and empty: nothing is claimed
	// beyond what was explored. With a violation, it was the search for a
	// shorter one that was stopped: the path is not known to be a
	// shortest one (Shortest is false).
	Interrupted bool
	// StoppedBy says what ended an interrupted search: "time" (the
	// Context's deadline: a time budget) or "interrupt".
	StoppedBy string `json:",omitempty"`
	// Covered is the depth fully covered: every state within that many
	// actions was checked (with the reduction: the observed states of
	// every execution that long); Depth when the search completed, -1
	// when not even the initial state was (sched.Result.Covered).
	Covered int
	// Reached is the deepest depth at which a new state was met: with
	// Covered below it, that depth was partially covered.
	Reached     int
	Deepened    bool  // CheckOptions.Deepen
	Depth       int   // the depth bound
	ByDepth     []int // distinct states first reached at each depth
	Duration    time.Duration
	Abstraction Abstraction
	Threads     string     // "explore", "fixed" or "visible" (CheckOptions.Threads)
	Violation   *Violation // when Verdict is Violated
	Failure     string     // when Verdict is Error
	_           struct{}

	// Strategy is the search strategy (CheckOptions.Strategy); Seed,
	// PCTDepth and Bound are pct's and guided's (Bound: pct's probability
	// bound); Chains is pct's n, Abstract and Corpus guided's abstract
	// states reached and prefixes kept.
	Strategy string `json:",omitempty"`
	Seed     uint64 `json:",omitempty"`
	PCTDepth int    `json:",omitempty"`
	Bound    string `json:",omitempty"`
	Chains   int    `json:",omitempty"`
	Abstract int    `json:",omitempty"`
	Corpus   int    `json:",omitempty"`

	// Run is, with strategy guided, the seeded run that violated an
	// invariant (or ended in an error): saved as a recording, weft replay
	// re-executes it. Lineage says which run it is: its seed and forks.
	Run     *RunResult     `json:"-"`
	Lineage *sched.Lineage `json:",omitempty"`

	// PerfectClocks: the model has clock faults ([faults] clock_*), which
	// only seeded runs apply; every clock of this check was perfect.
	PerfectClocks bool `json:",omitempty"`
}

// StatesPerSecond is the exploration rate.
func (r *CheckResult) StatesPerSecond() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.States) / r.Duration.Seconds()
}

// Check explores every order of the enabled actions of m's variant up to
// the depth bound with the scheduler's explorer (sched.Explorer):
// depth-first, with stateless replay (a sibling branch relaunches the
// nodes and replays the prefix), and canonical state hashing that expands
// a state again only when it is met with more depth left. A violation is
// then searched for again below its length, so the path reported is a
// shortest one (unless FirstFound). An error is returned only for problems with the model or the
// tool; a target's misbehaviour is a verdict.
func Check(m *model.Model, opts CheckOptions) (*CheckResult, error) {
	if err := opts.normalize(m); err != nil {
		return nil, err
	}
	threads, err := threadSchedule(opts.Threads)
	if err != nil {
		return nil, err
	}
	strategy, err := checkStrategy(&opts)
	if err != nil {
		return nil, err
	}
	depth := opts.Depth
	if depth <= 0 {
		depth = m.Depth
	}
	v, err := m.Variant(opts.Variant)
	if err != nil {
		return nil, err
	}
	sp := specsOf(m)
	if strategy == sched.Guided {
		res := &CheckResult{Model: m.Path, Variant: v.Name, Abstraction: opts.Abstraction}
		res.Invariants = invariantNames(m)
		res.describeStrategy(opts)
		return checkGuided(m, opts, res)
	}
	t, err := newTarget(m, v.Name, 0, opts.Watchdog, opts.Host)
	if err != nil {
		return nil, err
	}
	opts.Host.apply(&t.cfg)
	t.cfg.Bag = sp.net.Order == "bag"
	t.checkRunDirs(sp)
	t.cfg.LoseUnsynced = sp.faults.LoseUnsynced
	t.cfg.Threads = threads
	res := &CheckResult{Model: m.Path, Variant: v.Name, Binary: t.bin, Depth: depth, Abstraction: opts.Abstraction, Reduction: opts.Reduction, Workers: opts.Workers,
		Threads: threadsName(threads), Deepened: opts.Deepen, Final: sp.campaign.Check == "final"}
	res.PerfectClocks = sp.clock.Any()
	res.Invariants = invariantNames(m)
	res.describeStrategy(opts)
	c := &checkRun{m: m, t: t, opts: opts, strategy: strategy, res: res, found: map[string]*Violation{}}
	c.x = t.explorer(sp, opts, depth)
	c.configure()
	start := time.Now()
	out, err := c.search()
	if err == nil {
		if out, err = c.canonical(out); err != nil {
			return res, err
		}
	}
	res.Duration = time.Since(start)
	return c.conclude(out, err)
}

// normalize checks the options a model does not decide and fills in
// their defaults: the model's checks bound, the abstraction and the
// reduction.
func (opts *CheckOptions) normalize(m *model.Model) error {
	if err := withChecks(m, opts.Host, &opts.Registry, &opts.Preconditions); err != nil {
		return err
	}
	if opts.Registry != nil {
		if err := m.Bind(opts.Registry); err != nil {
			return err
		}
	}
	if opts.Abstraction == "" {
		opts.Abstraction = Memory
	}
	if opts.Abstraction != Memory && opts.Abstraction != Globals {
		return fmt.Errorf("unknown abstraction %q (memory, globals)", opts.Abstraction)
	}
	if opts.Reduction == "" {
		opts.Reduction = string(sched.DPOR)
	}
	if r := sched.Reduction(opts.Reduction); r != sched.DPOR && r != sched.NoReduction {
		return fmt.Errorf("unknown reduction %q (dpor, none)", opts.Reduction)
	}
	return nil
}

// invariantNames are the model's invariants' names, in its order.
func invariantNames(m *model.Model) []string {
	var names []string
	for _, inv := range m.Invariants {
		names = append(names, inv.Name)
	}
	return names
}

// checkRun is one exhaustive or PCT check: its explorer, run once or
// more (the search for a shorter violation, the canonical path), and
// what those runs judged.
type checkRun struct {
	m        *model.Model
	t        *target
	opts     CheckOptions
	strategy sched.Strategy
	res      *CheckResult
	x        *sched.Explorer
	cps      sched.CheckpointStats
	ranAt    int // the bound the reported path was found with
	// found holds each violation judged, by its path: with -j N, or a
	// search run again, several are judged, and the one reported is the
	// one of the path reported (violationAt).
	mu    sync.Mutex
	found map[string]*Violation
}

// configure sets the explorer from the options and installs the judge
// of every state it reaches.
func (c *checkRun) configure() {
	x, opts := c.x, c.opts
	x.Stop = stopWith(opts.Context, opts.Stop)
	x.Reduction = sched.Reduction(opts.Reduction)
	x.Workers = opts.Workers
	x.Checkpoints, x.CheckpointMem = opts.Checkpoints, opts.CheckpointMem
	x.Deepen = opts.Deepen
	x.Strategy, x.Seed, x.PCTDepth, x.Runs = c.strategy, opts.Seed, opts.PCTDepth, opts.Runs
	if opts.Deepened != nil {
		x.Deepened = func(covered int, r sched.Result) { opts.Deepened(covered, r.States, r.Executions) }
	}
	x.Check = c.judge
}

// judge checks the invariants at a state the search reached (with a
// final check, only where the run ends), keeping the violation by path.
func (c *checkRun) judge(w sched.World, ob sched.Observation, path []sched.Action) (bool, error) {
	res := c.res
	if c.opts.Visit != nil {
		st := ob.Data.(observation).state.Summary(c.m)
		c.mu.Lock()
		c.opts.Visit(st, runEnds(w))
		c.mu.Unlock()
	}
	if res.Final && !runEnds(w) {
		return false, nil
	}
	v, err := c.t.checkInvariants(w.(checkWorld).World, ob.Data.(observation))
	c.mu.Lock()
	if res.Final {
		res.FinalStates++
	}
	if v != nil {
		c.found[pathKey(path)] = v
	}
	c.mu.Unlock()
	return v != nil, err
}

// run runs the explorer once with its current bound and workers.
func (c *checkRun) run() (sched.Result, error) {
	c.mu.Lock()
	c.res.FinalStates = 0 // the count of the last search
	c.mu.Unlock()
	r, err := c.x.Run()
	c.cps.Add(r.Checkpoint)
	return r, err
}

// search runs the check, then, with depth-first search, again below the
// first violation's length until none is found, so that the reported
// path is a shortest one within the abstraction. It records the bound
// the reported path was found with (c.ranAt).
func (c *checkRun) search() (sched.Result, error) {
	res, x, opts := c.res, c.x, c.opts
	out, err := c.run()
	c.ranAt = x.Depth
	x.Deepen = false
	if opts.Deepen {
		// Deepening found the violation with the bound at its length,
		// none being within one action less: a shortest one.
		c.ranAt, res.Shortest = len(out.Path), out.Violated
	}
	for err == nil && out.Violated && !out.Stopped && !opts.FirstFound && !opts.Deepen && c.strategy == sched.DFS && len(out.Path) > 1 {
		res.Researches++
		x.Depth = len(out.Path) - 1
		if opts.Researching != nil {
			opts.Researching(x.Depth)
		}
		shorter, e := c.run()
		if e != nil || !shorter.Violated || shorter.Stopped {
			// No shorter one: the path is a shortest one, unless the
			// search for one was stopped (interrupt, --time) before it
			// covered the bound: the check was then interrupted, with
			// the violation it found.
			res.Shortest = e == nil && !shorter.Stopped
			if shorter.Stopped {
				res.Interrupted, res.StoppedBy = true, stoppedBy(opts.Context)
			}
			break
		}
		out, c.ranAt = shorter, x.Depth
	}
	return out, err
}

// canonical makes the reported violating path independent of the bound
// the search ran with and of the workers' timing: it is the first one
// in the sequential depth-first order with the bound at its length.
func (c *checkRun) canonical(out sched.Result) (sched.Result, error) {
	opts, x := c.opts, c.x
	if !out.Violated || out.Stopped || c.res.Interrupted || opts.FirstFound || c.strategy != sched.DFS || (opts.Workers <= 1 && c.ranAt == len(out.Path)) {
		return out, nil
	}
	x.Workers, x.Depth = 1, len(out.Path)
	canon, e := c.run()
	switch {
	case e == nil && canon.Violated && !canon.Stopped:
		out.Path = canon.Path
	case e == nil && !canon.Stopped:
		// The sequential search is complete within the violating
		// path's length: missing it is weft's defect, not the model's.
		return out, fmt.Errorf("check: the sequential search with the bound at %d found no violation, where the search with %d workers and the bound at %d found one (%s)", len(out.Path), opts.Workers, c.ranAt, pathKey(out.Path))
	}
	return out, nil
}

// conclude fills the result's counts and its verdict from the last
// search's outcome.
func (c *checkRun) conclude(out sched.Result, err error) (*CheckResult, error) {
	res := c.res
	if out.Violated && len(out.Path) <= 1 {
		res.Shortest = true
	}
	res.States, res.Executions, res.Replays, res.ByDepth, res.Expansions = out.States, out.Executions, out.Replays, out.ByDepth, out.Expansions
	res.SleepBlocked, res.Fallbacks = out.SleepBlocked, out.Fallbacks
	res.Checkpoints, res.ReplayedSteps = c.cps, out.ReplayedSteps
	res.Covered, res.Reached = out.Covered, out.Reached
	res.strategyCounts(out, c.strategy)
	var f *supervisor.Failure
	switch {
	case out.Violated:
		v := c.found[pathKey(out.Path)]
		if v == nil {
			return res, fmt.Errorf("check: no violation was judged at the path the search reports (%s)", pathKey(out.Path))
		}
		res.Verdict, res.Violation = Violated, c.t.explain(v, out.Path)
	case errors.As(err, &f):
		res.Verdict, res.Failure = Error, f.Error()
	case err != nil:
		return res, err
	case out.Stopped:
		res.Interrupted = true // no verdict: the bound was not covered
		res.StoppedBy = stoppedBy(c.opts.Context)
	case c.strategy == sched.PCT || c.strategy == sched.Guided:
		res.Interrupted, res.StoppedBy = true, "runs" // no verdict: random executions claim no coverage
	default:
		res.Verdict = Holds
	}
	return res, nil
}

// stoppedBy names what stopped a search (CheckResult.StoppedBy): "time"
// once ctx's deadline passed, else "interrupt".
func stoppedBy(ctx context.Context) string {
	if ctx != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "time"
	}
	return "interrupt"
}

// runEnds reports whether a run ends in w's state: no node, message,
// timer or client has anything left to do (faults the search may still
// inject do not count: a run need not suffer them). Under [campaign]
// check = "final" only these states are judged, as weft run judges only
// a run's last state; a state cut off by the depth bound is not one.
func runEnds(w sched.World) bool { return len(w.Enabled()) == 0 }

// threadSchedule parses CheckOptions.Threads.
func threadSchedule(s string) (supervisor.ThreadSchedule, error) {
	switch s {
	case "", "explore":
		return supervisor.ThreadsExplore, nil
	case "fixed":
		return supervisor.ThreadsFixed, nil
	case "visible":
		return supervisor.ThreadsVisible, nil
	}
	return "", fmt.Errorf("unknown thread schedule %q (explore, fixed, visible)", s)
}

// threadsName is a schedule's name in results and saved paths.
func threadsName(s supervisor.ThreadSchedule) string {
	if s == supervisor.ThreadsExplore {
		return "explore"
	}
	return string(s)
}

// checkWorld is a supervised world as the scheduler sees it, hashed
// under one abstraction.
type checkWorld struct {
	*supervisor.World
	mode    supervisor.HashMode
	clients *workload.Clients // the workload's clients, or nil
	tr      *tracker          // origins and footprints for the reduction, or nil
	target  []int             // each client request's node
	t       *target           // the model: set-up requests before the workload's calls
}

func (w checkWorld) Hash(extra []byte) ([32]byte, error) {
	if w.clients != nil {
		extra = append(append([]byte(nil), extra...), w.clients.Bytes()...)
	}
	return w.World.Hash(w.mode, extra)
}

// Enabled is the world's actions with the workload's rules: a client
// invokes one operation at a time, choosing among the calls of its next
// slot (operation, value, node); a client waiting for a reply may give up
// on it (Expire: indeterminate) when it has operations left to retry
// with. Without operations left, giving up would change nothing the
// history can show: the operation stays unknown either way.
func (w checkWorld) Enabled() []sched.Action {
	acts := w.World.Enabled()
	if w.clients == nil {
		return acts
	}
	ok := map[int]bool{}
	base := w.t.reqBase()
	if w.t.setupAnswered(w.World) { // the workload starts after the set-up requests
		for _, r := range w.clients.Enabled() {
			ok[r+base] = true
		}
	}
	out := acts[:0]
	for _, a := range acts {
		if a.Kind != sched.Client || a.Req < base || ok[a.Req] {
			out = append(out, a)
		}
	}
	for c := 0; c < w.clients.Spec().Clients; c++ {
		if w.clients.Waiting(c) && w.clients.Next(c) < w.clients.Spec().Ops {
			out = append(out, sched.Action{Kind: sched.Expire, Req: c})
		}
	}
	return out
}

// Apply performs a through the one action path (stepper.apply), which
// keeps the clients' history (an invocation, an expiry: the world does
// not change, the replies that arrive), noting what it reached for the
// reduction. An exhaustive check has no latency: the clock moves only as
// the world's timers do.
func (w checkWorld) Apply(a sched.Action) error {
	if w.tr != nil {
		w.tr.touched = sched.Touched{Global: true}
		w.tr.before(w.World, a)
	}
	s := stepper{t: w.t, w: w.World, clients: w.clients}
	if _, err := s.apply(a, w.Now(), w.Steps()+1); err != nil || a.Kind == sched.Expire {
		return err
	}
	if w.tr != nil {
		w.tr.after(w.World)
	}
	return nil
}

// Origin is the step that sent a delivery's message (0 for the rest: the
// explorer finds when they became possible itself).
func (w checkWorld) Origin(a sched.Action) int {
	if w.tr == nil {
		return 0
	}
	return w.tr.origin(w.World, a)
}

// Touched is what the last Apply reached.
func (w checkWorld) Touched() sched.Touched {
	if w.tr == nil {
		return sched.Touched{Global: true}
	}
	return w.tr.touched
}

func (w checkWorld) Status(i int) sched.NodeStatus {
	st := w.World.Status(i)
	return sched.NodeStatus{Alive: st.Alive, Killed: st.Killed}
}

func (w checkWorld) Endpoints(a sched.Action) (int, int) {
	if a.Kind == sched.Client {
		if a.Req >= 0 && a.Req < len(w.target) {
			return -1, w.target[a.Req]
		}
		return -1, -1
	}
	net := w.Network()
	if a.Kind != sched.Deliver || a.Chan < 0 || a.Chan >= len(net.Channels) {
		return -1, -1
	}
	c := net.Channels[a.Chan]
	return c.FromNode, net.ReceiverNode(c)
}

func (w checkWorld) Failure() error {
	if f := w.World.Failure(); f != nil {
		return f
	}
	return nil
}

// explorer builds the scheduler's exhaustive search over t: faults from
// the model, observations through t, the abstraction in the hash.
func (t *target) explorer(sp *specs, opts CheckOptions, depth int) *sched.Explorer {
	mode := supervisor.HashMemory
	if opts.Abstraction == Globals {
		mode = supervisor.HashGlobals
	}
	x := &sched.Explorer{
		Start: func() (sched.World, error) {
			w, err := t.start()
			if err != nil {
				return nil, err
			}
			cw := checkWorld{World: w, mode: mode, clients: t.clients(), tr: &tracker{nodes: t.m.Nodes}, t: t}
			for _, r := range t.cfg.Client {
				cw.target = append(cw.target, r.Node)
			}
			cw.tr.after(w)
			return cw, nil
		},
		Depth: depth,
		// Every replayed prefix must reach the state it first reached:
		// a check whose replays drift says so (ErrNondeterministic)
		// rather than counting one state as many.
		VerifyReplays: true,
		Faults: sched.Faults{
			Nodes:   sp.faults.Nodes,
			Crashes: sp.faults.Crashes,
			Restart: sp.faults.Restart,
		},
	}
	for _, p := range sp.faults.Partition {
		x.Faults.Partitions = append(x.Faults.Partitions, sched.Cut(newSides(p).apart))
	}
	x.Observe = func(w sched.World, parent any) (sched.Observation, error) {
		var last *model.State
		if p, ok := parent.(observation); ok {
			last = &p.state
		}
		cw := w.(checkWorld)
		ob, err := t.observe(cw.World, last)
		if err != nil {
			return sched.Observation{}, err
		}
		ob = ob.withHistory(cw.clients)
		out := sched.Observation{Data: ob, Visible: ob.visible(cw.World, t.m.Nodes)}
		if mode == supervisor.HashGlobals {
			out.Extra = ob.globals
		}
		if sp.faults.Precondition != "" {
			out.CrashAllowed = func(n int) bool {
				ok, _ := sp.crashAllowed(opts.Preconditions, ob.state, n)
				return ok
			}
		}
		return out, nil
	}
	if opts.Progress != nil {
		x.Progress = func(s sched.Stats) { opts.Progress(s.States, s.Executions) }
	}
	return x
}

// pathKey is a path's text, the key of the violation judged at its end.
func pathKey(path []Action) string {
	var b strings.Builder
	for i, a := range path {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(a.String())
	}
	return b.String()
}

// explain re-executes path once to describe every step and collect node
// output for the report.
func (t *target) explain(v *Violation, path []Action) *Violation {
	v.Path = path
	w, err := t.start()
	if err != nil {
		return v
	}
	defer w.Close()
	cw := checkWorld{World: w, clients: t.clients(), t: t}
	for _, a := range path {
		v.Steps = append(v.Steps, t.describe(w, a))
		if cw.Apply(a) != nil {
			break
		}
	}
	for i := 0; i < t.m.Nodes; i++ {
		v.Output = append(v.Output, string(w.Output(i)))
	}
	return v
}
