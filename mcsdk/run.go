package mcsdk

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/supervisor"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// FaultPrecondition decides whether node may crash in state s; why says
// what the crash would break.
type FaultPrecondition func(s model.State, node int) (ok bool, why string)

// RunOptions configures one seeded run.
type RunOptions struct {
	Variant       string
	Seed          uint64
	Registry      model.Registry               // Go invariants ("go:NAME")
	Preconditions map[string]FaultPrecondition // Go fault preconditions ("go:NAME")
	Watchdog      time.Duration
	// OnOutput, if set, receives node output as it is written.
	OnOutput func(node int, data []byte)
	// Build, if set, replaces the binary for the variant (used by
	// campaigns, which build once).
	Build *Binary
	// Faults, if non-nil, replaces the seed's fault schedule (shrinking).
	Faults []FaultEvent
	// EndUS, if positive, ends the run at that virtual time (shrinking).
	EndUS int64
	// Replay, if set, applies these choices instead of the scheduler's.
	Replay []Choice
	// prep, set by Campaign, holds what every run of a model shares.
	prep *prepared
	_    struct{}
}

// Param is one parameter of a run: from the model, or drawn from the seed.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// RunResult is the outcome of one seeded run.
type RunResult struct {
	Model    string
	Variant  string
	Seed     uint64
	Binary   Binary
	Verdict  Verdict
	Violated []string // required invariants that decide the verdict
	Useful   []string // other invariants failing in the final state
	// FirstViolation is the first quiescent point at which a required
	// invariant failed (Step -1 if never).
	FirstViolationStep int
	FirstViolationTime time.Duration // virtual time since the start
	FirstViolation     *Violation
	Steps              int
	DistinctStates     int // distinct observed states (declared globals and liveness)
	VirtualTime        time.Duration
	Wall               time.Duration
	Detail             string // why the run is invalid or an error
	Params             []Param
	Faults             []FaultEvent // the fault schedule the run used
	Choices            []Choice     // every action applied, for replay
	Events             []Event      // the timeline, for recordings and traces
	Final              model.State
	endUS              int64 // an overridden end, recorded for replay
}

// Event is one entry of a run's timeline: an action (deliver, timer,
// crash, restart, client), a change of a declared global (state), or the
// fault that made the run invalid. Time is µs since the start.
type Event = weftlog.Event

// Choice is one action the scheduler applied, at a virtual time.
type Choice = weftlog.Choice

// FaultEvent is one scheduled fault of a seeded run.
type FaultEvent struct {
	AtUS  int64 // virtual µs since the start
	Kind  supervisor.ActionKind
	Node  int
	About int // Notice: the crashed node
}

func (f FaultEvent) String() string { return fmt.Sprintf("%s %d at %dus", f.Kind, f.Node, f.AtUS) }

// Run executes one seeded run of m: a discrete-event simulation in which
// every message gets a latency drawn from the seed, faults happen at times
// drawn from the seed, and the virtual clock jumps to the earliest pending
// event. It is a pure function of (model, variant binary, seed).
func Run(m *model.Model, opts RunOptions) (*RunResult, error) {
	var sp *specs
	var syms *symbolTable
	var err error
	if opts.prep != nil {
		sp, syms = opts.prep.sp, opts.prep.syms[opts.Variant]
	} else if sp, err = readSpecs(m); err != nil {
		return nil, err
	}
	if opts.Registry != nil {
		if err := m.Bind(opts.Registry); err != nil {
			return nil, err
		}
	}
	v, err := m.Variant(opts.Variant)
	if err != nil {
		return nil, err
	}
	var t *target
	if opts.Build != nil {
		t, err = newTargetFor(m, *opts.Build, syms, opts.Seed, opts.Watchdog)
	} else {
		t, err = newTarget(m, v.Name, opts.Seed, opts.Watchdog)
	}
	if err != nil {
		return nil, err
	}
	t.cfg.Bag = sp.net.Order == "bag"
	t.cfg.DataDirs = sp.faults.Restart
	t.cfg.LoseUnsynced = sp.faults.LoseUnsynced
	t.cfg.OnOutput = opts.OnOutput
	t.cfg.Notice = sp.faults.Notice
	r := &runner{t: t, sp: sp, opts: opts, res: &RunResult{Model: m.Path, Variant: v.Name, Seed: opts.Seed, Binary: t.bin, FirstViolationStep: -1}}
	r.required = map[string]bool{}
	for _, name := range sp.campaign.Required {
		r.required[name] = true
	}
	start := time.Now()
	err = r.run()
	r.res.Wall = time.Since(start)
	var f *supervisor.Failure
	if errors.As(err, &f) {
		r.res.Verdict, r.res.Detail = Error, f.Error()
		err = nil
	}
	return r.res, err
}

// prepared is what every run of a campaign shares: the model's fault and
// network sections and each variant's symbol table, read once.
type prepared struct {
	sp   *specs
	syms map[string]*symbolTable
}

// runner holds the state of one seeded run.
type runner struct {
	t        *target
	sp       *specs
	opts     RunOptions
	res      *RunResult
	required map[string]bool
	w        *supervisor.World
	lat      *rand.Rand
	faults   []FaultEvent
	last     *observation
	replay   []Choice
	distinct map[uint64]bool
	parts    []partition
}

// partition is an active-interval network partition, in virtual ns since
// Epoch, with each node's group.
type partition struct {
	start, end int64
	sides      sides
}

// separates reports whether the partition is active at t and puts a and b
// on different sides.
func (p partition) separates(a, b int, t int64) bool {
	return t >= p.start && t < p.end && p.sides.apart(a, b)
}

// drawPartitions schedules the model's partitions.
func (r *runner) drawPartitions(fr *rand.Rand) {
	f := r.sp.faults
	until := f.Until
	if until == 0 {
		until = r.sp.campaign.Duration
	}
	for _, p := range f.Partition {
		if p.Until == 0 && p.Duration == "" {
			continue // exhaustive checks only
		}
		start, end := p.From, p.Until
		if end == 0 {
			start = f.From
			if until > f.From {
				start += fr.Int64N(until - f.From + 1)
			}
			d, _ := parseDistribution(p.Duration)
			end = start + max(1, d.draw(fr))
		}
		r.parts = append(r.parts, partition{start: supervisor.Epoch + start*1000, end: supervisor.Epoch + end*1000, sides: newSides(p)})
		r.res.Params = append(r.res.Params, Param{"partition", fmt.Sprintf("%v from %.3fms to %.3fms", p.Groups, float64(start)/1000, float64(end)/1000)})
	}
}

// partitioned returns the heal time if a message from a to b due at t
// crosses an active partition.
func (r *runner) partitioned(a, b int, t int64) (int64, bool) {
	for _, p := range r.parts {
		if p.separates(a, b, t) {
			return p.end, true
		}
	}
	return 0, false
}

func (r *runner) run() error {
	seed := r.opts.Seed
	// Separate streams, so the fault schedule of a seed is the same for
	// every variant (paired comparisons), whatever the messages do.
	fr := rand.New(rand.NewPCG(seed, 0x6661756c7473))     // "faults"
	r.lat = rand.New(rand.NewPCG(seed, 0x6e6574776f726b)) // "network"
	if r.opts.Faults != nil {
		r.faults = slices.Clone(r.opts.Faults)
		r.res.Params = append(r.res.Params, Param{"latency", r.sp.latency.String()}, Param{"order", orDefault(r.sp.net.Order, "fifo")})
		for _, f := range r.faults {
			r.res.Params = append(r.res.Params, Param{f.Kind.String(), fmt.Sprintf("n%d at %.3fms", f.Node, float64(f.AtUS)/1000)})
		}
	} else {
		r.drawFaults(fr)
	}
	r.drawPartitions(fr)
	r.res.Faults = slices.Clone(r.faults)
	r.replay = r.opts.Replay
	w, err := r.t.start()
	if err != nil {
		return err
	}
	r.w = w
	defer w.Close()
	endUS := r.sp.campaign.Duration + r.sp.campaign.Tail
	if r.opts.EndUS > 0 {
		endUS = r.opts.EndUS
	}
	if r.opts.EndUS > 0 {
		r.res.endUS = r.opts.EndUS
	}
	end := supervisor.Epoch + endUS*1000
	bounded := endUS > 0
	if err := r.observe(); err != nil {
		return err
	}
	for r.res.Verdict == "" {
		if f := w.Failure(); f != nil {
			return f
		}
		if r.res.Steps >= r.sp.campaign.MaxSteps {
			return fmt.Errorf("run exceeded %d steps (max_steps)", r.sp.campaign.MaxSteps)
		}
		var a supervisor.Action
		var at int64
		var ok bool
		if r.opts.Replay != nil {
			a, at, ok, err = r.nextReplayed()
			if err != nil {
				return err
			}
		} else {
			r.scheduleMessages()
			a, at, ok = r.next()
		}
		if !ok || (bounded && at > end) {
			break
		}
		if err := r.apply(a, at); err != nil {
			return err
		}
		if r.res.Verdict != "" {
			break
		}
		if err := r.observe(); err != nil {
			return err
		}
	}
	if bounded && w.Now() < end {
		w.AdvanceTo(end)
	}
	r.res.VirtualTime = time.Duration(w.Now() - supervisor.Epoch)
	if r.res.Verdict != "" {
		return nil
	}
	r.finish()
	return nil
}

// drawFaults draws the crash schedule: Crashes distinct nodes from the
// eligible ones, at uniform times in [From, Until] (Until defaults to the
// campaign's Duration), and a restart for each if restarts are on.
func (r *runner) drawFaults(fr *rand.Rand) {
	f := r.sp.faults
	r.res.Params = append(r.res.Params, Param{"latency", r.sp.latency.String()}, Param{"order", orDefault(r.sp.net.Order, "fifo")})
	until := f.Until
	if until == 0 {
		until = r.sp.campaign.Duration
	}
	nodes := slices.Clone(f.Nodes)
	fr.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	for i := 0; i < f.Crashes && i < len(nodes); i++ {
		at := f.From
		if until > f.From {
			at += fr.Int64N(until - f.From + 1)
		}
		r.faults = append(r.faults, FaultEvent{AtUS: at, Kind: supervisor.Crash, Node: nodes[i]})
		if f.Restart {
			r.faults = append(r.faults, FaultEvent{AtUS: at + 1 + r.sp.restart.draw(fr), Kind: supervisor.Restart, Node: nodes[i]})
		}
	}
	sort.SliceStable(r.faults, func(i, j int) bool { return r.faults[i].AtUS < r.faults[j].AtUS })
	for _, x := range r.faults {
		r.res.Params = append(r.res.Params, Param{x.Kind.String(), fmt.Sprintf("n%d at %.3fms", x.Node, float64(x.AtUS)/1000)})
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// scheduleMessages draws an arrival time for every message that has none,
// in canonical order (by channel, then position). FIFO channels never let
// a message overtake an earlier one; datagrams may be dropped.
func (r *runner) scheduleMessages() {
	net := r.w.Network()
	fifo := r.sp.net.Order != "bag"
	for _, c := range net.Channels {
		var prev int64
		for i := 0; i < len(c.Msgs); i++ {
			m := &c.Msgs[i]
			if m.Due == 0 {
				dgram := c.To == nil
				if dgram && r.sp.net.Drop > 0 && r.lat.Float64() < r.sp.net.Drop {
					net.Drop(netsim.Delivery{Chan: c.ID, Index: i})
					i--
					continue
				}
				if dgram && !m.Copy && r.sp.net.Duplicate > 0 && r.lat.Float64() < r.sp.net.Duplicate {
					net.Duplicate(netsim.Delivery{Chan: c.ID, Index: i})
					m = &c.Msgs[i]
				}
				m.Free = dgram && r.sp.net.Reorder > 0 && r.lat.Float64() < r.sp.net.Reorder
				lat := r.sp.latency.draw(r.lat) * 1000
				m.Due = m.Sent + lat
				if heal, cut := r.partitioned(c.FromNode, net.ReceiverNode(c), m.Due); cut {
					if dgram {
						net.Drop(netsim.Delivery{Chan: c.ID, Index: i})
						i--
						continue
					}
					m.Due = heal + lat // retransmitted after the heal
				}
				if fifo && !m.Free && m.Due < prev {
					m.Due = prev
				}
			}
			if !m.Free {
				prev = max(prev, m.Due)
			}
		}
	}
}

// next picks the earliest pending event. Ties go to faults, then to
// deliveries in channel order, then to timers in node order.
func (r *runner) next() (supervisor.Action, int64, bool) {
	best, bestAt, found := supervisor.Action{}, int64(0), false
	consider := func(a supervisor.Action, at int64) {
		if !found || at < bestAt {
			best, bestAt, found = a, at, true
		}
	}
	if len(r.faults) > 0 {
		f := r.faults[0]
		consider(supervisor.Action{Kind: f.Kind, Node: f.Node, Req: f.About}, supervisor.Epoch+f.AtUS*1000)
	}
	fifo := r.sp.net.Order != "bag"
	for _, c := range r.w.Network().Channels {
		for i, m := range c.Msgs {
			// On a FIFO channel only the head may arrive, except reordered
			// datagrams, which may overtake it.
			if !fifo || i == 0 || m.Free {
				consider(supervisor.Action{Kind: supervisor.Deliver, Chan: c.ID, Index: i}, m.Due)
			}
		}
	}
	for _, tm := range r.w.Timers() {
		consider(supervisor.Action{Kind: supervisor.Timer, Node: tm.Node}, tm.Deadline)
	}
	return best, bestAt, found
}

// scheduleNotices queues the environment's death notices about crashed,
// one to every other live node, each after a drawn network latency (or
// [faults] notice_latency; a constant draws nothing from the seed, and at
// equal times next applies faults first, so "constant:0" tells every node
// before anything else happens).
func (r *runner) scheduleNotices(crashed int, at int64) {
	lat := r.sp.latency
	if r.sp.notice != nil {
		lat = *r.sp.notice
	}
	for n := 0; n < r.t.m.Nodes; n++ {
		if n == crashed || !r.w.Status(n).Alive {
			continue
		}
		due := (at-supervisor.Epoch)/1000 + lat.draw(r.lat)
		r.faults = append(r.faults, FaultEvent{AtUS: due, Kind: supervisor.Notice, Node: n, About: crashed})
	}
	sort.SliceStable(r.faults, func(i, j int) bool { return r.faults[i].AtUS < r.faults[j].AtUS })
}

// nextReplayed takes the next recorded choice.
func (r *runner) nextReplayed() (supervisor.Action, int64, bool, error) {
	if len(r.replay) == 0 {
		return supervisor.Action{}, 0, false, nil
	}
	c := r.replay[0]
	r.replay = r.replay[1:]
	a, err := supervisor.ParseAction(c.Action)
	if err != nil {
		return a, 0, false, err
	}
	at := supervisor.Epoch + c.T
	if a.Kind == supervisor.Timer {
		found := false
		for _, tm := range r.w.Timers() {
			if tm.Node == a.Node {
				found = true
				if tm.Deadline != at {
					return a, 0, false, fmt.Errorf("step %d: node %d's timer is due at %dns, the recording fired it at %dns: the run diverged", r.res.Steps+1, a.Node, tm.Deadline-supervisor.Epoch, c.T)
				}
			}
		}
		if !found {
			return a, 0, false, fmt.Errorf("step %d: node %d has no pending timer: the run diverged", r.res.Steps+1, a.Node)
		}
	}
	return a, at, true, nil
}

// apply performs one event at virtual time at.
func (r *runner) apply(a supervisor.Action, at int64) error {
	w := r.w
	ev := Event{Step: r.res.Steps + 1, Kind: a.Kind.String(), Node: a.Node, Peer: -1}
	switch a.Kind {
	case supervisor.Notice:
		if len(r.faults) > 0 && r.faults[0].Node == a.Node && r.faults[0].Kind == a.Kind {
			r.faults = r.faults[1:]
		}
		w.AdvanceTo(at)
		ev.Peer = a.Req
	case supervisor.Crash, supervisor.Restart:
		if len(r.faults) > 0 && r.faults[0].Node == a.Node && r.faults[0].Kind == a.Kind {
			r.faults = r.faults[1:]
		}
		w.AdvanceTo(at)
		if a.Kind == supervisor.Crash {
			if !w.Status(a.Node).Alive {
				return nil // already dead: nothing to do
			}
			if ok, why := r.precondition(a.Node); !ok {
				r.res.Choices = append(r.res.Choices, Choice{T: at - supervisor.Epoch, Action: a.String()})
				r.res.Verdict = Invalid
				r.res.Detail = fmt.Sprintf("crash of node %d at %s breaks the precondition %s: %s", a.Node, fmtUS(at), r.sp.faults.Precondition, why)
				r.res.Events = append(r.res.Events, Event{Step: ev.Step, T: (at - supervisor.Epoch) / 1000, Kind: "invalid", Node: a.Node, Peer: -1, Value: why})
				return nil
			}
		} else if w.Status(a.Node).Alive {
			return nil
		}
	case supervisor.Deliver:
		if a.Chan >= len(w.Network().Channels) || a.Index >= len(w.Network().Channels[a.Chan].Msgs) {
			return fmt.Errorf("step %d: %s is not possible: the run diverged", ev.Step, a)
		}
		w.AdvanceTo(at)
		c := w.Network().Channels[a.Chan]
		m := c.Msgs[a.Index]
		ev.Node, ev.Peer, ev.Bytes = w.Network().ReceiverNode(c), c.FromNode, len(m.Data)
		if m.FIN {
			ev.Value = "FIN"
		} else if m.RST {
			ev.Value = "RST"
		}
	}
	r.res.Steps++
	r.res.Choices = append(r.res.Choices, Choice{T: at - supervisor.Epoch, Action: a.String()})
	if err := w.Apply(a); err != nil {
		return err
	}
	if a.Kind == supervisor.Crash && r.sp.faults.Notice != "" && r.opts.Replay == nil {
		r.scheduleNotices(a.Node, at)
	}
	ev.T = (w.Now() - supervisor.Epoch) / 1000
	r.res.Events = append(r.res.Events, ev)
	return nil
}

func fmtUS(at int64) string { return fmt.Sprintf("%.3fms", float64(at-supervisor.Epoch)/1e6) }

// precondition evaluates the fault precondition for a crash of node.
func (r *runner) precondition(node int) (bool, string) {
	return r.sp.crashAllowed(r.opts.Preconditions, r.last.state, node)
}

// crashAllowed evaluates the model's fault precondition for a crash of
// node in state s: an expression (f = node) or a Go predicate.
func (sp *specs) crashAllowed(gos map[string]FaultPrecondition, s model.State, node int) (bool, string) {
	name := sp.faults.Precondition
	if name == "" {
		return true, ""
	}
	if e := sp.precond; e != nil {
		v, err := e.Eval(s, map[string]int64{"f": int64(node)})
		if err != nil {
			return false, err.Error()
		}
		if ok, isBool := v.AsBool(); !isBool || !ok {
			return false, fmt.Sprintf("%s is %v with f = %d", name, v, node)
		}
		return true, ""
	}
	p := gos[trimGo(name)]
	if p == nil {
		return false, fmt.Sprintf("unknown precondition %q", name)
	}
	return p(s, node)
}

func trimGo(s string) string {
	if len(s) > 3 && s[:3] == "go:" {
		return s[3:]
	}
	return s
}

// observe reads the state (only nodes that ran can have changed), records
// changes of declared globals, and tracks the first violation.
func (r *runner) observe() error {
	var prev *model.State
	if r.last != nil {
		prev = &r.last.state
	}
	ob, err := r.t.observeChanged(r.w, r.last)
	if err != nil {
		return err
	}
	r.w.ClearRan()
	if r.distinct == nil {
		r.distinct = map[uint64]bool{}
	}
	h := fnv.New64a()
	for _, ns := range ob.state.Nodes {
		fmt.Fprint(h, ns.Alive)
		for _, sv := range r.t.m.State {
			h.Write([]byte(ns.Vars[sv.Name].String()))
			h.Write([]byte{0})
		}
	}
	if k := h.Sum64(); !r.distinct[k] {
		r.distinct[k] = true
		r.res.DistinctStates++
	}
	now := (r.w.Now() - supervisor.Epoch) / 1000
	for i, ns := range ob.state.Nodes {
		for _, sv := range r.t.m.State {
			val := ns.Vars[sv.Name]
			if prev == nil || !prev.Nodes[i].Vars[sv.Name].Equal(val) {
				r.res.Events = append(r.res.Events, Event{Step: r.res.Steps, T: now, Kind: "state", Node: i, Peer: -1, Var: sv.Name, Value: val.String()})
			}
		}
	}
	r.last = &ob
	if r.res.FirstViolationStep >= 0 && r.sp.campaign.Check == "final" {
		return nil // the first violation is known; only the end decides
	}
	// Each step decides only the required invariants; the others are
	// reported from the final state (finish).
	failing, v, err := r.t.failing(r.w, ob, r.isRequired)
	if err != nil {
		return err
	}
	for _, name := range failing {
		if r.isRequired(name) {
			if r.res.FirstViolationStep < 0 {
				r.res.FirstViolationStep = r.res.Steps
				r.res.FirstViolationTime = time.Duration(r.w.Now() - supervisor.Epoch)
				r.res.FirstViolation = v
			}
			if r.sp.campaign.Check != "final" {
				r.res.Verdict = Violated
				r.res.Violated = requiredOnly(failing, r.isRequired)
			}
			break
		}
	}
	return nil
}

func (r *runner) isRequired(name string) bool {
	return len(r.required) == 0 || r.required[name] || name == "no_node_crash"
}

func requiredOnly(names []string, req func(string) bool) []string {
	var out []string
	for _, n := range names {
		if req(n) {
			out = append(out, n)
		}
	}
	return out
}

// finish decides the verdict from the final quiescent state.
func (r *runner) finish() {
	r.res.Final = r.last.state
	failing, _, err := r.t.failing(r.w, *r.last, nil)
	if err != nil {
		r.res.Verdict, r.res.Detail = Error, err.Error()
		return
	}
	for _, name := range failing {
		if r.isRequired(name) {
			r.res.Violated = append(r.res.Violated, name)
		} else {
			r.res.Useful = append(r.res.Useful, name)
		}
	}
	if len(r.res.Violated) > 0 {
		r.res.Verdict = Violated
	} else {
		r.res.Verdict = Holds
	}
}
