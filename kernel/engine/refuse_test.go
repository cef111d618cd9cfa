package engine

import (
	"strings"
	"testing"
)

// TestDivergentConstructs: checkCell finds the constructs the differential
// corpus found computed wrongly by the interpreter (such cells run
// compiled, TestCompiledCells), and lets their safe neighbours through.
func TestDivergentConstructs(t *testing.T) {
	e := newEngine(t)
	defer e.Close()
	for _, c := range []struct{ code, inErr string }{
		{"var A = f()\nvar tbl = map[string]int{\"x\": 2}\nfunc f() int { return tbl[\"x\"] }", "package variable A (cell:1:5) is initialised from tbl, declared after it (cell:2:5)"},
		{"var tbl2 = map[string]int{\"x\": 2}\nvar B = g()\nfunc g() int { return tbl2[\"x\"] }", ""},
		{"type myInt int\nfunc kind(v any) string {\n\tswitch v.(type) {\n\tcase int:\n\t\treturn \"int\"\n\t}\n\treturn \"other\"\n}", "line 3: type switch with case int"},
		{"type shape interface{ Area() float64 }\nfunc isShape(v any) bool {\n\tswitch v.(type) {\n\tcase shape, error:\n\t\treturn true\n\t}\n\treturn false\n}", ""},
		{"type E struct{}\nfunc (E) Error() string { return \"e\" }", "method Error"},
		{"for i := 0; i < 3; i++ {\n\tdefer println(i)\n}", "defer in a loop with arguments"},
		{"var fs []func() int\nfor i := 0; i < 3; i++ {\n\tfs = append(fs, func() int { return i })\n}", "loop variable i"},
		{"var fs []func() string\nfor _, r := range []string{\"a\"} {\n\tfs = append(fs, func() string { return r })\n}", "loop variable r"},
		{"var fs []func() string\nfor k := range map[string]int{} {\n\tfs = append(fs, func() string { return k })\n}", "loop variable k"},
		{"var fs []func() string\nfor _, r := range []string{\"a\"} {\n\tv := r\n\tfs = append(fs, func() string { return v })\n}", ""},
		{"func g() int { a := 1; a, b := 2, 3; return a + b }", "cell:1:24: := of a, declared before in the same block"},
		{"func g() int { a := 1; if true { a, b := 2, 3; _ = b }; return a }", ""}, // a new a in the if's block
		{"func g() (int, error) { a := 1; a, err := strconv.Atoi(\"2\"); return a, err }", ""},
		{"func pr(d string) (string, int) { return d, len(d) }", "cell:1:45: len(…) as a later result of a return"},
		{"func pr(d string) (string, int) { return d, (len(d)) }", ""},
		{"func pr(d string) (int, string) { return len(d), d }", ""},
	} {
		err := e.checkCell(splitCell(c.code))
		if c.inErr == "" && err != nil || c.inErr != "" && (err == nil || !strings.Contains(err.Error(), c.inErr)) {
			t.Errorf("%s: checkCell = %v, want %q", c.code, err, c.inErr)
		}
	}
}

// TestInterpreterGaps: what the interpreter cannot run at all is found
// before it tries (generics, min/max/clear unless declared, method values
// of pointer methods); calls of pointer methods and declared min stay
// interpreted.
func TestInterpreterGaps(t *testing.T) {
	declared := func(n string) bool { return n == "mymin" }
	for _, c := range []struct {
		code string
		kind kind
		want string
	}{
		{"func Map[T, U any](xs []T, f func(T) U) []U { return nil }", declItem, "type parameters"},
		{"type Stack[T any] struct{ items []T }", declItem, "type parameters"},
		{"x := min(1, 2)", stmtItem, "the builtin min"},
		{"clear(m)", stmtItem, "the builtin clear"},
		{"f := p.Scale", stmtItem, "pointer method Scale"},
		{"g := (*Point).Scale", stmtItem, "pointer method Scale"},
		{"p.Scale(2)", stmtItem, ""},
		{"mymin(1, 2)", stmtItem, ""},
		{"type P struct{ X int }", declItem, ""},
	} {
		got := interpreterGap(item{kind: c.kind, text: c.code}, []string{"Scale"}, declared)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: interpreterGap = %q, want %q", c.code, got, c.want)
		}
	}
}
