package charts

import (
	"errors"
	"fmt"
	"slices"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// EffectBar is one effect of a factorial design (a main effect or an
// interaction) on a rate: Value with its interval [Lo, Hi], estimated over
// Units paired units (seeds). Values may be negative.
type EffectBar struct {
	Effect string
	Value  float64
	Lo, Hi float64
	Units  int
}

// Effects charts effects on one outcome as bars with their intervals as
// error bars; a bar below zero lowers the outcome's rate. Rows keep their
// order; yName names the outcome (e.g. "effect on P(violated)").
func Effects(name, title, yName string, rows []EffectBar) (*Chart, error) {
	if len(rows) == 0 {
		return nil, errors.New("charts: Effects needs at least one row")
	}
	seen := map[string]bool{}
	for _, r := range rows {
		switch {
		case !finite(r.Value, r.Lo, r.Hi):
			return nil, fmt.Errorf("charts: Effects: effect %q: value or interval is not finite (%v [%v, %v])", r.Effect, r.Value, r.Lo, r.Hi)
		case r.Lo > r.Hi || r.Value < r.Lo || r.Value > r.Hi:
			return nil, fmt.Errorf("charts: Effects: effect %q: %v is not inside its interval [%v, %v]", r.Effect, r.Value, r.Lo, r.Hi)
		case r.Units < 1:
			return nil, fmt.Errorf("charts: Effects: effect %q: %d units", r.Effect, r.Units)
		case seen[r.Effect]:
			return nil, fmt.Errorf("charts: Effects: effect %q appears twice", r.Effect)
		}
		seen[r.Effect] = true
	}
	rows = slices.Clone(rows)
	return newChart("effects", name, title, func() map[string]any { return effectsOption(yName, rows) }), nil
}

func effectsOption(yName string, rows []EffectBar) map[string]any {
	names := make([]string, len(rows))
	bars := make([]opts.BarData, len(rows))
	whiskers := make([]opts.CustomData, len(rows))
	for i, r := range rows {
		names[i] = r.Effect
		col := color(0)
		if r.Value > 0 {
			col = color(3)
		}
		bars[i] = opts.BarData{Name: r.Effect, Value: r.Value, ItemStyle: &opts.ItemStyle{Color: col}}
		whiskers[i] = opts.CustomData{Value: []any{i, r.Lo, r.Hi, r.Value, r.Units}}
	}
	bar := ec.NewBar()
	bar.SetGlobalOptions(base(opts.Tooltip{Trigger: "axis"})...)
	bar.SetGlobalOptions(
		ec.WithYAxisOpts(opts.YAxis{Name: yName}),
		ec.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Interval: "0", Rotate: 30}}))
	bar.SetXAxis(names).AddSeries("effect", bars, ec.WithBarChartOpts(opts.BarChart{BarWidth: "45%"}))
	bar.Overlap(errorBars("95 % interval", "#333333", whiskers))
	m := optionOf(bar)
	m["tooltip"] = map[string]any{"trigger": "axis", "formatter": fn("effect-tip")}
	return m
}
