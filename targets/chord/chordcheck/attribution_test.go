package chordcheck

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

// writeDataset writes a dataset of the given variants over seeds 0..n-1
// with verdict(variant index, seed).
func writeDataset(t *testing.T, variants []string, n int, verdict func(v int, seed int64) string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	m := dataset.Manifest{CampaignID: "c", ModelHash: "h", Seeds: []dataset.SeedRange{{Lo: 0, Hi: int64(n)}}}
	for _, v := range variants {
		m.Variants = append(m.Variants, dataset.Variant{Name: v, BinaryHash: "b"})
	}
	w, err := dataset.Create(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range variants {
		for s := int64(0); s < int64(n); s++ {
			if err := w.Write(dataset.Row{CampaignID: "c", RunID: "run1", ModelHash: "h", BinaryHash: "b", Variant: v, Seed: s, Verdict: verdict(i, s)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// handMade: seed 0 is violated unless stabilize is checked, seed 1 invalid
// unless reconcile is, seed 2 holds and seed 3 is invalid everywhere.
func handMade(mask int, seed int64) string {
	switch {
	case seed == 0 && mask&1 == 0:
		return dataset.Violated
	case seed == 1 && mask&2 == 0, seed == 3:
		return dataset.Invalid
	}
	return dataset.Holds
}

// TestAttribute: the analysis of hand-made rows, checked by hand. Over 4
// seeds the stabilize contrast is −1 on seed 0 and 0 elsewhere: effect
// −0.25, sample sd 0.5, 95 % interval −0.25 ± 1.959964 · 0.5 / 2.
func TestMaskRule(t *testing.T) {
	only := func(pred func(m int) bool) uint16 {
		var x uint16
		for m := range 16 {
			if pred(m) {
				x |= 1 << m
			}
		}
		return x
	}
	for _, tc := range []struct {
		invalid uint16
		want    string
	}{
		{only(func(m int) bool { return m&2 == 0 }), "valid iff the reconcile check is on"},
		{only(func(m int) bool { return m&3 == 0 }), "valid iff any of stabilize, reconcile is on"},
		{only(func(m int) bool { return m&9 != 9 }), "valid iff all of stabilize, responder are on"},
		{1<<0 | 1<<5, "invalid at c00 c05"},
	} {
		if got := MaskRule(tc.invalid); got != tc.want {
			t.Errorf("MaskRule(%016b) = %q, want %q", tc.invalid, got, tc.want)
		}
	}
}

func TestAttribute(t *testing.T) {
	var variants []string
	for m := range 16 {
		variants = append(variants, MaskVariant(m))
	}
	dir := writeDataset(t, variants, 4, handMade)
	perfect := writeDataset(t, []string{"orig", "fix1", "fix2"}, 4, func(v int, seed int64) string {
		return handMade(LevelMasks()[v], seed)
	})
	a, err := Attribute(dir, perfect)
	if err != nil {
		t.Fatal(err)
	}
	if a.Seeds != 4 || a.Dropped != 0 {
		t.Fatalf("seeds %d dropped %d", a.Seeds, a.Dropped)
	}
	half := 1.959964 * 0.5 / 2
	for _, tc := range []struct {
		outcome string
		i       int // effect index: 0 stabilize, 1 reconcile, 2 update, 3 responder
		want    float64
	}{
		{"violated", 0, -0.25}, {"violated", 1, 0}, {"invalid", 1, -0.25}, {"invalid", 0, 0},
		{"itt", 0, -0.25}, {"itt", 1, -0.25}, {"itt", 2, 0}, {"itt", 3, 0},
	} {
		e := a.Effects[tc.outcome][tc.i]
		if math.Abs(e.Value-tc.want) > 1e-12 {
			t.Errorf("%s effect of %s = %v, want %v", tc.outcome, e.Name(), e.Value, tc.want)
		}
		if tc.want != 0 && (math.Abs(e.Lower-(tc.want-half)) > 1e-6 || math.Abs(e.Upper-(tc.want+half)) > 1e-6) {
			t.Errorf("%s effect of %s: interval [%v, %v], want %v ± %v", tc.outcome, e.Name(), e.Lower, e.Upper, tc.want, half)
		}
	}
	for _, e := range a.Effects["itt"][4:] {
		if e.Value != 0 {
			t.Errorf("interaction %s = %v, want 0 (each seed depends on one check)", e.Name(), e.Value)
		}
	}
	// Levels by ITT: level 0 fails seeds 0, 1, 3; level 1 fails 1, 3;
	// level 2 fails 3.
	want := [][3]int{{2, 1, 0}, {1, 1, 0}, {1, 2, 0}} // both, first only, second only: 0–1, 1–2, 0–2
	for i, w := range want {
		l := a.Levels[i]
		if l.BothFailed != w[0] || l.OnlyA != w[1] || l.OnlyB != w[2] {
			t.Errorf("levels %s vs %s: %+v, want %v", l.A, l.B, l, w)
		}
	}
	if a.Ordered {
		t.Error("ordering claimed from 1 discordant seed per comparison")
	}
	if len(a.Invalid) != 1 || a.Invalid[0].Seed != 1 || len(a.Invalid[0].Causes) != 2 || a.Invalid[0].Causes[0].Err != "no recording" {
		t.Errorf("seeds invalid at some levels: %+v, want seed 1 at levels 0 and 1, unexplained", a.Invalid)
	}
	if len(a.Causes) != 1 || a.Causes[0].Runs != 8 {
		t.Errorf("causes %+v, want the 8 runs of seed 1 without the reconcile check", a.Causes)
	}
	if len(a.Perfect) != 3 || a.Perfect[2].Row.Tally.Violated != 0 || a.Perfect[2].Row.Tally.Valid != 3 {
		t.Fatalf("perfect rows %+v", a.Perfect)
	}
	// 0 of 3: the one-sided 95 % upper bound is 1 − 0.05^(1/3).
	if got, want := a.Perfect[2].Upper, 1-math.Pow(0.05, 1.0/3); math.Abs(got-want) > 1e-9 {
		t.Errorf("upper bound %v, want %v", got, want)
	}
	md, h := a.Markdown(), a.HTML()
	for _, want := range []string{"| c01 (level 1) | S--- | 2 | 2 | 0 |", "| stabilize | -25.0 pp (-74.0, +24.0); 0↑ 1↓, p = 1 |", "does not hold", "seed 1 (valid iff the reconcile check is on), level 0: no recording", "| valid iff the reconcile check is on | 1 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(h, "<td>c15 (level 2)</td>") || strings.Contains(h, "| ") {
		t.Errorf("HTML:\n%s", h)
	}
	if cs, err := a.Charts(); err != nil || len(cs) != 3 {
		t.Errorf("charts: %v, %v", cs, err)
	}
}
