package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
)

// The interpreter's allow-list. A cell is interpreted only if every
// construct of it is one the differential corpus (testdata/diff, run by
// scripts/kernel-diff.sh against `go run`) exercises: a kind of syntax
// node, with its operator for operators and assignments, and the name of
// each builtin called. Anything else runs compiled (cellbuild.go), with
// the construct named in the cell's "(compiled: …)" line. The checks of
// refuse.go come on top: a construct on this list that yaegi computes
// differently in some use (a type switch case of a predeclared type…)
// still runs compiled. TestAllowListInCorpus checks that each construct
// listed occurs in the corpus's language cases.

// allowedConstructs are the constructs the interpreter is trusted with.
var allowedConstructs = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.Fields(`
		ArrayType AssignStmt:+= AssignStmt:-= AssignStmt:*= AssignStmt:/= AssignStmt::= AssignStmt:=
		AssignStmt:%= AssignStmt:|= AssignStmt:&= AssignStmt:<<= AssignStmt:>>= AssignStmt:^= AssignStmt:&^=
		BasicLit:CHAR BasicLit:FLOAT BasicLit:INT BasicLit:STRING
		BinaryExpr:!= BinaryExpr:% BinaryExpr:&& BinaryExpr:* BinaryExpr:+ BinaryExpr:- BinaryExpr:/
		BinaryExpr:< BinaryExpr:<= BinaryExpr:== BinaryExpr:> BinaryExpr:>= BinaryExpr:|| BinaryExpr:&
		BinaryExpr:| BinaryExpr:^ BinaryExpr:<< BinaryExpr:>> BinaryExpr:&^
		BlockStmt BranchStmt:break BranchStmt:continue BranchStmt:goto LabeledStmt
		CallExpr CaseClause ChanType CommClause CompositeLit DeclStmt DeferStmt Ellipsis ExprStmt Field
		FieldList ForStmt FuncDecl FuncLit FuncType GenDecl:const GenDecl:import GenDecl:type GenDecl:var
		GoStmt Ident IfStmt ImportSpec IncDecStmt:++ IncDecStmt:-- IndexExpr InterfaceType KeyValueExpr
		MapType ParenExpr RangeStmt ReturnStmt SelectStmt SelectorExpr SendStmt SliceExpr StarExpr
		StructType SwitchStmt TypeAssertExpr TypeSpec TypeSwitchStmt UnaryExpr:! UnaryExpr:& UnaryExpr:-
		UnaryExpr:<- UnaryExpr:+ UnaryExpr:^ ValueSpec
		builtin:append builtin:cap builtin:close builtin:copy builtin:delete builtin:len builtin:make builtin:new
		builtin:panic builtin:recover
	`) {
		m[c] = true
	}
	return m
}()

// builtinNames are Go's predeclared functions.
var builtinNames = map[string]bool{"append": true, "cap": true, "clear": true, "close": true, "complex": true,
	"copy": true, "delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"panic": true, "print": true, "println": true, "real": true, "recover": true}

// constructs calls f with each construct of n, as allowedConstructs names
// them. declared tells whether a name is declared by the session or the
// cell (a call of it is then not a builtin's).
func constructs(n ast.Node, declared func(string) bool, f func(c string, at ast.Node)) {
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			return false
		}
		c := reflect.TypeOf(n).Elem().Name()
		switch n := n.(type) {
		case *ast.File, *ast.Comment, *ast.CommentGroup:
			return true
		case *ast.AssignStmt:
			c += ":" + n.Tok.String()
		case *ast.BinaryExpr:
			c += ":" + n.Op.String()
		case *ast.UnaryExpr:
			c += ":" + n.Op.String()
		case *ast.IncDecStmt:
			c += ":" + n.Tok.String()
		case *ast.BasicLit:
			c += ":" + n.Kind.String()
		case *ast.BranchStmt:
			c += ":" + n.Tok.String()
		case *ast.GenDecl:
			c += ":" + n.Tok.String()
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && builtinNames[id.Name] && !declared(id.Name) {
				f("builtin:"+id.Name, n)
			}
		}
		f(c, n)
		return true
	})
}

// unproven returns the first construct of the cell outside the allow-list,
// described for the cell's "(compiled: …)" line, or "".
func unproven(items []item, declared func(string) bool) string {
	for _, it := range items {
		if it.kind == importItem {
			continue
		}
		src, off := "package p\n"+it.text, len("package p\n")
		if it.kind == stmtItem {
			src, off = "package p\nfunc _() {\n"+it.text+"\n}", len("package p\nfunc _() {\n")
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
		if err != nil {
			return "" // the interpreter reports the syntax error
		}
		var body ast.Node = f
		if it.kind == stmtItem {
			body = f.Decls[0].(*ast.FuncDecl).Body
		}
		var why string
		constructs(body, declared, func(c string, at ast.Node) {
			if why == "" && !allowedConstructs[c] && c != "BlockStmt" {
				p := fset.Position(at.Pos())
				line := it.line + p.Line - strings.Count(src[:off], "\n") - 1
				why = fmt.Sprintf("%s at line %d is outside what the differential corpus proves the interpreter computes as Go does", describeConstruct(c), line)
			}
		})
		if why != "" {
			return why
		}
	}
	return ""
}

// declaredBy tells whether a name is declared by the session or the cell.
func (e *Engine) declaredBy(items []item) func(string) bool {
	cell := map[string]bool{}
	for _, it := range items {
		if it.kind == declItem {
			for _, n := range declaredNames(it.text) {
				cell[n] = true
			}
		}
	}
	return func(n string) bool { return e.names[n] || cell[n] }
}

// unprovenIn returns the first construct of a source file outside the
// allow-list, with its position, or "".
func unprovenIn(fset *token.FileSet, f *ast.File) string {
	declared := func(n string) bool { return f.Scope != nil && f.Scope.Lookup(n) != nil }
	var why string
	for _, d := range f.Decls {
		constructs(d, declared, func(c string, at ast.Node) {
			if why == "" && !allowedConstructs[c] {
				why = fmt.Sprintf("%s: %s is outside what the differential corpus proves the interpreter computes as Go does", fset.Position(at.Pos()), describeConstruct(c))
			}
		})
	}
	return why
}

// describeConstruct names a construct for messages: "the builtin complex", "the
// operator &^ (BinaryExpr)", "a LabeledStmt".
func describeConstruct(c string) string {
	kind, op, ok := strings.Cut(c, ":")
	switch {
	case kind == "builtin":
		return "the builtin " + op
	case ok:
		return fmt.Sprintf("%s (%s)", op, kind)
	}
	return "a " + kind
}
