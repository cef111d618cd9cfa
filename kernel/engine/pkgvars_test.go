package engine

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/kernel/display"
)

// TestCompiledPkgVars: a package var declared by a compiled cell keeps its
// current value in later cells (its initialiser and the compiled init
// functions run once, as in one Go program); a var whose value cannot be
// passed to a new process (a pointer a cell changed, a closure with
// state) refuses the later cells that use it, naming it; declaring it
// again starts it afresh.
func TestCompiledPkgVars(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("needs the go command")
	}
	e := newEngine(t)
	defer e.Close()
	for _, c := range []compiledCase{
		{code: "func Sum[T ~int](xs []T) T {\n\tvar s T\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\nvar total = Sum([]int{1, 2})\nvar trail []string\nfunc init() { trail = append(trail, \"init\") }"},
		{code: "total += 10\ntrail = append(trail, \"a\")"},
		{code: "fmt.Println(total, trail)", stdout: "13 [init a]\n"},
		{code: "total", plain: "13"},
		{code: "type box struct{ n int }\nvar b = &box{Sum([]int{1})}"},
		{code: "fmt.Println(b.n)", stdout: "1\n"},
		{code: "b.n = 5"},
		{code: "fmt.Println(b.n)", errName: "Unsupported", inErr: "b (each has no Go literal"},
		{code: "fmt.Println(b.n)", errName: "Unsupported", inErr: "b (its value has no Go literal"},
		{code: "var b = &box{Sum([]int{7})}\nfmt.Println(b.n)", stdout: "7\n"},
		{code: "fmt.Println(b.n, total)", stdout: "7 13\n"},
		{code: "func gen[T any]() func() int {\n\tn := 0\n\treturn func() int { n++; return n }\n}\nvar next = gen[int]()"},
		{code: "fmt.Println(next())", stdout: "1\n"},
		{code: "fmt.Println(next())", errName: "Unsupported", inErr: "next (it holds a func value"},
		{code: "var sq = func(x int) int { return Sum([]int{x, x}) }"},
		{code: "fmt.Println(sq(3))", stdout: "6\n"},
		{code: "fmt.Println(sq(4), total)", stdout: "8 13\n"},
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
