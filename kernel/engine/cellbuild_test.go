package engine

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/kernel/display"
)

// compiledCase is a cell of one session and what it must give: stdout
// containing stdout, the plain-text value plain, or (errName set) an error
// of that name whose value contains inErr.
type compiledCase struct {
	code, stdout, plain string
	errName, inErr      string
}

// TestCompiledCells: cells the interpreter would compute differently from
// Go, or cannot run, are compiled and give what `go run` gives; the
// session's interpreted state stays; a compiled cell that crashes, exits
// or overflows its stack ends with an error and the kernel goes on; a
// cell that cannot be compiled either is refused, naming why.
func TestCompiledCells(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("needs the go command")
	}
	e := newEngine(t)
	defer e.Close()
	for _, c := range []compiledCase{
		{code: "before := 41", plain: ""},
		// yaegi initialises in source order (A would be 0).
		{code: "var A = f()\nvar tbl = map[string]int{\"x\": 2}\nfunc f() int { return tbl[\"x\"] }\nA", plain: "2"},
		{code: "type myInt int\nfunc kind(v any) string {\n\tswitch v.(type) {\n\tcase int:\n\t\treturn \"int\"\n\tcase myInt:\n\t\treturn \"myInt\"\n\t}\n\treturn \"other\"\n}\nkind(myInt(3))", plain: "myInt"},
		// kind is known to compiled cells only: this cell compiles too.
		{code: "fmt.Println(kind(3))", stdout: "int\n"},
		{code: "type Color int\nfunc (c Color) String() string { return [...]string{\"red\", \"green\"}[c] }\nfmt.Println(Color(1))", stdout: "green\n"},
		{code: "func Sum[T ~int | ~float64](xs []T) T {\n\tvar s T\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\nSum([]float64{1.5, 2.5})", plain: "4"},
		{code: "min(3, 1, 2) + max(4, 5)", plain: "6"},
		// A compiled cell sees the interpreter's variables, their values
		// written as Go literals (TestCarryValues).
		{code: "xs := []float64{0.1, 2}\nrow := struct{ X int }{1}", plain: ""},
		{code: "Sum([]int{before, 1}) + int(Sum(xs)*10)", plain: "63"},
		{code: "Sum([]int{row.X})", plain: "1"},
		{code: "var fs []func() int\nfor i := 0; i < 3; i++ {\n\tfs = append(fs, func() int { return i })\n}\nfmt.Println(fs[0](), fs[2]())", stdout: "0 2\n"},
		{code: "type pt struct{ X int }\nfunc (p *pt) Inc() { p.X++ }\np := pt{1}\ninc := p.Inc\ninc()\np.X", plain: "2"},
		// The interpreted session is untouched.
		{code: "before + 1", plain: "42"},
		{code: "import \"os\"\nfunc bye() { os.Exit(Sum([]int{1, 2})) }\nbye()", errName: "Exit", inErr: "exited with status 3"},
		{code: "func deep(n int) int { return deep(n+Sum([]int{1})) + 1 }\ndeep(0)", errName: "StackOverflow", inErr: "kernel and the session's variables are kept"},
		{code: "func boom() int { panic(\"no\") }\nboom() + Sum([]int{1})", errName: "panic", inErr: "no"},
		{code: "before + 2", plain: "43"},
		{code: "Sum([]int{1, 2}) + len(display.Markdown(\"x\").Data)", errName: "Unsupported", inErr: "cannot be compiled"},
		{code: "Sum([]int{1, 2, 3})", plain: "6"},
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
