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

// isFault reports whether a trace event kind is drawn as a fault markLine.
func isFault(kind string) bool {
	switch kind {
	case KindFault, KindCrash, KindRestart, KindPartition, KindHeal:
		return true
	}
	return false
}

// Timeline charts a recorded run: each declared variable of each node as a
// step line over scheduler steps (numeric values as numbers, other values
// numbered in order of first appearance, the raw value in the tooltip);
// faults (crash, restart, partition, heal, fault) as vertical markLines and
// every other event (deliveries, timers…) as a markPoint on the receiving
// node's first variable.
func Timeline(name string, events []TraceEvent) (*Chart, error) {
	if len(events) == 0 {
		return nil, errors.New("charts: Timeline needs at least one event")
	}
	for i, e := range events {
		switch {
		case e.Step < 0:
			return nil, fmt.Errorf("charts: Timeline: event %d has negative step %d", i, e.Step)
		case e.Kind == "":
			return nil, fmt.Errorf("charts: Timeline: event %d at step %d has no kind", i, e.Step)
		case e.Kind == KindState && (e.Node == "" || e.Var == ""):
			return nil, fmt.Errorf("charts: Timeline: state event %d at step %d needs a node and a variable", i, e.Step)
		}
	}
	events = slices.Clone(events)
	sort.SliceStable(events, func(i, j int) bool { return events[i].Step < events[j].Step })
	return newChart("timeline", name, "Trace timeline", func() map[string]any { return timelineOption(events) }), nil
}

// traceSeries is one node variable's values over steps.
type traceSeries struct {
	node, name string
	events     []TraceEvent
	codes      map[string]int // non-numeric values numbered; nil if all numeric
}

func (s *traceSeries) y(value string) float64 {
	if s.codes == nil {
		f, _ := strconv.ParseFloat(value, 64)
		return f
	}
	return float64(s.codes[value])
}

// at returns the variable's y at step (0 before its first value).
func (s *traceSeries) at(step int) float64 {
	y := 0.0
	for _, e := range s.events {
		if e.Step > step {
			break
		}
		y = s.y(e.Value)
	}
	return y
}

func collectSeries(events []TraceEvent) []*traceSeries {
	keys := newOrder()
	var series []*traceSeries
	for _, e := range events {
		if e.Kind != KindState {
			continue
		}
		i := keys.add(e.Node + "\x00" + e.Var)
		if i == len(series) {
			series = append(series, &traceSeries{node: e.Node, name: e.Node + "." + e.Var})
		}
		series[i].events = append(series[i].events, e)
	}
	for _, s := range series {
		for _, e := range s.events {
			if _, err := strconv.ParseFloat(e.Value, 64); err != nil {
				s.codes = map[string]int{}
				break
			}
		}
		if s.codes != nil {
			for _, e := range s.events {
				if _, ok := s.codes[e.Value]; !ok {
					s.codes[e.Value] = len(s.codes)
				}
			}
		}
	}
	return series
}

func timelineOption(events []TraceEvent) map[string]any {
	series := collectSeries(events)
	last := events[len(events)-1]
	line := ec.NewLine()
	line.SetGlobalOptions(base(opts.Tooltip{Trigger: "item"})...)
	// Explicit extents: marks alone do not stretch an axis, and a trace may
	// hold events but no declared state.
	yAxis := opts.YAxis{Name: "declared value", Type: "value"}
	if len(series) == 0 {
		yAxis.Min, yAxis.Max = 0, 1
	}
	line.SetGlobalOptions(
		ec.WithXAxisOpts(opts.XAxis{Name: "step", NameLocation: "middle", NameGap: 30, Type: "value", MinInterval: 1,
			Min: 0, Max: max(last.Step, 1)}),
		ec.WithYAxisOpts(yAxis),
		ec.WithDataZoomOpts(opts.DataZoom{Type: "inside"}))
	for i, s := range series {
		var data []opts.LineData
		for _, e := range s.events {
			data = append(data, opts.LineData{Value: []any{e.Step, s.y(e.Value), e.Value, e.TimeUS}})
		}
		if end := s.events[len(s.events)-1]; end.Step < last.Step {
			data = append(data, opts.LineData{Value: []any{last.Step, s.y(end.Value), end.Value, last.TimeUS}, Symbol: "none"})
		}
		line.AddSeries(s.name, data,
			ec.WithLineChartOpts(opts.LineChart{Step: "end", Symbol: "circle", SymbolSize: 6, ShowSymbol: opts.Bool(true)}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: color(i)}))
	}
	line.AddSeries("faults", nil, faultMarks(events)...)
	line.AddSeries("events", nil, eventMarks(events, series)...)
	m := optionOf(line)
	m["tooltip"] = map[string]any{"trigger": "item", "formatter": fn("trace-tip")}
	return m
}

func describe(e TraceEvent) string {
	s := fmt.Sprintf("step %d, t = %d µs: %s", e.Step, e.TimeUS, e.Kind)
	if e.Node != "" {
		s += " " + e.Node
	}
	if e.Value != "" {
		s += ": " + e.Value
	}
	return s
}

func faultMarks(events []TraceEvent) []ec.SeriesOpts {
	var items []opts.MarkLineNameXAxisItem
	for _, e := range events {
		if isFault(e.Kind) {
			items = append(items, opts.MarkLineNameXAxisItem{Name: describe(e), XAxis: e.Step})
		}
	}
	return []ec.SeriesOpts{
		ec.WithItemStyleOpts(opts.ItemStyle{Color: "#d62728"}),
		ec.WithMarkLineNameXAxisItemOpts(items...),
		ec.WithMarkLineStyleOpts(opts.MarkLineStyle{
			Symbol:    []string{"none", "none"},
			Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Position: "insideEndTop", FontSize: 10},
			LineStyle: &opts.LineStyle{Color: "#d62728", Type: "dashed", Width: 1.5},
		}),
	}
}

func eventMarks(events []TraceEvent, series []*traceSeries) []ec.SeriesOpts {
	first := map[string]*traceSeries{}
	for _, s := range series {
		if first[s.node] == nil {
			first[s.node] = s
		}
	}
	var items []opts.MarkPointNameCoordItem
	for _, e := range events {
		if e.Kind == KindState || isFault(e.Kind) {
			continue
		}
		y := 0.0
		if s := first[e.Node]; s != nil {
			y = s.at(e.Step)
		}
		items = append(items, opts.MarkPointNameCoordItem{Name: describe(e), Coordinate: []any{e.Step, y}})
	}
	return []ec.SeriesOpts{
		ec.WithItemStyleOpts(opts.ItemStyle{Color: "#7f7f7f"}),
		ec.WithMarkPointNameCoordItemOpts(items...),
		ec.WithMarkPointStyleOpts(opts.MarkPointStyle{Symbol: []string{"pin"}, SymbolSize: 22, Label: &opts.Label{Show: opts.Bool(false)}}),
	}
}
