package model

import (
	"strings"
	"testing"
)

// evalModel is the model every evaluation case compiles its invariant in.
const evalModel = `[target]
nodes = 3
source = "repl.c"
[state]
stored = "int32"
arr = "int32[3]"
[environment]
client_val = 5
name = "x"
[invariants]
inv = '%s'
`

func rec(src, val int64) Value {
	return Record([]Field{{"src", Int(src)}, {"val", Int(val)}})
}

// baseState: node 0 up (stored 5, arr [1 2 3]), node 1 up (stored 0, arr
// [0 0 0]), node 2 down (stored 5, arr [7 8 9]); two replies.
func baseState() State {
	vars := func(stored int64, arr ...int64) map[string]Value {
		a := make([]Value, len(arr))
		for i, x := range arr {
			a[i] = Int(x)
		}
		return map[string]Value{"stored": Int(stored), "arr": List(a...)}
	}
	return State{
		Nodes: []NodeState{
			{Alive: true, Vars: vars(5, 1, 2, 3)},
			{Alive: true, Vars: vars(0, 0, 0, 0)},
			{Alive: false, Vars: vars(5, 7, 8, 9)},
		},
		Logs: map[string][]Value{"replies": {rec(0, 5), rec(2, 7)}},
	}
}

func TestCheck(t *testing.T) {
	noReplies := baseState()
	noReplies.Logs = nil
	many := baseState()
	for i := int64(0); i < 30; i++ {
		many.Logs["replies"] = append(many.Logs["replies"], rec(0, i))
	}
	// node 2 crashed before it was ever observed: it has no last values.
	unseen := baseState()
	unseen.Nodes[2].Vars = nil
	srcOnly := baseState()
	srcOnly.Logs = map[string][]Value{"replies": {Record([]Field{{"src", Int(0)}})}}
	tests := []struct {
		expr  string
		state *State // nil = baseState()
		ok    bool
		why   string
		err   string // "" = no error; else the exact message after "file:line:col: "
		col   int    // column of the error within the expression (0-based offset)
	}{
		// comparisons and environment
		{expr: `node[0].stored == client_val`, ok: true},
		{expr: `node[1].stored == client_val`, why: `node[1].stored = 0 != client_val = 5`},
		{expr: `node[1].stored != 0`, why: `node[1].stored = 0 == 0`},
		{expr: `node[0].stored < 5`, why: `node[0].stored = 5 >= 5`},
		{expr: `node[0].stored <= 4`, why: `node[0].stored = 5 > 4`},
		{expr: `node[1].stored > 0`, why: `node[1].stored = 0 <= 0`},
		{expr: `node[1].stored >= 1`, why: `node[1].stored = 0 < 1`},
		{expr: `name == "x" and name + "y" == "xy" and "a" < "b"`, ok: true},
		// membership
		{expr: `all r in replies : r.val in node[r.src]`, ok: true},
		{expr: `all r in replies : r.val in node[1]`, why: `r = {src: 0, val: 5}: r.val = 5 not in node[1] = [0, 0, 0, 0]`},
		{expr: `2 in node[0].arr`, ok: true},
		{expr: `4 in node[0].arr`, why: `4 not in node[0].arr = [1, 2, 3]`},
		{expr: `node[0].stored in node[2].stored`, ok: true},
		{expr: `client_val not in [1, 2]`, ok: true},
		{expr: `client_val not in [5, 6]`, why: `client_val = 5 in [5, 6]`},
		{expr: `[1, 2] == [1, 2] and [] != [1]`, ok: true},
		{expr: `node[1] == [0, 0, 0, 0] and nodes == [0, 1, 2]`, ok: true},
		// quantifiers
		{expr: `some r in replies : r.val == 7`, ok: true},
		{expr: `some r in replies : r.val == 9`, why: `no r in replies = [{src: 0, val: 5}, {src: 2, val: 7}] satisfies r.val == 9`},
		{expr: `some r in replies : true`, state: &noReplies, why: `replies is empty`},
		{expr: `some r in replies : r.val > 100`, state: &many, why: `no r in replies (32 entries) satisfies r.val > 100`},
		{expr: `some x in [1, 2] : x > 2`, why: `no x in [1, 2] satisfies x > 2`},
		{expr: `all r in replies : false`, state: &noReplies, ok: true},
		{expr: `all i in nodes : alive(i)`, why: `i = 2: node[2] is down`},
		{expr: `all i in nodes : alive(i) => node[i].stored == client_val`, why: `i = 1: node[1] is up, but node[i].stored = 0 != client_val = 5`},
		{expr: `all x in [1, 2, 3] : x < 3`, why: `x = 3: x = 3 >= 3`},
		{expr: `(count r in replies : r.val > 4) == 2`, ok: true},
		{expr: `(count i in nodes : alive(i)) >= 3`, why: `(count i in nodes : alive(i)) = 2 < 3`},
		{expr: `all r in replies : all i in nodes : r.val >= node[i].stored`, ok: true},
		{expr: `all r in replies : r.val > 0 and r.src >= 0`, ok: true}, // body extends right
		{expr: `true and all r in replies : r.val > 6`, why: `r = {src: 0, val: 5}: r.val = 5 <= 6`},
		{expr: `some r in replies : r.src == 2 and not alive(r.src)`, ok: true},
		{expr: `not some r in replies : r.val == 7`, why: `r = {src: 2, val: 7}: r.val = 7 == 7`},
		{expr: `not all i in nodes : i >= 0`, why: `every i in nodes = [0, 1, 2] satisfies i >= 0`},
		{expr: `all i in node[0].arr : i < 3`, why: `i = 3: i = 3 >= 3`},
		// boolean operators and precedence
		{expr: `not alive(2)`, ok: true},
		{expr: `not alive(0)`, why: `node[0] is up`},
		{expr: `alive(0) and alive(2)`, why: `node[2] is down`},
		{expr: `alive(2) or node[1].stored > 0`, why: `node[2] is down and node[1].stored = 0 <= 0`},
		{expr: `alive(2) => false`, ok: true},
		{expr: `false => false => false`, ok: true},                  // right associative
		{expr: `true => false or true`, ok: true},                    // or binds tighter than =>
		{expr: `not 1 == 2`, ok: true},                               // not is looser than ==
		{expr: `true or false and false`, ok: true},                  // and binds tighter than or
		{expr: `not (true or false) and false`, why: `true is true`}, // (not (..)) and false
		{expr: `alive(0) and not alive(1) => false`, ok: true},
		// arithmetic
		{expr: `node[0].stored * 2 + 1 == 11`, ok: true},
		{expr: `-node[0].stored == -5 and - -1 == 1`, ok: true},
		{expr: `7 / 2 == 3 and 7 % 2 == 1 and -7 / 2 == -3`, ok: true},
		{expr: `1 + 2 * 3 == 7 and (1 + 2) * 3 == 9 and 10 - 2 - 3 == 5`, ok: true},
		{expr: `len(replies) == 2 and len(name) == 1 and len(nodes) == 3`, ok: true},
		{expr: `len(replies) > 2`, why: `len(replies) = 2 <= 2`},
		{expr: `node[0].arr[1] == 2 and [4, 5][0] == 4`, ok: true},
		{expr: `-9223372036854775807 - 1 == -9223372036854775807 - 1`, ok: true},
		// evaluation errors, positioned
		{expr: `node[0].arr[3] == 0`, err: `index 3 out of range for node[0].arr (length 3)`, col: 12},
		{expr: `node[client_val].stored == 0`, err: `node index client_val = 5 out of range 0..2`, col: 5},
		{expr: `1 / node[1].stored == 0`, err: `division by zero: node[1].stored = 0`, col: 4},
		{expr: `1 < "a"`, err: `cannot compare int 1 < "a": want two integers or two strings`, col: 0},
		{expr: `alive(0) + 1 == 2`, err: `cannot compute bool true + 1: want integers`, col: 0},
		{expr: `1 + 1`, err: `1 + 1 is int 2, want a boolean`, col: 0},
		{expr: `all r in replies : r.val == 1`, state: &srcOnly, err: `r = {src: 0} has no field val (fields: src)`, col: 21},
		{expr: `all r in [1] : r.val == 1`, err: `r is int 1, not a record with field val`, col: 17},
		{expr: `all r in client_val : true`, err: `all r in client_val: want a list, got int 5`, col: 9},
		{expr: `(count i in nodes : alive(i) >= 2)`, err: `cannot compare bool true >= 2: want two integers or two strings`, col: 20},
		{expr: `node[0].stored.x == 1`, err: `node[0].stored is int 5, not a record with field x`, col: 15},
		{expr: `len(1) == 1`, err: `len of 1: want a list or string, got int 1`, col: 4},
		{expr: `client_val[0] == 1`, err: `cannot index client_val: it is int 5, not a list`, col: 0},
		// a crashed node: its last observed values, or a clear error
		{expr: `node[2].stored == 5 and node[2].arr[2] == 9`, ok: true},
		{expr: `node[2] == [5, 7, 8, 9]`, ok: true},
		{expr: `node[2].stored == 5`, state: &unseen, err: `node 2 is crashed and has no observed state (node[2].stored); guard with alive(2)`, col: 0},
		{expr: `all i in nodes : node[i].stored >= 0`, state: &unseen, err: `node 2 is crashed and has no observed state (node[i].stored); guard with alive(2)`, col: 17},
		{expr: `5 in node[2]`, state: &unseen, err: `node 2 is crashed and has no observed state (node[2]); guard with alive(2)`, col: 5},
		{expr: `all i in nodes : alive(i) => node[i].stored >= 0`, state: &unseen, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			src := strings.Replace(evalModel, "%s", tt.expr, 1)
			m, err := Parse("testdata/eval.model", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			s := baseState()
			if tt.state != nil {
				s = *tt.state
			}
			ok, why, err := m.Invariants[0].Check(s)
			if tt.err != "" {
				want := "testdata/eval.model:11:" + itoa(8+tt.col) + ": " + tt.err
				if errString(err) != want {
					t.Errorf("err:\n got %v\nwant %s", err, want)
				}
				return
			}
			if err != nil || ok != tt.ok || why != tt.why {
				t.Errorf("Check = %v, %q, %v\nwant %v, %q", ok, why, err, tt.ok, tt.why)
			}
		})
	}
}

func itoa(n int) string { return Int(int64(n)).String() }

// TestSeedViolation: the seed's repl-bug outcome (node[0]=5, node[1]=0,
// client acked 5) violates agree_on_ack with the values that break it.
func TestSeedViolation(t *testing.T) {
	m := mustLoad(t, "testdata/repl.model")
	s := State{
		Nodes: []NodeState{
			{Alive: true, Vars: map[string]Value{"stored": Int(5)}},
			{Alive: true, Vars: map[string]Value{"stored": Int(0)}},
		},
		Logs: map[string][]Value{"replies": {rec(0, 5)}},
	}
	ok, why, err := m.Invariants[0].Check(s)
	if want := "r = {src: 0, val: 5}: r.val = 5 not in node[1] = [0]"; ok || why != want || err != nil {
		t.Errorf("Check = %v, %q, %v; want false, %q", ok, why, err, want)
	}
	if got, want := s.Summary(m), "node[0].stored=5, node[1].stored=0, replies=[{src: 0, val: 5}]"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	s.Nodes[1].Vars["stored"] = Int(5)
	if ok, why, err := m.Invariants[0].Check(s); !ok || why != "" || err != nil {
		t.Errorf("after the backup stored 5: Check = %v, %q, %v", ok, why, err)
	}
	s.Logs = nil // no reply yet: the log is known to be empty
	if ok, _, err := m.Invariants[0].Check(s); !ok || err != nil {
		t.Errorf("with no replies: Check = %v, %v", ok, err)
	}
}

func TestSummary(t *testing.T) {
	m, err := Parse("testdata/eval.model", []byte(strings.Replace(evalModel, "%s", "true", 1)))
	if err != nil {
		t.Fatal(err)
	}
	want := "node[0].stored=5, node[0].arr=[1, 2, 3], node[1].stored=0, node[1].arr=[0, 0, 0], " +
		"node[2].stored=5, node[2].arr=[7, 8, 9], node[2] down, replies=[{src: 0, val: 5}, {src: 2, val: 7}]"
	if got := baseState().Summary(m); got != want {
		t.Errorf("Summary:\n got %s\nwant %s", got, want)
	}
}

// TestParseExprErrors checks syntax errors of the standalone API, whose
// positions count from the given start.
func TestParseExprErrors(t *testing.T) {
	start := Pos{Line: 3, Col: 10}
	tests := []struct{ src, want string }{
		{`all r replies : true`, `f:3:16: expected "in" after all r, found "replies"`},
		{`all 1 in nodes : true`, `f:3:14: expected a variable name after "all", found "1"`},
		{`(1 == 1`, `f:3:17: expected ")" to close '(', found end of expression`},
		{`1 == 1 == 1`, `f:3:17: unexpected "==": comparisons do not chain; use parentheses or 'and'`},
		{`node[0].`, `f:3:18: expected a state field after node[...]., found end of expression`},
		{`node 0`, `f:3:15: expected "[" after node, found "0"`},
		{`"abc`, `f:3:10: unterminated string literal`},
		{`1 @ 2`, `f:3:12: unexpected character '@'`},
		{`99999999999999999999 > 0`, `f:3:10: bad integer "99999999999999999999"`},
		{"true and\n  bogus(", `f:4:8: unexpected "(" after expression`},
		{`[1, 2`, `f:3:15: expected "]" to close list, found end of expression`},
		{`x.1`, `f:3:12: expected field name after '.', found "1"`},
		{strings.Repeat("(", 300) + "1", `f:3:210: expression nested too deeply`},
		{``, `f:3:10: expected an operand, found end of expression`},
	}
	for _, tt := range tests {
		_, err := ParseExpr("f", start, tt.src)
		if errString(err) != tt.want {
			t.Errorf("ParseExpr(%q):\n got %v\nwant %s", tt.src, err, tt.want)
		}
	}
}

// TestEvalStandalone: ParseExpr + Eval with an explicit environment and no
// model: names resolve against env, then the state's logs.
func TestEvalStandalone(t *testing.T) {
	tests := []struct {
		src  string
		env  map[string]int64
		want string
		err  string
	}{
		{src: `len(replies) + k`, env: map[string]int64{"k": 3}, want: "5"},
		{src: `node[0]`, want: "[1, 2, 3, 5]"}, // undeclared order: sorted names (arr, stored)
		{src: `[k, "s", true]`, env: map[string]int64{"k": -1}, want: `[-1, "s", true]`},
		{src: `count i in nodes : alive(i)`, want: "2"},
		{src: `missing`, err: `f:1:1: unknown name "missing"`},
	}
	for _, tt := range tests {
		e, err := ParseExpr("f", Pos{Line: 1, Col: 1}, tt.src)
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.Eval(baseState(), tt.env)
		if tt.err != "" {
			if errString(err) != tt.err {
				t.Errorf("Eval(%q) error %v, want %s", tt.src, err, tt.err)
			}
			continue
		}
		if err != nil || v.String() != tt.want {
			t.Errorf("Eval(%q) = %v, %v; want %s", tt.src, v, err, tt.want)
		}
	}
}

func TestCompileExpr(t *testing.T) {
	m := mustLoad(t, "testdata/full.model")
	e, err := m.CompileExpr(Pos{File: "pre", Line: 2, Col: 5}, `len(acks) >= client_val`)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := e.Eval(State{}, nil); err != nil || v.String() != "false" {
		t.Errorf("Eval = %v, %v (acks is a known, empty log)", v, err)
	}
	_, err = m.CompileExpr(Pos{File: "pre", Line: 2, Col: 5}, `node[0].nope == 1`)
	if want := `pre:2:13: unknown state field "nope" (declared: stored, log)`; errString(err) != want {
		t.Errorf("CompileExpr unknown field: %v, want %s", err, want)
	}
}

// TestEvalBudget: nested quantifiers are exponential; evaluation stops with
// a positioned error instead of stalling the checker.
func TestEvalBudget(t *testing.T) {
	src := strings.Repeat("all a in nodes : ", 12) + "true" // 3^12 > 1<<16 body evaluations
	e, err := ParseExpr("f", Pos{Line: 1, Col: 1}, src)
	if err != nil {
		t.Fatal(err)
	}
	e.steps = 1 << 16
	_, err = e.Eval(baseState(), nil)
	if want := "f:1:1: evaluation exceeded 65536 steps (nested quantifiers over large domains?)"; errString(err) != want {
		t.Errorf("Eval = %v, want %s", err, want)
	}
	e.steps = 0 // the default budget suffices for 3^12
	if v, err := e.Eval(baseState(), nil); err != nil || v.String() != "true" {
		t.Errorf("Eval with the default budget = %v, %v", v, err)
	}
}
