package charts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// color returns the i-th series colour (echarts' default palette, cycled), so
// a line and its error bars can share one colour.
func color(i int) string {
	p := [...]string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}
	return p[i%len(p)]
}

// order collects keys in order of first appearance.
type order struct {
	keys  []string
	index map[string]int
}

func newOrder() *order { return &order{index: map[string]int{}} }

// add returns key's index, adding it if new.
func (o *order) add(key string) int {
	if i, ok := o.index[key]; ok {
		return i
	}
	o.index[key] = len(o.keys)
	o.keys = append(o.keys, key)
	return len(o.keys) - 1
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// checkRate reports a data problem in one rate with its interval.
func checkRate(what string, rate, lo, hi float64, k, n int) error {
	switch {
	case !finite(rate, lo, hi):
		return fmt.Errorf("charts: %s: rate or interval is not finite (%v [%v, %v])", what, rate, lo, hi)
	case lo > hi || rate < lo || rate > hi:
		return fmt.Errorf("charts: %s: rate %v is not inside its interval [%v, %v]", what, rate, lo, hi)
	case k < 0 || n < 0 || k > n:
		return fmt.Errorf("charts: %s: %d of %d runs is impossible", what, k, n)
	}
	return nil
}

// optionOf validates a go-echarts chart and returns its option map, with
// custom series (error bars) raised above the bars they annotate.
func optionOf(c interface {
	Validate()
	JSON() map[string]any
}) map[string]any {
	c.Validate()
	m := c.JSON()
	delete(m, "toolbox")
	series := seriesMaps(m["series"])
	for _, s := range series {
		if s["type"] == "custom" {
			s["z"] = 10
		}
	}
	m["series"] = series
	return m
}

// seriesMaps turns go-echarts' typed series into plain maps, so options it
// does not model can be added. Numbers keep their exact text.
func seriesMaps(series any) []map[string]any {
	b, err := json.Marshal(series)
	if err != nil {
		panic("charts: marshalling series: " + err.Error())
	}
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		panic("charts: decoding series: " + err.Error())
	}
	return out
}

// base returns the global options every chart shares: a legend at the
// bottom, room for axis names, and the given tooltip.
func base(tip opts.Tooltip) []ec.GlobalOpts {
	return []ec.GlobalOpts{
		ec.WithTooltipOpts(tip),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "0", Type: "scroll"}),
		ec.WithGridOpts(opts.Grid{Left: "64", Right: "64", Top: "56", Bottom: "72", ContainLabel: opts.Bool(true)}),
	}
}

// intervalTip shows, for every error-bar series under the pointer, the rate,
// its interval and k of n (data [x, lo, hi, rate, k, n]).
const intervalTipJS = `function (ps) {
  var enc = window.echarts.format.encodeHTML;
  if (!Array.isArray(ps)) { ps = [ps]; }
  var out = ps.length ? enc(String(ps[0].axisValueLabel || ps[0].name || "")) : "";
  for (var i = 0; i < ps.length; i++) {
    var p = ps[i];
    if (p.seriesType !== "custom") { continue; }
    var v = p.value;
    out += "<br/>" + p.marker + enc(p.seriesName) + ": " + v[3].toFixed(4) +
      " [" + v[1].toFixed(4) + ", " + v[2].toFixed(4) + "], " + v[4] + " of " + v[5] + " runs";
  }
  return out;
}`

// errorBarJS draws a vertical whisker from data dimension 1 to 2 at x
// dimension 0, with caps a quarter of the category band wide.
const errorBarJS = `function (params, api) {
  var x = api.value(0);
  var lo = api.coord([x, api.value(1)]);
  var hi = api.coord([x, api.value(2)]);
  var half = api.size([1, 0])[0] * 0.12;
  var style = {stroke: api.visual("color"), lineWidth: 1.5, fill: null};
  return {type: "group", children: [
    {type: "line", shape: {x1: lo[0], y1: lo[1], x2: hi[0], y2: hi[1]}, style: style},
    {type: "line", shape: {x1: lo[0] - half, y1: lo[1], x2: lo[0] + half, y2: lo[1]}, style: style},
    {type: "line", shape: {x1: hi[0] - half, y1: hi[1], x2: hi[0] + half, y2: hi[1]}, style: style}
  ]};
}`

// effectTipJS shows an effect with its interval and the number of paired
// units (data [x, lo, hi, value, units]).
const effectTipJS = `function (ps) {
  var enc = window.echarts.format.encodeHTML;
  if (!Array.isArray(ps)) { ps = [ps]; }
  var out = ps.length ? enc(String(ps[0].axisValueLabel || ps[0].name || "")) : "";
  for (var i = 0; i < ps.length; i++) {
    var v = ps[i].value;
    if (ps[i].seriesType !== "custom") { continue; }
    out += "<br/>" + (v[3] >= 0 ? "+" : "") + v[3].toFixed(4) + " [" + v[1].toFixed(4) + ", " + v[2].toFixed(4) + "] over " + v[4] + " seeds";
  }
  return out;
}`

// nameTipJS shows an item's name (which the charts fill with a description).
const nameTipJS = `function (p) {
  return window.echarts.format.encodeHTML(String(p.name)).replace(/\n/g, "<br/>");
}`

// traceTipJS shows a trace point: node.variable, step, virtual time and
// raw value (data [step, y, value, timeUS, node.variable]); marks show
// their name.
const traceTipJS = `function (p) {
  var enc = window.echarts.format.encodeHTML;
  if (p.componentType !== "series") { return enc(String(p.name)); }
  var v = p.value;
  return p.marker + enc(String(v[4] || p.seriesName)) + " = " + enc(String(v[2])) + "<br/>step " + v[0] + ", t = " + v[3] + " µs";
}`

// jsFunc returns the JavaScript source for a placeholder name (see fn).
func jsFunc(name string) string {
	switch name {
	case "interval-tip":
		return intervalTipJS
	case "errorbar":
		return errorBarJS
	case "effect-tip":
		return effectTipJS
	case "name-tip":
		return nameTipJS
	case "trace-tip":
		return traceTipJS
	}
	panic("charts: unknown JavaScript function " + name)
}
