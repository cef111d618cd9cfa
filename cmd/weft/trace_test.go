package main

import (
	"testing"

	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// TestEventTextHistory: trace shows a workload's history events with the
// client, the call and its result, and the node; and a node's clock jumps.
func TestEventTextHistory(t *testing.T) {
	tests := []struct {
		e    weftlog.Event
		want string
	}{
		{weftlog.Event{Kind: "invoke", Node: 0, Peer: -1, Var: "c1", Value: "write 5"}, "invoke c1 write 5 at n0"},
		{weftlog.Event{Kind: "return", Node: 2, Peer: -1, Var: "c0", Value: "read → 7"}, "return c0 read → 7 at n2"},
		{weftlog.Event{Kind: "expire", Node: 1, Peer: -1, Var: "c2", Value: "put 1 3 → indeterminate"}, "expire c2 put 1 3 → indeterminate at n1"},
		{weftlog.Event{Kind: "clock", Node: 2, Peer: -1, Value: "-1.250ms"}, "CLOCK JUMP n2 -1.250ms"},
	}
	for _, tc := range tests {
		if got := eventText(tc.e); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.e.Kind, got, tc.want)
		}
	}
}
