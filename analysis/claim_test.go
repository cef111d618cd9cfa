package analysis

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseClaim(t *testing.T) {
	cases := []struct {
		in    string
		want  Claim
		canon string
	}{
		{"rate(fix1) < rate(orig)", CompareRates("fix1", Below, "orig"), "rate(fix1) < rate(orig)"},
		{"  rate( fix1 )<rate(orig)  ", CompareRates("fix1", Below, "orig"), "rate(fix1) < rate(orig)"},
		{"rate(fix2) <= 0.02", BoundRate("fix2", AtMost, 0.02), "rate(fix2) <= 0.02"},
		{"rate(fix2) ≤ 2%", BoundRate("fix2", AtMost, 0.02), "rate(fix2) <= 0.02"},
		{"drift(orig) == 0", NoDrift("orig"), "drift(orig) == 0"},
		{"drift(orig) = 0 within=5%", NoDrift("orig").WithMargin(0.05), "drift(orig) == 0 within=0.05"},
		{"rate(orig) > rate(fix1) > rate(fix2) alpha=0.01", OrderRates(Above, "orig", "fix1", "fix2").WithAlpha(0.01),
			"rate(orig) > rate(fix1) > rate(fix2) alpha=0.01"},
		{"rate(a@1) != rate(a@2)", CompareRates("a@1", NotEqual, "a@2"), "rate(a@1) != rate(a@2)"},
		{"rate(x) ≥ 1e-3", BoundRate("x", AtLeast, 0.001), "rate(x) >= 0.001"},
	}
	for _, tc := range cases {
		got, err := ParseClaim(tc.in)
		if err != nil {
			t.Errorf("ParseClaim(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseClaim(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
		if s := got.String(); s != tc.canon {
			t.Errorf("String() = %q, want %q", s, tc.canon)
		}
		again, err := ParseClaim(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("round trip of %q: %#v, %v", got.String(), again, err)
		}
	}
}

func TestParseClaimErrors(t *testing.T) {
	for _, in := range []string{
		"", "rate(a)", "rate() < rate(b)", "rate(a < rate(b)", "speed(a) < rate(b)",
		"0.02 > rate(a)", "rate(a) < 1.5", "rate(a) < rate(b) > rate(c)", "rate(a) == rate(b) == rate(c)",
		"drift(a) == 0.1", "drift(a) < 0", "drift(a) == rate(b)", "rate(a) < rate(b) within=0.1",
		"rate(a) < rate(b) alpha=0.7", "rate(a) < rate(b) beta=0.1", "rate(a) < rate(b) alpha",
		"rate(a) < 0.1 + 0.2",
	} {
		if c, err := ParseClaim(in); err == nil {
			t.Errorf("ParseClaim(%q) = %v, want an error", in, c)
		}
	}
}

func TestClaimBuilderPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"bound > 1":     func() { BoundRate("a", Below, 2) },
		"chain mixed":   func() { OrderRates(Equal, "a", "b", "c") },
		"bad relation":  func() { CompareRates("a", Relation("~"), "b") },
		"margin on <":   func() { CompareRates("a", Below, "b").WithMargin(0.1) },
		"alpha too big": func() { NoDrift("a").WithAlpha(0.6) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// chord is the seed report's campaign.
func chord(t *testing.T) Table {
	t.Helper()
	tab, err := TableFromCounts([]Count{{"orig", 57, 404}, {"fix1", 41, 441}, {"fix2", 8, 444}})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// Reference p-values: scipy 1.10.1 — fisher_exact([[41,400],[57,347]],
// alternative='less'/'greater') = 0.018986258676800868 / 0.9890187405443723;
// binomtest(8, 444, 0.02, alternative='less'/'greater') =
// 0.47037807608492 / 0.6641487026781633; binomtest(41, 441, 0.05,
// alternative='greater') = 0.00012693691907276732; chi2_contingency(
// [[57,443],[74,426]], correction=False) p = 0.111088111506681, for
// [[30,470],[80,420]] p = 4.3414635410818153e-07; fisher_exact(
// [[17,83],[28,72]], alternative='less') = 0.04485575988683253.
func TestEvaluate(t *testing.T) {
	runs, err := TableFromCounts([]Count{{"orig@1", 57, 500}, {"orig@2", 74, 500}, {"wild@1", 30, 500}, {"wild@2", 80, 500},
		{"calm@1", 50, 1000}, {"calm@2", 50, 1000}, {"a", 17, 100}, {"b", 28, 100}, {"c", 0, 100}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tab            Table
		claim          string
		want           Status
		pSup, pAgainst float64 // −1: not reported
	}{
		{chord(t), "rate(fix1) < rate(orig)", Survived, 0.018986258676800868, 0.9890187405443723},
		{chord(t), "rate(fix1) <= rate(orig)", Survived, 0.018986258676800868, 0.9890187405443723},
		{chord(t), "rate(fix1) < rate(orig) alpha=0.01", Inconclusive, 0.018986258676800868, 0.9890187405443723},
		{chord(t), "rate(orig) < rate(fix1)", Falsified, 0.9890187405443723, 0.018986258676800868},
		{chord(t), "rate(fix2) < rate(orig)", Survived, 2.591975203852573e-12, 0.999999999999721},
		{chord(t), "rate(fix2) <= 0.02", Inconclusive, 0.47037807608492, 0.6641487026781633},
		{chord(t), "rate(fix1) <= 5%", Falsified, -2, 0.00012693691907276732},
		{chord(t), "rate(orig) > rate(fix1) > rate(fix2)", Survived, -2, -2},
		{chord(t), "rate(fix2) > rate(fix1) > rate(orig)", Falsified, -2, -2},
		{chord(t), "rate(fix2) == 0.02", Inconclusive, -1, 1.0},
		// Bounds at the ends of [0, 1]: P(X ≥ 8 | p = 0) = 0 and
		// P(X ≤ 8 | p = 1) = 0 exactly.
		{chord(t), "rate(fix2) <= 0", Falsified, 1, 0},
		{chord(t), "rate(fix2) < 1", Survived, 0, 1},
		{runs, "drift(orig) == 0", Inconclusive, -1, 0.111088111506681},
		{runs, "drift(orig) == 0 within=0.05", Inconclusive, -1, 0.111088111506681},
		{runs, "drift(orig) != 0", Inconclusive, 0.111088111506681, -1},
		{runs, "drift(wild) == 0", Falsified, -1, 4.3414635410818153e-07},
		{runs, "drift(wild) > 0", Survived, 4.3414635410818153e-07, -1},
		{runs, "drift(calm) == 0 within=0.03", Survived, -1, 1.0},
		{runs, "drift(calm) != 0 within=0.03", Falsified, 1.0, -1},
		{runs, "rate(orig@1) == rate(orig@2) within=0.1", Survived, -1, -2},
		{runs, "rate(a) > rate(b)", Falsified, -2, 0.04485575988683253},
		// In a chain the falsifying link must reach α/2 = 0.025.
		{runs, "rate(a) > rate(b) > rate(c)", Inconclusive, -2, -2},
	}
	for _, tc := range cases {
		c, err := ParseClaim(tc.claim)
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Evaluate(tc.tab)
		if err != nil {
			t.Errorf("%s: %v", tc.claim, err)
			continue
		}
		if r.Status != tc.want {
			t.Errorf("%s: %s, want %s (%+v)", tc.claim, r.Status, tc.want, r.Tests)
		}
		checkP(t, tc.claim+" p(supports)", r.Tests[0].PSupport, tc.pSup)
		checkP(t, tc.claim+" p(falsifies)", r.Tests[0].PAgainst, tc.pAgainst)
	}
}

// checkP compares an optional p-value: want −1 means absent, −2 unchecked.
func checkP(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	switch {
	case want == -2:
	case want == -1 && got != nil:
		t.Errorf("%s = %v, want none", what, *got)
	case want >= 0 && got == nil:
		t.Errorf("%s missing, want %v", what, want)
	case want >= 0:
		checkNear(t, what, *got, want, 1e-9)
	}
}

func TestEvaluateErrors(t *testing.T) {
	for _, claim := range []string{"rate(nope) < rate(orig)", "rate(orig) < rate(nope)", "drift(orig) == 0", "drift(nope) == 0", "rate(orig@9) < 0.5"} {
		c, _ := ParseClaim(claim)
		if _, err := c.Evaluate(chord(t)); err == nil {
			t.Errorf("%s: no error", claim)
		}
	}
	empty, _ := TableFromCounts([]Count{{"e", 0, 0}, {"f", 1, 2}})
	if _, err := CompareRates("e", Below, "f").Evaluate(empty); err == nil {
		t.Error("claim on a variant without valid runs: no error")
	}
}

func TestClaimReportRendering(t *testing.T) {
	var claims []Claim
	for _, s := range []string{"rate(fix1) < rate(orig)", "rate(fix2) <= 0.02", "rate(orig) > rate(fix1) > rate(fix2)"} {
		c, _ := ParseClaim(s)
		claims = append(claims, c)
	}
	rep, err := EvaluateClaims(claims, chord(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": rep.Text(), "markdown": rep.Markdown(), "html": rep.HTML()} {
		for _, want := range []string{"survived", "inconclusive", "fix1 41/441, orig 57/404", "0.0190", "0.4704"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s output lacks %q:\n%s", name, want, out)
			}
		}
	}
	if !strings.Contains(rep.Markdown(), "| --- |") {
		t.Error("markdown has no table rule")
	}
	if !strings.Contains(rep.HTML(), `<td class="survived">survived</td>`) {
		t.Errorf("html lacks the status class:\n%s", rep.HTML())
	}
	if strings.Contains(rep.HTML(), "rate(fix2) <= 0.02") {
		t.Error("html does not escape <")
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back ClaimReport
	if err := json.Unmarshal(b, &back); err != nil || back.Results[0].Status != Survived || len(back.Results[2].Tests) != 2 {
		t.Errorf("json round trip: %+v %v", back, err)
	}
}
