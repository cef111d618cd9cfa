//go:build linux

package mcsdk_test

import (
	"math"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// TestValidateRecording: a recording that does not fit its model (another
// node count, a node, request or partition the model lacks, a malformed
// action) is refused with a clear error by ValidateRecording and by
// Replay, before any process starts, instead of panicking in the world.
func TestValidateRecording(t *testing.T) {
	m := loadTarget(t, "election/election.model") // 3 nodes, no client, no partitions
	good := func() *weftlog.Recording {
		res := &mcsdk.RunResult{Variant: "bug", Seed: 4, Choices: []mcsdk.Choice{
			{T: 1000, Action: "timer 0"}, {T: 2000, Action: "deliver 0.0"}, {T: 3000, Action: "crash 2"}, {T: 4000, Action: "restart 2"}}}
		return res.Recording(m)
	}
	tests := []struct {
		name   string
		change func(r *weftlog.Recording)
		want   string // "" = valid
	}{
		{"good", func(*weftlog.Recording) {}, ""},
		{"crash of a node the model lacks", func(r *weftlog.Recording) { r.Choices[2].Action = "crash 5" },
			`the recording's choice 3 ("crash 5" at 3000ns): no node 5: the model has nodes 0..2`},
		{"negative timer", func(r *weftlog.Recording) { r.Choices[0].Action = "timer -1" }, "no node -1"},
		{"restart", func(r *weftlog.Recording) { r.Choices[3].Action = "restart 3" }, "no node 3"},
		{"notice about", func(r *weftlog.Recording) { r.Choices[3].Action = "notice 1.9" }, "no node 9"},
		{"client", func(r *weftlog.Recording) { r.Choices[1].Action = "client 0" }, "the model has no client requests"},
		{"partition", func(r *weftlog.Recording) { r.Choices[1].Action = "partition 0" }, "the model has no partitions"},
		{"negative channel", func(r *weftlog.Recording) { r.Choices[1].Action = "deliver -1.0" }, "negative channel"},
		{"garbage action", func(r *weftlog.Recording) { r.Choices[1].Action = "teleport 1" }, `bad action "teleport 1"`},
		{"time overflow", func(r *weftlog.Recording) { r.Choices[1].T = math.MaxInt64 }, "outside the virtual clock"},
		{"nodes", func(r *weftlog.Recording) { r.Header.Nodes = 7 }, "the recording has 7 nodes, model ../targets/election/election.model has 3"},
		{"globals", func(r *weftlog.Recording) { r.Header.State = []string{"term"} }, "the recording declares the globals [term]"},
		{"variant", func(r *weftlog.Recording) { r.Header.Variant = "nosuch" }, `has no variant "nosuch"`},
		{"end", func(r *weftlog.Recording) { r.Header.EndUS = -5 }, "the recording ends at -5µs"},
		{"model changed", func(r *weftlog.Recording) { r.Header.ModelHash = "00" }, "changed since the recording"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := good()
			tt.change(rec)
			err := mcsdk.ValidateRecording(m, rec)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("ValidateRecording: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ValidateRecording: %v, want %q", err, tt.want)
			}
			if _, _, err := mcsdk.Replay(m, rec, mcsdk.RunOptions{}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Replay: %v, want %q", err, tt.want)
			}
		})
	}
}
