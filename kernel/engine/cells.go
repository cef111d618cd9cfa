package engine

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
)

// kind classifies a top-level item of a cell.
type kind int

const (
	stmtItem   kind = iota // statement or expression, run in order
	declItem               // func, type, var or const declaration
	importItem             // import declaration
)

// item is one top-level statement or declaration of a cell.
type item struct {
	kind kind
	text string
	line int // 1-based line of the item's start in the cell
}

// splitCell cuts src into top-level items at semicolons (explicit or
// inserted at line ends) outside brackets. yaegi evaluates either a run of
// declarations or a run of statements, not a mix, so the engine evaluates
// each run separately. A cell that does not scan is returned whole.
func splitCell(src string) []item {
	fset := token.NewFileSet()
	file := fset.AddFile("cell", -1, len(src))
	var s scanner.Scanner
	bad := false
	s.Init(file, []byte(src), func(token.Position, string) { bad = true }, 0)
	var items []item
	depth, start, header := 0, -1, false
	var first token.Token
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		off := file.Offset(pos)
		switch {
		case start < 0 && tok == token.SEMICOLON:
			continue
		case start < 0:
			start, first = off, tok
		}
		// Semicolons in the header of for, if and switch belong to the
		// statement: the header ends at its block's brace.
		switch {
		case depth == 0 && (tok == token.FOR || tok == token.IF || tok == token.SWITCH):
			header = true
		case depth == 0 && tok == token.LBRACE:
			header = false
		}
		depth += bracketDelta(tok)
		if depth == 0 && tok == token.SEMICOLON && !header {
			items = append(items, newItem(src[start:off], first, file.Line(file.Pos(start))))
			start = -1
		}
	}
	if start >= 0 {
		items = append(items, newItem(src[start:], first, file.Line(file.Pos(start))))
	}
	if bad || depth != 0 {
		return []item{{kind: kindOf(firstToken(src)), text: src, line: 1}}
	}
	return items
}

func newItem(text string, first token.Token, line int) item {
	text = strings.TrimRight(text, " \t\r\n;")
	k := kindOf(first)
	if first == token.FUNC && funcLitStmt(text) {
		k = stmtItem
	}
	return item{kind: k, text: text, line: line}
}

// funcLitStmt reports whether text, which starts with func, is a
// statement (a function literal called, `func() { … }()`), not a
// function or method declaration. Taken for a declaration, the literal
// ran more than once.
func funcLitStmt(text string) bool {
	if _, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution); err == nil {
		return false
	}
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+text+"\n}", parser.SkipObjectResolution)
	return err == nil
}

func kindOf(t token.Token) kind {
	switch t {
	case token.IMPORT:
		return importItem
	case token.FUNC, token.TYPE, token.VAR, token.CONST:
		return declItem
	}
	return stmtItem
}

func firstToken(src string) token.Token {
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, 0)
	for {
		_, tok, _ := s.Scan()
		if tok != token.SEMICOLON {
			return tok
		}
	}
}

func bracketDelta(t token.Token) int {
	switch t {
	case token.LPAREN, token.LBRACK, token.LBRACE:
		return 1
	case token.RPAREN, token.RBRACK, token.RBRACE:
		return -1
	}
	return 0
}

// group is a run of items of one class evaluated by one yaegi Eval.
type group struct {
	decl    bool
	imports bool // the run holds only imports so far
	text    string
	line    int // line of the run's first item
	// shifts are the texts the engine inserted on the run's lines
	// (scopeBlocks), lines counted from the run's first.
	shifts []colShift
}

// groups joins consecutive items into runs of declarations and runs of
// statements. Imports must open a file, so an import after another
// declaration starts a new run. Line breaks are kept so that positions in
// error messages match the cell.
func groups(items []item) []group {
	var out []group
	for _, it := range items {
		decl := it.kind != stmtItem
		n := len(out)
		if n > 0 && out[n-1].decl == decl && (it.kind != importItem || out[n-1].imports) {
			g := &out[n-1]
			end := g.line + strings.Count(g.text, "\n")
			g.text += strings.Repeat("\n", max(1, it.line-end)) + it.text
			g.imports = g.imports && it.kind == importItem
			continue
		}
		out = append(out, group{decl: decl, imports: it.kind == importItem, text: it.text, line: it.line})
	}
	return out
}

// unshift maps a column of the cell's line, in the text the interpreter
// was given, to the column in the cell's own text.
func (g group) unshift(line, col int) int {
	out := col
	for _, s := range g.shifts {
		if g.line+s.line-1 != line || s.col > col {
			continue
		}
		if col < s.col+s.n {
			out -= col - s.col // inside the inserted text: its start
		} else {
			out -= s.n
		}
	}
	return out
}

// source returns the run's text padded so its first line has its cell line number.
func (g group) source() string { return strings.Repeat("\n", g.line-1) + g.text }

// importSpec is one imported package: the name the import gives it ("" if
// none: the package's declared name, see Engine.packageName) and its path.
type importSpec struct{ name, path string }

// parseImports returns the specs of an import item, or nil if it does not parse.
func parseImports(text string) []importSpec {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.ImportsOnly)
	if err != nil {
		return nil
	}
	var out []importSpec
	for _, s := range f.Imports {
		p, err := strconv.Unquote(s.Path.Value)
		if err != nil {
			return nil
		}
		name := ""
		if s.Name != nil {
			name = s.Name.Name
		}
		out = append(out, importSpec{name: name, path: p})
	}
	return out
}

// importText renders specs as one import declaration.
func importText(specs []importSpec) string {
	var b strings.Builder
	b.WriteString("import (")
	for _, s := range specs {
		if s.name != "" {
			b.WriteString(" " + s.name)
		}
		b.WriteString(" " + strconv.Quote(s.path) + ";")
	}
	b.WriteString(" )")
	return b.String()
}

// declaredNames returns the names a declaration item introduces.
func declaredNames(text string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			out = append(out, genDeclNames(d)...)
		}
	}
	return out
}

// declaredTypes returns the type names a run of declarations introduces.
func declaredTypes(text string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			out = append(out, genDeclNames(g)...)
		}
	}
	return out
}

func genDeclNames(d *ast.GenDecl) []string {
	var out []string
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			out = append(out, s.Name.Name)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

// isExpr reports whether text is a single Go expression.
func isExpr(text string) bool {
	_, err := parser.ParseExpr(text)
	return err == nil
}
