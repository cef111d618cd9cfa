package engine

import "testing"

// TestBuiltinResults runs functions returning a builtin's value after
// their first result: yaegi wrote it into the first result's slot, which
// panicked (reflect: call of reflect.Value.SetInt on string Value) or,
// when both had one kind, returned a wrong value silently (1, len("ab")
// gave 2 2). Each gives what Go gives, interpreted.
func TestBuiltinResults(t *testing.T) {
	imp := cellRun{code: "import \"fmt\""}
	runSessions(t, map[string][]cellRun{
		"the brief's function": {imp,
			{code: "func pr(d string)(string,int){ s := d + d; return s, len(d) }"},
			{code: "a, n := pr(\"ab\")\nfmt.Println(a, n)", stdout: "abab 2\n"},
			{code: "fmt.Println(pr(\"xyz\"))", stdout: "xyzxyz 3\n"}},
		"a wrong value, silently": {imp,
			{code: "func two(d string) (int, int) { return 1, len(d) }"},
			{code: "fmt.Println(two(\"ab\"))", stdout: "1 2\n"}},
		"each builtin": {imp,
			{code: "func bs(d []int) (string, int, int, []int, bool, int) {\n\treturn \"a\", cap(d), copy(d, []int{7}), append(d, 1), new(int) != nil, len(make([]int, 3))\n}"},
			{code: "fmt.Println(bs(make([]int, 1, 4)))", stdout: "a 4 1 [7 1] true 3\n"}},
		"in a function literal of a statement": {imp,
			{code: "f := func(d string) (string, int) { return d, len(d) }\nfmt.Println(f(\"abc\"))", stdout: "abc 3\n"}},
		"nested": {imp,
			{code: "func nest(d []string) (string, int) { g := func() (string, int) { return \"x\", len(append(d, \"y\")) }; s, n := g(); return s, len(d) + n }\nfunc calls(d []string) (string, int) { return \"n\", len(append(d, \"x\")) }"},
			{code: "fmt.Println(nest([]string{\"q\"}))\nfmt.Println(calls(nil))", stdout: "x 3\nn 1\n"}},
	})
}
