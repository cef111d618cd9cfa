package charts

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Invariants charts, per variant, how many runs violated each invariant, as
// bars stacked by invariant. Variants and invariants keep their order of
// first appearance; repeated (variant, invariant) rows are summed.
func Invariants(name string, rows []InvariantCount) (*Chart, error) {
	if len(rows) == 0 {
		return nil, errors.New("charts: Invariants needs at least one row")
	}
	for _, r := range rows {
		if r.Count < 0 {
			return nil, fmt.Errorf("charts: Invariants: variant %q invariant %q has negative count %d", r.Variant, r.Invariant, r.Count)
		}
	}
	rows = slices.Clone(rows)
	return newChart("invariants", name, "Violations by invariant", func() map[string]any { return invariantsOption(rows) }), nil
}

func invariantsOption(rows []InvariantCount) map[string]any {
	variants, invariants := newOrder(), newOrder()
	for _, r := range rows {
		variants.add(r.Variant)
		invariants.add(r.Invariant)
	}
	counts := make([][]int, len(invariants.keys))
	for i := range counts {
		counts[i] = make([]int, len(variants.keys))
	}
	for _, r := range rows {
		counts[invariants.index[r.Invariant]][variants.index[r.Variant]] += r.Count
	}
	bar := ec.NewBar()
	bar.SetGlobalOptions(base(opts.Tooltip{Trigger: "axis"})...)
	bar.SetGlobalOptions(
		ec.WithYAxisOpts(opts.YAxis{Name: "violating runs", Min: 0, MinInterval: 1}),
		ec.WithXAxisOpts(opts.XAxis{Name: "variant", NameLocation: "middle", NameGap: 30}))
	bar.SetXAxis(variants.keys)
	for i, inv := range invariants.keys {
		data := make([]opts.BarData, len(variants.keys))
		for j, n := range counts[i] {
			data[j] = opts.BarData{Value: n}
		}
		bar.AddSeries(inv, data,
			ec.WithBarChartOpts(opts.BarChart{Stack: "violations", BarWidth: "45%"}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: color(i)}))
	}
	return optionOf(bar)
}

// verdictCode numbers the verdicts for the outcome map's colour scale.
func verdictCode(v string) (int, bool) {
	switch v {
	case VerdictHolds:
		return 0, true
	case VerdictViolated:
		return 1, true
	case VerdictInvalid:
		return 2, true
	case VerdictError:
		return 3, true
	}
	return 0, false
}

// Outcomes charts a seed × variant map of verdicts (a heatmap coloured
// holds/violated/invalid/error). Seeds are sorted; variants keep their order
// of first appearance. A (variant, seed) pair may appear once.
func Outcomes(name string, rows []Outcome) (*Chart, error) {
	if len(rows) == 0 {
		return nil, errors.New("charts: Outcomes needs at least one row")
	}
	type key struct {
		v string
		s int64
	}
	seen := map[key]bool{}
	for _, r := range rows {
		if _, ok := verdictCode(r.Verdict); !ok {
			return nil, fmt.Errorf("charts: Outcomes: variant %q seed %d has unknown verdict %q", r.Variant, r.Seed, r.Verdict)
		}
		if seen[key{r.Variant, r.Seed}] {
			return nil, fmt.Errorf("charts: Outcomes: variant %q seed %d appears twice", r.Variant, r.Seed)
		}
		seen[key{r.Variant, r.Seed}] = true
	}
	rows = slices.Clone(rows)
	return newChart("outcomes", name, "Outcome by seed and variant", func() map[string]any { return outcomesOption(rows) }), nil
}

func outcomesOption(rows []Outcome) map[string]any {
	variants := newOrder()
	var seeds []int64
	seedIndex := map[int64]int{}
	for _, r := range rows {
		variants.add(r.Variant)
		if _, ok := seedIndex[r.Seed]; !ok {
			seedIndex[r.Seed] = 0
			seeds = append(seeds, r.Seed)
		}
	}
	sort.Slice(seeds, func(i, j int) bool { return seeds[i] < seeds[j] })
	labels := make([]string, len(seeds))
	for i, s := range seeds {
		seedIndex[s] = i
		labels[i] = strconv.FormatInt(s, 10)
	}
	data := make([]opts.HeatMapData, len(rows))
	for i, r := range rows {
		code, _ := verdictCode(r.Verdict)
		data[i] = opts.HeatMapData{
			Name:  fmt.Sprintf("%s, seed %d: %s", r.Variant, r.Seed, r.Verdict),
			Value: []int{seedIndex[r.Seed], variants.index[r.Variant], code},
		}
	}
	hm := ec.NewHeatMap()
	hm.SetGlobalOptions(base(opts.Tooltip{Trigger: "item"})...)
	hm.SetGlobalOptions(
		ec.WithXAxisOpts(opts.XAxis{Name: "seed", NameLocation: "middle", NameGap: 30, Type: "category", Data: labels, SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
		ec.WithYAxisOpts(opts.YAxis{Name: "variant", Type: "category", Data: variants.keys, Inverse: opts.Bool(true), SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}))
	hm.AddSeries("verdict", data) // (HeatMap.Validate ignores SetXAxis; the labels are in the axis options)
	m := optionOf(hm)
	m["tooltip"] = map[string]any{"trigger": "item", "formatter": fn("name-tip")}
	m["legend"] = map[string]any{"show": false}
	m["visualMap"] = map[string]any{
		"type": "piecewise", "dimension": 2, "orient": "horizontal", "left": "center", "bottom": 0,
		"pieces": []map[string]any{
			{"value": 0, "label": VerdictHolds, "color": "#3ba272"},
			{"value": 1, "label": VerdictViolated, "color": "#ee6666"},
			{"value": 2, "label": VerdictInvalid, "color": "#fac858"},
			{"value": 3, "label": VerdictError, "color": "#7f7f7f"},
		},
	}
	return m
}
