package charts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
