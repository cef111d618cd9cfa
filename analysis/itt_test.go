package analysis

import "testing"

// ittRows are hand-made: a fails on seeds 0 (violated), 1 (invalid), 2
// (invalid, and so does b), and 6–11 (violated); b fails on 2 and 3; seed 4
// is an error of a, seed 5 holds in both.
func ittRows() []Outcome {
	rows := []Outcome{
		{"a", "r", VerdictViolated, 0}, {"b", "r", VerdictHolds, 0},
		{"a", "r", VerdictInvalid, 1}, {"b", "r", VerdictHolds, 1},
		{"a", "r", VerdictInvalid, 2}, {"b", "r", VerdictInvalid, 2},
		{"a", "r", VerdictHolds, 3}, {"b", "r", VerdictViolated, 3},
		{"a", "r", VerdictError, 4}, {"b", "r", VerdictHolds, 4},
		{"a", "r", VerdictHolds, 5}, {"b", "r", VerdictHolds, 5},
	}
	for s := int64(6); s < 12; s++ {
		rows = append(rows, Outcome{"a", "r", VerdictViolated, s}, Outcome{"b", "r", VerdictHolds, s})
	}
	return rows
}

func TestIntentionToTreat(t *testing.T) {
	got, err := IntentionToTreat(ittRows(), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	want := []ITTRow{
		{Variant: "a", Runs: 12, Violated: 7, Invalid: 2, Errors: 1, Failed: 9},
		{Variant: "b", Runs: 12, Violated: 1, Invalid: 1, Failed: 2},
	}
	for i, w := range want {
		g := got[i]
		if g.Variant != w.Variant || g.Runs != w.Runs || g.Violated != w.Violated || g.Invalid != w.Invalid || g.Errors != w.Errors || g.Failed != w.Failed {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
	checkNear(t, "a rate", got[0].Rate, 9.0/11, 1e-12)
	checkNear(t, "b rate", got[1].Rate, 2.0/12, 1e-12)
	if iv, _ := WilsonInterval(Count{Successes: 9, Trials: 11}, 0.95); got[0].Interval != iv {
		t.Errorf("a interval %v, want Wilson's %v", got[0].Interval, iv)
	}
}

// TestIntentionToTreatPaired: over the 11 seeds without an error, both fail
// on seed 2, a only on 0, 1 and 6–11 (8 seeds), b only on 3. McNemar exact,
// two-sided: 2 · P(X ≤ 1 | n = 9, p = ½) = 2 · 10/512 = 0.0390625.
func TestIntentionToTreatPaired(t *testing.T) {
	got, err := IntentionToTreatPaired(ittRows(), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d comparisons, want 1", len(got))
	}
	g := got[0]
	if g.Seeds != 11 || g.Errors != 1 || g.BothFailed != 1 || g.OnlyA != 8 || g.OnlyB != 1 {
		t.Errorf("got %+v", g)
	}
	checkNear(t, "p", g.PValue, 0.0390625, 1e-12)
	if _, err := IntentionToTreatPaired(ittRows(), []string{"a", "nosuch"}); err == nil {
		t.Error("a variant without outcomes: no error")
	}
	bad := append(ittRows(), Outcome{"a", "r", VerdictHolds, 0})
	if _, err := IntentionToTreatPaired(bad, []string{"a", "b"}); err == nil {
		t.Error("a seed twice: no error")
	}
}
