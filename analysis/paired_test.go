package analysis

import (
	"fmt"
	"testing"
)

// Reference values: exact binomial tails with p = 1/2, summed in rational
// arithmetic (Python's fractions and math.comb): for b of n = b + c
// discordant pairs, P(X ≤ b) = Σ_{k≤b} C(n, k) / 2ⁿ, and the two-sided
// p-value is twice the smaller tail (the null is symmetric), capped at 1.
// (86, 150) is Agresti's presidential-approval table (Categorical Data
// Analysis, 3rd ed., Table 11.1: 794, 150, 86, 570), whose large-sample
// McNemar z = (86 − 150)/√236 = −4.17 agrees with the exact p ≈ 3.7e-5.
func TestMcNemarExact(t *testing.T) {
	cases := []struct {
		b, c               int
		two, less, greater float64
	}{
		{86, 150, 3.715936139571442e-05, 1.857968069785721e-05, 0.9999896457855217},
		{2, 10, 0.03857421875, 0.019287109375, 0.996826171875},
		{1, 6, 0.125, 0.0625, 0.9921875},
		{0, 4, 0.125, 0.0625, 1},
		{5, 5, 1, 0.623046875, 0.623046875}, // P(X ≤ 5) = 638/1024
		{0, 0, 1, 1, 1},
	}
	for _, tc := range cases {
		for _, alt := range []struct {
			alt  Alternative
			want float64
		}{{TwoSided, tc.two}, {Less, tc.less}, {Greater, tc.greater}} {
			got, err := McNemarExact(tc.b, tc.c, alt.alt)
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, fmt.Sprintf("b=%d c=%d %v", tc.b, tc.c, alt.alt), got, alt.want, 1e-9)
		}
	}
	if _, err := McNemarExact(-1, 3, TwoSided); err == nil {
		t.Error("negative count: no error")
	}
}

// outcomesOf builds one run's outcomes from per-seed verdict letters:
// h holds, v violated, i invalid, e error.
func outcomesOf(run, variant, letters string) []Outcome {
	name := map[byte]string{'h': VerdictHolds, 'v': VerdictViolated, 'i': VerdictInvalid, 'e': VerdictError}
	out := make([]Outcome, len(letters))
	for s := range letters {
		out[s] = Outcome{Variant: variant, Run: run, Verdict: name[letters[s]], Seed: int64(s)}
	}
	return out
}

func TestPairedComparisons(t *testing.T) {
	var o []Outcome
	// seed:            0123456789
	o = append(o, outcomesOf("run1", "orig", "vvvvhhivhe")...)
	o = append(o, outcomesOf("run1", "fix1", "vhhhhhhiih")...)
	o = append(o, outcomesOf("run1", "fix2", "vhhhhhhhih")...)
	// A second run must not be paired again (it would count seeds twice).
	o = append(o, outcomesOf("run2", "orig", "hhhhhhhhhh")...)
	o = append(o, outcomesOf("run2", "fix1", "vvvvvvvvvv")...)
	got, err := PairedComparisons(o, []string{"orig", "fix1", "fix2", "absent"})
	if err != nil {
		t.Fatal(err)
	}
	want := []PairedTest{
		// orig vs fix1: seeds 0–5 valid in both (0 both violated; 1, 2, 3
		// orig only); seed 6 invalid in orig only; seed 7 invalid in fix1
		// only; seed 8 invalid in fix1 only; seed 9 an error: left out.
		{A: "orig", B: "fix1", Run: "run1", Seeds: 9, Valid: 6, BothViolated: 1, OnlyA: 3, OnlyB: 0, PValue: 0.25, InvalidOnlyA: 1, InvalidOnlyB: 2, InvalidP: 1},
		{A: "orig", B: "fix2", Run: "run1", Seeds: 9, Valid: 7, BothViolated: 1, OnlyA: 4, OnlyB: 0, PValue: 0.125, InvalidOnlyA: 1, InvalidOnlyB: 1, InvalidP: 1},
		{A: "fix1", B: "fix2", Run: "run1", Seeds: 10, Valid: 8, BothViolated: 1, OnlyA: 0, OnlyB: 0, PValue: 1, InvalidOnlyA: 1, InvalidOnlyB: 0, InvalidP: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d comparisons, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g := got[i]
		p, ip := g.PValue, g.InvalidP
		g.PValue, g.InvalidP = want[i].PValue, want[i].InvalidP
		if g != want[i] {
			t.Errorf("comparison %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
		checkNear(t, fmt.Sprintf("%s vs %s p", g.A, g.B), p, want[i].PValue, 1e-12)
		checkNear(t, fmt.Sprintf("%s vs %s invalid p", g.A, g.B), ip, want[i].InvalidP, 1e-12)
	}
	if got, _ := PairedComparisons(append(outcomesOf("run1", "x", "vv"), Outcome{Variant: "y", Run: "run1", Verdict: VerdictHolds, Seed: 7}), []string{"x", "y"}); got != nil {
		t.Errorf("no common seed: got %+v, want no comparison", got)
	}
	if _, err := PairedComparisons(append(o, Outcome{Variant: "orig", Run: "run1", Verdict: VerdictHolds, Seed: 3}), []string{"orig"}); err == nil {
		t.Error("a seed twice in one run: no error")
	}
	if _, err := PairedComparisons([]Outcome{{Variant: "a", Run: "r", Verdict: "maybe"}}, []string{"a"}); err == nil {
		t.Error("unknown verdict: no error")
	}
}
