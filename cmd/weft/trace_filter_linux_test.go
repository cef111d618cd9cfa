//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// TestTraceFilters: weft trace hides thread switches unless --threads,
// keeps only --kinds, and the diagram (--svg) follows --nodes (n1's own
// state change goes, the messages n0 sent or received stay), --from,
// --to and --kinds like the timeline, with client requests drawn.
func TestTraceFilters(t *testing.T) {
	rec := &weftlog.Recording{Header: weftlog.Header{Model: "m.model", Variant: "v", Seed: 1, Nodes: 2, State: []string{"stored"}}}
	for _, e := range []weftlog.Event{
		{Step: 1, T: 10, Kind: "client", Node: 0, Peer: -1, Value: "WRITE 5"},
		{Step: 2, T: 20, Kind: "run", Node: 1, Peer: -1, Value: "n1/t2"},
		{Step: 3, T: 30, Kind: "deliver", Node: 1, Peer: 0, Value: "SYNC 5"},
		{Step: 4, T: 40, Kind: "state", Node: 1, Peer: -1, Var: "stored", Value: "5"},
		{Step: 5, T: 50, Kind: "deliver", Node: 0, Peer: 1, Value: "ACK 5"},
	} {
		rec.AddEvent(e)
	}
	rec.Verdict = weftlog.Verdict{Verdict: "holds", FirstViolationStep: -1, Steps: 5}
	path := filepath.Join(t.TempDir(), "r.weftlog")
	if err := rec.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args       []string
		want, lack []string
	}{
		{[]string{"trace", path}, []string{"deliver n0→n1 SYNC 5", "client n0"}, []string{"n1/t2"}},
		{[]string{"trace", path, "--threads"}, []string{"run n1/t2"}, nil},
		{[]string{"trace", "--kinds", "state", path}, []string{"n1.stored = 5"}, []string{"SYNC 5", "client"}},
		{[]string{"trace", path, "--svg", "-"}, []string{">client<", "WRITE 5", "SYNC 5", "ACK 5"}, []string{"n1/t2"}},
		{[]string{"trace", path, "--svg", "-", "--from", "4"}, []string{"ACK 5"}, []string{"SYNC 5", "WRITE 5"}},
		{[]string{"trace", path, "--svg", "-", "--kinds", "deliver"}, []string{"SYNC 5", "ACK 5"}, []string{"WRITE 5", "stored"}},
		{[]string{"trace", path, "--svg", "-", "--nodes", "0", "--kinds", "deliver,state,client"}, []string{"WRITE 5", "SYNC 5", "ACK 5"}, []string{"stored"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			out, errOut, code := weft(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, l := range tc.lack {
				if strings.Contains(out, l) {
					t.Errorf("output has %q:\n%s", l, out)
				}
			}
		})
	}
}
