package mcsdk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

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
	// Progress, if set, is called now and then with the counts so far.
	Progress func(states, executions int)
	_        struct{}
}

// CheckResult is the outcome of an exhaustive check.
type CheckResult struct {
	Model       string
	Variant     string
	Binary      Binary
	Verdict     Verdict
	Invariants  []string // the invariants checked, in model order
	States      int      // distinct states
	Executions  int      // paths explored to a leaf, a depth bound or a known state
	Replays     int      // worlds relaunched to replay a prefix
	Depth       int      // the depth bound
	ByDepth     []int    // distinct states first reached at each depth
	Duration    time.Duration
	Abstraction Abstraction
	Violation   *Violation // when Verdict is Violated
	Failure     string     // when Verdict is Error
	_           struct{}
}

// StatesPerSecond is the exploration rate.
func (r *CheckResult) StatesPerSecond() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.States) / r.Duration.Seconds()
}

// Check explores every order of the enabled actions of m's variant up to
// the depth bound: depth-first, with stateless replay (a sibling branch
// relaunches the nodes and replays the prefix), and canonical state hashing
// so that each distinct state is expanded once. It stops at the first
// violation. An error is returned only for problems with the model or the
// tool; a target's misbehaviour is a verdict.
func Check(m *model.Model, opts CheckOptions) (*CheckResult, error) {
	if opts.Registry != nil {
		if err := m.Bind(opts.Registry); err != nil {
			return nil, err
		}
	}
	if opts.Abstraction == "" {
		opts.Abstraction = Memory
	}
	if opts.Abstraction != Memory && opts.Abstraction != Globals {
		return nil, fmt.Errorf("unknown abstraction %q (memory, globals)", opts.Abstraction)
	}
	depth := opts.Depth
	if depth <= 0 {
		depth = m.Depth
	}
	v, err := m.Variant(opts.Variant)
	if err != nil {
		return nil, err
	}
	sp, err := readSpecs(m)
	if err != nil {
		return nil, err
	}
	t, err := newTarget(m, v.Name, 0, opts.Watchdog)
	if err != nil {
		return nil, err
	}
	t.cfg.Bag = sp.net.Order == "bag"
	t.cfg.DataDirs = sp.faults.Restart
	t.cfg.LoseUnsynced = sp.faults.LoseUnsynced
	x := &explorer{t: t, opts: opts, depth: depth, seen: map[[32]byte]int{}, faults: sp.faults, sp: sp}
	for _, p := range sp.faults.Partition {
		x.sides = append(x.sides, newSides(p))
	}
	res := &CheckResult{Model: m.Path, Variant: v.Name, Binary: t.bin, Depth: depth, Abstraction: opts.Abstraction}
	for _, inv := range m.Invariants {
		res.Invariants = append(res.Invariants, inv.Name)
	}
	start := time.Now()
	w, err := t.start()
	if err == nil {
		err = x.visit(w, nil, nil)
	}
	res.Duration = time.Since(start)
	res.States, res.Executions, res.Replays, res.ByDepth = x.states, x.executions, x.replays, x.byDepth
	var f *supervisor.Failure
	switch {
	case x.violation != nil:
		res.Verdict, res.Violation = Violated, x.violation
	case errors.As(err, &f):
		res.Verdict, res.Failure = Error, f.Error()
	case err != nil:
		return res, err
	default:
		res.Verdict = Holds
	}
	return res, nil
}

// explorer holds the state of one exhaustive search.
type explorer struct {
	t          *target
	opts       CheckOptions
	depth      int
	seen       map[[32]byte]int // each expanded state's largest remaining depth
	states     int
	executions int
	replays    int
	byDepth    []int
	violation  *Violation
	faults     FaultSpec
	sp         *specs
	sides      []sides // of each partition in faults
}

// enabled lists the world's actions plus the faults the model allows:
// a crash of an eligible live node while the crash budget lasts, and a
// restart of a crashed node when restarts are on.
func (x *explorer) enabled(w *supervisor.World, path []Action, s model.State) []Action {
	acts := w.Enabled()
	crashes := x.crashesOn(path)
	// Partitions: each may begin once and heal once, at any point; while
	// one is active, messages across it wait (deliveries are not enabled).
	active := x.activePartitions(path)
	if len(active) > 0 {
		kept := acts[:0]
		for _, a := range acts {
			if a.Kind == supervisor.Deliver && x.cut(w, a, active) {
				continue
			}
			kept = append(kept, a)
		}
		acts = kept
	}
	for k := range x.faults.Partition {
		switch state := x.partitionState(path, k); state {
		case 0:
			acts = append(acts, Action{Kind: supervisor.Partition, Req: k})
		case 1:
			acts = append(acts, Action{Kind: supervisor.Heal, Req: k})
		}
	}
	for _, n := range x.faults.Nodes {
		st := w.Status(n)
		switch {
		case st.Alive && crashes < x.faults.Crashes:
			// A crash the fault precondition forbids is not a legal fault.
			if ok, _ := x.sp.crashAllowed(x.opts.Preconditions, s, n); ok {
				acts = append(acts, Action{Kind: supervisor.Crash, Node: n})
			}
		case st.Killed && x.faults.Restart:
			acts = append(acts, Action{Kind: supervisor.Restart, Node: n})
		}
	}
	return acts
}

// crashesOn counts the crashes on path: the part of the crash budget used.
func (x *explorer) crashesOn(path []Action) int {
	n := 0
	for _, a := range path {
		if a.Kind == supervisor.Crash {
			n++
		}
	}
	return n
}

// partitionState is 0 before partition k began on path, 1 while active,
// 2 after it healed.
func (x *explorer) partitionState(path []Action, k int) int {
	state := 0
	for _, a := range path {
		if a.Req == k && (a.Kind == supervisor.Partition || a.Kind == supervisor.Heal) {
			state++
		}
	}
	return state
}

// activePartitions lists the partitions active after path.
func (x *explorer) activePartitions(path []Action) []int {
	var out []int
	for k := range x.faults.Partition {
		if x.partitionState(path, k) == 1 {
			out = append(out, k)
		}
	}
	return out
}

// cut reports whether delivery a crosses an active partition.
func (x *explorer) cut(w *supervisor.World, a Action, active []int) bool {
	c := w.Network().Channels[a.Chan]
	from, to := c.FromNode, w.Network().ReceiverNode(c)
	for _, k := range active {
		if x.sides[k].apart(from, to) {
			return true
		}
	}
	return false
}

// errStop unwinds the search after a violation.
var errStop = errors.New("stop")

// visit expands the state of world w, reached by path. It owns w: w is
// closed, or handed to the last child, before visit returns.
func (x *explorer) visit(w *supervisor.World, path []Action, last *model.State) error {
	if f := w.Failure(); f != nil {
		w.Close()
		return f
	}
	ob, err := x.t.observe(w, last)
	if err != nil {
		w.Close()
		return err
	}
	mode, extra := supervisor.HashMemory, []byte(nil)
	if x.opts.Abstraction == Globals {
		mode, extra = supervisor.HashGlobals, ob.globals
	}
	// What the enabled faults depend on besides the world: each
	// partition's state and the crash budget used.
	for k := range x.faults.Partition {
		extra = append(extra, byte(x.partitionState(path, k)))
	}
	extra = binary.LittleEndian.AppendUint64(extra, uint64(x.crashesOn(path)))
	h, err := w.Hash(mode, extra)
	if err != nil {
		w.Close()
		return err
	}
	// A state is expanded again when it is reached with more depth left
	// than it had before: pruning it would hide what lies beyond the
	// earlier, shallower budget (complete bounded search).
	left := x.depth - len(path)
	if done, ok := x.seen[h]; ok && done >= left {
		x.executions++
		w.Close()
		return nil
	} else if !ok {
		x.states++
		for len(x.byDepth) <= len(path) {
			x.byDepth = append(x.byDepth, 0)
		}
		x.byDepth[len(path)]++
	}
	x.seen[h] = left
	if x.opts.Progress != nil && x.states%64 == 0 {
		x.opts.Progress(x.states, x.executions)
	}
	v, err := x.t.checkInvariants(w, ob)
	if err != nil {
		w.Close()
		return err
	}
	if v != nil {
		x.violation = x.explain(v, path)
		w.Close()
		return errStop
	}
	acts := x.enabled(w, path, ob.state)
	if len(path) >= x.depth || len(acts) == 0 {
		x.executions++
		w.Close()
		return nil
	}
	for i, a := range acts {
		child := w
		if i < len(acts)-1 {
			x.replays++
			if child, err = x.t.replay(path); err != nil {
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
		err := x.visit(child, append(path[:len(path):len(path)], a), &ob.state)
		if err != nil {
			if child != w {
				w.Close()
			}
			if err == errStop {
				return errStop
			}
			return err
		}
	}
	return nil
}

// explain re-executes path once to describe every step and collect node
// output for the report.
func (x *explorer) explain(v *Violation, path []Action) *Violation {
	v.Path = path
	w, err := x.t.start()
	if err != nil {
		return v
	}
	defer w.Close()
	for _, a := range path {
		v.Steps = append(v.Steps, w.Describe(a))
		if w.Apply(a) != nil {
			break
		}
	}
	for i := 0; i < x.t.m.Nodes; i++ {
		v.Output = append(v.Output, string(w.Output(i)))
	}
	return v
}
