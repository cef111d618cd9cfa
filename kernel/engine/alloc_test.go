package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/weft-mc/weft/kernel/display"
)

// hugeAllocations are cells that each ask for one allocation far larger
// than any machine's memory (1<<40 bytes and more), by every route a cell
// has to one: without the checks of alloc.go each would be a fatal error
// of the Go runtime ("runtime: out of memory") in the kernel's process.
// Each gives name and a value containing inValue; they are shared with
// TestIsolationHugeAllocations (package kernel, through jupyter_client).
var hugeAllocations = []struct{ route, code, name, inValue string }{
	{"make byte slice", "b := make([]byte, 1<<40)\nlen(b)", "MemoryError", "make([]uint8, 1099511627776)"},
	{"make capacity", "w := make([]int64, 0, 1<<38)\ncap(w)", "MemoryError", "make([]int64, 274877906944)"},
	{"make non-constant", "n := 1 << 40\nb := make([]byte, n)\nlen(b)", "MemoryError", "needs 1048576 MB"},
	{"make named slice", "type floats []float64\nfs := make(floats, 1<<37)\nlen(fs)", "MemoryError", "needs 1048576 MB"},
	{"make struct slice", "type pt struct{ x, y float64 }\nps := make([]pt, uint64(1)<<36)\nlen(ps)", "MemoryError", "needs 1048576 MB"},
	{"make map", "m := make(map[int]int, 1<<40)\nlen(m)", "MemoryError", "make(map[int]int, 1099511627776)"},
	{"make chan", "c := make(chan [64]byte, 1<<34)\ncap(c)", "MemoryError", "make(chan [64]uint8, 17179869184)"},
	{"var huge array", "var arr [1 << 40]byte\narr[1] = 2\nfmt.Println(arr[1])", "Unsupported", "its array type [1 << 40]byte needs 1048576 MB"},
	{"new huge array", "const many = 1 << 37\np := new([many]int64)\nfmt.Println(len(p))", "MemoryError", "compiled cell ran out of memory"},
	{"append growth", "s := []int{1}\ns = append(s, make([]int, 1<<37)...)\nlen(s)", "MemoryError", "make([]int, 137438953472)"},
	{"strings.Repeat", "import \"strings\"\nr := strings.Repeat(\"x\", 1<<40)\nlen(r)", "MemoryError", "strings.Repeat(1 bytes, 1099511627776)"},
	{"bytes.Repeat", "import \"bytes\"\nbr := bytes.Repeat([]byte(\"ab\"), 1<<39)\nlen(br)", "MemoryError", "bytes.Repeat(2 bytes, 549755813888)"},
	{"Builder.Grow", "import \"strings\"\nvar sb strings.Builder\nsb.Grow(1 << 40)\nsb.Len()", "MemoryError", "Grow(1099511627776)"},
	{"in a function", "func mk(n int) []byte { return make([]byte, n) }\nmk(1 << 40)", "MemoryError", "needs 1048576 MB"},
	{"in a closure", "mkc := func(n int) []int64 { return make([]int64, n) }\nlen(mkc(1 << 37))", "MemoryError", "needs 1048576 MB"},
	{"in a method", "type store struct{ n int }\nfunc (s store) alloc() map[string]int { return make(map[string]int, s.n) }\nlen(store{1 << 40}.alloc())", "MemoryError", "make(map[string]int"},
	{"in a goroutine", "done := make(chan int)\ngo func() { b := make([]byte, 1<<40); done <- len(b) }()\n<-done", "MemoryError", "needs 1048576 MB"},
}

// TestOneHugeAllocation: each of hugeAllocations ends in its error, and
// the next cell still sees the session's variables.
func TestOneHugeAllocation(t *testing.T) {
	t.Setenv("WEFT_CELL_MEMORY", "2G")
	e := newEngine(t)
	defer e.Close()
	ctx := context.Background()
	run := func(code string) (Result, error) { return e.Execute(ctx, code, newRecorder()) }
	if _, err := run("import \"fmt\"\nkept := 41"); err != nil {
		t.Fatal(err)
	}
	for _, c := range hugeAllocations {
		_, err := run(c.code)
		ee, ok := err.(*Error)
		if !ok || ee.Name != c.name || !strings.Contains(ee.Value, c.inValue) {
			t.Errorf("%s: %q: got %v, want %s containing %q", c.route, c.code, err, c.name, c.inValue)
		}
		res, err := run("kept + 1")
		if err != nil {
			t.Fatalf("after %s: %v", c.route, err)
		}
		if got := res.Data.Data[display.MIMETypeText]; got != "42" {
			t.Fatalf("after %s: kept + 1 = %v", c.route, got)
		}
	}
}

// TestAllocationsWithinTheLimit: the checks change nothing for sizes
// within the limit, negative sizes still fail as Go's, and append's
// growth is checked on the sum of both lengths.
func TestAllocationsWithinTheLimit(t *testing.T) {
	t.Setenv("WEFT_CELL_MEMORY", "256M")
	e := newEngine(t)
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
	} {
		if got := guardAllocs(c.src, c.decl, c.declared); got != c.want {
			t.Errorf("guardAllocs(%q) =\n%s\nwant\n%s", c.src, got, c.want)
		}
	}
}
