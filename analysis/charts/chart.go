package charts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Default chart size in CSS pixels. Fixed sizes let echarts lay out a chart
// even when a notebook inserts it before its container is styled.
const (
	DefaultWidth  = 900
	DefaultHeight = 420
)

// Chart is one rendered-on-demand echarts chart. Name, Title and size may be
// changed before rendering; the data are fixed when the chart is built.
type Chart struct {
	Name   string // caller-given; seeds the element id
	Title  string // shown above the chart
	Width  int    // CSS pixels; DefaultWidth when 0
	Height int    // CSS pixels; DefaultHeight when 0
	kind   string
	build  func() map[string]any
}

func newChart(kind, name, title string, build func() map[string]any) *Chart {
	return &Chart{Name: name, Title: title, kind: kind, build: build}
}

// Kind names the chart type ("rates", "invariants", "drift", "outcomes",
// "search", "throughput", "timeline"); Element writes it as data-weft-chart.
func (c *Chart) Kind() string { return c.kind }

func (c *Chart) size() (int, int) {
	w, h := c.Width, c.Height
	if w <= 0 {
		w = DefaultWidth
	}
	if h <= 0 {
		h = DefaultHeight
	}
	return w, h
}

// OptionJS returns the echarts option as a JavaScript object literal: JSON
// plus the few functions (custom series renderers, tooltip formatters) that
// some charts need. "<", ">" and "&" in data are escaped, so the text is
// safe inside a <script> element.
func (c *Chart) OptionJS() string {
	if c.build == nil {
		panic("charts: Chart not made by a constructor of this package")
	}
	opt := c.build()
	opt["title"] = map[string]any{"text": c.Title, "left": "left", "textStyle": map[string]any{"fontSize": 14}}
	opt["animation"] = false
	b, err := json.Marshal(opt)
	if err != nil {
		panic("charts: marshalling option: " + err.Error())
	}
	return jsPlaceholder.ReplaceAllStringFunc(string(b), func(m string) string {
		return jsFunc(m[len(`"@@weft-js:`) : len(m)-len(`@@"`)])
	})
}

// ID returns the chart's element id: "weft-", the slug of Name, and a hash of
// everything rendered, so equal charts get equal ids and different ones
// different ids, with no random source.
func (c *Chart) ID() string {
	w, h := c.size()
	sum := sha256.Sum256([]byte(strings.Join([]string{
		c.kind, c.Name, c.Title, strconv.Itoa(w), strconv.Itoa(h), c.OptionJS(),
	}, "\x00")))
	return "weft-" + slug(c.Name) + "-" + hex.EncodeToString(sum[:6])
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	out := strings.TrimSuffix(b.String(), "-")
	if out == "" {
		return "chart"
	}
	return out
}

// Element returns the chart's <div> and the <script> that draws into it. The
// script needs window.echarts (see Library.Script); it runs at once, waits
// briefly if the element or library is not there yet, and never waits for
// document load events, so it works inside notebook outputs.
func (c *Chart) Element() string {
	w, h := c.size()
	id := c.ID()
	var b strings.Builder
	fmt.Fprintf(&b, "<div class=\"weft-chart\" id=\"%s\" data-weft-chart=\"%s\" style=\"width:%dpx;height:%dpx;\"></div>\n",
		id, c.kind, w, h)
	b.WriteString("<script type=\"text/javascript\">\n")
	fmt.Fprintf(&b, drawJS, strconv.Quote(id), c.OptionJS())
	b.WriteString("</script>\n")
	return b.String()
}

// drawJS draws option %[2]s into element %[1]s. It prefers the element just
// before its own <script> (so a chart shown twice in one notebook draws
// twice) and retries for up to 5 s if the element or echarts is missing.
const drawJS = `(function () {
  var id = %s;
  var option = %s;
  var self = document.currentScript;
  function find() {
    var prev = self && self.previousElementSibling;
    if (prev && prev.id === id) { return prev; }
    return document.getElementById(id);
  }
  function draw(tries) {
    var el = find();
    if (!el || !window.echarts) {
      if (tries < 100) { setTimeout(function () { draw(tries + 1); }, 50); return; }
      console.error("weft chart " + id + ": " + (el ? "echarts is not loaded" : "element not found"));
      return;
    }
    var chart = window.echarts.getInstanceByDom(el) || window.echarts.init(el, null, {renderer: "canvas"});
    chart.setOption(option, true);
  }
  draw(0);
})();
`

// Fragment returns the notebook form with lib inlined: the library behind an
// `if (!window.echarts)` guard, then Element.
func (c *Chart) Fragment(lib *Library) string {
	return "<div class=\"weft-chart-fragment\">\n" + lib.GuardedScript() + c.Element() + "</div>\n"
}

// RenderHTML is Fragment with the library found by LoadLibrary.
func (c *Chart) RenderHTML() (string, error) {
	lib, err := LoadLibrary()
	if err != nil {
		return "", err
	}
	return c.Fragment(lib), nil
}

// HTML returns the notebook fragment (see Fragment), so a notebook cell whose
// value is a *Chart shows the chart. If echarts cannot be found it returns a
// visible error message instead.
func (c *Chart) HTML() string {
	s, err := c.RenderHTML()
	if err != nil {
		return errorHTML(err)
	}
	return s
}

func errorHTML(err error) string {
	return "<div class=\"weft-chart-error\" style=\"color:#b00020;font-family:monospace;\">" +
		html.EscapeString(err.Error()) + "</div>\n"
}

// RenderPage returns a standalone HTML page showing only this chart.
func (c *Chart) RenderPage() ([]byte, error) {
	return (&Page{Title: c.Title, Charts: []*Chart{c}}).Bytes()
}

// Page returns the standalone page (see RenderPage); if echarts cannot be
// found the page shows the error instead of the chart.
func (c *Chart) Page() []byte {
	b, err := c.RenderPage()
	if err != nil {
		return []byte(pageHTML(c.Title, "", errorHTML(err)))
	}
	return b
}

// WriteFile writes the standalone page to path.
func (c *Chart) WriteFile(path string) error {
	b, err := c.RenderPage()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

var jsPlaceholder = regexp.MustCompile(`"@@weft-js:[a-z-]+@@"`)

// fn returns the placeholder that OptionJS replaces by function name.
func fn(name string) string {
	jsFunc(name) // panics early on an unknown name
	return "@@weft-js:" + name + "@@"
}
