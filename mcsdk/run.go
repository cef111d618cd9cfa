package mcsdk

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weft-mc/weft/mcsdk/history"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
	"github.com/weft-mc/weft/mcsdk/weftlog"
	"github.com/weft-mc/weft/mcsdk/workload"
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
	Host          Host // how this host runs nodes (Host)
	// OnOutput, if set, receives node output as it is written.
	OnOutput func(node int, data []byte)
	// Build, if set, replaces the binary for the variant (used by
	// campaigns, which build once).
	Build *Binary
	// Faults, if non-nil, replaces the seed's fault schedule (shrinking).
	Faults []FaultEvent
	// EndUS, if positive, ends the run at that virtual time (shrinking).
	EndUS int64
	// Omit removes drawn partitions, clock faults, drops and workload
	// operations (shrinking).
	Omit sched.Omit
	// Replay, if set, applies these choices instead of the scheduler's.
	Replay []Choice
	// Syscalls surveys every node's syscalls into RunResult.Syscalls;
	// SyscallsAll also notifies the calls the filter would pass through
	// unseen, so that the survey is complete (and the run slower).
	Syscalls, SyscallsAll bool
	// prep, set by Campaign, holds what every run of a model shares.
	prep *prepared
	// guide, set by the guided strategy (checkGuided), forks the run's
	// draws and hears of every abstract state it reaches.
	guide *guidedRun
	_     struct{}
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
	// FirstReplyWall is the wall time from the run's start to the first
	// bytes a node sent the environment's client (0: none): a server's
	// start-up and first request under weft (scripts/bench.sh startup).
	// Like Wall, it is the host's, not part of what the run decides.
	FirstReplyWall time.Duration
	Detail         string // why the run is invalid or an error
	Params         []Param
	Faults         []FaultEvent // the fault schedule the run used
	Choices        []Choice     // every action applied, for replay
	Events         []Event      // the timeline, for recordings and traces
	Final          model.State
	// Messages is what the network did, when the scheduler drew the run
	// (nil for a replayed run).
	Messages *sched.Counts
	// RefusedWrites counts the nodes' writes outside their run
	// directories, which weft refused.
	RefusedWrites int
	// History is the workload clients' operations, in invocation order;
	// Ops and OpsIndeterminate count them and those without a known
	// outcome (no reply by the deadline, or none by the end).
	History          []workload.Op
	Ops              int
	OpsIndeterminate int
	workload         bool       // the model has a workload (the counts mean something)
	endUS            int64      // an overridden end, recorded for replay
	omit             sched.Omit // RunOptions.Omit, recorded for replay

	// Syscalls is the survey of RunOptions.Syscalls: per node and
	// syscall, the calls weft saw and how it answered them.
	Syscalls []supervisor.SyscallUse
	// Refusals lists each kind of call weft refused a node, once.
	Refusals []supervisor.Refusal
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
	Kind  sched.Kind
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
	} else {
		sp = specsOf(m)
	}
	if opts.prep == nil { // a campaign has bound the model once
		if err := withChecks(m, opts.Host, &opts.Registry, &opts.Preconditions); err != nil {
			return nil, err
		}
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
		t, err = newTarget(m, v.Name, opts.Seed, opts.Watchdog, opts.Host)
	}
	if err != nil {
		return nil, err
	}
	opts.Host.apply(&t.cfg)
	t.cfg.Bag = sp.net.Order == "bag"
	t.cfg.LoseUnsynced = sp.faults.LoseUnsynced
	t.cfg.OnOutput = opts.OnOutput
	t.cfg.Notice = sp.faults.Notice
	t.cfg.Survey, t.cfg.NotifyAll = opts.Syscalls, opts.SyscallsAll
	r := &runner{t: t, sp: sp, opts: opts, res: &RunResult{Model: m.Path, Variant: v.Name, Seed: opts.Seed, Binary: t.bin, FirstViolationStep: -1}}
	r.required = map[string]bool{}
	for _, name := range sp.campaign.Required {
		r.required[name] = true
	}
	r.start = time.Now()
	err = r.run()
	r.res.Wall = time.Since(r.start)
	var f *supervisor.Failure
	var b *stepBound
	switch {
	case errors.As(err, &f):
		r.res.Verdict, r.res.Detail, err = Error, f.Error(), nil
	case errors.As(err, &b):
		r.res.Verdict, r.res.Detail, err = Error, b.Error(), nil
	}
	return r.res, err
}

// stepBound ends a run that reached the model's bound on its actions
// ([campaign] max_steps) before its end: a node that keeps the scheduler
// busy without end (a timer of 1 ns) gets verdict error, as a node that
// outgrows its other bounds does, not a failure of weft.
type stepBound struct {
	max int
	at  int64 // virtual ns since the epoch
}

func (b *stepBound) Error() string {
	return fmt.Sprintf("the run reached [campaign] max_steps = %d at %.3f ms of virtual time, before its end", b.max, float64(b.at)/1e6)
}

// prepared is what every run of a campaign shares: the model's fault and
// network sections and each variant's symbol table, read once.
type prepared struct {
	sp   *specs
	syms map[string]*symbolTable
}

// runner holds the state of one seeded run. Every choice is the
// scheduler's (sched.Seeded); the runner applies them, observes, and
// decides the verdict.
type runner struct {
	t        *target
	sp       *specs
	opts     RunOptions
	res      *RunResult
	required map[string]bool
	w        *supervisor.World
	ew       eventWorld
	s        *sched.Seeded
	last     *observation
	replay   []Choice
	replayer *sched.Replayer
	distinct map[uint64]bool
	start    time.Time   // the run's start, for FirstReplyWall
	seen     uint64      // the network's LastID at the last look (see sends)
	partSeen map[int]int // per seeded partition: 1 once its beginning is recorded, 2 once its heal is
	passed   []byte      // the evalKey of the last state whose evaluation found no required failure
	keyBuf   []byte      // evalKey's buffer (its result is valid until the next call)
	hashBuf  []byte      // observe's buffer for the distinct-state hash
	clients  *workload.Clients
	jumpSeen int // clock jumps already recorded as events
	forked   int // the guide's forks applied (RunOptions.guide)
}

// evalKey encodes everything the invariants and the no-crash rule read:
// each node's status and declared globals, the ghost logs and the
// workload's history.
func (r *runner) evalKey(ob observation) []byte {
	s := ob.state
	b := r.keyBuf[:0]
	for _, op := range ob.ops {
		b = fmt.Appendf(b, "%v %d %v %v %d %d %d %d|", op.Call, op.Req, op.Outcome, op.Values, op.CallStep, op.ReturnStep, op.CallT, op.ReturnT)
	}
	for i, ns := range s.Nodes {
		st := r.w.Status(i)
		b = strconv.AppendBool(b, st.Alive)
		b = strconv.AppendBool(append(b, ' '), st.Exited)
		b = strconv.AppendBool(append(b, ' '), st.Killed)
		b = strconv.AppendInt(append(b, ' '), int64(st.ExitCode), 10)
		b = append(append(append(b, ' '), st.Signal...), '|')
		for _, name := range r.t.m.StateNames() {
			b, _ = ns.Vars[name].AppendText(b)
			b = append(b, 0)
		}
	}
	logs := make([]string, 0, len(s.Logs))
	for name := range s.Logs {
		logs = append(logs, name)
	}
	slices.Sort(logs)
	for _, name := range logs {
		b = append(append(b, name...), '=')
		for _, v := range s.Logs[name] {
			b, _ = v.AppendText(b)
			b = append(b, 0)
		}
	}
	r.keyBuf = b
	return b
}

// plan is the scheduler's plan for a seeded run of the model.
func (r *runner) plan() sched.Plan {
	sp, f := r.sp, r.sp.faults
	until := f.Until
	if until == 0 {
		until = sp.campaign.Duration
	}
	p := sched.Plan{
		Seed:  r.opts.Seed,
		Epoch: supervisor.Epoch,
		FIFO:  sp.net.Order != "bag",
		Drop:  sp.net.Drop, Duplicate: sp.net.Duplicate, Reorder: sp.net.Reorder,
		Latency:      sp.latency.Draw,
		Nodes:        f.Nodes,
		Crashes:      f.Crashes,
		From:         f.From,
		Until:        until,
		Restart:      f.Restart,
		RestartDelay: sp.restart.Draw,
		Notices:      f.Notice != "" && r.opts.Replay == nil,
	}
	p.Clocks = r.clockPlan(until)
	p.Omit = r.opts.Omit
	if sp.notice != nil {
		// [faults] notice_latency; a constant draws nothing from the seed,
		// and faults win ties, so "constant:0" tells every live node of a
		// death before anything else happens (perfect failure detection).
		p.NoticeDelay = sp.notice.Draw
	}
	if r.opts.Faults != nil {
		p.Given = make([]sched.FaultEvent, 0, len(r.opts.Faults))
		for _, e := range r.opts.Faults {
			p.Given = append(p.Given, sched.FaultEvent(e))
		}
	}
	for _, ps := range f.Partition {
		if ps.Until == 0 && ps.Duration == "" {
			continue // exhaustive checks only
		}
		p.Partitions = append(p.Partitions, sched.PartitionPlan{From: ps.From, Until: ps.Until, Duration: ps.Length.Draw, Cut: newSides(ps).apart})
	}
	if c := r.t.m.Client; c != nil {
		window := sp.campaign.ClientWindow
		if window == 0 {
			window = sp.campaign.Duration
		}
		if window == 0 {
			window = DefaultClientWindowUS
		}
		start := c.Start.AtUS
		for _, req := range c.Requests {
			if req.At >= 0 {
				p.Clients = append(p.Clients, sched.ClientPlan{Fixed: true, AtUS: start + req.At, Held: c.Start.Up})
			} else {
				p.Clients = append(p.Clients, sched.ClientPlan{From: start, Until: start + window, Held: c.Start.Up})
			}
		}
	}
	if wl, tab := r.t.m.Workload, r.t.table; wl != nil {
		ws, base := r.t.m.WorkloadStart, r.t.reqBase()
		p.Workload = &sched.WorkloadPlan{Clients: wl.Clients, ThinkUS: wl.ThinkUS, TimeoutUS: wl.TimeoutUS, StartUS: ws.AtUS, Held: ws.Up || base > 0,
			Slot: func(c, k int) (int, int, bool) {
				if k >= wl.Ops {
					return 0, 0, false
				}
				lo, hi := tab.Slot(c, k)
				return lo + base, hi + base, true
			}}
	}
	return p
}

// DefaultClientWindowUS is the virtual time (µs) within which a seeded
// run sends each client request, at a time drawn from the seed, when the
// model sets neither [campaign] client_window nor duration.
const DefaultClientWindowUS = 100_000

func (r *runner) run() error {
	r.s = sched.NewSeeded(r.plan())
	r.partSeen = map[int]int{}
	r.planParams()
	r.t.cfg.Clocks = r.s.Clocks()
	r.clockParams(r.t.cfg.Clocks)
	r.replay = r.opts.Replay
	r.clients = r.t.clients()
	w, err := r.t.start()
	if err != nil {
		return err
	}
	r.w, r.ew = w, eventWorld{w: w}
	defer w.Close()
	defer func() { r.res.Syscalls, r.res.Refusals = w.Syscalls(), w.Refusals() }() // before Close
	endUS := r.sp.campaign.Duration + r.sp.campaign.Tail
	if r.opts.EndUS > 0 {
		endUS = r.opts.EndUS
		r.res.endUS = r.opts.EndUS
	}
	r.res.omit = r.opts.Omit
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
			return &stepBound{max: r.sp.campaign.MaxSteps, at: w.Now() - supervisor.Epoch}
		}
		a, at, ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok || (bounded && at > end) {
			break
		}
		r.partitionEvents(at)
		r.jumpEvents(at)
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
	r.wrapUp()
	return nil
}

// planParams writes the seeded plan into the result's parameters: the
// latency and order, the faults, partitions and client times drawn.
func (r *runner) planParams() {
	r.res.Params = append(r.res.Params, Param{"latency", r.sp.latency.String()}, Param{"order", orDefault(r.sp.net.Order, "fifo")})
	for _, f := range r.s.Faults() {
		r.faultsAppend(FaultEvent(f))
	}
	for k, win := range r.s.Windows() {
		r.res.Params = append(r.res.Params, Param{"partition", fmt.Sprintf("%v from %.3fms to %.3fms", r.partitionGroups(k), float64(win.Start-supervisor.Epoch)/1e6, float64(win.End-supervisor.Epoch)/1e6)})
	}
	times, held := r.s.ClientTimes()
	for i, at := range times {
		if held[i] {
			r.res.Params = append(r.res.Params, Param{"client", fmt.Sprintf("request %d at %.3fms after the nodes are up", i, float64(at)/1e6)})
			continue
		}
		r.res.Params = append(r.res.Params, Param{"client", fmt.Sprintf("request %d at %.3fms", i, float64(at-supervisor.Epoch)/1e6)})
	}
}

// next is the run's next action and its time: the recording's, when
// replaying, else the seeded scheduler's, after applying the network
// faults it drew before it. ok is false when there is none.
func (r *runner) next() (a sched.Action, at int64, ok bool, err error) {
	if r.opts.Replay != nil {
		return r.nextReplayed()
	}
	r.fork()
	pre, a, at, ok := r.s.Next(r.ew)
	for _, p := range pre {
		if err := r.applyNetwork(p); err != nil {
			return a, at, false, err
		}
	}
	return a, at, ok, nil
}

// wrapUp ends the run at the world's time: the last partition and clock
// events, counts, the summary, and, with no verdict yet, the final one.
func (r *runner) wrapUp() {
	w := r.w
	r.partitionEvents(w.Now())
	r.jumpEvents(w.Now())
	for i := 0; i < r.t.m.Nodes; i++ {
		r.res.RefusedWrites += w.RefusedWrites(i)
	}
	if r.opts.Replay == nil {
		c := r.s.Counts()
		r.res.Messages = &c
	}
	r.res.VirtualTime = time.Duration(w.Now() - supervisor.Epoch)
	r.summarise()
	r.unmatched()
	r.threadsParam()
	if r.res.Verdict != "" {
		return
	}
	r.finish()
}

// partitionEvents records the partitions that began or healed up to
// virtual time t (ns), in time order, as timeline events.
func (r *runner) partitionEvents(t int64) {
	for k, win := range r.s.Windows() {
		for r.partSeen[k] < 2 {
			at := win.Start
			kind := "partition"
			if r.partSeen[k] == 1 {
				at, kind = win.End, "heal"
			}
			if at > t {
				break
			}
			r.res.Events = append(r.res.Events, Event{Step: r.res.Steps, T: (at - supervisor.Epoch) / 1000, Kind: kind, Node: -1, Peer: -1, Value: fmt.Sprint(r.partitionGroups(k))})
			r.partSeen[k]++
		}
	}
}

// threadsParam records how many threads each node's main process had,
// and how many processes its tree had, when any had more than one (weft
// trace shows them in the recording's header).
func (r *runner) threadsParam() {
	var parts []string
	many := false
	for i := 0; i < r.t.m.Nodes; i++ {
		k := r.w.Threads(i)
		many = many || k > 1
		parts = append(parts, fmt.Sprintf("n%d=%d", i, k))
	}
	if many {
		r.res.Params = append(r.res.Params, Param{"threads", strings.Join(parts, " ")})
	}
	parts, many = parts[:0], false
	for i := 0; i < r.t.m.Nodes; i++ {
		k := r.w.Procs(i)
		many = many || k > 1
		parts = append(parts, fmt.Sprintf("n%d=%d", i, k))
	}
	if many {
		r.res.Params = append(r.res.Params, Param{"processes", strings.Join(parts, " ")})
	}
}

// faultsAppend records one scheduled fault in the result and its params.
func (r *runner) faultsAppend(f FaultEvent) {
	r.res.Faults = append(r.res.Faults, f)
	r.res.Params = append(r.res.Params, Param{f.Kind.String(), fmt.Sprintf("n%d at %.3fms", f.Node, float64(f.AtUS)/1000)})
}

// partitionGroups names the groups of the k-th seeded partition.
func (r *runner) partitionGroups(k int) [][]int {
	for _, ps := range r.sp.faults.Partition {
		if ps.Until == 0 && ps.Duration == "" {
			continue
		}
		if k == 0 {
			return ps.Groups
		}
		k--
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// eventWorld is the world as the seeded scheduler and the replayer read
// it; it changes nothing (stepper.apply applies every action).
type eventWorld struct {
	w *supervisor.World
}

func (e eventWorld) Status(i int) sched.NodeStatus {
	st := e.w.Status(i)
	return sched.NodeStatus{Alive: st.Alive, Killed: st.Killed}
}

func (e eventWorld) Channels() int { return len(e.w.Network().Channels) }

func (e eventWorld) Pending(c int) int { return len(e.w.Network().Channels[c].Msgs) }

func (e eventWorld) Channel(c int) sched.ChannelInfo {
	net := e.w.Network()
	ch := net.Channels[c]
	info := sched.ChannelInfo{From: ch.FromNode, To: net.ReceiverNode(ch), Datagram: ch.Datagram(), Sent: make([]int64, len(ch.Msgs)), IDs: make([]uint64, len(ch.Msgs))}
	for i, m := range ch.Msgs {
		info.Sent[i], info.IDs[i] = m.Sent, m.ID
	}
	return info
}

func (e eventWorld) Timers() []sched.TimerInfo {
	var out []sched.TimerInfo
	for _, t := range e.w.Timers() {
		out = append(out, sched.TimerInfo{Node: t.Node, Task: t.Task, Deadline: t.Deadline})
	}
	return out
}

// Ready lists the threads the scheduler may run next (Run choices): the
// seeded scheduler draws one from the seed.
func (e eventWorld) Ready() []sched.Action { return e.w.Ready() }

// Now is the world's virtual time.
func (e eventWorld) Now() int64 { return e.w.Now() }

// nextReplayed takes the next recorded step from the scheduler's
// replayer, which reports a choice the world cannot take as a divergence,
// applying the network's recorded drops and duplicates before it on the
// way.
func (r *runner) nextReplayed() (sched.Action, int64, bool, error) {
	if r.replayer == nil {
		timed := make([]sched.Timed, 0, len(r.replay))
		for _, c := range r.replay {
			a, err := sched.ParseAction(c.Action)
			if err != nil {
				return a, 0, false, err
			}
			timed = append(timed, sched.Timed{At: supervisor.Epoch + c.T, A: a})
		}
		r.replayer = sched.NewReplayer(timed)
	}
	for {
		a, at, ok, err := r.replayer.Next(r.ew)
		if err != nil || !ok || !a.Network() {
			return a, at, ok, err
		}
		if err := r.applyNetwork(a); err != nil {
			return a, at, false, err
		}
	}
}

// applyNetwork applies a drop or duplicate of the network, drawn by the
// seeded scheduler or replayed, through the one action path
// (stepper.apply), at the current time and between steps, and records
// it: the choice, a drop's timeline event, and (seeded runs) the
// scheduler's bookkeeping, which learns a copy's identity.
func (r *runner) applyNetwork(a sched.Action) error {
	now := r.w.Now()
	st, err := r.stepper().apply(a, now, r.res.Steps)
	if err != nil {
		return err
	}
	r.res.Choices = append(r.res.Choices, Choice{T: now - supervisor.Epoch, Action: a.String()})
	if a.Kind == sched.Drop {
		r.res.Events = append(r.res.Events, st.ev)
	}
	if r.opts.Replay == nil {
		r.s.Applied(r.ew, a, now)
	}
	return nil
}

// apply performs one event at virtual time at through the one action
// path (stepper.apply) and records it: the choice, the timeline and the
// seeded scheduler's bookkeeping.
func (r *runner) apply(a sched.Action, at int64) error {
	if r.opts.Replay == nil {
		r.s.Applied(r.ew, a, at)
	}
	st, err := r.stepper().apply(a, at, r.res.Steps+1)
	if st.refused != "" {
		r.res.Choices = append(r.res.Choices, Choice{T: at - supervisor.Epoch, Action: a.String()})
		r.res.Verdict = Invalid
		r.res.Detail = fmt.Sprintf("crash of node %d at %s breaks the precondition %s: %s", a.Node, fmtUS(at), r.sp.faults.Precondition, st.refused)
		r.res.Events = append(r.res.Events, Event{Step: st.ev.Step, T: (at - supervisor.Epoch) / 1000, Kind: "invalid", Node: a.Node, Peer: -1, Value: st.refused})
		return nil
	}
	if !st.applied {
		return err
	}
	r.res.Steps++
	r.res.Choices = append(r.res.Choices, Choice{T: at - supervisor.Epoch, Action: a.String()})
	if err != nil {
		return err
	}
	if a.Kind == sched.Crash && r.opts.Replay == nil {
		r.s.Crashed(r.ew, a.Node, r.t.m.Nodes, at)
	}
	r.res.Events = append(r.res.Events, st.ev)
	r.res.Events = append(r.res.Events, st.returns...)
	if r.res.FirstReplyWall == 0 && len(r.w.Received()) > 0 {
		r.res.FirstReplyWall = time.Since(r.start)
	}
	if r.opts.Replay == nil {
		for _, c := range st.done {
			r.s.Completed(c, r.w.Now())
		}
	}
	return nil
}

// stepper is the run's world as the one action path applies to it, with
// the model's fault precondition guarding crashes.
func (r *runner) stepper() stepper {
	return stepper{t: r.t, w: r.w, clients: r.clients, allow: r.precondition}
}

func outcomeText(op workload.Op) string {
	if op.Outcome == workload.Ok && workload.Reads(op.Call.Op) {
		s := make([]string, len(op.Values))
		for i, v := range op.Values {
			s[i] = fmt.Sprint(v)
		}
		return op.Call.String() + " → " + strings.Join(s, ",")
	}
	return op.Call.String() + " → " + op.Outcome.String()
}

func fmtUS(at int64) string { return fmt.Sprintf("%.3fms", float64(at-supervisor.Epoch)/1e6) }

// precondition evaluates the fault precondition for a crash of node.
func (r *runner) precondition(node int) (bool, string) {
	return r.sp.crashAllowed(r.opts.Preconditions, r.last.state, node)
}

// crashAllowed evaluates the model's fault precondition for a crash of
// node in state s: an expression (f = node) or a Go predicate.
func (sp *specs) crashAllowed(gos map[string]FaultPrecondition, s model.State, node int) (ok bool, why string) {
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
	// A panic of the precondition refuses the crash, as an evaluation
	// error of an expression precondition does.
	defer func() {
		if r := recover(); r != nil {
			ok, why = false, fmt.Sprintf("%s panicked: %v", name, r)
		}
	}()
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
// sends records a "send" event for every message sent since the last look
// (Node the sender, Peer the receiver, T the send time), so that traces
// and sequence diagrams draw each message from its send to its delivery.
// netsim is the one store of messages: a message is new when its ID is
// past the last look's, and a duplicate the network made is no send.
func (r *runner) sends() {
	net := r.w.Network()
	if net.LastID() == r.seen {
		return
	}
	for _, ch := range net.Channels {
		// New sends are appended: they are the channel's tail.
		k := len(ch.Msgs)
		for k > 0 && ch.Msgs[k-1].ID > r.seen {
			k--
		}
		for _, m := range ch.Msgs[k:] {
			if !m.Copy {
				r.res.Events = append(r.res.Events, Event{Step: r.res.Steps, T: (m.Sent - supervisor.Epoch) / 1000, Kind: "send", Node: ch.FromNode, Peer: net.ReceiverNode(ch), Bytes: len(m.Data)})
			}
		}
	}
	r.seen = net.LastID()
}

func (r *runner) observe() error {
	r.sends()
	var prev *model.State
	if r.last != nil {
		prev = &r.last.state
	}
	ob, err := r.t.observeChanged(r.w, r.last)
	if err != nil {
		return err
	}
	ob = ob.withHistory(r.clients)
	r.w.ClearRan()
	r.release()
	if r.distinct == nil {
		r.distinct = map[uint64]bool{}
	}
	h := fnv.New64a()
	b := r.hashBuf[:0]
	for _, ns := range ob.state.Nodes {
		b = strconv.AppendBool(b, ns.Alive)
		for _, name := range r.t.m.StateNames() {
			b, _ = ns.Vars[name].AppendText(b)
			b = append(b, 0)
		}
	}
	h.Write(b)
	r.hashBuf = b
	if k := h.Sum64(); !r.distinct[k] {
		r.distinct[k] = true
		r.res.DistinctStates++
	}
	now := (r.w.Now() - supervisor.Epoch) / 1000
	for i, ns := range ob.state.Nodes {
		for _, name := range r.t.m.StateNames() {
			val, ok := ns.Vars[name]
			if !ok {
				continue // a node no query of this variable goes to
			}
			if prev == nil || !prev.Nodes[i].Vars[name].Equal(val) {
				r.res.Events = append(r.res.Events, Event{Step: r.res.Steps, T: now, Kind: "state", Node: i, Peer: -1, Var: name, Value: val.String()})
			}
		}
	}
	r.last = &ob
	if g := r.opts.guide; g != nil {
		g.g.Visit(r.res.Steps, now, sha256.Sum256(r.abstract(ob)))
	}
	if r.res.FirstViolationStep >= 0 && r.sp.campaign.Check == "final" {
		return nil // the first violation is known; only the end decides
	}
	// Invariants are pure functions of the observed state: when nothing
	// they read changed since the last evaluation found no failure, the
	// answer is the same (most steps change no declared global).
	key := r.evalKey(ob)
	if r.passed != nil && bytes.Equal(key, r.passed) {
		return nil
	}
	// Each step decides only the required invariants; the others are
	// reported from the final state (finish).
	failing, v, err := r.t.failing(r.w, ob, r.isRequired)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(failing, r.isRequired) {
		r.passed = append(r.passed[:0], key...)
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

// release starts the clients that wait: the client requests with
// [client] start = "up" at the first quiescent point at which every node
// they contact has started and accepts connections on its port, and the
// workload's clients then (with [workload] start = "up") and, when the
// model has set-up requests ([[client.request]] beside [workload]), once
// every one of them is answered. These are conditions on the world's
// state, so a seed starts its clients at the same step in every run.
func (r *runner) release() {
	if r.s == nil || !r.s.HeldRequests() && !r.s.HeldWorkload() {
		return
	}
	if !r.up() {
		return
	}
	now := r.w.Now()
	if r.s.HeldRequests() {
		r.s.ReleaseRequests(now)
		r.res.Events = append(r.res.Events, Event{Step: r.res.Steps, T: (now - supervisor.Epoch) / 1000, Kind: "up", Node: -1, Peer: -1, Value: "the client requests start"})
	}
	if r.s.HeldWorkload() && !r.s.HeldRequests() && r.t.setupAnswered(r.w) {
		r.s.ReleaseWorkload(now)
		r.res.Events = append(r.res.Events, Event{Step: r.res.Steps, T: (now - supervisor.Epoch) / 1000, Kind: "up", Node: -1, Peer: -1, Value: "the workload starts"})
	}
}

// up reports whether every node the clients contact has started and
// accepts connections on its port.
func (r *runner) up() bool {
	for _, n := range r.t.clientNodes() {
		if r.w.Waiting(n) || !r.w.Status(n).Alive || !r.w.Network().HasListener(uint16(r.t.m.BasePort+n)) {
			return false
		}
	}
	return true
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

// summarise records the clients' history in the result.
func (r *runner) summarise() {
	if r.clients == nil {
		return
	}
	r.res.History = slices.Clone(r.clients.Ops)
	r.res.Ops, r.res.OpsIndeterminate = r.clients.Counts()
	r.res.workload = true
	r.res.Params = append(r.res.Params, Param{"ops", fmt.Sprintf("%d run, %d indeterminate", r.res.Ops, r.res.OpsIndeterminate)})
	r.res.Params = append(r.res.Params, porcupineParams(r.t.m, r.res.History)...)
}

// porcupineParams names Porcupine's result on the final history for every
// porcupine: invariant, as "porcupine" parameters ("linearizable: linearizable
// (36 operations)"), so that a run that holds says what was checked, not only
// one that is violated.
func porcupineParams(m *model.Model, ops []workload.Op) []Param {
	var out []Param
	for _, inv := range m.Invariants {
		if inv.Porcupine == "" {
			continue
		}
		text := "not checked"
		if res, err := history.Check(workload.Kind(inv.Porcupine), ops); err != nil {
			text = "not checked: " + err.Error()
		} else {
			text, _, _ = strings.Cut(res.Text(), "\n")
		}
		out = append(out, Param{"porcupine", inv.Name + ": " + strings.TrimSuffix(text, ":")})
	}
	return out
}

// unmatched records, as "unmatched" parameters, the client connections
// that received bytes of which no reply matched, with the bytes.
func (r *runner) unmatched() {
	done := map[int]bool{}
	if r.clients != nil {
		for _, op := range r.clients.Ops {
			if op.Outcome == workload.Ok || op.Outcome == workload.Failed {
				done[op.Req] = true
			}
		}
	}
	for _, u := range unmatchedReplies(r.t.m, r.w, done, r.t.reqBase(), 5) {
		r.res.Params = append(r.res.Params, Param{"unmatched", u})
	}
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
