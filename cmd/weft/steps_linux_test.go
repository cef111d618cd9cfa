//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/weft-mc/weft/mcsdk/workload"
)

// Each view's lines for an operation's call and return: the step, the
// event's kind or arrow, the client.
var (
	traceOpLine = regexp.MustCompile(`(?m)^\s*(\d+)\s+[\d.]+\s+(invoke|return) (c\d+) `)
	traceExpire = regexp.MustCompile(`(?m)^\s*(\d+)\s+[\d.]+\s+expire `)
	diagramOp   = regexp.MustCompile(`<title>(client → n\d+|n\d+ → client) (c\d+) [^<]*\(step (\d+)\)</title>`)
)

// TestStepsAgreeAcrossViews: one seeded run of targets/paxos (seed 1 of
// the correct variant, whose clients give up on operations: expires, steps
// the world never sees) names each operation's call and return by the
// same step in Porcupine's history (weft run --json), the trace (weft
// trace) and the sequence diagram (weft trace --svg) of its recording.
func TestStepsAgreeAcrossViews(t *testing.T) {
	dir := t.TempDir()
	copyTarget(t, dir, "paxos", "paxos.model", "paxos.c")
	mod, ds := filepath.Join(dir, "paxos.model"), filepath.Join(dir, "ds")
	out, errOut, code := weft(t, "run", mod, "--variant", "correct", "--seed", "1", "--json", "--quiet")
	var run struct{ History []workload.Op }
	if err := json.Unmarshal([]byte(out), &run); err != nil || code != 0 || len(run.History) == 0 {
		t.Fatalf("weft run: exit %d, %v, %d operations\n%s", code, err, len(run.History), errOut)
	}
	if out, errOut, code := weft(t, "campaign", mod, "--variants", "correct", "--first-seed", "1", "--seeds", "1", "--record", "all", "--out", ds); code != 0 {
		t.Fatalf("weft campaign: exit %d\n%s%s", code, out, errOut)
	}
	rec := filepath.Join(ds, "recordings", "correct-1.weftlog")
	trace, errOut, code := weft(t, "trace", rec)
	svg, errOut2, code2 := weft(t, "trace", rec, "--svg", "-")
	if code != 0 || code2 != 0 {
		t.Fatalf("weft trace: exits %d and %d\n%s%s", code, code2, errOut, errOut2)
	}

	// history: per client, its calls' and returns' steps in order
	want := map[string][]int{}
	for _, op := range run.History {
		c := fmt.Sprintf("c%d", op.Call.Client)
		want["invoke "+c] = append(want["invoke "+c], op.CallStep)
		if op.ReturnStep >= 0 {
			want["return "+c] = append(want["return "+c], op.ReturnStep)
		}
	}
	traced := map[string][]int{}
	for _, m := range traceOpLine.FindAllStringSubmatch(trace, -1) {
		traced[m[2]+" "+m[3]] = append(traced[m[2]+" "+m[3]], atoi(t, m[1]))
	}
	drawn := map[string][]int{}
	for _, m := range diagramOp.FindAllStringSubmatch(svg, -1) {
		kind := "invoke "
		if m[1][0] == 'n' {
			kind = "return "
		}
		drawn[kind+m[2]] = append(drawn[kind+m[2]], atoi(t, m[3]))
	}
	for k, steps := range want {
		if !slices.Equal(traced[k], steps) || !slices.Equal(drawn[k], steps) {
			t.Errorf("%s: steps %v in the history, %v in the trace, %v in the diagram", k, steps, traced[k], drawn[k])
		}
	}
	if len(traced) != len(want) || len(drawn) != len(want) {
		t.Errorf("clients' calls and returns: %d in the history, %d in the trace, %d in the diagram", len(want), len(traced), len(drawn))
	}
	expires, later := traceExpire.FindAllStringSubmatch(trace, -1), 0
	for _, op := range run.History {
		if len(expires) > 0 && op.CallStep > atoi(t, expires[0][1]) {
			later++
		}
	}
	if later == 0 {
		t.Fatalf("no operation after an expire (%d expires): the test shows nothing the steps could disagree on", len(expires))
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
