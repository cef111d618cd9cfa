package engine

import (
	"go/parser"
	"go/scanner"
	"go/token"
	"sort"
	"strings"
)

// autoImports returns the bound packages the cell uses by name without
// importing them (fmt.Println with no import "fmt"), as goimports would
// add: a name that is the last element of exactly one bound import path
// and is not a name the session or the cell defines.
func (e *Engine) autoImports(items []item) []importSpec {
	unresolved := e.unresolvedNames(items)
	if len(unresolved) == 0 {
		return nil
	}
	g, _ := e.globals()
	var out []importSpec
	for _, name := range unresolved {
		if _, ok := e.imported[name]; ok || e.names[name] || g[name].IsValid() {
			continue
		}
		if p, ok := e.packageNamed(name); ok {
			out = append(out, importSpec{name: name, path: p})
		}
	}
	return out
}

// packageNamed returns the one bound import path whose package is called
// name (its last element); ok is false if none or several are.
func (e *Engine) packageNamed(name string) (string, bool) {
	var found []string
	for p := range e.packages {
		if e.packageName(p) == name && !strings.HasPrefix(p, "weft.internal") && p != "display" {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// unresolvedNames returns the identifiers used as pkg in pkg.Name that the
// cell does not declare, sorted. It returns nil if the cell does not parse.
func (e *Engine) unresolvedNames(items []item) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", cellFile(items), 0)
	if err != nil {
		return nil
	}
	imported := map[string]bool{}
	for _, s := range f.Imports {
		if s.Name != nil {
			imported[s.Name.Name] = true
		} else {
			imported[e.packageName(strings.Trim(s.Path.Value, `"`))] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, id := range f.Unresolved {
		if !seen[id.Name] && !imported[id.Name] && token.IsIdentifier(id.Name) {
			seen[id.Name] = true
			out = append(out, id.Name)
		}
	}
	sort.Strings(out)
	return out
}

// cellFile arranges a cell's items as one Go file: imports, then
// declarations, then the statements in a function body.
func cellFile(items []item) string {
	var imports, decls, stmts strings.Builder
	for _, it := range items {
		switch it.kind {
		case importItem:
			imports.WriteString(it.text + "\n")
		case declItem:
			decls.WriteString(it.text + "\n")
		default:
			stmts.WriteString(it.text + "\n")
		}
	}
	return "package p\n" + imports.String() + decls.String() + "func _() {\n" + stmts.String() + "}\n"
}

// firstUse returns the cell position (1-based line and column, in bytes)
// of the first identifier token name in code.
func firstUse(code, name string) (line, col int, ok bool) {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(code))
	var s scanner.Scanner
	s.Init(file, []byte(code), nil, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return 0, 0, false
		}
		if tok == token.IDENT && lit == name {
			p := fset.Position(pos)
			return p.Line, p.Column, true
		}
	}
}
