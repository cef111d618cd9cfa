package engine

import (
	"fmt"
	"go/constant"
	"go/parser"
	"go/scanner"
	"go/token"
	"reflect"
	"sort"
	"strings"
	"unicode"
)

// goWords are Go's keywords and predeclared identifiers.
var goWords = strings.Fields(`break case chan const continue default defer else fallthrough for func go goto
if import interface map package range return select struct switch type var
any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string
uint uint8 uint16 uint32 uint64 uintptr true false iota nil
append cap clear close complex copy delete imag len make max min new panic print println real recover`)

// Complete returns the completions of the identifier (or the name after
// x. in a selector) ending at cursor, a position in runes as the protocol
// counts, and the rune range [start, end) they replace. Packages the cell
// imports, or that it would import automatically, complete before the cell
// has run; so do the fields and methods of variables in scope.
func (e *Engine) Complete(code string, cursor int) (matches []string, start, end int) {
	runes := []rune(code)
	cursor = min(max(cursor, 0), len(runes))
	start = cursor
	for start > 0 && (isIdentRune(runes[start-1]) || runes[start-1] == '.') {
		start--
	}
	word := string(runes[start:cursor])
	if i := strings.LastIndex(word, "."); i >= 0 {
		prefix := word[i+1:]
		for _, m := range e.members(word[:i], string(runes[:start])) {
			if strings.HasPrefix(m, prefix) {
				matches = append(matches, m)
			}
		}
		start = cursor - len([]rune(prefix))
	} else {
		for _, m := range e.topNames() {
			if strings.HasPrefix(m, word) {
				matches = append(matches, m)
			}
		}
	}
	sort.Strings(matches)
	return dedupe(matches), start, cursor
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// topNames are the names visible at top level: Go's words, imported
// packages, and the cells' declarations and variables.
func (e *Engine) topNames() []string {
	names := append([]string(nil), goWords...)
	for n := range e.imported {
		names = append(names, n)
	}
	for n := range e.names {
		names = append(names, n)
	}
	g, _ := e.globals()
	for n := range g {
		names = append(names, n)
	}
	out := names[:0]
	for _, n := range names {
		if !strings.HasPrefix(n, "_weft") {
			out = append(out, n)
		}
	}
	return out
}

// members lists the exported names of the package left names (imported
// by the session, by the code before the cursor, or importable
// automatically), or the fields and methods of a variable's type.
func (e *Engine) members(left, before string) []string {
	if path, ok := e.packagePath(left, before); ok {
		var out []string
		for name := range e.in.Symbols(path)[path] {
			if token.IsExported(name) {
				out = append(out, name)
			}
		}
		return out
	}
	g, _ := e.globals()
	v, ok := g[left]
	if !ok || !v.IsValid() {
		return nil
	}
	return typeMembers(v.Type())
}

// packagePath resolves a package name as a cell would see it.
func (e *Engine) packagePath(name, code string) (string, bool) {
	if p, ok := e.imported[name]; ok {
		return p, true
	}
	for _, it := range splitCell(code) {
		if it.kind != importItem {
			continue
		}
		for _, s := range parseImports(it.text) {
			if e.specName(s) == name {
				return canonical(s.path), true
			}
		}
	}
	if g, _ := e.globals(); g[name].IsValid() || e.names[name] {
		return "", false
	}
	return e.packageNamed(name)
}

func typeMembers(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumMethod(); i++ {
		out = append(out, t.Method(i).Name)
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// Inspect describes the identifier or pkg.Ident under cursor (in runes):
// its kind, type and, for variables and constants, value.
func (e *Engine) Inspect(code string, cursor int) (text string, found bool) {
	runes := []rune(code)
	cursor = min(max(cursor, 0), len(runes))
	start, end := cursor, cursor
	for start > 0 && (isIdentRune(runes[start-1]) || runes[start-1] == '.') {
		start--
	}
	for end < len(runes) && isIdentRune(runes[end]) {
		end++
	}
	word := strings.Trim(string(runes[start:end]), ".")
	if word == "" {
		return "", false
	}
	if i := strings.LastIndex(word, "."); i >= 0 {
		if path, ok := e.packagePath(word[:i], code); ok {
			v, ok := e.in.Symbols(path)[path][word[i+1:]]
			if !ok {
				return "", false
			}
			return withDoc(describe(word, v), e.goDoc(path+"."+word[i+1:])), true
		}
	}
	if g, _ := e.globals(); g[word].IsValid() {
		v := g[word]
		return fmt.Sprintf("var %s %s = %v", word, v.Type(), v), true
	}
	if e.names[word] {
		if v, err := e.eval(word); err == nil && v.IsValid() && v.Kind() == reflect.Func {
			return describe(word, v), true
		}
		return word + " (declared in a cell)", true
	}
	if path, ok := e.packagePath(word, code); ok {
		return withDoc(fmt.Sprintf("package %s // import %q", word, path), e.goDoc(path)), true
	}
	return "", false
}

// describe formats a symbol from a yaegi table, where types are stored as
// nil pointers, variables as pointers, constants as constant.Value.
func describe(name string, v reflect.Value) string {
	if !v.IsValid() {
		return name
	}
	if c, ok := v.Interface().(constant.Value); ok {
		return fmt.Sprintf("const %s = %s", name, c.ExactString())
	}
	switch {
	case v.Kind() == reflect.Func:
		return fmt.Sprintf("func %s: %s", name, v.Type())
	case v.Kind() == reflect.Pointer && v.IsNil():
		t := v.Type().Elem()
		return fmt.Sprintf("type %s %s\n\nmethods: %s", name, t.Kind(), strings.Join(typeMembers(reflect.PointerTo(t)), ", "))
	case v.Kind() == reflect.Pointer:
		return fmt.Sprintf("var %s %s = %v", name, v.Type().Elem(), v.Elem())
	}
	return fmt.Sprintf("%s %s", name, v.Type())
}

// IsComplete reports whether code is ready to run: "complete",
// "incomplete" (open brackets, a trailing operator, an unterminated raw
// string or comment) with the indent for the next line, or "invalid".
func IsComplete(code string) (status, indent string) {
	if isMagic(code) {
		return "complete", ""
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	var errMsg string
	s.Init(fset.AddFile("", -1, len(code)), []byte(code), func(_ token.Position, msg string) {
		if errMsg == "" {
			errMsg = msg
		}
	}, 0)
	depth, last := 0, token.ILLEGAL
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		depth += bracketDelta(tok)
		if depth < 0 {
			return "invalid", ""
		}
		if !(tok == token.SEMICOLON && lit == "\n") {
			last = tok
		}
	}
	switch {
	case strings.Contains(errMsg, "not terminated") && strings.Contains(errMsg, "raw string"),
		strings.Contains(errMsg, "comment not terminated"):
		return "incomplete", ""
	case errMsg != "":
		return "invalid", ""
	case depth > 0:
		return "incomplete", strings.Repeat("\t", depth)
	case continues(last):
		return "incomplete", ""
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "", cellFile(splitCell(code)), parser.SkipObjectResolution); err != nil {
		return "invalid", ""
	}
	return "complete", ""
}

// continues reports whether a line ending in tok must continue.
func continues(tok token.Token) bool {
	if !tok.IsOperator() {
		return false
	}
	switch tok {
	case token.RPAREN, token.RBRACK, token.RBRACE, token.INC, token.DEC, token.SEMICOLON:
		return false
	}
	return true
}

// isMagic reports whether code starts with a magic (%, %%), a shell line
// (!) or a help request (?), which the engine handles before Go.
func isMagic(code string) bool {
	t := strings.TrimLeft(code, " \t\r\n")
	return t != "" && strings.ContainsRune("%!?", rune(t[0]))
}
