package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
)

// yaegi v0.16.1 runs a cell's statements in its global scope, and the
// blocks nested in them (a loop's body, an if's, a switch's cases, and
// their init clauses) share that scope: a definition there is handled as
// a package-level one. So, at a cell's top level:
//
//   - `res, n := f()` (or `v, ok := m[k]`, `v, ok := x.(T)`,
//     `var a, b = f()`) inside a block is left to its global type
//     analysis, which skips nested blocks: the names are undefined, valid
//     Go fails to compile (yaegi issue 232), and such a cell could only
//     run compiled, which cells using weft's packages cannot;
//   - `x := 2` inside a block assigns the session's x instead of
//     declaring a new one that shadows it.
//
// Inside a function, yaegi gives blocks scopes of their own, as Go does.
// scopeBlocks therefore runs each such top-level statement in a function
// literal called at once: `func() {STMT}()`. The statement's variables
// are local to it in Go too, and the cell's other variables are the
// interpreter's globals, which the literal reads and writes as the
// statement would. A statement that could leave the literal differently
// from the statement (return, defer, goto) is left as it is.

// scopeWrapOpen and scopeWrapClose enclose a statement scopeBlocks
// rewrites; both go on the statement's own lines.
const (
	scopeWrapOpen  = "(func() {"
	scopeWrapClose = "})()"
)

// colShift is text the engine inserted on a line of a cell: n characters
// at column col of the text the interpreter was given.
type colShift struct{ line, col, n int }

// scopeBlocks rewrites a run of statements (see above), and puts a
// function literal that starts the run in parentheses. It returns the
// new text and where it inserted text, lines counted from the run's first
// line (1). A run that does not parse is returned unchanged.
func scopeBlocks(src string) (string, []colShift) {
	const prefix = "package main\nfunc _() {\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+"\n}", parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return src, nil
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	var ins []insertion
	var shifts []colShift
	added := map[int]int{} // line -> characters inserted on it so far
	enclose := func(n ast.Node, seq int, open, close string) {
		start, end := fset.Position(n.Pos()), fset.Position(n.End())
		ins = append(ins, insertion{at: start.Offset - len(prefix), seq: seq, text: open},
			insertion{at: end.Offset - len(prefix), close: true, seq: seq, text: close})
		for _, p := range []struct {
			pos token.Position
			n   int
		}{{start, len(open)}, {end, len(close)}} {
			line := p.pos.Line - 2
			shifts = append(shifts, colShift{line: line, col: p.pos.Column + added[line], n: p.n})
			added[line] += p.n
		}
	}
	for i, s := range body.List {
		if lit := leadingFuncLit(s); i == 0 && lit != nil {
			// A run that starts with func is taken by yaegi for a
			// declaration, and its retry makes the statements a main
			// function that every later evaluation runs again.
			enclose(lit, 2*i, "(", ")")
		}
		if nestedScope(s) && !leavesFunc(s) {
			enclose(s, 2*i+1, scopeWrapOpen, scopeWrapClose)
		}
	}
	return insert(src, ins), shifts
}

// leadingFuncLit returns the function literal s starts with, if any
// (`func() { … }()`).
func leadingFuncLit(s ast.Stmt) *ast.FuncLit {
	x, ok := s.(*ast.ExprStmt)
	if !ok {
		return nil
	}
	e := x.X
	for {
		switch n := e.(type) {
		case *ast.FuncLit:
			return n
		case *ast.CallExpr:
			e = n.Fun
		case *ast.SelectorExpr:
			e = n.X
		case *ast.IndexExpr:
			e = n.X
		case *ast.BinaryExpr:
			e = n.X
		default:
			return nil
		}
	}
}

// nestedScope reports whether s is a compound statement that declares a
// name in a scope of its own (a block, or an init clause), outside
// function literals.
func nestedScope(s ast.Stmt) bool {
	switch s.(type) {
	case *ast.BlockStmt, *ast.ForStmt, *ast.RangeStmt, *ast.IfStmt, *ast.SwitchStmt,
		*ast.TypeSwitchStmt, *ast.SelectStmt, *ast.LabeledStmt:
	default:
		return false
	}
	found := false
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			found = found || n.Tok == token.DEFINE
		case *ast.RangeStmt:
			found = found || n.Tok == token.DEFINE
		case *ast.DeclStmt:
			found = true
		}
		return !found
	})
	return found
}

// leavesFunc reports whether s holds, outside function literals, a
// statement that would act differently inside one: return, defer, goto.
func leavesFunc(s ast.Stmt) bool {
	found := false
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt, *ast.DeferStmt:
			found = true
		case *ast.BranchStmt:
			found = found || n.Tok == token.GOTO
		}
		return !found
	})
	return found
}
