package charts

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// isFault reports whether a trace event kind is drawn as a fault markLine.
func isFault(kind string) bool {
	switch kind {
	case KindFault, KindCrash, KindRestart, KindPartition, KindHeal:
		return true
	}
	return false
}

// Timeline charts a recorded run with one panel per node: each declared
// variable of the node as a step line over scheduler steps (numeric values
// as numbers, other values numbered in order of first appearance, the raw
// value in the tooltip). A node's crash-to-restart interval is shaded and
// labelled in its panel, a partition's interval across every panel; faults
// are vertical lines, and other events (deliveries, timers…) pins in the
// receiving node's panel. The legend names the variables once, so it fits
// on one line whatever the number of nodes.
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
	c := newChart("timeline", name, "Trace timeline", func() map[string]any { return timelineOption(events) })
	c.Height = timelineHeight(len(panelNodes(events)))
	return c, nil
}

// Panel layout of Timeline, in pixels.
const (
	panelHeight = 110
	panelGap    = 34
	panelTop    = 60
	panelBottom = 70
)

func timelineHeight(panels int) int {
	return panelTop + panels*(panelHeight+panelGap) + panelBottom
}

// panelNodes lists the nodes that get a panel, in order of first
// appearance (events without a node, such as partitions, have none).
func panelNodes(events []TraceEvent) []string {
	o := newOrder()
	for _, e := range events {
		if e.Node != "" {
			o.add(e.Node)
		}
	}
	if len(o.keys) == 0 {
		o.add("")
	}
	return o.keys
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
	nodes := panelNodes(events)
	panel := map[string]int{}
	for i, n := range nodes {
		panel[n] = i
	}
	last := max(events[len(events)-1].Step, 1)
	vars := newOrder()
	for _, s := range series {
		vars.add(strings.TrimPrefix(s.name, s.node+"."))
	}
	var grids, xs, ys, out []any
	for i, n := range nodes {
		top := panelTop + i*(panelHeight+panelGap)
		grids = append(grids, map[string]any{"left": 64, "right": 40, "top": top, "height": panelHeight, "containLabel": true})
		x := map[string]any{"type": "value", "gridIndex": i, "min": 0, "max": last, "minInterval": 1}
		if i == len(nodes)-1 {
			x["name"], x["nameLocation"], x["nameGap"] = "step", "middle", 26
		}
		xs = append(xs, x)
		ys = append(ys, map[string]any{"type": "value", "gridIndex": i, "name": n, "nameLocation": "end",
			"nameTextStyle": map[string]any{"fontWeight": "bold", "align": "left"}, "scale": true, "splitNumber": 3})
	}
	for _, s := range series {
		v := strings.TrimPrefix(s.name, s.node+".")
		var data [][]any
		for _, e := range s.events {
			data = append(data, []any{e.Step, s.y(e.Value), e.Value, e.TimeUS, s.name})
		}
		if end := s.events[len(s.events)-1]; end.Step < last {
			data = append(data, []any{last, s.y(end.Value), end.Value, events[len(events)-1].TimeUS, s.name})
		}
		i := panel[s.node]
		out = append(out, map[string]any{"type": "line", "name": v, "step": "end", "symbol": "circle", "symbolSize": 6,
			"showSymbol": true, "xAxisIndex": i, "yAxisIndex": i, "data": data, "itemStyle": map[string]any{"color": color(vars.index[v])}})
	}
	for i, n := range nodes {
		out = append(out, panelMarks(events, series, n, i, last))
	}
	return map[string]any{
		"animation": false,
		"legend":    map[string]any{"show": true, "bottom": 0, "data": vars.keys},
		"tooltip":   map[string]any{"trigger": "item", "formatter": fn("trace-tip")},
		"grid":      grids, "xAxis": xs, "yAxis": ys, "series": out,
		"dataZoom": []any{map[string]any{"type": "inside", "xAxisIndex": seq(len(nodes))}},
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// panelMarks is an empty series on node's panel holding its marks: shaded
// intervals while the node is down and while a partition lasts, fault
// lines, and pins for other events.
func panelMarks(events []TraceEvent, series []*traceSeries, node string, i, last int) map[string]any {
	var areas, lines, pins []any
	downAt := -1
	partAt := -1
	interval := func(from, to int, label, col string) {
		areas = append(areas, []any{
			map[string]any{"xAxis": from, "name": label, "itemStyle": map[string]any{"color": col}},
			map[string]any{"xAxis": max(to, from+1)}})
	}
	var first *traceSeries
	for _, s := range series {
		if s.node == node {
			first = s
			break
		}
	}
	for _, e := range events {
		switch {
		case e.Kind == KindPartition:
			partAt = e.Step
		case e.Kind == KindHeal && partAt >= 0:
			interval(partAt, e.Step, "partition", "rgba(154,103,0,0.14)")
			partAt = -1
		}
		if e.Node != node {
			continue
		}
		switch {
		case e.Kind == KindCrash:
			downAt = e.Step
		case e.Kind == KindRestart && downAt >= 0:
			interval(downAt, e.Step, node+" down", "rgba(207,34,46,0.16)")
			downAt = -1
		}
		switch {
		case e.Kind == KindState:
		case isFault(e.Kind):
			lines = append(lines, map[string]any{"name": describe(e), "xAxis": e.Step})
		default:
			y := 0.0
			if first != nil {
				y = first.at(e.Step)
			}
			pins = append(pins, map[string]any{"name": describe(e), "coord": []any{e.Step, y}})
		}
	}
	if downAt >= 0 {
		interval(downAt, last, node+" down", "rgba(207,34,46,0.16)")
	}
	if partAt >= 0 {
		interval(partAt, last, "partition", "rgba(154,103,0,0.14)")
	}
	return map[string]any{
		"type": "line", "name": "marks " + node, "xAxisIndex": i, "yAxisIndex": i, "data": []any{}, "silent": false,
		"markArea": map[string]any{"silent": true, "label": map[string]any{"show": true, "position": "insideTop", "color": "#57606a", "fontSize": 10}, "data": areas},
		"markLine": map[string]any{"symbol": []string{"none", "none"}, "data": lines,
			"label":     map[string]any{"show": false},
			"lineStyle": map[string]any{"color": "#d62728", "type": "dashed", "width": 1.5}},
		"markPoint": map[string]any{"symbol": "pin", "symbolSize": 20, "data": pins, "label": map[string]any{"show": false},
			"itemStyle": map[string]any{"color": "#7f7f7f"}},
	}
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
