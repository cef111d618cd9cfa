package engine

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/weft-mc/weft/kernel/display"
)

// hugeAllocation is a cell that asks for one allocation far larger than
// any machine's memory (1<<40 bytes and more) by one route a cell has to
// it: without the checks of alloc.go each would be a fatal error of the
// Go runtime ("runtime: out of memory") in the kernel's process. It gives
// the error Name with a value containing InValue. The cells,
// kernel/testdata/huge_allocations.json, are shared with
// TestIsolationHugeAllocations (package kernel, through jupyter_client).
type hugeAllocation struct {
	Route, Code, Name string
	InValue           string `json:"in_value"`
}

func hugeAllocations(t *testing.T) []hugeAllocation {
	t.Helper()
	b, err := os.ReadFile("../testdata/huge_allocations.json")
	if err != nil {
		t.Fatal(err)
	}
	var cells []hugeAllocation
	if err := json.Unmarshal(b, &cells); err != nil {
		t.Fatal(err)
	}
	return cells
}

// TestOneHugeAllocation: each of hugeAllocations ends in its error, and
// the next cell still sees the session's variables.
func TestOneHugeAllocation(t *testing.T) {
	e := newEngineWith(t, Options{CellMemory: 2 << 30, CellMemorySetting: "WEFT_CELL_MEMORY"})
	defer e.Close()
	ctx := context.Background()
	run := func(code string) (Result, error) { return e.Execute(ctx, code, newRecorder()) }
	if _, err := run("import \"fmt\"\nkept := 41"); err != nil {
		t.Fatal(err)
	}
	for _, c := range hugeAllocations(t) {
		_, err := run(c.Code)
		ee, ok := err.(*Error)
		if !ok || ee.Name != c.Name || !strings.Contains(ee.Value, c.InValue) {
			t.Errorf("%s: %q: got %v, want %s containing %q", c.Route, c.Code, err, c.Name, c.InValue)
		}
		res, err := run("kept + 1")
		if err != nil {
			t.Fatalf("after %s: %v", c.Route, err)
		}
		if got := res.Data.Data[display.MIMETypeText]; got != "42" {
			t.Fatalf("after %s: kept + 1 = %v", c.Route, got)
		}
	}
}

// TestAllocationsWithinTheLimit: the checks change nothing for sizes
// within the limit, negative sizes still fail as Go's, and append's
// growth is checked on the sum of both lengths.
func TestAllocationsWithinTheLimit(t *testing.T) {
	e := newEngineWith(t, Options{CellMemory: 256 << 20, CellMemorySetting: "WEFT_CELL_MEMORY"})
	defer e.Close()
	ctx := context.Background()
	for _, c := range []struct{ code, plain, errName, inValue string }{
		{"type row []int32\nr := make(row, 3, 10)\nr = append(r, r...)\nfmt.Sprint(len(r), cap(r) >= 6, r)", "6 true [0 0 0 0 0 0]", "", ""},
		{"mm := make(map[string]int, 100)\nmm[\"a\"] = 1\nlen(mm)", "1", "", ""},
		{"var u8 uint8 = 200\nlen(make([]byte, u8))", "200", "", ""},
		{"len(make([]byte, 1e3))", "1000", "", ""},
		{"var sb strings.Builder\nsb.Grow(64)\nsb.WriteString(strings.Repeat(\"ab\", 3))\nsb.String()", "ababab", "", ""},
		{"var arr [1 << 10]int64\nlen(arr)", "1024", "", ""},
		{"neg := -1\nmake([]int, neg)", "", "panic", "negative len"},
		{"half := make([]int64, 20<<20)\nhalf = append(half, half...)", "", "MemoryError", "append to a []int64 of length 20971520 of 20971520 more needs 320 MB"},
		{"len(half)", "20971520", "", ""},
	} {
		res, err := e.Execute(ctx, c.code, newRecorder())
		if c.errName != "" {
			ee, ok := err.(*Error)
			if !ok || ee.Name != c.errName || !strings.Contains(ee.Value, c.inValue) {
				t.Errorf("%q: got %v, want %s containing %q", c.code, err, c.errName, c.inValue)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.code, err)
			continue
		}
		if got := res.Data.Data[display.MIMETypeText]; got != c.plain {
			t.Errorf("%q = %v, want %s", c.code, got, c.plain)
		}
	}
}

// TestGuardAllocs checks the rewrite's text: sizes wrapped, nesting kept
// in order, lines kept, declared names and unparsable sources left alone.
func TestGuardAllocs(t *testing.T) {
	none := func(string) bool { return false }
	for _, c := range []struct {
		src      string
		decl     bool
		declared func(string) bool
		want     string
	}{
		{"b := make([]byte, n)", false, none, "b := make([]byte, _weft_alloc.Make((*[]byte)(nil), (n)<<0))"},
		{"m := make(M, a, len(make([]T, k)))", false, none,
			"m := make(M, _weft_alloc.Make((*M)(nil), (a)<<0), _weft_alloc.Make((*M)(nil), (len(make([]T, _weft_alloc.Make((*[]T)(nil), (k)<<0))))<<0))"},
		{"s = append(s, xs...)", false, none, "s = append(s, xs[:_weft_alloc.Append(s, xs)]...)"},
		{"s = append(s, f()...)", false, none, "s = append(s, f()...)"},
		{"sb.Grow(n)", false, none, "sb.Grow(_weft_alloc.Grow((n)<<0))"},
		{"func f(n int) []int {\n\treturn make([]int, n)\n}", true, none, "func f(n int) []int {\n\treturn make([]int, _weft_alloc.Make((*[]int)(nil), (n)<<0))\n}"},
		{"x := make([]int, n)", false, func(n string) bool { return n == "make" }, "x := make([]int, n)"},
		{"x := make([]int, ", false, none, "x := make([]int, "},
		{"x := []int{1}", false, none, "x := []int{1}"},
		{"ps := make([]struct {\n\tx int // a comment\n\ty float64\n}, n)\nlen(ps)", false, none,
			"ps := make([]struct {\n\tx int // a comment\n\ty float64\n}, _weft_alloc.Make((*[]struct{x int; y float64})(nil), (n)<<0))\nlen(ps)"},
	} {
		if got := guardAllocs(c.src, c.decl, c.declared); got != c.want {
			t.Errorf("guardAllocs(%q) =\n%s\nwant\n%s", c.src, got, c.want)
		}
	}
}
