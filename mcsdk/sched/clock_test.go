package sched

import (
	"math/rand/v2"
	"testing"
)

// TestClockWorldInvertsLocal: World(l) is the first world time at which
// the node's clock reads l or more, for rates either way and times up to
// days; a perfect clock is the identity.
func TestClockWorldInvertsLocal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, ppm := range []int64{0, 1, -1, 37, -20000, 100000, -100000} {
		k := &Clock{PPM: ppm}
		for range 2000 {
			l := r.Int64N(3 * 86400 * 1e9)
			e := k.World(l)
			if k.Local(e) < l || (e > 0 && k.Local(e-1) >= l) {
				t.Fatalf("ppm %d: World(%d) = %d, Local there %d, before %d", ppm, l, e, k.Local(e), k.Local(e-1))
			}
			if ppm == 0 && e != l {
				t.Fatalf("a perfect clock maps %d to %d", l, e)
			}
		}
	}
	var none *Clock
	if none.Local(5) != 5 || none.World(5) != 5 || none.Stepped(5) != 0 {
		t.Error("a nil clock is not perfect")
	}
}

// TestDrawClocks: the draws come from their own stream (the same seed
// gives the same clocks whatever else the plan holds), jumps are sorted
// and within the window, and no plan draws nothing.
func TestDrawClocks(t *testing.T) {
	p := &ClockPlan{Nodes: 3, Offset: func(r *rand.Rand) int64 { return r.Int64N(100) - 50 },
		DriftPPM: func(r *rand.Rand) int64 { return r.Int64N(11) - 5 }, Jumps: 6,
		Jump: func(r *rand.Rand) int64 { return r.Int64N(1000) }, From: 100, Until: 200}
	a := NewSeeded(Plan{Seed: 9, Clocks: p, Crashes: 1, Nodes: []int{0, 1, 2}, Until: 50, Latency: func(*rand.Rand) int64 { return 1 }}).Clocks()
	b := NewSeeded(Plan{Seed: 9, Clocks: p}).Clocks()
	if len(a) != 3 {
		t.Fatalf("%d clocks, want 3", len(a))
	}
	jumps := 0
	for i := range a {
		if a[i].OffsetNS != b[i].OffsetNS || a[i].PPM != b[i].PPM || len(a[i].Jumps) != len(b[i].Jumps) {
			t.Fatalf("node %d: %+v vs %+v: the other streams changed the clocks", i, a[i], b[i])
		}
		if a[i].OffsetNS%1000 != 0 || a[i].OffsetNS < -50000 || a[i].OffsetNS > 49000 {
			t.Errorf("node %d: offset %d ns outside the drawn µs range", i, a[i].OffsetNS)
		}
		for k, j := range a[i].Jumps {
			jumps++
			if j.AtUS < 100 || j.AtUS > 200 || (k > 0 && j.AtUS < a[i].Jumps[k-1].AtUS) {
				t.Errorf("node %d: jumps %+v not sorted within [100, 200]", i, a[i].Jumps)
			}
		}
	}
	if jumps != 6 {
		t.Errorf("%d jumps, want 6", jumps)
	}
	if c := NewSeeded(Plan{Seed: 9}).Clocks(); c != nil {
		t.Errorf("no clock plan drew %+v", c)
	}
}
