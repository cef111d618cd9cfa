package mcsdk

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
	"github.com/weft-mc/weft/mcsdk/weftlog"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// ToolVersion is written into recordings and datasets.
var ToolVersion = "0.1.0-dev"

// Recording turns a run into a self-contained recording: the header (what
// was run), the choices (to re-execute it), the observations (to trace it)
// and the verdict.
func (res *RunResult) Recording(m *model.Model) *weftlog.Recording {
	rec := &weftlog.Recording{Header: weftlog.Header{
		Model: m.Path, ModelHash: m.Hash, Variant: res.Variant, BinaryHash: res.Binary.Hash,
		Seed: res.Seed, Nodes: m.Nodes, ToolVersion: ToolVersion,
	}}
	rec.Header.State = append(rec.Header.State, m.StateNames()...)
	for i := 0; i < m.Nodes && m.NodeDefs != nil; i++ {
		rec.Header.Roles = append(rec.Header.Roles, m.Role(i))
	}
	for _, p := range res.Params {
		rec.Header.Params = append(rec.Header.Params, weftlog.Param{Name: p.Name, Value: p.Value})
	}
	if res.endUS > 0 {
		rec.Header.EndUS = res.endUS
	}
	if !res.omit.IsZero() {
		b, _ := json.Marshal(res.omit)
		rec.Header.Omit = string(b)
	}
	ci := 0
	for _, e := range res.Events {
		for ci < len(res.Choices) && ci+1 <= e.Step {
			rec.AddChoice(res.Choices[ci])
			ci++
		}
		rec.AddEvent(e)
	}
	for ; ci < len(res.Choices); ci++ {
		rec.AddChoice(res.Choices[ci])
	}
	rec.Verdict = weftlog.Verdict{Verdict: string(res.Verdict), Violated: res.Violated,
		FirstViolationStep: res.FirstViolationStep, Steps: res.Steps, Detail: res.Detail}
	if v := res.FirstViolation; v != nil && v.Linearizability != nil {
		rec.Verdict.Detail = strings.TrimSpace(rec.Verdict.Detail + "\n" + v.Invariant + ": " + v.Why)
	}
	return rec
}

// ValidateRecording checks that rec can be re-executed against m before
// anything runs: it is of this model file (same hash), of one of its
// variants, with the same nodes and declared globals, and every choice is
// an action whose node, request and partition indices exist in m. Replay
// calls it; shrink and trace should too, so that a corrupted or foreign
// recording is an error, never a panic halfway through a run.
func ValidateRecording(m *model.Model, rec *weftlog.Recording) error {
	h := rec.Header
	if m.Hash != h.ModelHash {
		return fmt.Errorf("model %s changed since the recording (hash %.12s, recorded %.12s)", m.Path, m.Hash, h.ModelHash)
	}
	if _, err := m.Variant(h.Variant); err != nil {
		return fmt.Errorf("the recording's variant: %v", err)
	}
	if h.Nodes != m.Nodes {
		return fmt.Errorf("the recording has %d nodes, model %s has %d", h.Nodes, m.Path, m.Nodes)
	}
	state := m.StateNames()
	if !slices.Equal(state, h.State) {
		return fmt.Errorf("the recording declares the globals %v, model %s declares %v", h.State, m.Path, state)
	}
	if h.EndUS < 0 || h.EndUS > model.MaxTimeUS {
		return fmt.Errorf("the recording ends at %dµs, outside 0..%d", h.EndUS, int64(model.MaxTimeUS))
	}
	sp := specsOf(m)
	for i, c := range rec.Choices {
		if err := checkChoice(m, sp, c); err != nil {
			return fmt.Errorf("the recording's choice %d (%q at %dns): %v", i+1, c.Action, c.T, err)
		}
	}
	return nil
}

// maxChoiceNS is the latest virtual time a choice may have: later ones
// would overflow the clock, which starts at supervisor.Epoch.
const maxChoiceNS = math.MaxInt64 - supervisor.Epoch

// checkChoice checks one recorded choice against the model.
func checkChoice(m *model.Model, sp *specs, c Choice) error {
	a, err := sched.ParseAction(c.Action)
	if err != nil {
		return err
	}
	inRange := func(what string, i, n int) error {
		if i < 0 || i >= n {
			if n == 0 {
				return fmt.Errorf("the model has no %ss", what)
			}
			return fmt.Errorf("no %s %d: the model has %ss 0..%d", what, i, what, n-1)
		}
		return nil
	}
	if c.T < 0 || c.T > maxChoiceNS {
		return fmt.Errorf("time %dns is outside the virtual clock", c.T)
	}
	switch a.Kind {
	case sched.Deliver, sched.Drop, sched.Dup:
		if a.Chan < 0 || a.Index < 0 {
			return fmt.Errorf("negative channel or message index")
		}
	case sched.Client:
		n := 0
		if m.Client != nil {
			n = len(m.Client.Requests)
		}
		if m.Workload != nil {
			n = len(workload.NewTable(m.Workload).Calls)
		}
		return inRange("client request", a.Req, n)
	case sched.Expire:
		n := 0
		if m.Workload != nil {
			n = m.Workload.Clients
		}
		return inRange("workload client", a.Req, n)
	case sched.Timer, sched.Run:
		if a.Task < 0 && a.Kind == sched.Run { // a negative timer is a signal timer
			return fmt.Errorf("negative thread index")
		}
		return inRange("node", a.Node, m.Nodes)
	case sched.Crash, sched.Restart:
		return inRange("node", a.Node, m.Nodes)
	case sched.Notice:
		if err := inRange("node", a.Node, m.Nodes); err != nil {
			return err
		}
		return inRange("node", a.Req, m.Nodes)
	case sched.Partition, sched.Heal:
		return inRange("partition", a.Req, len(sp.faults.Partition))
	}
	return nil
}

// Divergence is the first difference between a recording and its replay.
type Divergence struct {
	Step   int    // the step at which they differ (0: the initial state)
	Reason string // what differs
}

func (d *Divergence) Error() string { return fmt.Sprintf("step %d: %s", d.Step, d.Reason) }

// Replay re-executes a recording's choices against the real binary and
// verifies every observation. It returns the replayed run and, when the
// replay does not reproduce the recording (a changed binary, a leak of
// nondeterminism), the first divergence.
func Replay(m *model.Model, rec *weftlog.Recording, opts RunOptions) (*RunResult, *Divergence, error) {
	if err := ValidateRecording(m, rec); err != nil {
		return nil, nil, err
	}
	opts.Variant = rec.Header.Variant
	opts.Seed = rec.Header.Seed
	opts.Replay = slices.Clone(rec.Choices)
	if opts.Replay == nil {
		opts.Replay = []Choice{}
	}
	opts.Faults = []FaultEvent{}
	opts.EndUS = rec.Header.EndUS
	if rec.Header.Omit != "" {
		if err := json.Unmarshal([]byte(rec.Header.Omit), &opts.Omit); err != nil {
			return nil, nil, fmt.Errorf("the recording's omissions %q: %v", rec.Header.Omit, err)
		}
	}
	res, err := Run(m, opts)
	if res == nil {
		return nil, nil, err // the model or binary could not be prepared
	}
	var div *Divergence
	if res.Binary.Hash != rec.Header.BinaryHash {
		div = &Divergence{Reason: fmt.Sprintf("the binary for variant %s changed (hash %.12s, recorded %.12s)", res.Variant, res.Binary.Hash, rec.Header.BinaryHash)}
	}
	if err != nil { // a recorded choice was impossible: say which and why
		d := &Divergence{Step: res.Steps + 1, Reason: err.Error()}
		if div != nil {
			d.Reason = div.Reason + "; " + d.Reason
		}
		return res, d, nil
	}
	if d := firstDifference(rec.Events, res.Events); d != nil {
		if div != nil {
			d.Reason = div.Reason + "; " + d.Reason
		}
		div = d
	}
	if div == nil && (string(res.Verdict) != rec.Verdict.Verdict || !slices.Equal(res.Violated, rec.Verdict.Violated)) {
		div = &Divergence{Step: res.Steps, Reason: fmt.Sprintf("verdict %s %v, recorded %s %v", res.Verdict, res.Violated, rec.Verdict.Verdict, rec.Verdict.Violated)}
	}
	return res, div, nil
}

func firstDifference(want, got []Event) *Divergence {
	for i := 0; i < max(len(want), len(got)); i++ {
		switch {
		case i >= len(got):
			return &Divergence{Step: want[i].Step, Reason: fmt.Sprintf("the replay ended before recorded event %s", describeEvent(want[i]))}
		case i >= len(want):
			return &Divergence{Step: got[i].Step, Reason: fmt.Sprintf("the replay has an unrecorded event %s", describeEvent(got[i]))}
		case want[i] != got[i]:
			return &Divergence{Step: got[i].Step, Reason: fmt.Sprintf("recorded %s, replayed %s", describeEvent(want[i]), describeEvent(got[i]))}
		}
	}
	return nil
}

func describeEvent(e Event) string {
	switch e.Kind {
	case "state":
		return fmt.Sprintf("n%d.%s=%s at %dµs", e.Node, e.Var, e.Value, e.T)
	case "deliver":
		return fmt.Sprintf("deliver n%d→n%d (%d bytes%s) at %dµs", e.Peer, e.Node, e.Bytes, prefixed(e.Value), e.T)
	}
	return fmt.Sprintf("%s n%d at %dµs%s", e.Kind, e.Node, e.T, prefixed(e.Value))
}

func prefixed(s string) string {
	if s == "" {
		return ""
	}
	return " " + s
}
