package engine

import "testing"

// TestRedeclaredDefine checks `:=` naming a variable declared before in
// the same scope beside new names: Go assigns that variable. yaegi
// declared it afresh, so a closure of the first kept its old value
// (`fmt.Println(f(), x, y)` printed 1 2 3, go run prints 2 2 3), and in
// a function it also took the operand's type (a float64 became an int).
func TestRedeclaredDefine(t *testing.T) {
	imp := cellRun{code: "import (\"fmt\"; \"strconv\")"}
	closure := []cellRun{imp, {code: "x := 1"}, {code: "f := func() int { return x }"}}
	runSessions(t, map[string][]cellRun{
		"a session variable is assigned (the brief's cells)": append(closure,
			cellRun{code: "x, y := 2, 3"},
			cellRun{code: "fmt.Println(f(), x, y)", stdout: "2 2 3\n"}),
		"a call's values": append(closure,
			cellRun{code: "x, err := strconv.Atoi(\"7\")"},
			cellRun{code: "fmt.Println(f(), x, err)", stdout: "7 7 <nil>\n"}),
		"an untyped constant takes the variable's type": {imp,
			{code: "x := 1.5"},
			{code: "x, y := 2, 3\nfmt.Printf(\"%v %T %T\\n\", x, x, y)", stdout: "2 float64 int\n"}},
		"within one cell, operands evaluated before any assignment": {imp,
			{code: "a := 1\nh := func() int { return a }\na, b := 4, a+1\nfmt.Println(h(), a, b)", stdout: "4 4 2\n"}},
		"a package var is shadowed, as in Go": {imp,
			{code: "var p = 1\nfunc getP() int { return p }"},
			{code: "p, q := 5, 6"},
			{code: "fmt.Println(getP(), p, q)", stdout: "1 5 6\n"}},
		"names that all exist are declared afresh": {imp,
			{code: "x := 1"},
			{code: "x := \"s\""},
			{code: "fmt.Println(x + \"!\")", stdout: "s!\n"}},
		"an operand of another type is an error, and nothing is assigned": {imp,
			{code: "s := \"a\""},
			{code: "s, t := 1, 2", inErr: "string"},
			{code: "fmt.Println(s)", stdout: "a\n"}},
		"a compiled cell assigns the session's variable": append(closure,
			cellRun{code: "x, y := min(2, 9), 3", compiled: true},
			cellRun{code: "fmt.Println(f(), x, y)", stdout: "2 2 3\n"}),
		"in a function it runs compiled": {imp,
			{code: "func g() { a := 1.5; f := func() float64 { return a }; a, b := 2, 3; fmt.Printf(\"%v %v %T %v\\n\", f(), a, a, b) }", compiled: true},
			{code: "g()", stdout: "2 2 float64 3\n", compiled: true}},
		"a call's values in a function stay interpreted": {imp,
			{code: "func g4() { a := 1; p := &a; a, err := strconv.Atoi(\"5\"); fmt.Println(*p, a, err) }\ng4()", stdout: "5 5 <nil>\n"}},
	})
}
