//go:build linux

package mcsdk_test

import (
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

// BenchmarkChordRun measures one seeded Chord run (6 nodes, 2.2 s of
// virtual time) end to end: launches, every delivery and timer, state
// observation and invariant checks. Steps/s is the supervisor's throughput.
func BenchmarkChordRun(b *testing.B) {
	m := loadTarget(b, "chord/chord.model")
	pre := map[string]mcsdk.FaultPrecondition{"CrashPrecondition": chordcheck.CrashPrecondition}
	steps := 0
	var secs float64
	for i := 0; i < b.N; i++ {
		r, err := mcsdk.Run(m, mcsdk.RunOptions{Variant: "fix2", Seed: uint64(2 + i%4), Registry: chordcheck.Registry(), Preconditions: pre})
		if err != nil {
			b.Fatal(err)
		}
		steps += r.Steps
		secs += r.Wall.Seconds()
	}
	b.ReportMetric(float64(steps)/secs, "steps/s")
	b.ReportMetric(secs/float64(b.N), "s/run")
}
