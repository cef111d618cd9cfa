//go:build linux

package mcsdk_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk"
)

// BenchmarkCheckRepl measures exhaustive-check throughput on the M4
// replicated register: executions and states per second, and wall time per
// check (which includes building nothing: the binary is cached).
func BenchmarkCheckRepl(b *testing.B) {
	for _, v := range []string{"correct", "bug"} {
		b.Run(v, func(b *testing.B) {
			m := loadTarget(b, "repl/repl.model")
			var execs, states int
			var secs float64
			for i := 0; i < b.N; i++ {
				r, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: v})
				if err != nil {
					b.Fatal(err)
				}
				execs += r.Executions + 1
				states += r.States
				secs += r.Duration.Seconds()
			}
			b.ReportMetric(float64(execs)/secs, "execs/s")
			b.ReportMetric(float64(states)/secs, "states/s")
		})
	}
}

// BenchmarkCheckQuorum explores the three-node quorum to depth 8.
func BenchmarkCheckQuorum(b *testing.B) {
	m := loadTarget(b, "quorum/quorum.model")
	var execs, states, replays int
	var secs float64
	for i := 0; i < b.N; i++ {
		r, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: "fixed", Depth: 8})
		if err != nil {
			b.Fatal(err)
		}
		execs += r.Executions
		states += r.States
		replays += r.Replays
		secs += r.Duration.Seconds()
	}
	b.ReportMetric(float64(execs)/secs, "execs/s")
	b.ReportMetric(float64(states)/secs, "states/s")
	b.ReportMetric(float64(replays)/secs, "replays/s")
}

// BenchmarkCampaignJobs runs the same campaign (election, 40 seeds × 2
// variants) with -j 1 and -j 2 in one benchmark and reports runs per
// second per core and the speed-up.
func BenchmarkCampaignJobs(b *testing.B) {
	m := loadTarget(b, "election/election.model")
	rate := map[int]float64{}
	for i := 0; i < b.N; i++ {
		for _, j := range []int{1, 2} {
			start := time.Now()
			sum, err := mcsdk.Campaign(context.Background(), m, mcsdk.CampaignOptions{Seeds: 40, Jobs: j, Out: filepath.Join(b.TempDir(), "c")})
			if err != nil {
				b.Fatal(err)
			}
			rate[j] += float64(sum.Runs) / time.Since(start).Seconds()
		}
	}
	b.ReportMetric(rate[1]/float64(b.N), "runs/s/core")
	b.ReportMetric(rate[2]/float64(b.N), "runs/s-j2")
	b.ReportMetric(rate[2]/rate[1], "speedup-j2")
}
