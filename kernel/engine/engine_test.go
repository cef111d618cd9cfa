package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-mc/weft/kernel/display"
)

// recorder is a Publisher that keeps everything a cell publishes.
type recorder struct {
	mu       sync.Mutex
	streams  map[string]string
	displays []display.Data
	updates  []string // display ids updated
	clears   int      // clear_output calls
	input    []string // answers to Input, in order
}

func newRecorder() *recorder { return &recorder{streams: map[string]string{}} }

func (r *recorder) Stream(name, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.streams[name] += text
}

func (r *recorder) Display(d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.displays = append(r.displays, d)
	return nil
}

func (r *recorder) Update(id string, d display.Data) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, id)
	return nil
}

func (r *recorder) Clear(bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clears++
	return nil
}

func (r *recorder) Input(prompt string, password bool) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.input) == 0 {
		return "", errors.New("no input")
	}
	s := r.input[0]
	r.input = r.input[1:]
	return s, nil
}

func newEngine(t *testing.T) *Engine {
	t.Helper()
	return newEngineWith(t, Options{})
}

// newEngineWith starts an engine with opts.
func newEngineWith(t *testing.T, opts Options) *Engine {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestExecuteSequence(t *testing.T) {
	e := newEngine(t)
	cases := []struct {
		code      string
		stdout    string
		plain     string // expected text/plain result; "" means no result
		errName   string
		extraMIME string
	}{
		{code: `import "fmt"`},
		{code: "x := 40", plain: ""},
		{code: "x + 2", plain: "42"},
		{code: "func f(n int) int { return n * x }\nf(2)", plain: "80"},
		{code: `fmt.Println("hi", x)`, stdout: "hi 40\n"},
		{code: "import \"fmt\"\nimport \"strings\"\nstrings.ToUpper(\"go\")", plain: "GO"},
		{code: "type P struct{ A int }\nfunc (p P) HTML() string { return fmt.Sprintf(\"<b>%d</b>\", p.A) }\nP{7}", plain: "{7}", extraMIME: display.MIMETypeHTML},
		{code: `display.HTML("<i>x</i>")`, plain: "<i>x</i>", extraMIME: display.MIMETypeHTML},
		{code: "func Map[T any](s []T, g func(T) T) []T { r := []T{}; for _, v := range s { r = append(r, g(v)) }; return r }\nMap([]int{1, 2}, func(i int) int { return i * 3 })", plain: "[3 6]"},
		{code: "nil"},
		{code: "sum := 0\nfor i := 0; i < 4; i++ {\n\tsum += i\n}\nsum", plain: "6"},
		{code: `panic("boom")`, errName: "panic"},
		{code: "var z int = \"s\"", errName: "CompileError"},
		{code: "intruder", errName: "CompileError"},
		{code: "undefinedName + 1", errName: "CompileError"},
		{code: "y := ", errName: "SyntaxError"},
		{code: "x", plain: "40"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			rec := newRecorder()
			res, err := e.Execute(context.Background(), c.code, rec)
			var ee *Error
			if c.errName != "" {
				if !errors.As(err, &ee) || ee.Name != c.errName {
					t.Fatalf("error = %v, want %s", err, c.errName)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rec.streams["stdout"]; got != c.stdout {
				t.Errorf("stdout = %q, want %q", got, c.stdout)
			}
			if got, _ := res.Data.Data[display.MIMETypeText].(string); got != c.plain || res.HasValue != (c.plain != "") {
				t.Errorf("result = %v %q, want %q", res.HasValue, got, c.plain)
			}
			if c.extraMIME != "" && res.Data.Data[c.extraMIME] == nil {
				t.Errorf("result lacks %s: %v", c.extraMIME, res.Data.Data)
			}
		})
	}
}

func TestDisplayAndUpdate(t *testing.T) {
	e := newEngine(t)
	rec := newRecorder()
	code := `h := display.Show(display.Markdown("a"))
h.Update(display.Markdown("b"))
display.Display(display.SVG("<svg/>"))
p := display.NewProgress("runs", 4)
for i := 1; i <= 4; i++ { p.Set(i) }`
	if _, err := e.Execute(context.Background(), code, rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.displays) != 3 {
		t.Fatalf("displays = %d, want 3 (show, svg, progress)", len(rec.displays))
	}
	if display.ID(rec.displays[0]) == "" || rec.displays[1].Data[display.MIMETypeSVG] != "<svg/>" {
		t.Errorf("displays = %v", rec.displays)
	}
	if len(rec.updates) != 5 || rec.updates[0] != display.ID(rec.displays[0]) {
		t.Errorf("updates = %v, want 1 handle update + 4 progress updates", rec.updates)
	}
}

func TestInterrupt(t *testing.T) {
	e := newEngine(t)
	cells := []string{
		"n := 0\nfor { n++ }",
		"import \"time\"\ntime.Sleep(time.Hour)",
		"<-make(chan int)",
		"select {}",
	}
	for _, code := range cells {
		t.Run(code, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			go func() { time.Sleep(200 * time.Millisecond); cancel() }()
			_, err := e.Execute(ctx, code, newRecorder())
			var ee *Error
			if !errors.As(err, &ee) || ee.Name != "Interrupted" {
				t.Fatalf("err = %v, want Interrupted", err)
			}
			res, err := e.Execute(context.Background(), "1 + 1", newRecorder())
			if err != nil || res.Data.Data[display.MIMETypeText] != "2" {
				t.Fatalf("after interrupt: %v %v", res.Data.Data, err)
			}
		})
	}
	res, err := e.Execute(context.Background(), "n > 0", newRecorder())
	if err != nil || res.Data.Data[display.MIMETypeText] != "true" {
		t.Fatalf("state after interrupts: %v %v", res.Data.Data, err)
	}
}

func TestStdin(t *testing.T) {
	e := newEngine(t)
	rec := newRecorder()
	rec.input = []string{"weft"}
	res, err := e.Execute(context.Background(), "import \"fmt\"\nvar s string\nfmt.Scanln(&s)\ns", rec)
	if err != nil || res.Data.Data[display.MIMETypeText] != "weft" {
		t.Fatalf("got %v %v", res.Data.Data, err)
	}
	if !strings.Contains("weft", "we") {
		t.Fatal("unreachable")
	}
}

func TestGoroutinePanicIsRecovered(t *testing.T) {
	e := newEngine(t)
	rec := newRecorder()
	// The recover runs after the goroutine's own defers, so the cell cannot
	// wait for it exactly; it gives the goroutines a generous second.
	code := "import \"time\"\nfunc boom(s string, n ...int) { panic(s) }\nfor i := 0; i < 2; i++ {\n\tgo boom(\"bad\", i, i)\n}\ngo func() { panic(\"lit\") }()\ntime.Sleep(time.Second)"
	if _, err := e.Execute(context.Background(), code, rec); err != nil {
		t.Fatal(err)
	}
	got := rec.streams["stderr"]
	if strings.Count(got, "panic in goroutine (recovered by the kernel): bad") != 2 || !strings.Contains(got, "recovered by the kernel): lit") {
		t.Fatalf("stderr = %q", got)
	}
}

func TestGuardGoroutines(t *testing.T) {
	tests := []struct {
		src  string
		decl bool
		want string
	}{
		{"go f(a, b)", false, "{ _weft_f, _weft_a0, _weft_a1 := f, a, b; go func() { defer _weft_recover(); _weft_f(_weft_a0, _weft_a1) }() }"},
		{"go f(xs...)", false, "{ _weft_f, _weft_a0 := f, xs; go func() { defer _weft_recover(); _weft_f(_weft_a0...) }() }"},
		{"go println(1)", false, "go println(1)"},
		{"func g() {\n\tgo h()\n}", true, "func g() {\n\t{ _weft_f := h; go func() { defer _weft_recover(); _weft_f() }() }\n}"},
		{"x := 1", false, "x := 1"},
		{"go f(", false, "go f("},
	}
	for _, tc := range tests {
		if got := guardGoroutines(tc.src, tc.decl); got != tc.want {
			t.Errorf("guardGoroutines(%q) =\n%q\nwant\n%q", tc.src, got, tc.want)
		}
	}
}

// TestCellsSeeTheEnvironment: os.Getenv in a cell reads the kernel's
// environment (notebooks are parameterised through it).
func TestCellsSeeTheEnvironment(t *testing.T) {
	t.Setenv("WEFT_ENGINE_TEST", "42")
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Execute(context.Background(), "import \"os\"\nos.Getenv(\"WEFT_ENGINE_TEST\")", newRecorder())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Data.Data["text/plain"]; got != `"42"` && got != "42" {
		t.Fatalf("os.Getenv in a cell = %v, want 42", got)
	}
}
