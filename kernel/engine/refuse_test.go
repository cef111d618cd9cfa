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
	ctx := context.Background()
	for _, c := range []struct{ code, inErr, plain string }{
		{"var A = f()\nvar tbl = map[string]int{\"x\": 2}\nfunc f() int { return tbl[\"x\"] }\nA", "package variable A (cell:1:5) is initialised from tbl, declared after it (cell:2:5)", ""},
		{"var tbl2 = map[string]int{\"x\": 2}\nvar B = g()\nfunc g() int { return tbl2[\"x\"] }\nB", "", "2"},
		{"type myInt int\nfunc kind(v any) string {\n\tswitch v.(type) {\n\tcase int:\n\t\treturn \"int\"\n\t}\n\treturn \"other\"\n}", "line 3: type switch with case int", ""},
		{"type shape interface{ Area() float64 }\nfunc isShape(v any) bool {\n\tswitch v.(type) {\n\tcase shape, error:\n\t\treturn true\n\t}\n\treturn false\n}\nisShape(nil)", "", "false"},
	} {
		res, err := e.Execute(ctx, c.code, newRecorder())
		if c.inErr != "" {
			ee, ok := err.(*Error)
			if !ok || ee.Name != "Unsupported" || !strings.Contains(ee.Value, c.inErr) {
				t.Fatalf("%s: got %v, want Unsupported containing %q", c.code, err, c.inErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		if got := res.Data.Data[display.MIMETypeText]; got != c.plain {
			t.Fatalf("%s = %v, want %s", c.code, got, c.plain)
		}
	}
}
