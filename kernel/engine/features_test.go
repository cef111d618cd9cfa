package engine

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/kernel/display"
)

// TestCellFeatures runs cells in one session and checks what each
// publishes: stderr streams, displays, clear_output, redefinitions,
// positions in errors, automatic imports and magics.
func TestCellFeatures(t *testing.T) {
	e := newEngine(t)
	defer e.Close()
	cases := []struct {
		name, code     string
		stdout, stderr string // substrings expected ("" checks nothing)
		plain          string // text/plain result, "" for none
		errName, inErr string // expected error name and a substring of its value
		displays       int
		clears         int
		page           string
	}{
		{name: "stderr from a cell", code: "import (\"fmt\"; \"os\")\nfmt.Fprintln(os.Stderr, \"x\")", stderr: "x\n"},
		{name: "stderr from a goroutine", code: "done := make(chan bool)\ngo func() { fmt.Fprintln(os.Stderr, \"g\"); done <- true }()\n<-done", stderr: "g\n", plain: "true"},
		{name: "automatic import", code: "strings.ToUpper(\"a\")", plain: "A"},
		{name: "gophernotes Display", code: "Display(display.HTML(\"<b>x</b>\"))", displays: 1},
		{name: "gophernotes Javascript", code: "display.Display(display.Javascript(\"1\"))", displays: 1},
		{name: "clear output", code: "display.ClearOutput(true)", clears: 1},
		{name: "type", code: "type P struct{ A int }\nP{1}", plain: "{1}"},
		{name: "redefined type", code: "type P struct{ A, B int }\nP{1, 2}", plain: "{1 2}"},
		{name: "redefined type's method", code: "func (p P) Sum() int { return p.A + p.B }\nP{1, 2}.Sum()", plain: "3"},
		{name: "func", code: "func f() int { return 1 }"},
		{name: "redefined func", code: "func f() int { return 2 }\nf()", plain: "2"},
		{name: "generic with two type parameters", code: "func Keys[K comparable, V any](m map[K]V) int { return len(m) }\nKeys(map[string]float64{\"a\": 1})", plain: "1"},
		{name: "position on line 1", code: "x := 1/0", errName: "CompileError", inErr: "1:6:"},
		{name: "position of the last expression", code: "\n\nqq + 1", errName: "CompileError", inErr: "3:1:"},
		{name: "undefined package", code: "x := foo.Bar()", errName: "CompileError", inErr: "1:6: undefined: foo"},
		{name: "undefined name", code: "\ny := qq + 1", errName: "CompileError", inErr: "2:6: undefined: qq"},
		{name: "generic with three type parameters", code: "func K[A, B, C any](a A, b B, c C) C { return c }\nK(1, \"a\", 2.5)", plain: "2.5"},
		{name: "panic position", code: "func g() { panic(\"deep\") }\ng()", errName: "panic", inErr: "deep"},
		{name: "help", code: "%help", stdout: "%go get"},
		{name: "unknown magic", code: "%nope", errName: "MagicError", inErr: "unknown magic %nope"},
		{name: "env", code: "%env WEFT_TEST_ENV=yes\nos.Getenv(\"WEFT_TEST_ENV\")", plain: "yes"},
		{name: "time", code: "%time n := 1", stdout: "time: "},
		{name: "cell time", code: "%%time\nm := 2\nm", stdout: "time: ", plain: "2"},
		{name: "shell", code: "!echo out; echo err >&2", stdout: "out\n", stderr: "err\n"},
		{name: "shell sees a cell's Setenv", code: "os.Setenv(\"WEFT_CELL_ENV\", \"set in a cell\")"},
		{name: "shell env", code: "!echo \"$WEFT_CELL_ENV\"", stdout: "set in a cell\n"},
		{name: "help page", code: "?strings.ToUpper", page: "func strings.ToUpper"},
		{name: "timeout", code: "%timeout 200ms"},
		{name: "timed out", code: "time.Sleep(5 * time.Second)", errName: "Timeout"},
		{name: "timeout off", code: "%timeout off"},
		{name: "no timeout", code: "time.Sleep(300 * time.Millisecond)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := newRecorder()
			res, err := e.Execute(context.Background(), c.code, rec)
			var ee *Error
			if c.errName != "" {
				if !errors.As(err, &ee) || ee.Name != c.errName || !strings.Contains(ee.Value+strings.Join(ee.Traceback, "\n"), c.inErr) {
					t.Fatalf("error = %#v, want %s containing %q", err, c.errName, c.inErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rec.streams["stdout"], c.stdout) || !strings.Contains(rec.streams["stderr"], c.stderr) {
				t.Errorf("streams = %q, want stdout %q stderr %q", rec.streams, c.stdout, c.stderr)
			}
			if got, _ := res.Data.Data[display.MIMETypeText].(string); got != c.plain {
				t.Errorf("result = %q, want %q", got, c.plain)
			}
			if len(rec.displays) != c.displays || rec.clears != c.clears {
				t.Errorf("displays %d clears %d, want %d %d", len(rec.displays), rec.clears, c.displays, c.clears)
			}
			if !strings.HasPrefix(res.Page, c.page) {
				t.Errorf("page = %q, want prefix %q", res.Page, c.page)
			}
		})
	}
}

// TestGoGet fetches github.com/mattn/go-runewidth@v0.0.20 through the Go
// module proxy (or the module cache), compiles it and uses it in a later
// cell (compiled), with a variable of an earlier cell still in scope in the
// interpreter; github.com/google/uuid, which yaegi computed wrongly, gives
// go run's value; importing a module is enough to fetch and compile it.
func TestGoGet(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("needs the go command")
	}
	gopath := t.TempDir()
	e, err := New(Options{GoPath: gopath})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cells := []struct{ code, plain string }{
		{"before := 41", ""},
		{"%go get github.com/mattn/go-runewidth@v0.0.20", ""},
		{"import \"github.com/mattn/go-runewidth\"\nrunewidth.StringWidth(\"つのだ☆HIRO\")", "11"},
		{"before + 1", "42"},
	}
	for _, c := range cells {
		rec := newRecorder()
		res, err := e.Execute(ctx, c.code, rec)
		if err != nil {
			t.Fatalf("%s: %v\n%q", c.code, err, rec.streams)
		}
		if got, _ := res.Data.Data[display.MIMETypeText].(string); got != c.plain {
			t.Fatalf("%s = %q, want %q", c.code, got, c.plain)
		}
	}
	// uuid's NameSpaceDNS is initialised from a variable declared after
	// it: interpreted, it was all zeros; compiled, it is Go's.
	rec := newRecorder()
	res, err := e.Execute(ctx, "%go get github.com/google/uuid@v1.6.0\nimport \"github.com/google/uuid\"\nuuid.NewSHA1(uuid.NameSpaceDNS, []byte(\"weft\")).String()", rec)
	if err != nil {
		t.Fatalf("uuid: %v\n%q", err, rec.streams)
	}
	if got, _ := res.Data.Data[display.MIMETypeText].(string); got != "f4f3c99a-29be-57d4-8776-c87eed5f81d0" {
		t.Fatalf("uuid.NewSHA1 = %q, want go run's f4f3c99a-29be-57d4-8776-c87eed5f81d0", got)
	}
	// A version of a module the kernel links other than its own is
	// refused, naming both: one process cannot hold two versions of a
	// package.
	rec = newRecorder()
	_, err = e.Execute(ctx, "%go get github.com/cespare/xxhash/v2@v2.2.0", rec)
	if ee, ok := err.(*Error); !ok || ee.Name != "Unsupported" || !strings.Contains(ee.Value, "github.com/cespare/xxhash/v2 v2.2.0, but the kernel links github.com/cespare/xxhash/v2 v2.3.0") {
		t.Fatalf("%%go get of another version of a linked module: %v, want Unsupported naming both versions", err)
	}
	// In a new session with a fresh GoPath, importing the module is enough
	// (the kernel links it: its go.sum entries are weft's, so no go get).
	e2, err := New(Options{GoPath: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	rec = newRecorder()
	res, err = e2.Execute(ctx, "import \"github.com/cespare/xxhash/v2\"\nxxhash.Sum64String(\"\")", rec)
	if err != nil {
		t.Fatalf("import without %%go get: %v\n%q", err, rec.streams)
	}
	if got, _ := res.Data.Data[display.MIMETypeText].(string); got != "17241709254077376921" || !strings.Contains(rec.streams["stderr"], "compiling github.com/cespare/xxhash/v2") {
		t.Fatalf("import without %%go get = %q, streams %q", got, rec.streams)
	}
}

// TestImportNames: an import without a name binds the package's declared
// name (go-runewidth is package runewidth; a /v2 path binds the package's
// name, not "v2"), a module's dependencies are compiled with it (go-runewidth
// needs rivo/uniseg), //go:build lines are honoured (x/net/html/atom has a
// "//go:build ignore" generator of package main) and unsafe is loaded. Each expected value is what
// `go run` of the same expression prints.
func TestImportNames(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("needs the go command")
	}
	e, err := New(Options{GoPath: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cells := []struct{ code, plain string }{
		{"%go get github.com/mattn/go-runewidth@v0.0.20", ""},
		{"import \"github.com/mattn/go-runewidth\"\nrunewidth.StringWidth(\"つのだ☆HIRO\")", "11"},
		{"%go get golang.org/x/net@v0.58.0", ""},
		// atom's gen.go is "//go:build ignore" (package main): the go
		// command leaves it out; atom's String method is compiled.
		{"import \"golang.org/x/net/html/atom\"\natom.Lookup([]byte(\"div\")).String()", "div"},
		{"%go get github.com/cespare/xxhash/v2@v2.3.0", ""},
		{"import \"github.com/cespare/xxhash/v2\"\nxxhash.Sum64String(\"\")", "17241709254077376921"},
		{"import \"unsafe\"\nunsafe.Sizeof(int64(0))", "8"},
	}
	for _, c := range cells {
		rec := newRecorder()
		res, err := e.Execute(ctx, c.code, rec)
		if ee, ok := err.(*Error); ok && ee.Name == c.plain && strings.Contains(ee.Value, "method String") {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v\n%q", c.code, err, rec.streams)
		}
		if got, _ := res.Data.Data[display.MIMETypeText].(string); got != c.plain {
			t.Fatalf("%s = %q, want %q", c.code, got, c.plain)
		}
	}
}

// TestAssumedName: package names guessed from paths when no source is at hand.
func TestAssumedName(t *testing.T) {
	for p, want := range map[string]string{
		"github.com/dustin/go-humanize":          "humanize",
		"github.com/deckarep/golang-set/v2":      "golang",
		"gopkg.in/yaml.v3":                       "yaml",
		"github.com/Masterminds/semver/v3":       "semver",
		"fmt":                                    "fmt",
		"github.com/shopspring/decimal":          "decimal",
		"github.com/mattn/go-runewidth":          "runewidth",
		"github.com/montanaflynn/stats":          "stats",
		"github.com/google/uuid":                 "uuid",
		"github.com/weft-mc/weft/kernel/display": "display",
	} {
		if got := assumedName(p); got != want {
			t.Errorf("assumedName(%q) = %q, want %q", p, got, want)
		}
	}
}
