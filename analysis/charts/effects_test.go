package charts

import (
	"math"
	"strings"
	"testing"
)

func sampleEffects() []EffectBar {
	return []EffectBar{
		{Effect: "stabilize", Value: -0.092, Lo: -0.118, Hi: -0.066, Units: 500},
		{Effect: "reconcile", Value: 0.004, Lo: -0.001, Hi: 0.009, Units: 500},
	}
}

// TestEffects: the option holds one bar per effect (red above zero, blue
// below) and one whisker per effect from Lo to Hi, with the effect tooltip.
func TestEffects(t *testing.T) {
	c, err := Effects("attribution", "Main effects", "effect on P(violated)", sampleEffects())
	if err != nil {
		t.Fatal(err)
	}
	js := c.OptionJS()
	for _, want := range []string{`"stabilize"`, `"reconcile"`, "-0.092", "-0.118", "0.009", color(0), color(3), "over \" + v[4] + \" seeds", "effect on P(violated)"} {
		if !strings.Contains(js, want) {
			t.Errorf("option lacks %s", want)
		}
	}
	if c.Kind() != "effects" {
		t.Errorf("kind %q", c.Kind())
	}
	for _, tc := range []struct {
		name string
		rows []EffectBar
		want string
	}{
		{"empty", nil, "at least one"},
		{"outside", []EffectBar{{Effect: "a", Value: 0.5, Lo: 0.6, Hi: 0.7, Units: 3}}, "not inside"},
		{"nan", []EffectBar{{Effect: "a", Value: 0, Lo: math.NaN(), Hi: 1, Units: 3}}, "not finite"},
		{"units", []EffectBar{{Effect: "a", Units: 0}}, "units"},
		{"twice", append(sampleEffects(), sampleEffects()[0]), "twice"},
	} {
		if _, err := Effects("x", "x", "y", tc.rows); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
