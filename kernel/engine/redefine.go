package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// A session's top-level statements are one function body (cell after
// cell), so a `:=` at a cell's top level that names a variable an earlier
// statement defined, beside at least one new name, assigns that variable,
// as Go does:
//
//	x := 1
//	f := func() int { return x }
//	x, y := 2, 3 // assigns x: f() is 2
//
// yaegi v0.16.1 declares every name of a global `:=` afresh, so f kept
// reading the first x (f() was 1). assignRedeclared rewrites such a
// statement so that only its new names are defined and the others are
// assigned, after every right-hand operand was evaluated, left to right:
//
//	_weft_r0 := x; _weft_r0 = 2; _weft_r1 := 3; x = _weft_r0; y := _weft_r1
//
// (the temporary of an assigned variable starts as a copy of it, so it has
// the variable's type and the operand is checked against that type, an
// untyped constant converted to it, as in Go's assignment), and
//
//	x, err := f()  ->  _weft_r0, err := f(); x = _weft_r0
//
// for a call or comma-ok form, whose values have the types Go gives them.
// A `:=` whose names all exist is not Go (no new variables): the kernel
// keeps declaring them afresh, so that a cell can be run again. Package
// vars (declared by `var` in a cell) are not statement variables: a `:=`
// naming one declares a new variable that shadows it, as in Go. The
// rewritten statement stays on its lines; columns of errors inside it are
// those of the rewritten text.

// redefPrefix starts the names of the rewrite's temporaries.
const redefPrefix = "_weft_r"

// assignRedeclared rewrites the top-level mixed `:=` statements of items
// (see above). isVar tells whether a name is a variable that an earlier
// statement of the session defined.
func assignRedeclared(items []item, isVar func(string) bool) []item {
	defined := map[string]bool{} // names defined by this cell's earlier statements
	temps := 0                   // temporaries named so far: each is new in the cell
	out := make([]item, len(items))
	copy(out, items)
	for i, it := range out {
		if it.kind != stmtItem {
			if it.kind == declItem {
				for _, n := range declaredNames(it.text) {
					defined[n] = false
				}
			}
			continue
		}
		as := topDefine(it.text)
		if as == nil {
			continue
		}
		exists := func(n string) bool {
			if d, ok := defined[n]; ok {
				return d
			}
			return isVar(n)
		}
		var old, fresh int
		for _, x := range as.stmt.Lhs {
			switch n := x.(*ast.Ident).Name; {
			case n == "_":
			case exists(n):
				old++
			default:
				fresh++
			}
		}
		if old > 0 && fresh > 0 {
			out[i].text = as.rewrite(exists, &temps)
		}
		for _, x := range as.stmt.Lhs {
			if n := x.(*ast.Ident).Name; n != "_" {
				defined[n] = true
			}
		}
	}
	return out
}

// define is a parsed top-level `:=` statement and its source.
type define struct {
	stmt *ast.AssignStmt
	src  string
	off  int // offset of src in the parsed file
}

// topDefine parses text as one `:=` statement, nil if it is not one.
func topDefine(text string) *define {
	const prefix = "package p\nfunc _() {\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", prefix+text+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return nil
	}
	body := f.Decls[0].(*ast.FuncDecl).Body.List
	if len(body) != 1 {
		return nil
	}
	as, ok := body[0].(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return nil
	}
	for _, x := range as.Lhs {
		if _, ok := x.(*ast.Ident); !ok {
			return nil
		}
	}
	return &define{stmt: as, src: prefix + text, off: 1}
}

// text returns the source of node n.
func (d *define) text(n ast.Node) string {
	return d.src[int(n.Pos())-d.off : int(n.End())-d.off]
}

// rewrite returns the statement with the names for which exists is true
// assigned, not defined (see assignRedeclared).
// temps counts the temporaries named in the cell so far.
func (d *define) rewrite(exists func(string) bool, temps *int) string {
	base := *temps
	*temps += len(d.stmt.Lhs)
	tmp := func(i int) string { return fmt.Sprintf("%s%d", redefPrefix, base+i) }
	var parts, after []string
	lhs, rhs := d.stmt.Lhs, d.stmt.Rhs
	if len(rhs) == len(lhs) {
		for i, x := range lhs {
			n := x.(*ast.Ident).Name
			switch {
			case n == "_":
				parts = append(parts, "_ = "+d.text(rhs[i]))
			case exists(n):
				parts = append(parts, tmp(i)+" := "+n, tmp(i)+" = "+d.text(rhs[i]))
				after = append(after, n+" = "+tmp(i))
			default:
				parts = append(parts, tmp(i)+" := "+d.text(rhs[i]))
				after = append(after, n+" := "+tmp(i))
			}
		}
		return strings.Join(append(parts, after...), "; ")
	}
	names := make([]string, len(lhs))
	for i, x := range lhs {
		names[i] = x.(*ast.Ident).Name
		if names[i] != "_" && exists(names[i]) {
			after = append(after, names[i]+" = "+tmp(i))
			names[i] = tmp(i)
		}
	}
	src := strings.Join(names, ", ") + " := " + d.text(rhs[0])
	return strings.Join(append([]string{src}, after...), "; ")
}
