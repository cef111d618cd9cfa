package engine

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/kernel/display"
)

// TestCarryValues: a compiled cell sees the current values of the
// session's variables (package vars that later interpreted statements
// changed, statement variables of named types, structs, maps), with
// their static types; a variable whose value cannot be carried refuses
// the cell, naming it; what a compiled cell changes, later interpreted
// cells see.
func TestCarryValues(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("needs the go command")
	}
	e := newEngine(t)
	defer e.Close()
	for _, c := range []compiledCase{
		{code: "var counter = 0\ntype pt struct{ X, Y int }\nvar origin = pt{1, 2}\nvar m = map[string][]int{\"a\": {1}}"},
		{code: "counter++\ncounter++\norigin.X = 5\nm[\"b\"] = []int{2, 3}"},
		{code: "fmt.Println(min(counter, 10), origin, m)", stdout: "2 {5 2} map[a:[1] b:[2 3]]\n"},
		{code: "type celsius float64\ntemp := celsius(21.5)\nnames := []string{\"a\\nb\", \"c\"}"},
		{code: "fmt.Printf(\"%T %v %q\\n\", temp, min(temp, 30), names)", stdout: "main.celsius 21.5 [\"a\\nb\" \"c\"]\n"},
		{code: "var f = func() int { return 1 }\np := &pt{}"},
		{code: "min(f(), 2)", errName: "Unsupported", inErr: "f (it is a func value)"},
		{code: "min(p.X, 2)", errName: "Unsupported", inErr: "p (it is a pointer:"},
		{code: "counter + 1", plain: "3"},
		// What a compiled cell changes or defines, later cells see.
		{code: "counter = max(counter, 7)\norigin.Y = min(origin.Y, -1)\ntemp = max(temp, 30)\nlabels := []string{\"x\", \"main.y\"}"},
		{code: "fmt.Println(counter+len(labels), origin, temp, labels[1])", stdout: "9 {5 -1} 30 main.y\n"},
		{code: "fmt.Println(min(counter, 100), labels)", stdout: "7 [x main.y]\n"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		rec := newRecorder()
		res, err := e.Execute(ctx, c.code, rec)
		cancel()
		if c.errName != "" {
			ee, ok := err.(*Error)
			if !ok || ee.Name != c.errName || !strings.Contains(ee.Value, c.inErr) {
				t.Fatalf("%s: got %v, want %s containing %q\n%q", c.code, err, c.errName, c.inErr, rec.streams)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v\n%q", c.code, err, rec.streams)
		}
		if got, _ := res.Data.Data[display.MIMETypeText].(string); got != c.plain {
			t.Fatalf("%s = %q, want %q\n%q", c.code, got, c.plain, rec.streams)
		}
		if !strings.Contains(rec.streams["stdout"], c.stdout) {
			t.Fatalf("%s: stdout %q, want %q", c.code, rec.streams["stdout"], c.stdout)
		}
	}
}

// TestUnqualifyMain: %#v's package name main is dropped from qualified
// identifiers, never inside strings.
func TestUnqualifyMain(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`main.Point{X:1, Y:2}`, `Point{X:1, Y:2}`},
		{`[]main.P{main.P{S:"main.x"}}`, `[]P{P{S:"main.x"}}`},
		{`map[string]main.celsius{"domain.main": 21.5}`, `map[string]celsius{"domain.main": 21.5}`},
		{`time.Duration`, `time.Duration`},
	} {
		if got := unqualifyMain(c.in); got != c.want {
			t.Errorf("unqualifyMain(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDeepSyntaxCompiles: a cell nested deeper than the interpreter is
// given runs compiled (interpreterGap names it); a shallow one does not.
func TestDeepSyntaxCompiles(t *testing.T) {
	none := func(string) bool { return false }
	deep := item{kind: stmtItem, text: "x := " + strings.Repeat("1+", maxInterpretedNesting) + "1"}
	if why := interpreterGap(deep, nil, none); !strings.Contains(why, "syntax nested") {
		t.Errorf("deep cell: %q, want syntax nested", why)
	}
	shallow := item{kind: stmtItem, text: "x := " + strings.Repeat("1+", 50) + "1"}
	if why := interpreterGap(shallow, nil, none); why != "" {
		t.Errorf("shallow cell: %q, want none", why)
	}
}
