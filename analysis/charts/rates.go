package charts

import (
	"errors"
	"fmt"
	"slices"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// Rates charts each variant's violation rate as a bar with its interval as an
// error bar (an echarts custom series), labelled k/n. Rows keep their order.
func Rates(name string, rows []RateBar) (*Chart, error) {
	if len(rows) == 0 {
		return nil, errors.New("charts: Rates needs at least one row")
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if err := checkRate("variant "+r.Variant, r.Rate, r.Lo, r.Hi, r.K, r.N); err != nil {
			return nil, err
		}
		if seen[r.Variant] {
			return nil, fmt.Errorf("charts: Rates: variant %q appears twice", r.Variant)
		}
		seen[r.Variant] = true
	}
	rows = slices.Clone(rows)
	return newChart("rates", name, "Violation rate by variant", func() map[string]any { return ratesOption(rows) }), nil
}

func ratesOption(rows []RateBar) map[string]any {
	variants := make([]string, len(rows))
	bars := make([]opts.BarData, len(rows))
	whiskers := make([]opts.CustomData, len(rows))
	for i, r := range rows {
		variants[i] = r.Variant
		label := &opts.Label{Show: opts.Bool(true), Position: "insideBottom", Formatter: fmt.Sprintf("%d/%d", r.K, r.N)}
		if r.K == 0 {
			// A bar of height zero has no inside: the label goes above it, in ink.
			label.Position, label.Color = "top", "#1b1f24"
		}
		bars[i] = opts.BarData{Name: r.Variant, Value: r.Rate, Label: label}
		whiskers[i] = opts.CustomData{Value: []any{i, r.Lo, r.Hi, r.Rate, r.K, r.N}}
	}
	bar := ec.NewBar()
	bar.SetGlobalOptions(base(opts.Tooltip{Trigger: "axis"})...)
	bar.SetGlobalOptions(ec.WithYAxisOpts(opts.YAxis{Name: "violation rate", Min: 0}))
	bar.SetXAxis(variants).AddSeries("violation rate", bars,
		ec.WithItemStyleOpts(opts.ItemStyle{Color: color(0)}), ec.WithBarChartOpts(opts.BarChart{BarWidth: "45%"}))
	bar.Overlap(errorBars("violation rate", "#333333", whiskers))
	m := optionOf(bar)
	m["tooltip"] = map[string]any{"trigger": "axis", "formatter": fn("interval-tip")}
	return m
}

// errorBars is a custom series drawing whiskers for data [x, lo, hi, rate, k, n].
func errorBars(name, col string, data []opts.CustomData) *ec.Custom {
	c := ec.NewCustom()
	c.AddSeries(name, data,
		ec.WithCustomChartOpts(opts.CustomChart{RenderItem: types.FuncStr(fn("errorbar"))}),
		ec.WithEncodeOpts(opts.Encode{X: 0, Y: []int{1, 2}}),
		ec.WithItemStyleOpts(opts.ItemStyle{Color: col}))
	return c
}

// Drift charts each variant's violation rate across repeated runs (campaigns)
// as a line over the runs, with an error bar per point. Runs and variants keep
// their order of first appearance.
func Drift(name string, rows []RunRate) (*Chart, error) {
	if len(rows) == 0 {
		return nil, errors.New("charts: Drift needs at least one row")
	}
	seen := map[[2]string]bool{}
	for _, r := range rows {
		if err := checkRate(fmt.Sprintf("run %s variant %s", r.Run, r.Variant), r.Rate, r.Lo, r.Hi, r.K, r.N); err != nil {
			return nil, err
		}
		key := [2]string{r.Run, r.Variant}
		if seen[key] {
			return nil, fmt.Errorf("charts: Drift: run %q variant %q appears twice", r.Run, r.Variant)
		}
		seen[key] = true
	}
	rows = slices.Clone(rows)
	return newChart("drift", name, "Violation rate across runs", func() map[string]any { return driftOption(rows) }), nil
}

func driftOption(rows []RunRate) map[string]any {
	runs, variants := newOrder(), newOrder()
	for _, r := range rows {
		runs.add(r.Run)
		variants.add(r.Variant)
	}
	line := ec.NewLine()
	line.SetGlobalOptions(base(opts.Tooltip{Trigger: "axis"})...)
	line.SetGlobalOptions(
		ec.WithYAxisOpts(opts.YAxis{Name: "violation rate", Min: 0}),
		ec.WithXAxisOpts(opts.XAxis{Name: "run", NameLocation: "middle", NameGap: 30, Type: "category"}))
	line.SetXAxis(runs.keys)
	for vi, v := range variants.keys {
		points := make([]opts.LineData, len(runs.keys))
		for i := range points {
			points[i] = opts.LineData{Value: "-"}
		}
		var whiskers []opts.CustomData
		for _, r := range rows {
			if r.Variant == v {
				x := runs.index[r.Run]
				points[x] = opts.LineData{Value: r.Rate}
				whiskers = append(whiskers, opts.CustomData{Value: []any{x, r.Lo, r.Hi, r.Rate, r.K, r.N}})
			}
		}
		line.AddSeries(v, points,
			ec.WithLineChartOpts(opts.LineChart{Symbol: "circle", SymbolSize: 7, ShowSymbol: opts.Bool(true)}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: color(vi)}))
		line.Overlap(errorBars(v, color(vi), whiskers))
	}
	m := optionOf(line)
	m["tooltip"] = map[string]any{"trigger": "axis", "formatter": fn("interval-tip")}
	m["legend"] = map[string]any{"show": true, "bottom": 0, "type": "scroll", "data": variants.keys}
	return m
}
