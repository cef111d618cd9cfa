package charts

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// SearchGrowth charts distinct states against depth for exhaustive checks,
// one line per Variant (first-appearance order; "" is named "states"). The
// state axis is logarithmic when the counts span two orders of magnitude.
func SearchGrowth(name string, rows []DepthCount) (*Chart, error) {
	if len(rows) == 0 {
		return nil, errors.New("charts: SearchGrowth needs at least one row")
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Depth < 0 || r.States < 0 {
			return nil, fmt.Errorf("charts: SearchGrowth: variant %q depth %d has negative values", r.Variant, r.Depth)
		}
		k := fmt.Sprintf("%s\x00%d", r.Variant, r.Depth)
		if seen[k] {
			return nil, fmt.Errorf("charts: SearchGrowth: variant %q depth %d appears twice", r.Variant, r.Depth)
		}
		seen[k] = true
	}
	rows = slices.Clone(rows)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Depth < rows[j].Depth })
	return newChart("search", name, "Search growth: distinct states by depth", func() map[string]any { return growthOption(rows) }), nil
}

func growthOption(rows []DepthCount) map[string]any {
	variants := newOrder()
	lo, hi := rows[0].States, rows[0].States
	for _, r := range rows {
		variants.add(r.Variant)
		lo, hi = min(lo, r.States), max(hi, r.States)
	}
	yType := "value"
	if lo > 0 && hi >= 100*lo {
		yType = "log"
	}
	line := ec.NewLine()
	line.SetGlobalOptions(base(opts.Tooltip{Trigger: "axis"})...)
	line.SetGlobalOptions(
		ec.WithXAxisOpts(opts.XAxis{Name: "depth", NameLocation: "middle", NameGap: 30, Type: "value", MinInterval: 1}),
		ec.WithYAxisOpts(opts.YAxis{Name: "distinct states", Type: yType}))
	for vi, v := range variants.keys {
		var data []opts.LineData
		for _, r := range rows {
			if r.Variant == v {
				data = append(data, opts.LineData{Value: []int{r.Depth, r.States}})
			}
		}
		label := v
		if label == "" {
			label = "states"
		}
		line.AddSeries(label, data,
			ec.WithLineChartOpts(opts.LineChart{Symbol: "circle", ShowSymbol: opts.Bool(true)}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: color(vi)}))
	}
	return optionOf(line)
}

// Throughput charts a campaign's speed: runs per second between successive
// points (left axis) and runs done (right axis) against elapsed seconds.
// Points are sorted by Elapsed, which must not repeat; Done must not fall.
func Throughput(name string, points []ThroughputPoint) (*Chart, error) {
	if len(points) == 0 {
		return nil, errors.New("charts: Throughput needs at least one point")
	}
	points = slices.Clone(points)
	sort.SliceStable(points, func(i, j int) bool { return points[i].Elapsed < points[j].Elapsed })
	prev := ThroughputPoint{}
	for i, p := range points {
		if p.Elapsed <= 0 || p.Done < 0 {
			return nil, fmt.Errorf("charts: Throughput: point %v/%d is not after the start", p.Elapsed, p.Done)
		}
		if i > 0 && p.Elapsed == prev.Elapsed {
			return nil, fmt.Errorf("charts: Throughput: elapsed %v appears twice", p.Elapsed)
		}
		if p.Done < prev.Done {
			return nil, fmt.Errorf("charts: Throughput: done falls from %d to %d at %v", prev.Done, p.Done, p.Elapsed)
		}
		prev = p
	}
	return newChart("throughput", name, "Campaign throughput", func() map[string]any { return throughputOption(points) }), nil
}

func throughputOption(points []ThroughputPoint) map[string]any {
	// With step "start", the segment ending at a point has that point's rate;
	// a leading point at 0 starts the first segment.
	rate := []opts.LineData{{Value: []float64{0, float64(points[0].Done) / points[0].Elapsed.Seconds()}}}
	done := []opts.LineData{{Value: []float64{0, 0}}}
	prev := ThroughputPoint{}
	for _, p := range points {
		dt := (p.Elapsed - prev.Elapsed).Seconds()
		secs := p.Elapsed.Seconds()
		rate = append(rate, opts.LineData{Value: []float64{secs, float64(p.Done-prev.Done) / dt}})
		done = append(done, opts.LineData{Value: []float64{secs, float64(p.Done)}})
		prev = p
	}
	line := ec.NewLine()
	line.SetGlobalOptions(base(opts.Tooltip{Trigger: "axis"})...)
	line.SetGlobalOptions(
		ec.WithXAxisOpts(opts.XAxis{Name: "elapsed (s)", NameLocation: "middle", NameGap: 30, Type: "value"}),
		ec.WithYAxisOpts(opts.YAxis{Name: "runs/s", Type: "value", Min: 0}))
	line.ExtendYAxis(opts.YAxis{Name: "runs done", Type: "value", Min: 0, Position: "right"})
	line.AddSeries("runs/s", rate,
		ec.WithLineChartOpts(opts.LineChart{Step: "start", ShowSymbol: opts.Bool(false)}),
		ec.WithItemStyleOpts(opts.ItemStyle{Color: color(0)}))
	line.AddSeries("runs done", done,
		ec.WithLineChartOpts(opts.LineChart{YAxisIndex: 1, ShowSymbol: opts.Bool(false)}),
		ec.WithItemStyleOpts(opts.ItemStyle{Color: color(1)}))
	return optionOf(line)
}
