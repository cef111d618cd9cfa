package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"github.com/weft-mc/weft/report"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

// runStats runs weft stats as main does (flags before or after
// positionals) and returns its output.
func runStats(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	o := &statsOptions{}
	fs := flag.NewFlagSet("weft stats", flag.ContinueOnError)
	o.declare(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		t.Fatalf("flags %v: %v", args, err)
	}
	var b bytes.Buffer
	code, err := o.run(pos, &b)
	return b.String(), code, err
}

// relNear reports |got−want| ≤ 1e-9·|want|.
func relNear(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }

const chordCounts = "orig=57/404,fix1=41/441,fix2=8/444"

func TestStatsCountsText(t *testing.T) {
	cases := []struct {
		counts string
		want   []string
	}{
		// Reference values (rounded as printed): scipy 1.10.1 binomtest
		// proportion_ci wilson/exact, chi2_contingency(correction=False),
		// fisher_exact, relative_risk, odds_ratio(kind='sample'); trend Z
		// from scipy pearsonr on expanded data (analysis tests).
		{chordCounts, []string{
			"orig   57/404          14.11%  11.05–17.84%  10.86–17.89%",
			"fix2   8/444           1.80%   0.92–3.51%    0.78–3.52%",
			"43.4756", "3.63e-10", // χ² homogeneity
			"-6.5410", "6.11e-11", "decreasing", // Cochran–Armitage
			"+4.81 pp (+0.48 to +9.23)", "1.52 (1.04–2.21)", "1.60 (1.05–2.45)", "0.0316", // orig vs fix1
			"3.15e-12", "9.46e-12", // orig vs fix2 Fisher, Holm
			"orig vs fix1  6.04 pp", // minimum detectable drop
		}},
		{"run1=57/500,run2=74/500", []string{
			"run1   57/500          11.40%  8.90–14.48%   8.75–14.52%",
			"2.5387", "0.1111", // χ² drift test, p
			"-3.40 pp (-7.60 to +0.80)", "0.1335", // Newcombe, Fisher two-sided
			"1545", // valid runs per variant to detect 11.4 % vs 14.8 %
		}},
	}
	for _, tc := range cases {
		out, code, err := runStats(t, "--counts", tc.counts)
		if err != nil || code != exitHolds {
			t.Fatalf("%s: code %d, %v", tc.counts, code, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tc.counts, w, out)
			}
		}
	}
}

func TestStatsCountsJSON(t *testing.T) {
	out, code, err := runStats(t, "--json", "--counts", chordCounts, "--detect", "0.05",
		"--claim", "rate(fix1) < rate(orig)", "--claim", "rate(fix2) <= 2%")
	if err != nil || code != exitHolds {
		t.Fatalf("code %d, %v", code, err)
	}
	var got statsOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	s := got.Summary
	checks := []struct {
		what      string
		got, want float64
	}{
		// scipy 1.10.1 binomtest(57, 404).proportion_ci(0.95, 'exact').
		{"orig CP lower", s.Rates[0].ClopperPearson.Lower, 0.10864228224611105},
		// scipy 1.10.1 binomtest(8, 444).proportion_ci(0.95, 'wilson').
		{"fix2 Wilson upper", s.Rates[2].Wilson.Upper, 0.03514698762396854},
		// scipy 1.10.1 fisher_exact([[57,347],[41,400]]).
		{"orig/fix1 Fisher", s.Pairs[0].FisherP, 0.03159886284272966},
		// scipy 1.10.1 relative_risk(41, 441, 8, 444).
		{"fix1/fix2 RR", s.Pairs[2].RiskRatio.Value, 5.159863945578231},
		// scipy 1.10.1 chi2_contingency([[57,347],[41,400],[8,436]], correction=False).
		{"homogeneity", s.Homogeneity.Statistic, 43.47556931518275},
		// scipy 1.10.1 pearsonr on the expanded rows: Z = −√(N r²).
		{"trend Z", s.Trend.Z, -6.540955495809034},
		// scipy 1.10.1 fisher_exact([[41,400],[57,347]], alternative='less').
		{"claim p", *got.Claims.Results[0].Tests[0].PSupport, 0.018986258676800868},
	}
	for _, c := range checks {
		if !relNear(c.got, c.want) {
			t.Errorf("%s = %.17g, want %.17g", c.what, c.got, c.want)
		}
	}
	if s.Power[0].PowerForDifference == nil {
		t.Error("--detect gave no power column")
	}
	if st := got.Claims.Results; st[0].Status != "survived" || st[1].Status != "inconclusive" {
		t.Errorf("claim statuses %s, %s", st[0].Status, st[1].Status)
	}
}

func TestStatsClaimsFileAndFormats(t *testing.T) {
	file := filepath.Join(t.TempDir(), "claims.txt")
	text := "# seed report predictions\nrate(orig) > rate(fix1) > rate(fix2)\n\nrate(fix2) < 5%  # residual tail\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ format, want string }{
		{"text", "↳ rate(orig) > rate(fix1)"},
		{"markdown", "| rate(fix2) < 0.05 [α=0.05] | survived |"},
		{"html", `<td class="survived">survived</td>`},
	} {
		out, code, err := runStats(t, "--counts", chordCounts, "--claims", file, "--format", f.format)
		if err != nil || code != exitHolds {
			t.Fatalf("%s: code %d, %v", f.format, code, err)
		}
		if !strings.Contains(out, f.want) {
			t.Errorf("%s output lacks %q:\n%s", f.format, f.want, out)
		}
	}
}

func TestStatsErrors(t *testing.T) {
	cases := [][]string{
		{},
		{"--counts", "a=1/2", "somedir"},
		{"--counts", "a=1of2"},
		{"--counts", "a=3/2"},
		{"--counts", "a=1/2,a=1/3"},
		{"--counts", chordCounts, "--claim", "rate(nope) < rate(orig)"},
		{"--counts", chordCounts, "--claim", "rate(orig) <"},
		{"--counts", chordCounts, "--claims", "/nonexistent/claims"},
		{"--counts", chordCounts, "--format", "pdf"},
		{"--counts", chordCounts, "--level", "95"},
		{filepath.Join(os.TempDir(), "no-such-weft-dataset")},
	}
	for _, args := range cases {
		_, code, err := runStats(t, args...)
		if err == nil || code != exitUsage {
			t.Errorf("%q: code %d, err %v; want exit %d with an error", args, code, err, exitUsage)
		}
	}
}

// writeDataset writes a dataset whose manifest lists variants in order
// orig, fix2 while the rows arrive fix2 first.
func writeDataset(t *testing.T, dir string) {
	t.Helper()
	w, err := dataset.Create(dir, dataset.Manifest{
		CampaignID: "c1",
		Variants:   []dataset.Variant{{Name: "orig", BinaryHash: "aa"}, {Name: "fix2", BinaryHash: "bb"}},
		Seeds:      []dataset.SeedRange{{Lo: 0, Hi: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	hash := map[string]string{"orig": "aa", "fix2": "bb"}
	seed := int64(0)
	add := func(variant, run, verdict string, n int) {
		for range n {
			seed++
			row := dataset.Row{CampaignID: "c1", RunID: run, Variant: variant, BinaryHash: hash[variant], Seed: seed, Verdict: verdict}
			if verdict == dataset.Violated {
				row.ViolatedInvariants = []string{"AtLeastOneRing"}
				if seed%2 == 0 {
					row.ViolatedInvariants = append(row.ViolatedInvariants, "OrderedRing")
				}
			}
			if err := w.Write(row); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("fix2", "run1", dataset.Holds, 98)
	add("fix2", "run1", dataset.Violated, 2)
	add("orig", "run1", dataset.Violated, 10)
	add("orig", "run1", dataset.Holds, 88)
	add("orig", "run1", dataset.Invalid, 2)
	add("orig", "run2", dataset.Violated, 20)
	add("orig", "run2", dataset.Holds, 79)
	add("orig", "run2", "error", 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestStatsDataset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	writeDataset(t, dir)
	out, code, err := runStats(t, "--json", dir, "--claim", "drift(orig) == 0")
	if err != nil || code != exitHolds {
		t.Fatalf("code %d, %v", code, err)
	}
	var got statsOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	r := got.Summary.Rates
	if len(r) != 2 || r[0].Group != "orig" || r[1].Group != "fix2" {
		t.Fatalf("rates %+v: want manifest order orig, fix2", r)
	}
	if r[0].Successes != 30 || r[0].Trials != 197 || r[0].Invalid != 2 || r[0].Errors != 1 || r[0].Runs != 200 {
		t.Errorf("orig row %+v: want 30/197 valid, 2 invalid, 1 error, 200 runs", r[0])
	}
	// scipy 1.10.1 chi2_contingency([[10,88],[20,79]], correction=False) p.
	if d := got.Summary.Drift; len(d) != 1 || !relNear(d[0].PValue, 0.05084458693019122) {
		t.Errorf("drift %+v", d)
	}
	if c := got.Claims.Results[0]; c.Status != "inconclusive" {
		t.Errorf("drift claim %+v", c)
	}
	// Violated rows: fix2 seeds 99-100, orig 101-110 and 201-220; even
	// seeds also broke OrderedRing.
	wantInv := []report.InvariantCount{
		{Variant: "orig", Invariant: "AtLeastOneRing", Runs: 30}, {Variant: "orig", Invariant: "OrderedRing", Runs: 15},
		{Variant: "fix2", Invariant: "AtLeastOneRing", Runs: 2}, {Variant: "fix2", Invariant: "OrderedRing", Runs: 1},
	}
	if !reflect.DeepEqual(got.ByInvariant, wantInv) {
		t.Errorf("by invariant %+v, want %+v", got.ByInvariant, wantInv)
	}
	if got.Summary.Paired != nil {
		t.Errorf("paired %+v: the variants share no seed, nothing to pair", got.Summary.Paired)
	}
	text, _, err := runStats(t, dir)
	if err != nil || !strings.Contains(text, "orig@run2") || !strings.Contains(text, "invalid") {
		t.Errorf("text output (%v):\n%s", err, text)
	}
}

// TestStatsRepeatedSeeds: a second run of the same seeds (run2) is
// counted as what it is, repeats: stats warns and counts distinct seeds.
func TestStatsRepeatedSeeds(t *testing.T) {
	one, two := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	writeRun(t, one, "run1")
	writeRun(t, two, "run2")
	out, code, err := runStats(t, one, two)
	if err != nil || code != exitHolds {
		t.Fatalf("code %d, %v\n%s", code, err, out)
	}
	for _, want := range []string{
		"warning: v has 40 runs over 20 distinct seeds: a repeated seed repeats the same run",
		"Seeds: v 40 runs over 20 distinct seeds\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runStats(t, one)
	if strings.Contains(out, "warning:") || !strings.Contains(out, "Seeds: v 20 runs over 20 distinct seeds\n") {
		t.Errorf("one run of distinct seeds:\n%s", out)
	}
	js, _, _ := runStats(t, "--json", two, one)
	var got statsOutput
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatal(err)
	}
	if want := []seedCount{{"v", 40, 20}}; !reflect.DeepEqual(got.Seeds, want) {
		t.Errorf("seeds %+v, want %+v", got.Seeds, want)
	}
}

// writeRun writes a dataset of variant v, seeds 1..20 (every fifth
// violated), as run.
func writeRun(t *testing.T, dir, run string) {
	t.Helper()
	w, err := dataset.Create(dir, dataset.Manifest{CampaignID: "c1", Variants: []dataset.Variant{{Name: "v", BinaryHash: "aa"}},
		Seeds: []dataset.SeedRange{{Lo: 1, Hi: 21}}, Runs: []string{run}})
	if err != nil {
		t.Fatal(err)
	}
	for seed := int64(1); seed <= 20; seed++ {
		row := dataset.Row{CampaignID: "c1", RunID: run, Variant: "v", BinaryHash: "aa", Seed: seed, Verdict: dataset.Holds}
		if seed%5 == 0 {
			row.Verdict, row.ViolatedInvariants = dataset.Violated, []string{"inv"}
		}
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
