package charts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/analysis/charts/browsertest"
)

// openInChromium loads page in headless Chromium and fails the test on any
// problem; WEFT_SCREENSHOT_DIR, if set, keeps a PNG of it there.
func openInChromium(t *testing.T, name string, page []byte, wantCharts int) *browsertest.Result {
	t.Helper()
	chromium := browsertest.Require(t)
	path := filepath.Join(t.TempDir(), name+".html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("WEFT_SCREENSHOT_DIR")
	res, err := browsertest.Open(context.Background(), path, browsertest.Options{Chromium: chromium, Screenshot: dir != ""})
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
	res := openInChromium(t, "all-charts", (&Page{Title: "weft charts", Charts: all}).Render(lib), len(all))
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
	openInChromium(t, "fragments", []byte(page), len(all)+1)
}
