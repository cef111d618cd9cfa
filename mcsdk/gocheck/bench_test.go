package gocheck

import (
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkChordChecks times one call of each of Chord's required
// invariants on random snapshots, compiled (a helper over pipes) and
// interpreted, side by side in one run, and reports the speedup.
func BenchmarkChordChecks(b *testing.B) {
	names := []string{"AtLeastOneRing", "AtMostOneRing", "OrderedRing", "ConnectedAppendages"}
	per := map[string]time.Duration{}
	for _, mode := range []string{"native", "interp"} {
		c, err := Load(chordFiles(b), Mode(mode))
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		start := time.Now()
		for i := 0; i < b.N; i++ {
			s := randomState(r)
			for _, name := range names {
				c.Registry[name](s)
			}
		}
		per[mode] = time.Since(start) / time.Duration(b.N*len(names))
	}
	b.ReportMetric(float64(per["native"].Microseconds()), "µs/call-compiled")
	b.ReportMetric(float64(per["interp"].Microseconds()), "µs/call-interpreted")
	b.ReportMetric(float64(per["interp"])/float64(per["native"]), "speedup")
}
