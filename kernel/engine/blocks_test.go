package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/weft-mc/weft/kernel/display"
)

// cellRun is one cell of a session and what it must give: its stdout, its
// text/plain value, or an error whose value holds inErr.
type cellRun struct {
	code, stdout, plain, inErr string
	compiled                   bool // it must run compiled
}

// runSessions runs each session in a fresh engine and checks every cell.
// A cell expecting no error must run interpreted (its stderr does not
// say "(compiled: …)"), unless it is marked compiled.
func runSessions(t *testing.T, sessions map[string][]cellRun) {
	t.Helper()
	for name, cells := range sessions {
		t.Run(name, func(t *testing.T) {
			e := newEngine(t)
			defer e.Close()
			for i, c := range cells {
				rec := newRecorder()
				res, err := e.Execute(context.Background(), c.code, rec)
				switch {
				case c.inErr != "" && (err == nil || !strings.Contains(err.Error(), c.inErr)):
					t.Fatalf("cell %d %q: error %v, want one containing %q", i+1, c.code, err, c.inErr)
				case c.inErr == "" && err != nil:
					t.Fatalf("cell %d %q: %v", i+1, c.code, err)
				case c.inErr == "" && strings.Contains(rec.streams["stderr"], "(compiled:") != c.compiled:
					t.Errorf("cell %d %q: ran compiled %v, want %v: %s", i+1, c.code, !c.compiled, c.compiled, rec.streams["stderr"])
				}
				if got := rec.streams["stdout"]; got != c.stdout {
					t.Errorf("cell %d %q printed %q, want %q", i+1, c.code, got, c.stdout)
				}
				if got, _ := res.Data.Data[display.MIMETypeText].(string); got != c.plain {
					t.Errorf("cell %d %q: value %q, want %q", i+1, c.code, got, c.plain)
				}
			}
		})
	}
}

// TestNestedScopes runs top-level statements whose blocks declare names:
// in yaegi's global scope `a, b := f()` inside a block was undefined
// (valid Go refused, or run compiled) and `x := …` inside a block
// assigned the session's x. Each gives what Go gives, interpreted, and
// errors keep the cell's positions.
func TestNestedScopes(t *testing.T) {
	imp := cellRun{code: "import (\"fmt\"; \"strconv\")\nfunc pr(d string) (string, int) { n, _ := strconv.Atoi(d); return d, n }"}
	runSessions(t, map[string][]cellRun{
		"two-value define in a loop": {imp,
			{code: "ops, m := 0, map[string]int{}\nfor _, r := range []string{\"1\", \"23\"} { res, n := pr(r); m[res]++; ops += n }\nfmt.Println(ops, m)", stdout: "24 map[1:1 23:1]\n"}},
		"comma-ok in an if's init, at top level and in a loop": {imp,
			{code: "m := map[string]int{\"a\": 1}\nif v, ok := m[\"a\"]; ok { fmt.Println(v) }\nfor k := range m { if v, ok := m[k]; ok { fmt.Println(k, v) } }", stdout: "1\na 1\n"}},
		"a define in a block shadows the session's variable": {imp,
			{code: "x := 1"},
			{code: "for i := 0; i < 2; i++ { x := i + 5; _ = x }\nif true { x := 9; _ = x }\n{ var x = 3; _ = x }\nswitch x := 4; x { case 4: x := 8; _ = x }\nfmt.Println(x)", stdout: "1\n"},
			{code: "x", plain: "1"}},
		"a range variable shadows the session's variable": {imp,
			{code: "r := \"session\""},
			{code: "for _, r := range []string{\"a\", \"b\"} { _ = r }\nfmt.Println(r)", stdout: "session\n"}},
		"closures made in a loop": {imp,
			{code: "var fs []func() string\nfor _, r := range []string{\"1\", \"2\"} { d, n := pr(r); fs = append(fs, func() string { return fmt.Sprintf(\"%s %d\", d, n) }) }\nfor _, f := range fs { fmt.Println(f()) }", stdout: "1 1\n2 2\n"}},
		"closures of a range loop's variable run compiled, as Go computes them": {imp,
			{code: "var gs []func() string\nfor _, r := range []string{\"1\", \"2\"} { gs = append(gs, func() string { return r }) }\nfor _, g := range gs { fmt.Println(g()) }", stdout: "1\n2\n", compiled: true}},
		"positions of errors in a rewritten statement": {imp,
			{code: "for i := 0; i < 3; i++ { a, b := i, undefinedY; _ = a + b }", inErr: "1:37: undefined: undefinedY"},
			{code: "n := 0\nfor i := 0; i < 3; i++ { a, b := i, undefinedY; n += a + b }", inErr: "2:37: undefined: undefinedY"},
			{code: "n := 0\nfor i := 0; i < 3; i++ {\n\ta, b := pr(undefinedZ)\n\tn += b\n\t_ = a\n}", inErr: "3:13: undefined: undefinedZ"}},
		"a function literal called at once runs once": {imp,
			{code: "func() { fmt.Println(\"z\") }()\nfmt.Println(\"w\")", stdout: "z\nw\n"},
			{code: "func() { fmt.Println(\"once\") }()", stdout: "once\n"},
			{code: "func() int { return 4 }()", plain: "4"},
			{code: "fmt.Println(\"next\")", stdout: "next\n"}},
	})
}

// TestFailedCellLeavesNothing checks that a cell which does not compile
// leaves nothing in the session, as in Go, where it would never run:
// yaegi declared its names before failing, so later cells saw variables
// it replaced by zero values, and functions that did not compile; and a
// cell whose last line did not compile had run its earlier statements
// (z = 5 and its output) before it failed.
func TestFailedCellLeavesNothing(t *testing.T) {
	imp := cellRun{code: "import \"fmt\""}
	runSessions(t, map[string][]cellRun{
		"a variable redefined by a failed cell": {imp,
			{code: "x := 1"},
			{code: "x := 7\nif x > 0 { undefinedThing() }", inErr: "undefined: undefinedThing"},
			{code: "fmt.Println(x)", stdout: "1\n"}},
		"a variable given another type by a failed cell": {imp,
			{code: "x := 1"},
			{code: "x := \"s\"\nif x != \"\" { undefinedThing() }", inErr: "undefined: undefinedThing"},
			{code: "fmt.Println(x + 1)", stdout: "2\n"}},
		"a variable defined by a failed cell": {imp,
			{code: "y := 1\nif y > 0 { undefinedThing() }", inErr: "undefined: undefinedThing"},
			{code: "fmt.Println(y)", inErr: "undefined: y"}},
		"statements before a last expression that does not compile": {imp,
			{code: "z := 1"},
			{code: "z = 5\nfmt.Println(\"ran\")\nundefinedQ()", inErr: "3:1: undefined: undefinedQ"},
			{code: "fmt.Println(z)", stdout: "1\n"}},
		"statements before a last expression of a wrong type": {imp,
			{code: "z := 1"},
			{code: "z = 5\nfmt.Println(\"ran\")\nz + \"s\"", inErr: "3:1: invalid operation"},
			{code: "fmt.Println(z)", stdout: "1\n"}},
		"statements before a declaration that does not compile": {imp,
			{code: "z := 1"},
			{code: "z = 5\nfmt.Println(\"ran\")\nfunc k() int { return undefinedW }", inErr: "3:23: undefined: undefinedW"},
			{code: "fmt.Println(z)", stdout: "1\n"},
			{code: "k()", inErr: "undefined: k"}},
		"a function that did not compile": {imp,
			{code: "func count() int { return len(rowsX) }", inErr: "undefined: rowsX"},
			{code: "rowsX := []int{1, 2}"},
			{code: "count()", inErr: "undefined: count"},
			{code: "func count() int { return len(rowsX) }\ncount()", plain: "2"}},
	})
}

// TestScopeBlocks checks the rewrite itself: which statements it wraps,
// and where it records the text it inserted.
func TestScopeBlocks(t *testing.T) {
	cases := []struct {
		src, want string
		shifts    []colShift
	}{
		{"x := 1\nfor _, r := range rs { a, b := f(r); _, _ = a, b }",
			"x := 1\n(func() {for _, r := range rs { a, b := f(r); _, _ = a, b }})()",
			[]colShift{{2, 1, 9}, {2, 60, 4}}},
		{"for _, r := range rs { n += r }", "(func() {for _, r := range rs { n += r }})()", []colShift{{1, 1, 9}, {1, 41, 4}}},
		{"for { n++ }", "for { n++ }", nil},                                         // declares nothing
		{"for _, r := range rs { return }", "for _, r := range rs { return }", nil}, // would return from the literal
		{"for _, r := range rs { defer f(r) }", "for _, r := range rs { defer f(r) }", nil},
		{"if v, ok := m[k]; ok {\n\tgoto L\n}\nL:\n", "if v, ok := m[k]; ok {\n\tgoto L\n}\nL:\n", nil},
		{"f := func() { for { x := 1; _ = x } }", "f := func() { for { x := 1; _ = x } }", nil}, // inside a literal already
		{"func() { x := 1; _ = x }()", "(func() { x := 1; _ = x })()", []colShift{{1, 1, 1}, {1, 26, 1}}},
		{"n := 0\nfunc() {}()", "n := 0\nfunc() {}()", nil}, // not first: yaegi sees n first
		{"x := (", "x := (", nil},
	}
	for _, c := range cases {
		got, shifts := scopeBlocks(c.src)
		if got != c.want {
			t.Errorf("scopeBlocks(%q) = %q, want %q", c.src, got, c.want)
		}
		if len(shifts) != len(c.shifts) {
			t.Errorf("scopeBlocks(%q): shifts %v, want %v", c.src, shifts, c.shifts)
			continue
		}
		for i := range shifts {
			if shifts[i] != c.shifts[i] {
				t.Errorf("scopeBlocks(%q): shifts %v, want %v", c.src, shifts, c.shifts)
				break
			}
		}
	}
}
