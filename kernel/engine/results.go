package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
)

// yaegi v0.16.1 compiles a call of a builtin that is a return statement's
// second or later result into the frame slot of the first result:
//
//	func pr(d string) (string, int) { s := d + d; return s, len(d) }
//
// panicked when called (reflect: call of reflect.Value.SetInt on string
// Value), and `func f(d string) (int, int) { return 1, len(d) }` returned
// 2, 2 for "ab" instead of 1, 2: a wrong value, silently. The same call
// in parentheses, `return s, (len(d))`, is compiled right (as are calls of
// other functions, conversions and operators), so parenBuiltinResults
// puts such calls in parentheses before the interpreter sees the cell. A
// source package interpreted from $WEFT_GOPATH, which the kernel does not
// rewrite, is refused if it holds one (divergent: builtinResult).

// resultBuiltins are the builtins whose calls yield a value.
var resultBuiltins = []string{"append", "cap", "complex", "copy", "imag", "len", "make", "max", "min", "new", "real", "recover"}

// builtinResult returns the builtin called as a later result of ret, ""
// if none.
func builtinResult(ret *ast.ReturnStmt) (ast.Expr, string) {
	if len(ret.Results) < 2 {
		return nil, ""
	}
	for _, r := range ret.Results[1:] {
		if isBuiltinCall(r) {
			return r, r.(*ast.CallExpr).Fun.(*ast.Ident).Name
		}
	}
	return nil, ""
}

// isBuiltinCall reports whether x is a call of a name of resultBuiltins.
func isBuiltinCall(x ast.Expr) bool {
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return false
	}
	id, ok := call.Fun.(*ast.Ident)
	return ok && slices.Contains(resultBuiltins, id.Name)
}

// parenBuiltinResults returns items with every call of a builtin that is
// a return statement's second or later result put in parentheses (see
// above). Only parentheses are inserted, on the call's own lines; an item
// that does not parse is left as it is (the interpreter reports it).
func parenBuiltinResults(items []item) []item {
	out := make([]item, len(items))
	copy(out, items)
	for i, it := range out {
		if it.kind == importItem || !strings.Contains(it.text, "return") {
			continue
		}
		prefix, suffix := "package p\n", ""
		if it.kind == stmtItem {
			prefix, suffix = "package p\nfunc _() {\n", "\n}"
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", prefix+it.text+suffix, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		var ins []insertion
		ast.Inspect(f, func(n ast.Node) bool {
			ret, ok := n.(*ast.ReturnStmt)
			if !ok || len(ret.Results) < 2 {
				return true
			}
			for _, r := range ret.Results[1:] {
				if isBuiltinCall(r) {
					seq := len(ins) // pre-order: an enclosing call's parentheses go outside
					ins = append(ins, insertion{at: fset.Position(r.Pos()).Offset - len(prefix), seq: seq, text: "("},
						insertion{at: fset.Position(r.End()).Offset - len(prefix), close: true, seq: seq, text: ")"})
				}
			}
			return true
		})
		if len(ins) > 0 {
			out[i].text = insert(it.text, ins)
		}
	}
	return out
}
