package analysis

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// rowsOf makes x violated and n−x holding rows for variant v, run r.
func rowsOf(v, r string, x, n int) []Outcome {
	out := make([]Outcome, n)
	for i := range out {
		out[i] = Outcome{Variant: v, Run: r, Verdict: VerdictHolds, Seed: int64(i)}
		if i < x {
			out[i].Verdict = VerdictViolated
		}
	}
	return out
}

func TestBootstrapInterval(t *testing.T) {
	rows := append(rowsOf("orig", "1", 57, 404), rowsOf("fix2", "1", 8, 444)...)
	stat := RateDifference("orig", "fix2")
	a, err := BootstrapInterval(rows, stat, 2000, 0.95, rand.New(rand.NewPCG(7, 0)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := BootstrapInterval(rows, stat, 2000, 0.95, rand.New(rand.NewPCG(7, 0)))
	if a != b {
		t.Errorf("same seed, different result: %+v vs %+v", a, b)
	}
	c, _ := BootstrapInterval(rows, stat, 2000, 0.95, rand.New(rand.NewPCG(8, 0)))
	if a == c {
		t.Errorf("different seeds gave identical intervals %+v", a)
	}
	checkNear(t, "estimate", a.Value, 57.0/404-8.0/444, 1e-15)
	// The percentile interval should agree with Newcombe's to about a
	// percentage point (both are ≈ 95 % intervals for the same quantity).
	nc, _ := RiskDifference(Count{Successes: 57, Trials: 404}, Count{Successes: 8, Trials: 444}, 0.95)
	if abs(a.Lower-nc.Lower) > 0.01 || abs(a.Upper-nc.Upper) > 0.01 {
		t.Errorf("bootstrap %+v far from Newcombe %+v", a.Interval, nc.Interval)
	}
	if !a.Contains(a.Value) {
		t.Errorf("interval %+v excludes the estimate", a)
	}
}

func TestBootstrapIntervalEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	// All rows alike: every resample equals the data.
	e, err := BootstrapInterval(rowsOf("v", "1", 0, 20), ViolationRate("v"), 100, 0.95, rng)
	if err != nil || e.Value != 0 || e.Lower != 0 || e.Upper != 0 {
		t.Errorf("0 of 20: %+v %v", e, err)
	}
	if _, err := BootstrapInterval(nil, ViolationRate("v"), 100, 0.95, rng); !errors.Is(err, ErrUndefinedStatistic) {
		t.Errorf("no rows: err = %v", err)
	}
}
