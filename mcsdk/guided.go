package mcsdk

import (
	"fmt"
	"strings"
	"time"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// guidedRun is what the guided strategy adds to one seeded run: the
// execution's lineage (where its draws fork) and the guide that hears of
// every abstract state it reaches.
type guidedRun struct {
	l sched.Lineage
	g *sched.SeededGuide
}

// fork reseeds the scheduler when the lineage forks once the actions
// applied so far are applied (each fork once, in step order).
func (r *runner) fork() {
	g := r.opts.guide
	if g == nil {
		return
	}
	for r.forked < len(g.l.Forks) && g.l.Forks[r.forked].Step <= r.res.Steps {
		if f := g.l.Forks[r.forked]; f.Step == r.res.Steps {
			r.s.Reseed(f.Seed)
		}
		r.forked++
	}
}

// abstract is the guided strategy's abstraction of a seeded run's state:
// every node's liveness, the model's [state] values and [[state.query]]
// answers, and the run's fault phase: which of its scheduled faults have
// happened and which partitions are on. It leaves out the network's
// messages (each run's differ a little: with them nearly every run
// reached a new state, and coverage told runs apart no better than
// chance) and the replies and the clients' history, which grow with
// every step. The values are those observe decoded (a run reads only the
// nodes that ran; the others keep theirs).
func (r *runner) abstract(ob observation) []byte {
	var b []byte
	for i, ns := range ob.state.Nodes {
		st := r.w.Status(i)
		b = append(b, boolByte(st.Alive), boolByte(st.Killed))
		for _, name := range r.t.m.StateNames() {
			b, _ = ns.Vars[name].AppendText(b)
			b = append(b, 0)
		}
	}
	now := r.w.Now()
	for _, f := range r.s.Faults() {
		if supervisor.Epoch+f.AtUS*1000 <= now {
			b = append(b, 'f', byte(f.Kind), byte(f.Node))
		}
	}
	for k, w := range r.s.Windows() {
		if w.Start <= now && now < w.End {
			b = append(b, 'p', byte(k))
		}
	}
	return b
}

// checkGuided is Check with strategy guided: every execution is a seeded
// run, drawn as weft run draws it, and the guide (sched.SeededGuide)
// chooses each one's seed and forks from what the earlier ones reached.
// It stops at the first violation (CheckResult.Run is that run, to save
// as a recording), after Runs executions or when stopped. States is the
// number of abstract states reached; Depth the longest execution's
// actions; Replays and ReplayedSteps count the executions that replayed
// a corpus entry up to a fork, and the actions before their forks.
func checkGuided(m *model.Model, opts CheckOptions, res *CheckResult) (*CheckResult, error) {
	bin, err := BuildWith(m, res.Variant, opts.Host.Toolchain)
	if err != nil {
		return nil, err
	}
	syms, err := readSymbols(bin.Path, m.State)
	if err != nil {
		return nil, err
	}
	res.Binary = bin
	prep := &prepared{sp: specsOf(m), syms: map[string]*symbolTable{res.Variant: syms}}
	stop := stopWith(opts.Context, opts.Stop)
	g := sched.NewSeededGuide(opts.Seed)
	until := prep.sp.faults.Until
	if until == 0 {
		until = prep.sp.campaign.Duration
	}
	g.SetFaultWindow(prep.sp.faults.From, until)
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()
	for i := 1; opts.Runs <= 0 || i <= opts.Runs; i++ {
		if stop != nil && stop() {
			res.Interrupted, res.StoppedBy = true, stoppedBy(opts.Context)
			return res, nil
		}
		l := g.Next()
		var given []FaultEvent
		for _, f := range l.Faults {
			given = append(given, FaultEvent(f))
		}
		run, err := Run(m, RunOptions{Variant: res.Variant, Seed: l.Seed, Faults: given, Preconditions: opts.Preconditions, Watchdog: opts.Watchdog,
			Host: opts.Host, Build: &bin, prep: prep, guide: &guidedRun{l: l, g: g}})
		if run != nil {
			used := make([]sched.FaultEvent, 0, len(run.Faults))
			for _, f := range run.Faults {
				used = append(used, sched.FaultEvent(f))
			}
			g.Schedule(used)
			for _, e := range run.Events {
				if e.Kind == "state" {
					g.Changed(e.Node, e.T)
				}
			}
		}
		g.Done()
		if err != nil {
			return nil, fmt.Errorf("guided execution %d (%s): %w", i, DescribeLineage(l), err)
		}
		res.Executions++
		res.Depth = max(res.Depth, run.Steps)
		if len(l.Forks) > 0 && l.Forks[len(l.Forks)-1].Step > 0 {
			res.Replays++
			res.ReplayedSteps += min(l.Forks[len(l.Forks)-1].Step, run.Steps)
		}
		res.States, res.Abstract, res.Corpus = g.Abstract(), g.Abstract(), g.Corpus()
		if opts.Progress != nil {
			opts.Progress(res.States, res.Executions)
		}
		switch run.Verdict {
		case Violated:
			res.Verdict, res.Run, res.Lineage = Violated, run, &l
			res.Violation = &Violation{Invariant: strings.Join(run.Violated, ", ")}
			if v := run.FirstViolation; v != nil {
				vv := *v
				res.Violation = &vv
			}
			return res, nil
		case Error:
			res.Verdict, res.Failure, res.Run, res.Lineage = Error, run.Detail, run, &l
			return res, nil
		}
	}
	res.Interrupted, res.StoppedBy = true, "runs" // no verdict: sampled executions claim no coverage
	return res, nil
}

// DescribeLineage says which seeded run an execution of the guided
// strategy is: its seed and where its draws forked.
func DescribeLineage(l sched.Lineage) string {
	s := fmt.Sprintf("seed %d", l.Seed)
	if l.Faults != nil {
		s += ", faults"
		for _, f := range l.Faults {
			s += fmt.Sprintf(" %s", FaultEvent(f))
		}
	}
	for _, f := range l.Forks {
		s += fmt.Sprintf(", reseeded %d after %d actions", f.Seed, f.Step)
	}
	return s
}
