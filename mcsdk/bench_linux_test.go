//go:build linux

package mcsdk_test

import (
	"testing"

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
