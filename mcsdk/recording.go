package mcsdk

import (
	"fmt"
	"slices"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
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
	for _, sv := range m.State {
		rec.Header.State = append(rec.Header.State, sv.Name)
	}
	for _, p := range res.Params {
		rec.Header.Params = append(rec.Header.Params, weftlog.Param{Name: p.Name, Value: p.Value})
	}
	if res.endUS > 0 {
		rec.Header.EndUS = res.endUS
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
	return rec
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
	if m.Hash != rec.Header.ModelHash {
		return nil, nil, fmt.Errorf("model %s changed since the recording (hash %.12s, recorded %.12s)", m.Path, m.Hash, rec.Header.ModelHash)
	}
	opts.Variant = rec.Header.Variant
	opts.Seed = rec.Header.Seed
	opts.Replay = slices.Clone(rec.Choices)
	if opts.Replay == nil {
		opts.Replay = []Choice{}
	}
	opts.Faults = []FaultEvent{}
	opts.EndUS = rec.Header.EndUS
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
