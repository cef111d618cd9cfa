package analysis

import (
	"math"
	"testing"
)

// TestFactorialEffectsPilotPlant: the 2³ pilot-plant experiment of Box,
// Hunter & Hunter, Statistics for Experimenters, 2nd ed., §5.4 (factors
// temperature T, concentration C, catalyst K; yields in standard order 60,
// 72, 54, 68, 52, 83, 45, 80) has the published effects T = 23.0,
// C = −5.0, K = 1.5, TC = 1.5, TK = 10.0, CK = 0.0, TCK = 0.5. One unit:
// the values are exact, the interval undefined.
func TestFactorialEffectsPilotPlant(t *testing.T) {
	y := [][]float64{{60, 72, 54, 68, 52, 83, 45, 80}}
	got, err := FactorialEffects(y, []string{"T", "C", "K"}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name  string
		value float64
	}{{"T", 23}, {"C", -5}, {"K", 1.5}, {"T×C", 1.5}, {"T×K", 10}, {"C×K", 0}, {"T×C×K", 0.5}}
	if len(got) != len(want) {
		t.Fatalf("%d effects, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Name() != w.name {
			t.Errorf("effect %d is %s, want %s", i, got[i].Name(), w.name)
		}
		checkNear(t, w.name, got[i].Value, w.value, 1e-12)
		if !math.IsNaN(got[i].Lower) || !math.IsNaN(got[i].Upper) {
			t.Errorf("%s: interval [%v, %v] from one unit, want NaN", w.name, got[i].Lower, got[i].Upper)
		}
	}
}

// TestFactorialEffectsBinary: hand-made binary responses, checked by hand.
func TestFactorialEffectsBinary(t *testing.T) {
	// One factor, four units: contrasts 1, 1, 0, 0; mean 0.5, sample sd
	// √(1/3); 95 % half-width 1.959964 · 0.5773503 / 2 = 0.5657929.
	got, err := FactorialEffects([][]float64{{0, 1}, {0, 1}, {0, 0}, {1, 1}}, []string{"A"}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	checkNear(t, "A", got[0].Value, 0.5, 1e-12)
	// Sign test: 2 units above 0, none below: p = 2 · (1/2)² = 0.5.
	if got[0].Positive != 2 || got[0].Negative != 0 || got[0].SignP != 0.5 {
		t.Errorf("sign test %d+ %d− p = %v, want 2, 0, 0.5", got[0].Positive, got[0].Negative, got[0].SignP)
	}
	checkNear(t, "A lower", got[0].Lower, 0.5-0.5657929, 1e-5)
	checkNear(t, "A upper", got[0].Upper, 0.5+0.5657929, 1e-6)
	// Two factors, one unit failing only with A on and B off: A = 0.5,
	// B = −0.5, A×B = −0.5 (B on cancels A's effect).
	got, err = FactorialEffects([][]float64{{0, 1, 0, 0}}, []string{"A", "B"}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{0.5, -0.5, -0.5} {
		checkNear(t, got[i].Name(), got[i].Value, w, 1e-12)
	}
}

func TestFactorialEffectsErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		y     [][]float64
		names []string
		level float64
	}{
		{"no factors", [][]float64{{1}}, nil, 0.95},
		{"no units", nil, []string{"A"}, 0.95},
		{"ragged", [][]float64{{0, 1}, {0}}, []string{"A"}, 0.95},
		{"level", [][]float64{{0, 1}}, []string{"A"}, 1},
	} {
		if _, err := FactorialEffects(tc.y, tc.names, tc.level); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestFactorialResponses: seeds with an error or missing in some variant are
// dropped; the responses follow the variants' order.
func TestFactorialResponses(t *testing.T) {
	rows := []Outcome{
		{"lo", "r", VerdictViolated, 0}, {"hi", "r", VerdictHolds, 0},
		{"lo", "r", VerdictInvalid, 1}, {"hi", "r", VerdictViolated, 1},
		{"lo", "r", VerdictError, 2}, {"hi", "r", VerdictHolds, 2},
		{"lo", "r", VerdictHolds, 3},
		{"lo", "again", VerdictHolds, 0}, // a second run is ignored
	}
	y, seeds, dropped, err := FactorialResponses(rows, []string{"lo", "hi"}, ResponseITT)
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 2 || len(seeds) != 2 || seeds[0] != 0 || seeds[1] != 1 {
		t.Fatalf("seeds %v dropped %d, want [0 1] and 2", seeds, dropped)
	}
	if y[0][0] != 1 || y[0][1] != 0 || y[1][0] != 1 || y[1][1] != 1 {
		t.Errorf("responses %v, want [[1 0] [1 1]]", y)
	}
	if _, _, _, err := FactorialResponses(rows, []string{"lo", "hi", "x"}, ResponseITT); err == nil {
		t.Error("3 variants: no error")
	}
	if _, _, _, err := FactorialResponses(rows, []string{"lo", "nosuch"}, ResponseITT); err == nil {
		t.Error("a variant without outcomes: no error")
	}
}
