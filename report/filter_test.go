package report

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// TestRunPageFilter: a served run page (and its diagram alone) covers the
// whole run, and its query narrows the diagram and the events as weft
// trace's flags do, by node, kind and virtual time, and zooms the
// diagram; a bad query is a 400 that says what is wrong. The run is
// recording's: n0 → n1 at 1 ms (step 1), n1 → n0 at 3 ms (step 3), and
// state changes of both nodes.
func TestRunPageFilter(t *testing.T) {
	dir := writeDataset(t, filepath.Join(t.TempDir(), "DIR"), []string{"orig"},
		[]dataset.Row{row("orig", 3, dataset.Violated, "recordings/orig-3.weftlog")},
		map[string]*weftlog.Recording{"recordings/orig-3.weftlog": recording("orig", 3)})
	stub := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(stub, []byte("window.echarts = {};"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := charts.ReadLibrary(stub)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Handler([]string{dir}, Options{}, lib)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	const (
		first  = "(step 1)</title>" // the message n0 → n1
		second = "(step 3)</title>" // the message n1 → n0
		n0x7   = "<title>n0 x = 7</title>"
		n1x1   = "<title>n1 x = 1</title>"
		crash  = "<code>CRASH n0</code>"
	)
	tests := []struct {
		query      string
		code       int
		want, lack []string
	}{
		{"", 200, []string{first, second, n0x7, n1x1, crash, `name="zoom" value="100"`}, []string{`style="width:`}},
		{"?kinds=deliver", 200, []string{first, second}, []string{n0x7, n1x1, crash}},
		{"?nodes=1&kinds=state", 200, []string{n1x1, `name="nodes" value="1"`}, []string{n0x7, first, second}},
		{"?nodes=n0&kinds=crash,state", 200, []string{n0x7, crash}, []string{n1x1, first}},
		{"?from=2.5", 200, []string{second, n0x7}, []string{first, n1x1}},
		{"?to=2", 200, []string{first, n1x1}, []string{second, n0x7}},
		{"?zoom=250", 200, []string{`<div class="zoom" style="width:250%">`, first, second}, nil},
		{"?nodes=x", 400, []string{`nodes: "x" is not a node`}, nil},
		{"?from=-1", 400, []string{`from: "-1" is not a time in ms`}, nil},
		{"?zoom=5", 400, []string{`zoom: "5" is not a percentage from 25 to 1000`}, nil},
	}
	for _, tc := range tests {
		for _, path := range []string{"/run/" + runID(t, srv.URL), "/run/" + runID(t, srv.URL) + ".svg"} {
			t.Run(path+tc.query, func(t *testing.T) {
				res, err := http.Get(srv.URL + path + tc.query)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				body := string(b)
				if res.StatusCode != tc.code {
					t.Fatalf("status %d, want %d\n%s", res.StatusCode, tc.code, body)
				}
				svg := strings.HasSuffix(path, ".svg")
				for _, w := range tc.want {
					if svg && !strings.Contains(w, "</title>") && tc.code == 200 {
						continue // the diagram alone has no form and no event table
					}
					if !strings.Contains(body, w) {
						t.Errorf("lacks %q", w)
					}
				}
				for _, l := range tc.lack {
					if strings.Contains(body, l) {
						t.Errorf("has %q", l)
					}
				}
			})
		}
	}
}

// runID is the id of the one run the index at base links to.
func runID(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	_, rest, ok := strings.Cut(string(b), `href="/run/`)
	id, _, ok2 := strings.Cut(rest, `"`)
	if !ok || !ok2 || id == "" {
		t.Fatalf("the index links to no run:\n%s", b)
	}
	return id
}
