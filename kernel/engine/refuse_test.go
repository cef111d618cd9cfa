package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/weft-mc/weft/kernel/display"
)

// TestRefusedConstructs: the constructs the differential corpus found
// computed wrongly by the interpreter end in an Unsupported error naming
// them; their safe neighbours still run.
func TestRefusedConstructs(t *testing.T) {
	e := newEngine(t)
	defer e.Close()
	for _, c := range []cellCase{
		{"var A = f()\nvar tbl = map[string]int{\"x\": 2}\nfunc f() int { return tbl[\"x\"] }\nA", "package variable A (cell:1:5) is initialised from tbl, declared after it (cell:2:5)", ""},
		{"var tbl2 = map[string]int{\"x\": 2}\nvar B = g()\nfunc g() int { return tbl2[\"x\"] }\nB", "", "2"},
		{"type myInt int\nfunc kind(v any) string {\n\tswitch v.(type) {\n\tcase int:\n\t\treturn \"int\"\n\t}\n\treturn \"other\"\n}", "line 3: type switch with case int", ""},
		{"type shape interface{ Area() float64 }\nfunc isShape(v any) bool {\n\tswitch v.(type) {\n\tcase shape, error:\n\t\treturn true\n\t}\n\treturn false\n}\nisShape(nil)", "", "false"},
	} {
		runCellCase(t, e, c)
	}
}

// TestNamedTypeCrossing: a cell that uses a package compiled by %go get
// (strings stands in for one here) and names a non-interface cell type is
// refused, naming both: yaegi would hand compiled code a plain int for a
// myInt, an unnamed struct for a pt. Interface types, and cell types in
// cells without the package, still run.
func TestNamedTypeCrossing(t *testing.T) {
	e := newEngine(t)
	defer e.Close()
	e.fetched["strings"], e.pkgNames["strings"] = true, "strings"
	for _, c := range []cellCase{
		{"type myInt int\nmyInt(2) + 1", "", "3"},
		{"import \"strings\"\nstrings.Repeat(\"a\", int(myInt(2)))", "compiled package strings and type myInt", ""},
		{"type pt struct{ X int }\nstrings.Repeat(\"a\", pt{2}.X)", "compiled package strings and type pt", ""},
		{"type sizer interface{ Len() int }\nvar sz sizer = strings.NewReader(\"abc\")\nsz.Len()", "", "3"},
		{"type list []int\nfunc n() int { return len(strings.Fields(\"a b\")) + len(list{}) }", "compiled package strings and type list", ""},
	} {
		runCellCase(t, e, c)
	}
}

// cellCase is a cell and what it must give: an Unsupported error
// containing inErr, or (inErr empty) the plain-text value plain.
type cellCase struct{ code, inErr, plain string }

// runCellCase executes c in e and checks its outcome.
func runCellCase(t *testing.T, e *Engine, c cellCase) {
	t.Helper()
	res, err := e.Execute(context.Background(), c.code, newRecorder())
	if c.inErr != "" {
		ee, ok := err.(*Error)
		if !ok || ee.Name != "Unsupported" || !strings.Contains(ee.Value, c.inErr) {
			t.Fatalf("%s: got %v, want Unsupported containing %q", c.code, err, c.inErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", c.code, err)
	}
	if got := res.Data.Data[display.MIMETypeText]; got != c.plain {
		t.Fatalf("%s = %v, want %s", c.code, got, c.plain)
	}
}
