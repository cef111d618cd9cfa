package model

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSteps keeps fuzzed evaluations (exponential in quantifier nesting)
// short; TestEvalBudget checks the limit itself.
const fuzzSteps = 1 << 14

// FuzzParseExpr: parsing, checking against a model, evaluating and
// explaining arbitrary expressions never panics, and every error is
// positioned inside or just after the expression.
func FuzzParseExpr(f *testing.F) {
	seeds := []string{
		"all r in replies : r.val in node[1]",
		"some x in [1, 2] : x == 2 => not alive(0) or len(replies) > 0",
		"(count i in nodes : alive(i)) >= 2 and node[0].arr[1] % 2 == 0",
		`name + "y" == "xy" and -client_val < 0 and node[1] == []`,
		"node[client_val].stored",
		"((((1))))",
		`"\u00e9" == "é"`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	m, err := Parse("testdata/eval.model", []byte(strings.Replace(evalModel, "%s", "true", 1)))
	if err != nil {
		f.Fatal(err)
	}
	start := Pos{File: "f", Line: 1, Col: 1}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr("f", start, src)
		checkPos(t, err, src)
		if err != nil {
			return
		}
		e.steps = fuzzSteps
		_, err = e.Eval(baseState(), map[string]int64{"k": 1})
		checkPos(t, err, src)
		e, err = m.CompileExpr(start, src)
		checkPos(t, err, src)
		if err != nil {
			return
		}
		e.steps = fuzzSteps
		c := &evalCtx{e: e, s: baseState(), env: e.env}
		if ok, err := c.boolOf(e.root); err == nil {
			_ = c.explain(e.root, ok)
		}
	})
}

// checkPos fails unless err is nil or an *Error within src's extent.
func checkPos(t *testing.T, err error, src string) {
	t.Helper()
	if err == nil {
		return
	}
	pe, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %T is not an *Error: %v", err, err)
	}
	if pe.Pos.Line < 1 || pe.Pos.Line > strings.Count(src, "\n")+1 || pe.Pos.Col < 1 || pe.Pos.Col > len(src)+1 {
		t.Fatalf("position %s outside the expression %q", pe.Pos, src)
	}
}

// FuzzParse: arbitrary model files never panic the parser (the key locator
// and string decoder run on every file the TOML library accepts), and a
// failure is always an *Error or a list of them.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.model")
	bad, _ := filepath.Glob("testdata/bad/*.model")
	for _, p := range append(files, bad...) {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("testdata/fuzz.model", src)
		if err == nil {
			for _, inv := range m.Invariants {
				if inv.expr != nil {
					inv.expr.steps = fuzzSteps
				}
				_, _, _ = inv.Check(baseState())
			}
			return
		}
		for _, e := range splitErrors(err) {
			if _, ok := e.(*Error); !ok {
				t.Fatalf("error %T is not an *Error: %v", e, e)
			}
		}
	})
}
