package mcsdk

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/weft-mc/weft/mcsdk/history"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/supervisor"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// target is a model bound to one variant's binary: everything needed to
// start identical worlds again and again.
type target struct {
	m     *model.Model
	bin   Binary
	syms  *symbolTable
	cfg   supervisor.Config
	table *workload.Table // the workload's calls (request i = table.Calls[i]), or nil
	nodes nodeBinding     // per-node binaries, symbols and state queries (nodes.go)
}

// Host is how this host runs nodes, decided by the program that uses
// mcsdk (weft's CLI decodes it from its environment: WEFT_TSC=trap,
// WEFT_NO_VDSO=1, WEFT_TEMPLATES=0, WEFT_GO_LAUNCHER=1, WEFT_CHECKS,
// WEFT_CACHE and CC; mcsdk reads no environment variable of its own).
// Each field but Checks sets supervisor.Config's of the same name; the
// zero value is the default.
type Host struct {
	TrapTSC     bool // trap the TSC from each node's start instead of patching its reads
	NoVDSO      bool // hide the vDSO: every clock read an intercepted call
	NoTemplates bool // start every node afresh, not as a fork of a template
	GoLauncher  bool // the Go launcher instead of the native one
	// Checks is how a model's Go checks run (gocheck.Mode): "" compiled
	// when they can be, "interp" always interpreted, "native" compiled
	// or an error.
	Checks string
	// Toolchain is the C compiler targets and weft's helpers are built
	// with and where they (and compiled checks) are cached.
	Toolchain supervisor.Toolchain
	// Trace, if set, receives the supervisor's scheduling trace, to
	// compare two runs of one seed line by line.
	Trace io.Writer
}

// apply sets h's choices in cfg.
func (h Host) apply(cfg *supervisor.Config) {
	cfg.TrapTSC = cfg.TrapTSC || h.TrapTSC
	cfg.NoVDSO = cfg.NoVDSO || h.NoVDSO
	cfg.NoTemplates = cfg.NoTemplates || h.NoTemplates
	cfg.GoLauncher = cfg.GoLauncher || h.GoLauncher
	if cfg.Toolchain == (supervisor.Toolchain{}) {
		cfg.Toolchain = h.Toolchain
	}
	if cfg.Trace == nil {
		cfg.Trace = h.Trace
	}
}

func newTarget(m *model.Model, variant string, seed uint64, watchdog time.Duration, host Host) (*target, error) {
	bin, err := BuildWith(m, variant, host.Toolchain)
	if err != nil {
		return nil, err
	}
	return newTargetFor(m, bin, nil, seed, watchdog)
}

// newTargetFor binds m to a built binary; syms, if known, saves reading
// the binary's symbol table again.
func newTargetFor(m *model.Model, bin Binary, syms *symbolTable, seed uint64, watchdog time.Duration) (*target, error) {
	if syms == nil {
		var err error
		if syms, err = readSymbols(bin.Path, m.State); err != nil {
			return nil, err
		}
	}
	// Every node has its private run directory, its working directory,
	// whether or not the model names {rundir}: a program may write
	// relative to where it starts.
	cfg := supervisor.Config{BasePort: m.BasePort, Seed: seed, Watchdog: watchdog, DataDirs: true,
		MaxTasks: m.Bounds.Tasks, MaxFDs: m.Bounds.Descriptors, MaxMemory: m.Bounds.Memory, CPUs: m.CPUs}
	for i := 0; i < m.Nodes; i++ {
		args := m.NodeArgs(i)
		if !m.HasArgs(i) {
			args = substituteDefault(i, m)
		}
		path := bin.Path
		if b := m.NodeBinary(i); b != "" {
			path = b
		}
		path, args, err := resolveScript(path, args)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m.NodeName(i), err)
		}
		spec := supervisor.NodeSpec{
			Path: path,
			Args: args,
			Env:  nodeEnv(m, i),
			Dir:  m.Dir,
		}
		files, err := m.NodeFiles(i)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m.NodeName(i), err)
		}
		for _, f := range files {
			spec.Files = append(spec.Files, supervisor.NodeFile{Name: f.Name, Data: f.Data, Mode: f.Mode})
		}
		if i < len(m.NodeDefs) {
			d := m.NodeDefs[i]
			for _, j := range d.StartAfter {
				spec.AfterPorts = append(spec.AfterPorts, uint16(m.BasePort+j))
			}
			spec.StartDelay = d.StartDelayUS * 1000
			if u := d.User; u != nil {
				spec.User = &supervisor.User{Name: u.Name, UID: u.UID, GID: u.GID, Groups: u.Groups}
			}
		}
		cfg.Nodes = append(cfg.Nodes, spec)
	}
	nb, err := bindNodes(m, bin, syms)
	if err != nil {
		return nil, err
	}
	cfg.Queries = nb.stateQueries(m)
	if m.Client != nil {
		for _, r := range m.Client.Requests {
			data, err := m.Client.Protocol.EncodeRequest(r.Send)
			if err != nil {
				return nil, fmt.Errorf("client.request: %w", err)
			}
			cr := supervisor.ClientRequest{Node: r.Node, Data: data}
			if p, ok := m.NodePort(r.Node, r.Port); ok && r.Port != "" {
				cr.Port = uint16(p)
			}
			cfg.Client = append(cfg.Client, cr)
		}
	}
	t := &target{m: m, bin: bin, syms: syms, cfg: cfg, nodes: nb}
	if wl := m.Workload; wl != nil {
		t.table = workload.NewTable(wl)
		for _, c := range t.table.Calls {
			data, err := wl.Encode(c)
			if err != nil {
				return nil, fmt.Errorf("workload.request.%s: %w", c.Op, err)
			}
			t.cfg.Client = append(t.cfg.Client, supervisor.ClientRequest{Node: c.Node, Data: data})
		}
	}
	return t, nil
}

// checkRunDirs configures the run directories of an exhaustive check
// (weft check, and replaying its saved paths): real programs ([[node]]
// entries), models that name {rundir} and restarts get one per node, as
// seeded runs always do; the nodes of other models (C targets) run in the
// model's directory, read-only, since a run directory per explored state
// doubles a check's time (measured on targets/quorum/register.model).
func (t *target) checkRunDirs(sp *specs) {
	m := t.m
	t.cfg.DataDirs = sp.faults.Restart || m.UsesRunDir() || len(m.NodeDefs) > 0
	t.cfg.ReadOnlyWorkDir = !t.cfg.DataDirs
}

// clientNodes lists the nodes the client requests and the workload's
// clients contact, in order, each once.
func (t *target) clientNodes() []int {
	var out []int
	add := func(n int) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if c := t.m.Client; c != nil {
		for _, r := range c.Requests {
			add(r.Node)
		}
	}
	if wl := t.m.Workload; wl != nil {
		for _, ns := range wl.Nodes {
			for _, n := range ns {
				add(n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// clients starts the workload's clients of one run (nil without one).
func (t *target) clients() *workload.Clients {
	if t.table == nil {
		return nil
	}
	return workload.NewClients(t.m.Workload, t.table)
}

// feed hands the clients the replies received so far, at the world's
// virtual time, and returns the clients whose operation ended.
func feed(c *workload.Clients, w *supervisor.World, base int) []int {
	if c == nil {
		return nil
	}
	return c.Feed(workloadReplies(c.Spec(), w, base), w.Now()-supervisor.Epoch)
}

// reqBase is the supervisor's request index of the workload's first call:
// the model's fixed [[client.request]]s come first (set-up requests).
func (t *target) reqBase() int {
	if t.table == nil || t.m.Client == nil {
		return 0
	}
	return len(t.m.Client.Requests)
}

// call returns the workload call of supervisor request req, if it is one.
func (t *target) call(req int) (workload.Call, int, bool) {
	k := req - t.reqBase()
	if t.table == nil || req < t.reqBase() || k >= len(t.table.Calls) {
		return workload.Call{}, -1, false
	}
	return t.table.Calls[k], k, true
}

// setupAnswered reports whether every fixed client request has been
// answered: a reply matched it, its connection was refused, or the node
// closed it. The workload of a model with set-up requests starts then.
func (t *target) setupAnswered(w *supervisor.World) bool {
	c := t.m.Client
	if c == nil || len(c.Requests) == 0 {
		return true
	}
	done := make([]bool, len(c.Requests))
	mark := func(req int) {
		if req >= 0 && req < len(done) {
			done[req] = true
		}
	}
	for _, r := range w.Replies() {
		if r.Err != "" || (c.Protocol == workload.Line || c.Protocol == "") && c.Reply.MatchString(r.Line) {
			mark(r.Req)
		}
	}
	frames, conns := frameReplies(w.Received(), c.Protocol, c.Reply, false)
	if c.Protocol != workload.Line && c.Protocol != "" {
		for _, f := range frames {
			if c.Reply.MatchString(f.frame.Text) {
				mark(f.req)
			}
		}
	}
	for _, cs := range conns {
		if cs.closed {
			mark(cs.req)
		}
	}
	return !slices.Contains(done, false)
}

func substituteDefault(id int, m *model.Model) []string {
	return []string{fmt.Sprint(id), fmt.Sprint(m.Nodes), fmt.Sprint(m.BasePort)}
}

// start launches a fresh world.
func (t *target) start() (*supervisor.World, error) { return supervisor.Start(t.cfg) }

// observation is what the checker sees at a quiescent point.
type observation struct {
	state   model.State
	globals []byte        // the declared globals' raw bytes, for coarse hashing
	ops     []workload.Op // the clients' history so far
}

// withHistory adds the clients' history to an observation.
func (ob observation) withHistory(c *workload.Clients) observation {
	if c != nil {
		ob.ops = slices.Clone(c.Ops)
	}
	return ob
}

// observe reads every live node's declared globals by ELF symbol
// (relocated by the load base for PIE executables) and the ghost logs.
// A dead node keeps the values it had when last seen.
func (t *target) observe(w *supervisor.World, last *model.State) (observation, error) {
	return t.observeSome(w, last, func(int) bool { return true })
}

// observeSome is observe, reading only the live nodes for which reread
// holds and keeping last's values for the others.
func (t *target) observeSome(w *supervisor.World, last *model.State, reread func(int) bool) (observation, error) {
	var ob observation
	ob.state.Nodes = make([]model.NodeState, t.m.Nodes)
	for i := range ob.state.Nodes {
		st := w.Status(i)
		ns := model.NodeState{Alive: st.Alive, Vars: map[string]model.Value{}}
		if !st.Alive {
			if last != nil && i < len(last.Nodes) {
				ns.Vars = last.Nodes[i].Vars
			}
			ob.state.Nodes[i] = ns
			continue
		}
		if !reread(i) && last != nil && i < len(last.Nodes) && last.Nodes[i].Alive {
			ob.state.Nodes[i] = last.Nodes[i]
			continue
		}
		syms := t.nodes.symsOf(i, t.syms)
		var base uintptr
		if syms.pie {
			b, err := w.LoadBase(i)
			if err != nil {
				return ob, err
			}
			base = b
		}
		if len(syms.syms) > 0 {
			addrs := make([]uintptr, len(syms.syms))
			sizes := make([]int, len(syms.syms))
			for k, s := range syms.syms {
				addrs[k], sizes[k] = base+uintptr(s.addr), s.size
			}
			vals, err := w.ReadMemv(i, addrs, sizes)
			if err != nil {
				return ob, fmt.Errorf("node %d: reading its declared globals: %v", i, err)
			}
			for k, s := range syms.syms {
				ob.globals = append(ob.globals, vals[k]...)
				ns.Vars[s.v.Name] = s.v.Type.Decode(vals[k])
			}
		}
		if err := t.nodes.readQueries(w, i, ns.Vars, &ob.globals); err != nil {
			return ob, err
		}
		ob.state.Nodes[i] = ns
	}
	if c := t.m.Client; c != nil {
		ob.state.Logs = map[string][]model.Value{c.Log: clientLog(c, w)}
	}
	return ob, nil
}

// Violation describes a broken invariant and how to reach it.
type Violation struct {
	Invariant string   // its name
	Why       string   // the values that break it
	Summary   string   // every node's declared state and the ghost logs
	Path      []Action // the choices that reach it from the initial state
	Steps     []string // the same, described for people
	Output    []string // each node's output up to the violation
	State     model.State
	// Linearizability is Porcupine's verdict on the clients' history when
	// a porcupine: invariant is violated (its HTML visualisation: WriteHTML).
	Linearizability *history.Result
	// History is the clients' history at the violation.
	History []workload.Op
}

// checkInvariants evaluates every invariant, and the built-in rule that no
// node crashes, in model order; it returns the first violation.
func (t *target) checkInvariants(w *supervisor.World, ob observation) (*Violation, error) {
	_, v, err := t.failing(w, ob, nil)
	return v, err
}

// crashed returns the built-in no_node_crash violation, if a node exited
// abnormally without being killed by the scheduler.
func (t *target) crashed(w *supervisor.World, ob observation) *Violation {
	for i := 0; i < t.m.Nodes; i++ {
		st := w.Status(i)
		if st.Exited && !st.Killed && (st.Signal != "" || st.ExitCode != 0) {
			why := fmt.Sprintf("node %d exited with status %d", i, st.ExitCode)
			if st.Signal != "" {
				why = fmt.Sprintf("node %d was killed by %s", i, st.Signal)
			}
			return &Violation{Invariant: "no_node_crash", Why: why, State: ob.state, Summary: ob.state.Summary(t.m)}
		}
	}
	return nil
}

// observeChanged is observe, re-reading only the nodes that ran since the
// previous observation.
func (t *target) observeChanged(w *supervisor.World, prev *observation) (observation, error) {
	if prev == nil {
		return t.observe(w, nil)
	}
	return t.observeSome(w, &prev.state, func(i int) bool { return w.Ran(i) })
}

// failing evaluates the invariants only selects (all when nil) and the
// no-crash rule, and returns
// the names of those that fail, in model order, with the first as a
// Violation.
func (t *target) failing(w *supervisor.World, ob observation, only func(string) bool) ([]string, *Violation, error) {
	var names []string
	first := t.crashed(w, ob)
	if first != nil {
		names = append(names, first.Invariant)
	}
	for _, inv := range t.m.Invariants {
		if only != nil && !only(inv.Name) {
			continue
		}
		if inv.Porcupine != "" {
			res, err := history.Check(workload.Kind(inv.Porcupine), ob.ops)
			if err != nil {
				return nil, nil, err
			}
			if !res.Ok {
				names = append(names, inv.Name)
				if first == nil {
					first = &Violation{Invariant: inv.Name, Why: res.Text(), Summary: ob.state.Summary(t.m), State: ob.state, Linearizability: res, History: ob.ops}
				}
			}
			continue
		}
		ok, why, err := inv.Check(ob.state)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			names = append(names, inv.Name)
			if first == nil {
				first = &Violation{Invariant: inv.Name, Why: why, Summary: ob.state.Summary(t.m), State: ob.state}
			}
		}
	}
	return names, first, nil
}

// VisualisationPath is where the Porcupine visualisation of a violation
// found in the run recorded (or the path saved) at file is written.
func VisualisationPath(file string) string { return file + ".porcupine.html" }

// writeVisualisation writes v's Porcupine visualisation beside file, if v
// is a linearizability violation; it returns the path written ("" if none).
func writeVisualisation(file string, v *Violation) (string, error) {
	if v == nil || v.Linearizability == nil {
		return "", nil
	}
	var b bytes.Buffer
	if err := v.Linearizability.WriteHTML(&b); err != nil {
		return "", err
	}
	out := VisualisationPath(file)
	return out, writeAtomic(out, b.Bytes())
}

// Linearizability checks the run's history against the sequential model
// of m's workload (Porcupine) and returns the verdict as text and
// Porcupine's visualisation as a self-contained HTML page. A model
// without a workload is an error.
func (res *RunResult) Linearizability(m *model.Model) (text, html string, err error) {
	if m.Workload == nil {
		return "", "", fmt.Errorf("model %s has no [workload]", m.Path)
	}
	r, err := history.Check(m.Workload.Kind, res.History)
	if err != nil {
		return "", "", err
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		return "", "", err
	}
	return r.Text(), b.String(), nil
}
