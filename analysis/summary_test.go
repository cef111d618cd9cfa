package analysis

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The summary reuses the functions tested against scipy above; these tests
// check that the right numbers land in the right places.
func TestSummarize(t *testing.T) {
	s, err := Summarize(chord(t), SummaryOptions{Difference: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rates) != 3 || s.Rates[2].Group != "fix2" {
		t.Fatalf("rates = %+v", s.Rates)
	}
	// scipy 1.10.1 binomtest(57, 404).proportion_ci(0.95, 'wilson').
	checkNear(t, "orig Wilson lower", s.Rates[0].Wilson.Lower, 0.11051603427511657, 1e-12)
	// scipy 1.10.1 chi2_contingency([[57,347],[41,400],[8,436]], correction=False).
	checkNear(t, "homogeneity p", s.Homogeneity.PValue, 3.625768523608344e-10, 1e-9)
	// Cochran–Armitage Z via scipy 1.10.1 pearsonr (see TestCochranArmitageTrend).
	checkNear(t, "trend Z", s.Trend.Z, -6.540955495809034, 1e-9)
	checkNear(t, "orig vs fix1 Fisher", s.Pairs[0].FisherP, 0.03159886284272966, 1e-9)
	// Power rows: scipy-checked values from TestTwoProportionSampleSize and
	// TestMinimumDetectableDifference for orig (57/404) vs fix1 (41/441)
	// use rates 0.141/0.093 rounded; here the exact rates are used, so
	// compare with the functions themselves.
	p := s.Power[0]
	checkNear(t, "mdd", *p.MinimumDetectableDifference, MinimumDetectableDifference(57.0/404, 404, 441, 0.05, 0.8), 1e-12)
	checkNear(t, "n", *p.TrialsForObserved, TwoProportionSampleSize(57.0/404, 41.0/441, 0.05, 0.8), 1e-12)
	checkNear(t, "power at 5 pp", *p.PowerForDifference, TwoProportionPower(57.0/404, 57.0/404-0.05, 404, 441, 0.05), 1e-12)
	if s.Drift != nil || s.RunRates != nil {
		t.Errorf("counts without runs gave drift %+v", s.Drift)
	}
	// Rounded as printed: scipy 1.10.1 relative_risk(57, 404, 41, 441)
	// = 1.5176 (1.0399–2.2146); the Z above.
	for _, want := range []string{"1.52 (1.04–2.21)", "-6.5410", "decreasing", "power to detect a 5.00 pp drop"} {
		if !strings.Contains(s.Text(), want) {
			t.Errorf("text lacks %q:\n%s", want, s.Text())
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	for _, want := range []string{`"group":"orig"`, `"successes":57`, `"holm_p":`, `"wilson":{"lower":0.1105160342751`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("json lacks %s: %s", want, b)
		}
	}
}

func TestSummarizeRunsAndEdges(t *testing.T) {
	tab, err := Tally(append(append(rowsOf("orig", "1", 57, 500), rowsOf("orig", "2", 74, 500)...),
		Outcome{"orig", "2", VerdictInvalid, 9}, Outcome{"none", "1", VerdictInvalid, 1}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(tab, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// One variant with valid runs: no between-variant tests, one drift test.
	if s.Homogeneity != nil || s.Pairs != nil || len(s.Drift) != 1 || len(s.RunRates) != 3 {
		t.Fatalf("summary = %+v", s)
	}
	// scipy 1.10.1 chi2_contingency([[57,443],[74,426]], correction=False).
	checkNear(t, "drift p", s.Drift[0].PValue, 0.111088111506681, 1e-9)
	txt := s.Text()
	for _, want := range []string{"orig@2", "74/500", "invalid", "none", "n/a", "Drift across runs of orig", "0.1111"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("json with an empty variant: %v", err)
	}
	// Seeds from valid runs: 500 valid of 600 seeds for a, all valid for b.
	rows := append(rowsOf("a", "1", 100, 500), rowsOf("b", "1", 50, 500)...)
	for i := range 100 {
		rows = append(rows, Outcome{"a", "1", VerdictInvalid, int64(1000 + i)})
	}
	tab, _ = Tally(rows)
	s, _ = Summarize(tab, SummaryOptions{})
	p := s.Power[0]
	checkNear(t, "seeds", *p.SeedsForObserved, *p.TrialsForObserved*600/500, 1e-12)
	if !strings.Contains(s.Text(), "seeds per variant") {
		t.Errorf("text lacks the seeds column:\n%s", s.Text())
	}
	// Paired by seed: seeds 0–49 violated in both, 50–99 in a only; the
	// invalid seeds 1000–1099 of a have no partner in b. McNemar exact:
	// 2·(1/2)⁵⁰ = 2⁻⁴⁹.
	want := PairedTest{A: "a", B: "b", Run: "1", Seeds: 500, Valid: 500, BothViolated: 50, OnlyA: 50, InvalidP: 1}
	if len(s.Paired) != 1 {
		t.Fatalf("paired = %+v, want one comparison", s.Paired)
	}
	got := s.Paired[0]
	checkNear(t, "paired p", got.PValue, math.Pow(2, -49), 1e-9)
	if got.PValue = 0; got != want {
		t.Errorf("paired = %+v, want %+v", got, want)
	}
	if !strings.Contains(s.Text(), "Paired by seed") {
		t.Errorf("text lacks the paired table:\n%s", s.Text())
	}
	if ct, _ := TableFromCounts([]Count{{"a", 1, 2}, {"b", 1, 2}}); func() bool { s, _ := Summarize(ct, SummaryOptions{}); return s.Paired != nil }() {
		t.Error("a table from counts has no seeds to pair, but Summarize paired it")
	}
	if _, err := Summarize(Table{}, SummaryOptions{}); err == nil {
		t.Error("empty table: no error")
	}
}

func TestSummaryRendering(t *testing.T) {
	tab, _ := TableFromCounts([]Count{{"a<b>", 3, 10}, {"c", 0, 10}})
	s, err := Summarize(tab, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := s.HTML()
	if strings.Contains(h, "a<b>") || !strings.Contains(h, "a&lt;b&gt;") {
		t.Errorf("html not escaped:\n%s", h)
	}
	md := s.Markdown()
	if !strings.Contains(md, "| a<b> vs c |") || !strings.Contains(md, "n/a (zero cell)") {
		t.Errorf("markdown:\n%s", md)
	}
	if !strings.Contains(s.Text(), "min expected") || !strings.Contains(s.Text(), "doubtful") {
		t.Errorf("text lacks the small-expected-count warning:\n%s", s.Text())
	}
}
