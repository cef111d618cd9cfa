package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
)

// guardGoroutines rewrites every `go f(a, b)` in a run of statements or
// declarations into
//
//	{ _weft_f, _weft_a0, _weft_a1 := f, a, b; go func() { defer _weft_recover(); _weft_f(_weft_a0, _weft_a1) }() }
//
// so that a panic in a goroutine a cell starts is reported on the cell's
// stderr instead of killing the kernel (Go cannot recover another
// goroutine's panic). The function and arguments are still evaluated by
// the go statement, as Go specifies. Each replacement stays on one line, so
// positions elsewhere in the cell do not move. Sources that do not parse
// are returned unchanged.
func guardGoroutines(src string, decl bool) string {
	if !strings.Contains(src, "go") {
		return src
	}
	prefix := "package main\nfunc _() {\n"
	if decl {
		prefix = "package main\n"
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+"\n}", parser.SkipObjectResolution)
	if decl {
		f, err = parser.ParseFile(fset, "", prefix+src, parser.SkipObjectResolution)
	}
	if err != nil {
		return src
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	ast.Inspect(f, func(n ast.Node) bool {
		g, ok := n.(*ast.GoStmt)
		if !ok {
			return true
		}
		start := fset.Position(g.Pos()).Offset - len(prefix)
		end := fset.Position(g.End()).Offset - len(prefix)
		if text, ok := guardedGo(g.Call, func(x ast.Node) string {
			return src[fset.Position(x.Pos()).Offset-len(prefix) : fset.Position(x.End()).Offset-len(prefix)]
		}); ok {
			edits = append(edits, edit{start, end, text})
		}
		return false
	})
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	for _, e := range edits {
		src = src[:e.start] + e.text + src[e.end:]
	}
	return src
}

// guardedGo returns the guarded form of `go call`; ok is false for calls
// of builtins, which cannot be bound to a variable.
func guardedGo(call *ast.CallExpr, text func(ast.Node) string) (string, bool) {
	if id, ok := call.Fun.(*ast.Ident); ok && isBuiltin(id.Name) {
		return "", false
	}
	names := []string{"_weft_f"}
	values := []string{text(call.Fun)}
	for i, a := range call.Args {
		names = append(names, fmt.Sprintf("_weft_a%d", i))
		values = append(values, text(a))
	}
	ellipsis := ""
	if call.Ellipsis.IsValid() {
		ellipsis = "..."
	}
	return fmt.Sprintf("{ %s := %s; go func() { defer _weft_recover(); _weft_f(%s%s) }() }",
		strings.Join(names, ", "), strings.Join(values, ", "), strings.Join(names[1:], ", "), ellipsis), true
}

func isBuiltin(name string) bool {
	switch name {
	case "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make",
		"max", "min", "new", "panic", "print", "println", "real", "recover":
		return true
	}
	return false
}
