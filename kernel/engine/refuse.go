package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// The interpreter computes some constructs differently from Go; the
// differential corpus (kernel/testdata/diff, scripts/kernel-diff.sh) found
// them. The engine refuses them with an error naming the construct rather
// than return a wrong answer:
//
//   - package variables initialised, directly or through functions, from
//     variables declared after them: yaegi initialises in source order,
//     Go in dependency order. Checked in cells and in every package
//     interpreted from source (github.com/google/uuid's NameSpaceDNS).
//   - type switches in cells with a case of a predeclared type or of a
//     type declared by cells: yaegi lets a value of `type myInt int` match
//     `case int`.

// refusal is an error of a construct the engine will not interpret.
func refusal(format string, a ...any) error {
	v := fmt.Sprintf(format, a...)
	return &Error{Name: "Unsupported", Value: v, Traceback: []string{"Unsupported: " + v}}
}

// initOrder finds a package variable whose initialiser depends on a
// variable declared after it in files (in the order given). It returns
// the later variable's use and declaration, or ok false.
func initOrder(fset *token.FileSet, files []*ast.File) (msg string, ok bool) {
	type varDecl struct {
		name string
		pos  token.Pos
		init []ast.Expr
	}
	var vars []varDecl
	index := map[string]int{}
	funcs := map[string][]ast.Node{} // functions, and methods by name
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Body != nil {
					funcs[d.Name.Name] = append(funcs[d.Name.Name], d.Body)
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					for _, n := range vs.Names {
						if n.Name == "_" {
							continue
						}
						index[n.Name] = len(vars)
						vars = append(vars, varDecl{name: n.Name, pos: n.Pos(), init: vs.Values})
					}
				}
			}
		}
	}
	for i, v := range vars {
		seen := map[string]bool{}
		var later string
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			id, isID := n.(*ast.Ident)
			if sel, isSel := n.(*ast.SelectorExpr); isSel {
				ast.Inspect(sel.X, visit)
				id, isID = sel.Sel, true
			}
			if !isID || seen[id.Name] || later != "" {
				return !isID && later == ""
			}
			seen[id.Name] = true
			if j, isVar := index[id.Name]; isVar && j > i {
				later = id.Name
				return false
			}
			for _, body := range funcs[id.Name] {
				ast.Inspect(body, visit)
			}
			return false
		}
		for _, x := range v.init {
			ast.Inspect(x, visit)
		}
		if later != "" {
			p, q := fset.Position(v.pos), fset.Position(vars[index[later]].pos)
			return fmt.Sprintf("package variable %s (%s) is initialised from %s, declared after it (%s): "+
				"the interpreter initialises package variables in source order, Go in dependency order",
				v.name, short(p), later, short(q)), true
		}
	}
	return "", false
}

// short renders a position as file:line:col with the file's base name
// ("cell" in a cell).
func short(p token.Position) string {
	return fmt.Sprintf("%s:%d:%d", filepath.Base(p.Filename), p.Line, p.Column)
}

// checkCell refuses the constructs of a cell's declarations and statements
// the interpreter would compute differently from Go.
func (e *Engine) checkCell(items []item) error {
	fset := token.NewFileSet()
	var decls strings.Builder
	for _, it := range items {
		if it.kind == declItem {
			decls.WriteString(strings.Repeat("\n", max(0, it.line-1-strings.Count(decls.String(), "\n"))) + it.text + "\n")
		}
	}
	if f, err := parser.ParseFile(fset, "", "package p\n//line cell:1:1\n"+decls.String(), 0); err == nil {
		if msg, bad := initOrder(fset, []*ast.File{f}); bad {
			return refusal("%s; declare the later one first", msg)
		}
		if msg := divergent(fset, f, false); msg != "" {
			return refusal("%s", msg)
		}
	}
	for _, it := range items {
		if it.kind != stmtItem {
			continue
		}
		src := fmt.Sprintf("package p\nfunc _() {\n//line cell:%d:1\n%s\n}", it.line, it.text)
		if f, err := parser.ParseFile(fset, "", src, 0); err == nil {
			if msg := divergent(fset, f, false); msg != "" {
				return refusal("%s", msg)
			}
		}
	}
	return e.checkTypeSwitches(items)
}

// basicTypes are the predeclared non-interface types.
var basicTypes = map[string]bool{"bool": true, "string": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "float32": true, "float64": true, "complex64": true, "complex128": true, "byte": true, "rune": true}

// checkTypeSwitches refuses type switches with a case of a predeclared
// type or of a type declared by cells.
func (e *Engine) checkTypeSwitches(items []item) error {
	cellTypes := map[string]bool{} // false for interface types
	for _, it := range items {
		if it.kind == declItem {
			for n, iface := range typeKinds(it.text) {
				cellTypes[n] = !iface
			}
		}
	}
	for _, it := range items {
		src := "package p;func _(){\n" + it.text + "\n}"
		if it.kind != stmtItem {
			src = "package p;" + it.text
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		var found error
		ast.Inspect(f, func(n ast.Node) bool {
			ts, isTS := n.(*ast.TypeSwitchStmt)
			if !isTS || found != nil {
				return found == nil
			}
			for _, c := range ts.Body.List {
				for _, x := range c.(*ast.CaseClause).List {
					id, isID := x.(*ast.Ident)
					concrete, inCell := cellTypes[id.Name]
					if isID && (basicTypes[id.Name] || concrete || !inCell && e.names[id.Name] && !e.isInterfaceType(id.Name)) {
						line := it.line + fset.Position(ts.Pos()).Line - 2
						if it.kind != stmtItem {
							line++
						}
						found = refusal("line %d: type switch with case %s: the interpreter lets a value of a named type "+
							"(type myInt int) match the case of its underlying type (case int), where Go does not", line, id.Name)
						return false
					}
				}
			}
			return true
		})
		if found != nil {
			return found
		}
	}
	return nil
}

// typeKinds returns the types a declaration introduces, true for interfaces.
func typeKinds(text string) map[string]bool {
	out := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution)
	if err != nil {
		return out
	}
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				_, iface := ts.Type.(*ast.InterfaceType)
				out[ts.Name.Name] = iface
			}
		}
	}
	return out
}

// isInterfaceType reports whether name is an interface type of the session.
func (e *Engine) isInterfaceType(name string) bool {
	v, err := e.eval("(*" + name + ")(nil)")
	return err == nil && v.IsValid() && v.Type().Elem().Kind() == reflect.Interface
}

// checkImports refuses the import of a package interpreted from source
// (not bound) whose sources, or those of the source packages it imports,
// hold a construct the interpreter computes differently from Go.
func (e *Engine) checkImports(items []item) error {
	for _, it := range items {
		if it.kind != importItem {
			continue
		}
		for _, s := range parseImports(it.text) {
			if err := e.checkSource(canonical(s.path), map[string]bool{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// genericIn names a generic declaration of f, or "".
func genericIn(f *ast.File) string {
	var msg string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Type.TypeParams != nil && len(n.Type.TypeParams.List) > 0 {
				msg = "func " + n.Name.Name + " has type parameters"
			}
		case *ast.TypeSpec:
			if n.TypeParams != nil && len(n.TypeParams.List) > 0 {
				msg = "type " + n.Name.Name + " has type parameters"
			}
		}
		return msg == ""
	})
	return msg
}

// checkSource checks the source package p and the source packages it
// imports; results are kept for the session.
func (e *Engine) checkSource(p string, seen map[string]bool) error {
	if e.packages[p] || e.gopath == "" || seen[p] || !e.present(p) {
		return nil
	}
	seen[p] = true
	if err, done := e.checked[p]; done {
		return err
	}
	err := e.checkSourceFiles(p, seen)
	e.checked[p] = err
	return err
}

func (e *Engine) checkSourceFiles(p string, seen map[string]bool) error {
	dir := filepath.Join(e.gopath, "src", filepath.FromSlash(p))
	entries, err := newSourceFS().ReadDir(dir)
	if err != nil {
		return nil // yaegi reports it
	}
	var names []string
	for _, d := range entries {
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".go") && !strings.HasSuffix(d.Name(), "_test.go") {
			names = append(names, d.Name())
		}
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	var files []*ast.File
	imports := map[string]bool{}
	for _, n := range names {
		src, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), src, 0)
		if err != nil {
			return nil // yaegi reports it
		}
		files = append(files, f)
		for _, s := range f.Imports {
			if q, err := strconv.Unquote(s.Path.Value); err == nil {
				imports[q] = true
			}
		}
	}
	if msg, bad := initOrder(fset, files); bad {
		return refusal("import %q: %s", p, msg)
	}
	for _, f := range files {
		if msg := divergent(fset, f, true); msg != "" {
			return refusal("import %q: %s", p, msg)
		}
		if d := nesting(f); d > maxInterpretedNesting {
			return refusal("import %q: %s: syntax nested %d deep; the interpreter's compiler recurses on nesting in the kernel's process (beyond %d levels it is not given the code)", p, fset.File(f.Pos()).Name(), d, maxInterpretedNesting)
		}
		if msg := unprovenIn(fset, f); msg != "" {
			return refusal("import %q: %s; a source package is interpreted only if it holds nothing else", p, msg)
		}
		if msg := genericIn(f); msg != "" {
			return refusal("import %q: %s: %s; the interpreter does not run generic code (a cell using it runs compiled, a source package is not interpreted)", p, fset.File(f.Pos()).Name(), msg)
		}
	}
	for q := range imports {
		if err := e.checkSource(q, seen); err != nil {
			return err
		}
	}
	return nil
}

// hiddenMethods are methods that compiled code (fmt, encoding/json,
// errors, sort) finds through interfaces: yaegi does not show them on
// values of interpreted types (fmt prints a Stringer's fields, json a
// Marshaler's value) or wraps the values so that identity is lost
// (err == ErrX is false for an interpreted error type).
var hiddenMethods = map[string]bool{"String": true, "GoString": true, "Format": true, "Error": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "MarshalText": true, "UnmarshalText": true, "Is": true,
	"As": true, "Unwrap": true, "Cause": true}

// divergent returns the first construct of f that the interpreter computes
// differently from Go, or "": a method in hiddenMethods, a func literal in
// a for loop (three-clause or range) that uses the loop's variable (Go
// 1.22 gives each iteration its own; yaegi shares one), a defer in a loop whose call
// has arguments (yaegi evaluates them when the deferred call runs, Go at
// the defer statement), and, in library code (lib), a type switch with a
// case of a predeclared type (it matches values of named types).
func divergent(fset *token.FileSet, f *ast.File, lib bool) string {
	var msg string
	at := func(n ast.Node, format string, a ...any) {
		if msg == "" {
			msg = short(fset.Position(n.Pos())) + ": " + fmt.Sprintf(format, a...)
		}
	}
	var loops []map[string]bool // the variables each enclosing loop declares
	var visit func(n ast.Node) bool
	walk := func(ns ...ast.Node) {
		for _, n := range ns {
			if n != nil && !reflect.ValueOf(n).IsNil() {
				ast.Inspect(n, visit)
			}
		}
	}
	visit = func(n ast.Node) bool {
		if msg != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Recv != nil && hiddenMethods[n.Name.Name] {
				at(n, "method %s: compiled code (fmt, encoding/json, errors) does not see this method of an interpreted type, or loses the value's identity", n.Name.Name)
			}
		case *ast.ForStmt:
			loops = append(loops, loopVars(n))
			walk(n.Init, n.Cond, n.Post, n.Body)
			loops = loops[:len(loops)-1]
			return false
		case *ast.RangeStmt:
			loops = append(loops, loopVars(n))
			walk(n.X, n.Body)
			loops = loops[:len(loops)-1]
			return false
		case *ast.FuncLit:
			for _, l := range loops {
				if v := loopVarUse(l, n.Body); v != "" {
					at(n, "func literal using the loop variable %s of a for loop: Go gives each iteration its own %s, the interpreter shares one", v, v)
				}
			}
			saved := loops
			loops = nil
			walk(n.Body)
			loops = saved
			return false
		case *ast.AssignStmt:
			if v := redeclared(n); v != "" {
				at(n, ":= of %s, declared before in the same block, beside new variables: Go assigns %s, the interpreter declares a new %s (closures and pointers keep the old one, and it takes the operand's type)", v, v, v)
			}
		case *ast.ReturnStmt:
			if x, name := builtinResult(n); x != nil {
				at(x, "%s(…) as a later result of a return: the interpreter writes its value into the first result; put the call in parentheses", name)
			}
		case *ast.DeferStmt:
			if len(loops) > 0 && len(n.Call.Args) > 0 && !allLiterals(n.Call.Args) {
				at(n, "defer in a loop with arguments: Go evaluates them at the defer statement, the interpreter when the deferred call runs")
			}
		case *ast.TypeSwitchStmt:
			if lib {
				for _, c := range n.Body.List {
					for _, x := range c.(*ast.CaseClause).List {
						if id, ok := x.(*ast.Ident); ok && basicTypes[id.Name] {
							at(n, "type switch with case %s: the interpreter lets a value of a named type (type myInt int) match the case of its underlying type, where Go does not", id.Name)
						}
					}
				}
			}
		}
		return true
	}
	ast.Inspect(f, visit)
	return msg
}

// redeclared returns a name that a `:=` of as many operands as names
// (a, b := 1, 2) redeclares in its block, "" if none. It needs a file
// parsed with object resolution: a redeclared name's object is the
// earlier declaration's. yaegi v0.16.1 declares such a name afresh (a
// closure of the earlier one keeps it, `a := 1.5; a, b := 2, 3` made a an
// int); the form with one operand (a, err := f()) it assigns, as Go does.
func redeclared(as *ast.AssignStmt) string {
	if as.Tok != token.DEFINE || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) {
		return ""
	}
	for _, x := range as.Lhs {
		if id, ok := x.(*ast.Ident); ok && id.Name != "_" && id.Obj != nil && id.Obj.Decl != as {
			return id.Name
		}
	}
	return ""
}

// loopVars returns the variables a for loop declares: those of a
// three-clause loop's init statement, or a range loop's key and value
// (yaegi v0.16.1 shares both kinds between iterations: a func literal
// made in `for _, r := range rs` saw the last r).
func loopVars(l ast.Stmt) map[string]bool {
	var lhs []ast.Expr
	switch l := l.(type) {
	case *ast.ForStmt:
		if as, ok := l.Init.(*ast.AssignStmt); ok && as.Tok == token.DEFINE {
			lhs = as.Lhs
		}
	case *ast.RangeStmt:
		if l.Tok == token.DEFINE {
			lhs = []ast.Expr{l.Key, l.Value}
		}
	}
	vars := map[string]bool{}
	for _, x := range lhs {
		if id, ok := x.(*ast.Ident); ok && id.Name != "_" {
			vars[id.Name] = true
		}
	}
	return vars
}

// loopVarUse returns a variable of vars that body uses, or "".
func loopVarUse(vars map[string]bool, body ast.Node) string {
	if len(vars) == 0 {
		return ""
	}
	found := ""
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && vars[id.Name] && found == "" {
			found = id.Name
		}
		return found == ""
	})
	return found
}

// allLiterals reports whether every expression is a basic literal.
func allLiterals(xs []ast.Expr) bool {
	for _, x := range xs {
		if _, ok := x.(*ast.BasicLit); !ok {
			return false
		}
	}
	return true
}
