//go:build linux

package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// TestHistoryOpsFromRecording: the clients' history the run browser
// rebuilds from a recording's events is the run's own history (calls,
// outcomes, read values and steps), on real runs of targets/paxos: seed 1
// of the correct variant has operations that expire (indeterminate), seed
// 119 of the bug variant crashes and partitions; and Porcupine's verdict
// on it is the run's.
func TestHistoryOpsFromRecording(t *testing.T) {
	m, err := model.Load("../targets/paxos/paxos.model")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		variant string
		seed    uint64
	}{{"correct", 1}, {"bug", 119}} {
		res, err := mcsdk.Run(m, mcsdk.RunOptions{Variant: tc.variant, Seed: tc.seed})
		if err != nil {
			t.Fatal(err)
		}
		evs := res.Recording(m).Events
		got, err := HistoryOps(m.Workload.Kind, evs)
		if err != nil {
			t.Fatalf("%s seed %d: %v", tc.variant, tc.seed, err)
		}
		if len(got) != len(res.History) || len(got) == 0 {
			t.Fatalf("%s seed %d: %d operations rebuilt, the run has %d", tc.variant, tc.seed, len(got), len(res.History))
		}
		indeterminate := 0
		for i, op := range res.History {
			g := got[i]
			known := op.Outcome == workload.Ok || op.Outcome == workload.Failed
			if !known {
				indeterminate++
			}
			if g.Call != op.Call || g.CallStep != op.CallStep || g.ReturnStep != op.ReturnStep ||
				known && g.Outcome != op.Outcome || !known && g.Outcome != workload.Indeterminate || !slices.Equal(g.Values, op.Values) {
				t.Errorf("%s seed %d op %d: rebuilt %+v, the run's %+v", tc.variant, tc.seed, i, g, op)
			}
		}
		if tc.seed == 1 && indeterminate == 0 {
			t.Errorf("correct seed 1 has no indeterminate operation: the test shows less than it says")
		}
		_, ok, err := historyPage(m.Workload.Kind, evs)
		text, _, err2 := res.Linearizability(m)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		if ok != strings.HasPrefix(text, "linearizable") {
			t.Errorf("%s seed %d: Porcupine on the rebuilt history says %v, on the run's %q", tc.variant, tc.seed, ok, text)
		}
	}
}

// TestHistoryOpsErrors: events that are not a history are errors that
// name the step.
func TestHistoryOpsErrors(t *testing.T) {
	tests := []struct {
		name   string
		kind   workload.Kind
		events []weftlog.Event
		want   string
	}{
		{"no key", workload.KV, []weftlog.Event{{Step: 3, Kind: "invoke", Var: "c0", Value: "get"}}, `step 3: call "get" names no key`},
		{"bad value", workload.Register, []weftlog.Event{{Step: 4, Kind: "invoke", Var: "c0", Value: "write x"}}, "step 4: call \"write x\": "},
		{"bad client", workload.Register, []weftlog.Event{{Step: 5, Kind: "invoke", Var: "n0", Value: "read"}}, `step 5: client "n0" is not c<number>`},
		{"return alone", workload.Register, []weftlog.Event{{Step: 6, Kind: "return", Var: "c0", Value: "read → 5"}}, "step 6: c0 returns without an operation"},
		{"no outcome", workload.Register, []weftlog.Event{{Step: 1, Kind: "invoke", Var: "c0", Value: "write 5"}, {Step: 7, Kind: "return", Var: "c0", Value: "write 5 → 7"}}, `step 7: return "write 5 → 7": "7" is no outcome`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := HistoryOps(tc.kind, tc.events)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
