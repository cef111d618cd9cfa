package charts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// requireLibrary loads echarts from build/js; without it the test fails under
// CI=true (setup.sh must have installed it) and is skipped otherwise.
func requireLibrary(t *testing.T) *Library {
	t.Helper()
	lib, err := LoadLibrary()
	if err == nil {
		return lib
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v (CI=true)", err)
	}
	t.Skipf("%v; skipping", err)
	return nil
}

// remoteRef matches any markup or CSS that would fetch over the network.
var remoteRef = regexp.MustCompile(`(?i)(<(script|link|img|iframe|source|embed|object)\b[^>]*\b(src|href|data)\s*=\s*["']?\s*(https?:)?//)|@import|url\(\s*["']?\s*(https?:)?//`)

func TestLibraryVersionMatchesPin(t *testing.T) {
	lib := requireLibrary(t)
	if lib.Version != EchartsVersion {
		t.Fatalf("%s holds echarts %q, want %q (scripts/package.json pins it)", lib.Path, lib.Version, EchartsVersion)
	}
	if strings.Contains(lib.src, "</script") {
		t.Fatal("library text still contains </script")
	}
}

func TestFindLibraryEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(JSDirEnv, dir)
	if _, err := FindLibrary(); err == nil || !strings.Contains(err.Error(), "setup.sh") {
		t.Fatalf("empty %s: err = %v, want a hint to run setup.sh", JSDirEnv, err)
	}
	p := filepath.Join(dir, "node_modules", "echarts", "dist", "echarts.min.js")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`var x="</script>";version="9.8.7"`), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := LoadLibrary()
	if err != nil {
		t.Fatal(err)
	}
	if lib.Path != p || lib.Version != "9.8.7" || strings.Contains(lib.Script(), `"</script>"`) {
		t.Fatalf("lib = %+v, script %q", lib, lib.Script())
	}
}

func TestEveryChartRendersOffline(t *testing.T) {
	lib := requireLibrary(t)
	for _, c := range allCharts(t) {
		t.Run(c.Kind(), func(t *testing.T) {
			frag := c.Fragment(lib)
			page := string((&Page{Title: c.Title, Charts: []*Chart{c}}).Render(lib))
			for what, out := range map[string]string{"fragment": frag, "page": page} {
				if m := remoteRef.FindString(out); m != "" {
					t.Errorf("%s references the network: %q", what, m)
				}
				for _, want := range []string{`id="` + c.ID() + `"`, `data-weft-chart="` + c.Kind() + `"`, "setOption", `"series":`} {
					if !strings.Contains(out, want) {
						t.Errorf("%s lacks %q", what, want)
					}
				}
				if strings.Count(out, "</script>") != strings.Count(out, "<script") {
					t.Errorf("%s: unbalanced script tags", what)
				}
			}
			if !strings.Contains(frag, "if (!window.echarts)") || strings.Count(frag, lib.src) != 1 {
				t.Error("fragment must inline the library once behind the window.echarts guard")
			}
			if !strings.Contains(page, CSPMeta) {
				t.Error("page lacks the Content-Security-Policy")
			}
			if strings.Contains(c.OptionJS(), "@@weft-js:") {
				t.Error("a JavaScript function placeholder was left in the option")
			}
		})
	}
}

func TestRenderingIsDeterministic(t *testing.T) {
	lib := requireLibrary(t)
	first, second := allCharts(t), allCharts(t)
	for i := range first {
		a, b := first[i], second[i]
		// Twice from one chart and once from a chart built anew.
		if fa := a.Fragment(lib); fa != b.Fragment(lib) || fa != a.Fragment(lib) {
			t.Errorf("%s: fragment differs between renders", a.Kind())
		}
		if string(a.Page()) != string(b.Page()) {
			t.Errorf("%s: page differs between renders", a.Kind())
		}
	}
	p1 := (&Page{Title: "all", Charts: first}).Render(lib)
	p2 := (&Page{Title: "all", Charts: second}).Render(lib)
	if string(p1) != string(p2) {
		t.Error("multi-chart page differs between renders")
	}
}

func TestIDs(t *testing.T) {
	a, _ := Rates("Violation rates (campaign 1)", sampleRates())
	b, _ := Rates("Violation rates (campaign 1)", sampleRates()[:2])
	c, _ := Rates("", sampleRates())
	tests := []struct {
		chart *Chart
		re    string
	}{
		{a, `^weft-violation-rates-campaign-1-[0-9a-f]{12}$`},
		{c, `^weft-chart-[0-9a-f]{12}$`},
	}
	for _, tt := range tests {
		if !regexp.MustCompile(tt.re).MatchString(tt.chart.ID()) {
			t.Errorf("ID %q does not match %s", tt.chart.ID(), tt.re)
		}
	}
	if a.ID() == b.ID() {
		t.Error("charts with different data share an id")
	}
	before := a.ID()
	a.Title = "Other"
	if a.ID() == before {
		t.Error("changing the title did not change the id")
	}
}

func TestHTMLAndWriteFile(t *testing.T) {
	lib := requireLibrary(t)
	c, err := Throughput("tp", sampleThroughput())
	if err != nil {
		t.Fatal(err)
	}
	if c.HTML() != c.Fragment(lib) {
		t.Error("HTML() differs from Fragment(LoadLibrary())")
	}
	path := filepath.Join(t.TempDir(), "tp.html")
	if err := c.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(c.Page()) {
		t.Fatalf("WriteFile wrote something other than Page(): %v", err)
	}

	t.Setenv(JSDirEnv, t.TempDir())
	if h := c.HTML(); !strings.Contains(h, "weft-chart-error") || !strings.Contains(h, "setup.sh") {
		t.Errorf("HTML() without echarts = %q, want a visible error", h)
	}
	if err := c.WriteFile(filepath.Join(t.TempDir(), "x.html")); err == nil {
		t.Error("WriteFile without echarts succeeded")
	}
}

func TestDataIsEscaped(t *testing.T) {
	c, err := Timeline("t", sampleTrace())
	if err != nil {
		t.Fatal(err)
	}
	el := c.Element()
	if strings.Contains(el, "alert(1)</script>") || strings.Count(el, "<script") != 1 {
		t.Fatalf("trace values broke out of the script element:\n%s", el)
	}
	r, _ := Rates("r", sampleRates())
	if strings.Contains(r.OptionJS(), "<b>") {
		t.Fatal("variant name with markup not escaped")
	}
}

func TestBadInputs(t *testing.T) {
	tests := []struct {
		name  string
		build func() (*Chart, error)
		want  string
	}{
		{"rates empty", func() (*Chart, error) { return Rates("x", nil) }, "at least one"},
		{"rate outside interval", func() (*Chart, error) {
			return Rates("x", []RateBar{{Variant: "a", Rate: 0.5, Lo: 0.6, Hi: 0.7, K: 5, N: 10}})
		}, "not inside"},
		{"k above n", func() (*Chart, error) {
			return Rates("x", []RateBar{{Variant: "a", Rate: 0.5, Lo: 0.4, Hi: 0.7, K: 11, N: 10}})
		}, "impossible"},
		{"duplicate variant", func() (*Chart, error) { return Rates("x", append(sampleRates(), sampleRates()[0])) }, "twice"},
		{"drift duplicate", func() (*Chart, error) { return Drift("x", append(sampleDrift(), sampleDrift()[0])) }, "twice"},
		{"negative count", func() (*Chart, error) {
			return Invariants("x", []InvariantCount{{Variant: "a", Invariant: "i", Count: -1}})
		}, "negative"},
		{"unknown verdict", func() (*Chart, error) {
			return Outcomes("x", []Outcome{{Variant: "a", Seed: 1, Verdict: "maybe"}})
		}, "unknown verdict"},
		{"duplicate seed", func() (*Chart, error) {
			return Outcomes("x", []Outcome{{Variant: "a", Seed: 1, Verdict: "holds"}, {Variant: "a", Seed: 1, Verdict: "holds"}})
		}, "twice"},
		{"duplicate depth", func() (*Chart, error) {
			return SearchGrowth("x", []DepthCount{{Depth: 1, States: 2}, {Depth: 1, States: 3}})
		}, "twice"},
		{"throughput falls", func() (*Chart, error) {
			return Throughput("x", []ThroughputPoint{{Elapsed: 1e9, Done: 5}, {Elapsed: 2e9, Done: 4}})
		}, "falls"},
		{"throughput repeat", func() (*Chart, error) {
			return Throughput("x", []ThroughputPoint{{Elapsed: 1e9, Done: 5}, {Elapsed: 1e9, Done: 6}})
		}, "twice"},
		{"state without var", func() (*Chart, error) {
			return Timeline("x", []TraceEvent{{Step: 1, Node: "n0", Kind: KindState}})
		}, "variable"},
		{"event without kind", func() (*Chart, error) { return Timeline("x", []TraceEvent{{Step: 1}}) }, "no kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.build()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "charts: ") {
				t.Fatalf("got chart %v, err %v; want an error containing %q", c, err, tt.want)
			}
		})
	}
}
