package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// paint draws a filled rectangle into a canvas inside #id, as a chart would.
const paint = `<div data-weft-chart="box" id="%s" style="width:200px;height:100px"></div>
<script>(function () {
  var c = document.createElement("canvas"); c.width = 200; c.height = 100;
  document.getElementById("%s").appendChild(c);
  c.getContext("2d").fillRect(10, 10, 50, 50);
})();</script>`

const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">`

func box(id string) string { return strings.ReplaceAll(paint, "%s", id) }

// TestOpenReportsWhatThePageDid checks each kind of problem is caught (and a
// clean page has none), with one browser opening every page in a new tab so
// that problems must not leak from one page to the next. Requests go only to
// 127.0.0.1:9, where nothing listens.
func TestOpenReportsWhatThePageDid(t *testing.T) {
	b, err := Launch(context.Background(), Options{Chromium: Require(t), PaintWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tests := []struct {
		name string
		head string
		body string
		want []string // substrings of Problems(), in any order; nil = clean
	}{
		{"clean", csp, box("a") + box("b"), nil},
		{"unpainted container", csp, box("a") + `<div data-weft-chart="empty" id="e"></div>`,
			[]string{"chart e (empty) did not paint"}},
		{"no containers", csp, "<p>nothing</p>", []string{"no chart containers"}},
		{"console error", csp, box("a") + `<script>console.error("boom", 42)</script>`,
			[]string{"console.error: boom 42"}},
		{"uncaught exception", csp, box("a") + `<script>throw new Error("kaput")</script>`,
			[]string{"uncaught", "kaput"}},
		{"network request", "", box("a") + `<img src="http://127.0.0.1:9/x.png">`,
			[]string{"network request: http://127.0.0.1:9/x.png"}},
		{"request blocked by CSP", csp, box("a") + `<img src="http://127.0.0.1:9/y.png">`,
			[]string{"CSP violation", "127.0.0.1:9/y.png"}},
		{"clean after problems", csp, box("c"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.html")
			page := "<!DOCTYPE html><html><head><meta charset=\"utf-8\">" + tt.head + "</head><body>" + tt.body + "</body></html>"
			if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := b.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(res.Problems(), "\n")
			if tt.want == nil && got != "" {
				t.Fatalf("clean page reported problems:\n%s", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems do not mention %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestRequireFailsUnderCI(t *testing.T) {
	t.Setenv(ChromiumEnv, filepath.Join(t.TempDir(), "no-such-browser"))
	t.Setenv("CI", "true")
	ft := &fakeTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		Require(ft)
	}()
	if !ft.failed || ft.skipped {
		t.Fatalf("Require with no browser and CI=true: failed=%v skipped=%v", ft.failed, ft.skipped)
	}
}

// fakeTB records Fatalf/Skipf instead of ending the test.
type fakeTB struct {
	testing.TB
	failed, skipped bool
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(string, ...any) {
	f.failed = true
	panic("fatal")
}
func (f *fakeTB) Skipf(string, ...any) {
	f.skipped = true
	panic("skip")
}
