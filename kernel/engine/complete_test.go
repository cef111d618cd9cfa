package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestIsComplete(t *testing.T) {
	tests := []struct{ code, status, indent string }{
		{"x := 1", "complete", ""},
		{"", "complete", ""},
		{"func f() {", "incomplete", "\t"},
		{"m := map[string][]int{\n\t\"a\": {", "incomplete", "\t\t"},
		{"y := x +", "incomplete", ""},
		{"s := `raw", "incomplete", ""},
		{"/* open comment", "incomplete", ""},
		{"x := )", "invalid", ""},
		{"x := \"open", "invalid", ""},
		{"x := 1 @", "invalid", ""},
		{"fmt.Println(x)", "complete", ""},
		{"x++", "complete", ""},
		{"x := 1 2", "invalid", ""},
		{"func f() }", "invalid", ""},
		{"import \"fmt\"\nfunc f() {}\nfmt.Println(f)", "complete", ""},
		{"%time x := 1", "complete", ""},
		{"for i := 0; i < 3; i++ {", "incomplete", "\t"},
	}
	for _, tc := range tests {
		status, indent := IsComplete(tc.code)
		if status != tc.status || indent != tc.indent {
			t.Errorf("IsComplete(%q) = %q %q, want %q %q", tc.code, status, indent, tc.status, tc.indent)
		}
	}
}

func TestCompleteAndInspect(t *testing.T) {
	e := newEngine(t)
	setup := "import \"strings\"\ntype Point struct{ X, Y int }\nfunc area(w, h int) int { return w * h }\norigin := Point{}\ncount := 3"
	if _, err := e.Execute(context.Background(), setup, newRecorder()); err != nil {
		t.Fatal(err)
	}
	completions := []struct {
		code   string
		cursor int
		want   string
		start  int
	}{
		{"strings.Has", 11, "HasPrefix", 8},
		{"x := strings.Has", 16, "HasSuffix", 13},
		{"import \"sort\"\nsort.Sli", 22, "Slice", 19},  // imported in the cell, not yet run
		{"import s2 \"sort\"\ns2.Sli", 23, "Slice", 20}, // under another name
		{"fmt.Printl", 10, "Println", 4},                // not imported: as auto-import would
		{"unicode.IsUpp", 13, "IsUpper", 8},
		{"ar", 2, "area", 0},
		{"cou", 3, "count", 0},
		{"ori", 3, "origin", 0},
		{"origin.", 7, "X", 7},
		{"retu", 4, "return", 0},
		{"disp", 4, "display", 0},
		{"display.Sh", 10, "Show", 8},
		{"é := co", 7, "count", 5}, // cursor counts runes, not bytes
	}
	for _, c := range completions {
		matches, start, end := e.Complete(c.code, c.cursor)
		if !slices.Contains(matches, c.want) || start != c.start || end != c.cursor {
			t.Errorf("Complete(%q, %d) = %v [%d,%d), want %q from %d", c.code, c.cursor, matches, start, end, c.want, c.start)
		}
		for _, m := range matches {
			if strings.HasPrefix(m, "_weft") {
				t.Errorf("internal name %q offered", m)
			}
		}
	}
	inspections := []struct {
		code   string
		cursor int
		want   string
	}{
		{"strings.ToUpper", 9, "func strings.ToUpper: func(string) string"},
		{"count", 1, "var count int = 3"},
		{"area(1, 2)", 2, "func area: func(int, int) int"},
		{"strings", 3, `package strings // import "strings"`},
		{"display.MIMETypeHTML", 10, `const display.MIMETypeHTML = "text/html"`},
	}
	for _, c := range inspections {
		text, found := e.Inspect(c.code, c.cursor)
		if !found || !strings.HasPrefix(text, c.want) {
			t.Errorf("Inspect(%q) = %q %v, want %q", c.code, text, found, c.want)
		}
	}
	if _, found := e.Inspect("nothing_here", 3); found {
		t.Error("Inspect found an undefined name")
	}
}
