package chordcheck

import (
	"strconv"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// recording builds a recording of three nodes (ids 1, 22, 43 at indices
// 0, 1, 2; a ring) from lines "STEP T KIND NODE [VAR VALUE]".
func recording(t *testing.T, lines ...string) *weftlog.Recording {
	t.Helper()
	rec := &weftlog.Recording{Header: weftlog.Header{Nodes: 3, Variant: "c00"}}
	init := []string{
		"0 0 state 0 chord_id 1", "0 0 state 0 succ 22", "0 0 state 0 succ2 43", "0 0 state 0 known_dead 0",
		"0 0 state 1 chord_id 22", "0 0 state 1 succ 43", "0 0 state 1 succ2 1", "0 0 state 1 known_dead 0",
		"0 0 state 2 chord_id 43", "0 0 state 2 succ 1", "0 0 state 2 succ2 22", "0 0 state 2 known_dead 0",
	}
	for _, l := range append(init, lines...) {
		f := strings.Fields(l)
		step, _ := strconv.Atoi(f[0])
		tus, _ := strconv.ParseInt(f[1], 10, 64)
		node, _ := strconv.Atoi(f[3])
		ev := weftlog.Event{Step: step, T: tus, Kind: f[2], Node: node, Peer: -1}
		if len(f) > 4 {
			ev.Var = f[4]
		}
		if len(f) > 5 {
			ev.Value = f[5]
		}
		if f[2] == "invalid" {
			ev.Var, ev.Value = "", strings.Join(f[4:], " ")
		}
		rec.AddEvent(ev)
	}
	return rec
}

// TestExplainInvalid: hand-made recordings of each way a run becomes
// invalid; node 1 (id 22) is stranded when node 2 (id 43) crashes.
func TestExplainInvalid(t *testing.T) {
	dead1 := "5 1000 crash 0"               // id 1 dies at 1 ms
	knows1 := "6 1500 state 1 known_dead 2" // 22 learns 1 is dead (bit 1)
	fatal := "20 9000 invalid 2 43 fails while 22 has succ 43 and no live succ2"
	tests := []struct {
		name     string
		lines    []string
		category string
		op       string
		refused  string
		known    bool
	}{
		{"reconcile of a known-dead node (level 1's path)", []string{dead1, knows1,
			"8 2000 state 1 succ2 44", "9 3000 state 1 succ2 1", fatal}, CauseRefusable, OpReconcile, CheckReconcile, true},
		{"reconcile before the notice arrives", []string{dead1,
			"9 3000 state 1 succ2 1", knows1, fatal}, CauseInFlight, OpReconcile, "", false},
		{"reconcile from a responder that knew", []string{dead1, "6 1500 state 2 known_dead 2",
			"9 3000 state 1 succ2 1", fatal}, CauseRefusable, OpReconcile, CheckResponder, false},
		{"adopted alive, died before repair", []string{"4 500 state 1 succ2 1", dead1, knows1, fatal},
			CauseDiedLater, OpReconcile, "", false},
		{"update replaced a dead successor that stabilize adopted (level 0's path)", []string{"4 500 state 1 succ2 43", dead1, knows1,
			"7 2000 state 1 succ 1", "8 2500 state 1 succ 43", "8 2500 state 1 succ2 -1", fatal}, CauseUnsetDead, OpUpdate, CheckStabilize, false},
		{"update cleared succ2", []string{"4 500 state 1 succ 1", "4 500 state 1 succ2 -1",
			"10 4000 state 1 succ 43", fatal}, CauseUnset, OpUpdate, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ExplainInvalid(recording(t, tc.lines...))
			if err != nil {
				t.Fatal(err)
			}
			if c.Crash != 43 || c.Stranded != 22 || c.Field != "succ2" {
				t.Fatalf("cause %+v, want 43's crash stranding 22 by succ2", c)
			}
			if c.Category() != tc.category || c.Adoption.Op != tc.op || c.Refused() != tc.refused || c.Adoption.Known != tc.known {
				t.Errorf("got %s: category %q op %q refused %q known %v; want %q %q %q %v",
					c, c.Category(), c.Adoption.Op, c.Refused(), c.Adoption.Known, tc.category, tc.op, tc.refused, tc.known)
			}
			if c.Category() == CauseUnsetDead && (c.Prior == nil || c.Prior.Op != OpStabilize || c.Prior.Step != 7 || !c.Prior.Known) {
				t.Errorf("prior adoption %+v, want 22's stabilize of known-dead 1 at step 7", c.Prior)
			}
			if c.Category() == CauseUnset && c.Adoption.Step != 4 {
				t.Errorf("the clear is at step %d, want 4 (the update that promoted 1)", c.Adoption.Step)
			}
		})
	}
}

func TestExplainInvalidErrors(t *testing.T) {
	if _, err := ExplainInvalid(recording(t, "5 1000 crash 0")); err == nil || !strings.Contains(err.Error(), "no invalid event") {
		t.Errorf("no invalid event: %v", err)
	}
	// The recorded state does not strand anyone: the recording is not of
	// this target's precondition.
	if _, err := ExplainInvalid(recording(t, "20 9000 invalid 2 made up")); err == nil || !strings.Contains(err.Error(), "strands no member") {
		t.Errorf("nothing stranded: %v", err)
	}
}
