package charts

import (
	"fmt"
	"testing"
	"time"
)

// Synthetic tables shaped like what weft's campaigns, checks and recordings
// produce; the numbers are made up but consistent (rates inside intervals,
// done counts rising).

func sampleRates() []RateBar {
	return []RateBar{
		{Variant: "correct", Rate: 0, Lo: 0, Hi: 0.0362, K: 0, N: 100},
		{Variant: "bug", Rate: 0.31, Lo: 0.2264, Hi: 0.4085, K: 31, N: 100},
		{Variant: "bug-<b>&co", Rate: 0.07, Lo: 0.0343, Hi: 0.1375, K: 7, N: 100},
	}
}

func sampleDrift() []RunRate {
	var rows []RunRate
	for i, r := range []float64{0.28, 0.31, 0.35, 0.30} {
		run := fmt.Sprintf("campaign-%d", i+1)
		rows = append(rows,
			RunRate{Run: run, Variant: "bug", Rate: r, Lo: r - 0.08, Hi: r + 0.09, K: int(r * 100), N: 100},
			RunRate{Run: run, Variant: "correct", Rate: 0, Lo: 0, Hi: 0.0362, K: 0, N: 100})
	}
	return rows
}

func sampleInvariants() []InvariantCount {
	return []InvariantCount{
		{Variant: "bug", Invariant: "agree_on_ack", Count: 25},
		{Variant: "bug", Invariant: "single_leader", Count: 6},
		{Variant: "bug-2", Invariant: "agree_on_ack", Count: 3},
		{Variant: "bug-2", Invariant: "ring_connected", Count: 9},
		{Variant: "correct", Invariant: "agree_on_ack", Count: 0},
	}
}

func sampleOutcomes() []Outcome {
	verdicts := []string{VerdictHolds, VerdictViolated, VerdictHolds, VerdictHolds, VerdictInvalid, VerdictHolds, VerdictError, VerdictViolated}
	var rows []Outcome
	for s := int64(40); s > 0; s-- { // descending, to check seeds are sorted
		rows = append(rows,
			Outcome{Variant: "bug", Seed: s, Verdict: verdicts[s%int64(len(verdicts))]},
			Outcome{Variant: "correct", Seed: s, Verdict: VerdictHolds})
	}
	return rows
}

func sampleGrowth() []DepthCount {
	var rows []DepthCount
	states := 1
	for d := 0; d <= 10; d++ {
		rows = append(rows, DepthCount{Variant: "correct", Depth: d, States: states}, DepthCount{Variant: "bug", Depth: d, States: states + d})
		states *= 3
	}
	return rows
}

func sampleThroughput() []ThroughputPoint {
	var pts []ThroughputPoint
	done := 0
	for i := 1; i <= 30; i++ {
		done += 40 + (i*7)%13
		pts = append(pts, ThroughputPoint{Elapsed: time.Duration(i) * 500 * time.Millisecond, Done: done})
	}
	return pts
}

func sampleTrace() []TraceEvent {
	return []TraceEvent{
		{Step: 0, TimeUS: 0, Node: "n0", Kind: KindState, Var: "stored", Value: "0"},
		{Step: 0, TimeUS: 0, Node: "n1", Kind: KindState, Var: "stored", Value: "0"},
		{Step: 0, TimeUS: 0, Node: "n0", Kind: KindState, Var: "role", Value: "follower"},
		{Step: 1, TimeUS: 1200, Node: "client", Kind: "client", Value: "write 5"},
		{Step: 2, TimeUS: 3400, Node: "n0", Kind: KindState, Var: "stored", Value: "5"},
		{Step: 2, TimeUS: 3400, Node: "n0", Kind: KindState, Var: "role", Value: "leader"},
		{Step: 3, TimeUS: 9100, Node: "n1", Kind: KindDeliver, Value: "replicate(5) from n0"},
		{Step: 4, TimeUS: 9800, Node: "n1", Kind: KindCrash},
		{Step: 5, TimeUS: 20000, Node: "n1", Kind: KindRestart},
		{Step: 6, TimeUS: 26000, Node: "n1", Kind: KindState, Var: "stored", Value: "0"},
		{Step: 7, TimeUS: 30500, Node: "", Kind: KindPartition, Value: "{n0} | {n1}"},
		{Step: 8, TimeUS: 41000, Node: "n0", Kind: KindDeliver, Value: "ack from n1 </script><script>alert(1)</script>"},
		{Step: 9, TimeUS: 45000, Node: "n0", Kind: KindState, Var: "role", Value: "follower"},
		{Step: 10, TimeUS: 52000, Node: "", Kind: KindHeal},
	}
}

// allCharts builds one chart of every kind from the samples.
func allCharts(t *testing.T) []*Chart {
	t.Helper()
	builders := []struct {
		name  string
		build func() (*Chart, error)
	}{
		{"rates", func() (*Chart, error) { return Rates("rates", sampleRates()) }},
		{"invariants", func() (*Chart, error) { return Invariants("invariants", sampleInvariants()) }},
		{"drift", func() (*Chart, error) { return Drift("drift", sampleDrift()) }},
		{"outcomes", func() (*Chart, error) { return Outcomes("outcomes", sampleOutcomes()) }},
		{"search", func() (*Chart, error) { return SearchGrowth("search", sampleGrowth()) }},
		{"throughput", func() (*Chart, error) { return Throughput("throughput", sampleThroughput()) }},
		{"timeline", func() (*Chart, error) { return Timeline("timeline", sampleTrace()) }},
	}
	var out []*Chart
	for _, b := range builders {
		c, err := b.build()
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		if c.Kind() != b.name {
			t.Fatalf("%s: Kind() = %q", b.name, c.Kind())
		}
		out = append(out, c)
	}
	return out
}
