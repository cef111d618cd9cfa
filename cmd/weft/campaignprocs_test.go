package main

import (
	"runtime"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
)

// TestCampaignProcs checks that a campaign leaves Go's scheduler one
// processor more than its parallel runs, and that GOMAXPROCS, when set,
// wins.
func TestCampaignProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		env       string
		before, j int
		want      int
	}{
		{"", 1, 1, 2},                       // a 1-CPU Slurm shard
		{"", 2, 2, 3},                       // -j 2 on 2 cores
		{"", 8, 2, 8},                       // enough already: never lowered
		{"", 1, 0, mcsdk.DefaultJobs() + 1}, // -j left out: DefaultJobs
		{"1", 1, 1, 1},                      // GOMAXPROCS set: left as it is
	} {
		t.Setenv("GOMAXPROCS", tc.env)
		runtime.GOMAXPROCS(tc.before)
		campaignProcs(tc.j)
		if got := runtime.GOMAXPROCS(0); got != tc.want {
			t.Errorf("GOMAXPROCS=%q, %d processors, -j %d: %d processors after, want %d", tc.env, tc.before, tc.j, got, tc.want)
		}
	}
}
