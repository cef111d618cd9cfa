package charts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/analysis/charts/browsertest"
)

// openInChromium loads page in headless Chromium and fails the test on any
// problem; WEFT_SCREENSHOT_DIR, if set, keeps a PNG of it there.
func openInChromium(t *testing.T, name string, page []byte, wantCharts int, ready string) *browsertest.Result {
	t.Helper()
	chromium := browsertest.Require(t)
	path := filepath.Join(t.TempDir(), name+".html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("WEFT_SCREENSHOT_DIR")
	res, err := browsertest.Open(context.Background(), path, browsertest.Options{Chromium: chromium, Screenshot: dir != "", ReadyExpr: ready})
	if err != nil {
		t.Fatal(err)
	}
	if dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), res.Screenshot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if ps := res.Problems(); len(ps) > 0 {
		t.Errorf("%s rendered with problems:\n  %s", name, strings.Join(ps, "\n  "))
	}
	if len(res.Containers) != wantCharts {
		t.Errorf("%s: %d chart containers, want %d", name, len(res.Containers), wantCharts)
	}
	return res
}

func TestStandalonePageDrawsEveryChartOffline(t *testing.T) {
	lib := requireLibrary(t)
	all := allCharts(t)
	res := openInChromium(t, "all-charts", (&Page{Title: "weft charts", Charts: all}).Render(lib), len(all), "")
	kinds := map[string]bool{}
	for _, c := range res.Containers {
		kinds[c.Kind] = c.Painted && c.Canvases > 0
	}
	for _, c := range all {
		if !kinds[c.Kind()] {
			t.Errorf("chart %s did not draw on a canvas", c.Kind())
		}
	}
}

// TestNotebookFragmentsDrawOffline puts every chart's HTML() fragment, and
// one of them twice, into a page the way a notebook stacks outputs: each
// carries its own guarded copy of echarts.
func TestNotebookFragmentsDrawOffline(t *testing.T) {
	requireLibrary(t)
	all := allCharts(t)
	var body strings.Builder
	for _, c := range all {
		body.WriteString("<div class=\"output\">" + c.HTML() + "</div>\n")
	}
	body.WriteString("<div class=\"output\">" + all[0].HTML() + "</div>\n")
	page := pageHTML("notebook outputs", "", body.String())
	openInChromium(t, "fragments", []byte(page), len(all)+1, "")
}

// insertLikeJupyterLab is how JupyterLab shows a text/html output: the HTML
// goes in through innerHTML (whose scripts do not run), then each script is
// replaced by a fresh copy, which runs. Outputs arrive after the page loaded.
const insertLikeJupyterLab = `<div id="notebook"></div>
<script>
window.addEventListener("load", function () {
  var outputs = %s;
  outputs.forEach(function (html, i) {
    setTimeout(function () {
      var area = document.createElement("div");
      area.className = "jp-OutputArea-output";
      document.getElementById("notebook").appendChild(area);
      area.innerHTML = html;
      area.querySelectorAll("script").forEach(function (old) {
        var s = document.createElement("script");
        s.type = old.type;
        s.text = old.text;
        old.parentNode.replaceChild(s, old);
      });
      window.outputsShown = i + 1;
    }, 50 * i);
  });
});
</script>
`

func TestFragmentsInsertedLikeJupyterLab(t *testing.T) {
	requireLibrary(t)
	all := allCharts(t)
	var outputs []string
	for _, c := range all {
		outputs = append(outputs, c.HTML())
	}
	outputs = append(outputs, all[len(all)-1].HTML())
	js, err := json.Marshal(outputs)
	if err != nil {
		t.Fatal(err)
	}
	page := pageHTML("JupyterLab-style outputs", "", fmt.Sprintf(insertLikeJupyterLab, js))
	openInChromium(t, "jupyterlab", []byte(page), len(all)+1, "window.outputsShown === "+fmt.Sprint(len(outputs)))
}

// checkTipsJS shows one tooltip per chart through echarts' own showTip action
// and logs a console error (which fails the test) when its text lacks what
// the test expects; a formatter that throws fails the test the same way.
const checkTipsJS = `<script>
window.addEventListener("load", function () {
  var checks = %s, i = 0;
  function next() {
    if (i === checks.length) { window.tipsChecked = true; return; }
    var c = checks[i++];
    var el = document.getElementById(c.id);
    window.echarts.getInstanceByDom(el).dispatchAction({type: "showTip", seriesIndex: c.series, dataIndex: c.data});
    setTimeout(function () {
      var text = el.innerText;
      c.want.forEach(function (w) {
        if (text.indexOf(w) < 0) { console.error("tooltip of " + c.id + " lacks " + JSON.stringify(w) + ": " + JSON.stringify(text)); }
      });
      next();
    }, 200);
  }
  next();
});
</script>
`

func TestTooltipsShowTheData(t *testing.T) {
	lib := requireLibrary(t)
	all := allCharts(t)
	type check struct {
		ID     string   `json:"id"`
		Series int      `json:"series"`
		Data   int      `json:"data"`
		Want   []string `json:"want"`
	}
	wants := map[string]check{
		"rates":      {Series: 1, Data: 2, Want: []string{"bug-<b>&co", "0.0700 [0.0343, 0.1375], 7 of 100 runs"}},
		"invariants": {Series: 0, Data: 0, Want: []string{"agree_on_ack", "25"}},
		"drift":      {Series: 0, Data: 1, Want: []string{"campaign-2", "bug: 0.3100 [0.2300, 0.4000], 31 of 100 runs"}},
		"outcomes":   {Series: 0, Data: 0, Want: []string{"bug, seed 40: holds"}},
		"search":     {Series: 0, Data: 3, Want: []string{"27"}},
		"throughput": {Series: 0, Data: 1, Want: []string{"runs/s"}},
		"timeline":   {Series: 0, Data: 1, Want: []string{"n0.stored = 5", "step 2, t = 3400 µs"}},
	}
	var checks []check
	for _, c := range all {
		w, ok := wants[c.Kind()]
		if !ok {
			t.Fatalf("no tooltip check for %s", c.Kind())
		}
		w.ID = c.ID()
		checks = append(checks, w)
	}
	js, err := json.Marshal(checks)
	if err != nil {
		t.Fatal(err)
	}
	page := (&Page{Title: "tooltips", Charts: all}).Render(lib)
	end := bytes.LastIndex(page, []byte("</body>")) // (echarts itself contains "</body>")
	page = slices.Concat(page[:end], []byte(fmt.Sprintf(checkTipsJS, js)), page[end:])
	openInChromium(t, "tooltips", page, len(all), "window.tipsChecked === true")
}

// TestSmallAndDegenerateInputsDraw covers the smallest tables each chart
// accepts: one row, all-zero rates, a trace with events but no state.
func TestSmallAndDegenerateInputsDraw(t *testing.T) {
	lib := requireLibrary(t)
	builders := []func() (*Chart, error){
		func() (*Chart, error) { return Rates("zero", []RateBar{{Variant: "correct", N: 50}}) },
		func() (*Chart, error) {
			return Drift("one", []RunRate{{Run: "r1", Variant: "bug", Rate: 0.5, Lo: 0.2, Hi: 0.8, K: 5, N: 10}})
		},
		func() (*Chart, error) {
			return Invariants("one", []InvariantCount{{Variant: "bug", Invariant: "inv", Count: 1}})
		},
		func() (*Chart, error) {
			return Outcomes("one", []Outcome{{Variant: "bug", Seed: -3, Verdict: VerdictError}})
		},
		func() (*Chart, error) { return SearchGrowth("one", []DepthCount{{Depth: 0, States: 1}}) },
		func() (*Chart, error) {
			return Throughput("one", []ThroughputPoint{{Elapsed: 1500 * time.Millisecond, Done: 3}})
		},
		func() (*Chart, error) {
			return Timeline("events-only", []TraceEvent{
				{Step: 1, Node: "n0", Kind: KindCrash}, {Step: 3, Node: "n1", Kind: KindDeliver, Value: "m"}})
		},
	}
	var all []*Chart
	for _, b := range builders {
		c, err := b()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, c)
	}
	openInChromium(t, "small", (&Page{Title: "small inputs", Charts: all}).Render(lib), len(all), "")
}
