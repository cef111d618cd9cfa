package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/weft-mc/weft/kernel/display"
)

// Compiled cells. The interpreter computes some Go differently from Go
// (refuse.go) and cannot run other Go at all (generics, min and max,
// method values of pointer methods, packages fetched by %go get). Such a
// cell is compiled with the go toolchain, as GoNB does, and run in a child
// process:
//
//   - the program is the session's declarations (imports, types, funcs,
//     methods, consts and package vars of every cell that ran, the
//     latest declaration of each name), the cell's own declarations, and a
//     main function holding the cell's statements;
//   - the interpreter's variables the cell uses are declared with their
//     current values (carry.go), and package vars of compiled cells with
//     the values earlier compiled cells left them (pkgvars.go): their
//     initialisers and the compiled init functions run once;
//   - a cell of declarations only is compiled (so its errors show at once)
//     but not run: its initialisers run with the next compiled cell;
//   - names a compiled cell declares, and the packages fetched by %go get,
//     are known to compiled cells only: a later cell that uses one runs
//     compiled too. Interpreted cells keep their state as before;
//   - the cell's last expression, if it has one value, is shown as text.
//
// A crash, os.Exit or stack overflow ends the child, not the kernel. A
// cell that cannot be compiled (it uses display, bound only in the
// interpreter) is refused with the reason and the compiler's errors.
// weft's own packages are built from the kernel's module source
// (compiled.go: sourceModule).

// declSrc is one declaration of a cell, kept for compiled cells.
type declSrc struct {
	keys []string // names it declares; methods as Type.Method
	text string
	cell int // execution count of its cell, for positions
	line int // its line in that cell
	// compiled is true for a declaration of a compiled cell; others ran
	// in the interpreter, which holds their vars' values.
	compiled bool
	// ran is true for a compiled declaration a program ran: its init
	// functions and blank vars are not run again.
	ran bool
}

// sessionSource is what compiled cells are built from.
type sessionSource struct {
	decls   []declSrc
	imports map[string]string // import name -> path, of compiled cells
	// only are the names compiled cells know and the interpreter does not.
	only  map[string]bool
	cells int // cells executed, for positions of earlier declarations
	// vars are the values of compiled cells' package vars (pkgvars.go).
	vars map[string]pkgVarState
}

// declKeys returns the names a declaration introduces, methods as
// Recv.Name, and its pointer-receiver method names.
func declKeys(text string) (keys, ptrMethods []string) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				keys = append(keys, d.Name.Name)
				continue
			}
			t := d.Recv.List[0].Type
			star := false
			if s, ok := t.(*ast.StarExpr); ok {
				t, star = s.X, true
			}
			if ix, ok := t.(*ast.IndexExpr); ok {
				t = ix.X
			}
			if ix, ok := t.(*ast.IndexListExpr); ok {
				t = ix.X
			}
			if id, ok := t.(*ast.Ident); ok {
				keys = append(keys, id.Name+"."+d.Name.Name)
			}
			if star {
				ptrMethods = append(ptrMethods, d.Name.Name)
			}
		case *ast.GenDecl:
			keys = append(keys, genDeclNames(d)...)
		}
	}
	return keys, ptrMethods
}

// addDecl records a declaration, replacing earlier ones of its names.
func (s *sessionSource) addDecl(text string, line int, compiled, ran bool) {
	keys, _ := declKeys(text)
	s.forgetPkgVars(keys)
	s.decls = slices.DeleteFunc(s.decls, func(d declSrc) bool {
		return slices.ContainsFunc(d.keys, func(k string) bool { return k != "_" && k != "init" && slices.Contains(keys, k) })
	})
	s.decls = append(s.decls, declSrc{keys: keys, text: text, cell: s.cells, line: line, compiled: compiled, ran: ran})
	for _, k := range keys {
		if !strings.Contains(k, ".") {
			s.only[k] = compiled
		}
	}
}

// needed returns the earlier declarations the cell needs: those whose
// names it uses, transitively, with the methods of the types included,
// and every init function and blank var of compiled cells (as a program
// would run them; those of interpreted cells ran in the interpreter, and
// their effects are in the values carried). Declarations the cell
// redeclares (cellKeys) are left out. text gives a declaration's source
// as the program will hold it (an interpreted var's carried value).
func (s *sessionSource) needed(items []item, cellKeys []string, text func(declSrc) string) []declSrc {
	use := map[string]bool{}
	for _, it := range items {
		for _, id := range idents(it.text) {
			use[id] = true
		}
	}
	in := make([]bool, len(s.decls))
	for grew := true; grew; {
		grew = false
		for i, d := range s.decls {
			if in[i] || slices.ContainsFunc(d.keys, func(k string) bool { return k != "_" && k != "init" && slices.Contains(cellKeys, k) }) {
				continue
			}
			if !slices.ContainsFunc(d.keys, func(k string) bool {
				t, _, _ := strings.Cut(k, ".")
				return use[t] || (k == "init" || k == "_") && d.compiled && !d.ran
			}) {
				continue
			}
			in[i], grew = true, true
			for _, id := range idents(text(d)) {
				use[id] = true
			}
		}
	}
	var out []declSrc
	for i, d := range s.decls {
		if in[i] {
			out = append(out, d)
		}
	}
	return out
}

// compileReason says why the cell must run compiled, or "".
func (e *Engine) compileReason(items []item) string {
	var ptr []string
	for _, d := range e.src.decls {
		_, p := declKeys(d.text)
		ptr = append(ptr, p...)
	}
	cell := map[string]bool{}
	for _, it := range items {
		switch it.kind {
		case importItem:
			for _, s := range parseImports(it.text) {
				if e.fetched[canonical(s.path)] {
					return fmt.Sprintf("it imports %s, fetched by %%go get (such packages run compiled)", s.path)
				}
			}
		case declItem:
			keys, p := declKeys(it.text)
			ptr = append(ptr, p...)
			for _, k := range keys {
				cell[k] = true
			}
		}
	}
	for _, it := range items {
		for _, id := range idents(it.text) {
			if e.src.only[id] {
				return fmt.Sprintf("it uses %s, known to compiled cells only", id)
			}
		}
		if why := interpreterGap(it, ptr, func(n string) bool { return e.names[n] || cell[n] }); why != "" {
			return why
		}
	}
	return ""
}

// interpreterGap returns a construct of it the interpreter cannot run as
// Go does: type parameters, min, max and clear (unless the session
// declares them), and method values or expressions of pointer methods.
func interpreterGap(it item, ptrMethods []string, declared func(string) bool) string {
	src := "package p\n" + it.text
	if it.kind == stmtItem {
		src = "package p\nfunc _() {\n" + it.text + "\n}"
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return ""
	}
	if d := nesting(f); d > maxInterpretedNesting {
		return fmt.Sprintf("syntax nested %d deep (the interpreter's compiler recurses on nesting, and a stack overflow there would end the kernel: beyond %d levels cells run compiled)", d, maxInterpretedNesting)
	}
	called := map[ast.Expr]bool{}
	var why string
	ast.Inspect(f, func(n ast.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncType:
			if n.TypeParams != nil && len(n.TypeParams.List) > 0 {
				why = "type parameters (generics)"
			}
		case *ast.TypeSpec:
			if n.TypeParams != nil && len(n.TypeParams.List) > 0 {
				why = "type parameters (generics)"
			}
		case *ast.CallExpr:
			called[n.Fun] = true
			if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "min" || id.Name == "max" || id.Name == "clear") && !declared(id.Name) {
				why = "the builtin " + id.Name
			}
		case *ast.SelectorExpr:
			if !called[n] && slices.Contains(ptrMethods, n.Sel.Name) {
				why = "a method value or expression of the pointer method " + n.Sel.Name
			}
		}
		return true
	})
	return why
}

// maxInterpretedNesting is the deepest syntax tree the interpreter is
// given. yaegi's passes recurse on the tree in the kernel's own process,
// where a stack overflow is fatal; Go code written by hand is rarely
// nested 50 deep.
const maxInterpretedNesting = 400

// nesting returns the depth of the syntax tree n.
func nesting(n ast.Node) int {
	depth, deepest := 0, 0
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			depth--
			return true
		}
		depth++
		deepest = max(deepest, depth)
		return true
	})
	return deepest
}

// runCompiled builds the cell with the session's declarations and runs
// it in a child process. why says why it is not interpreted; fallback is
// the error to report if it cannot be built (nil: the compiler's).
func (e *Engine) runCompiled(ctx context.Context, items []item, why string, fallback error) (Result, error) {
	m, err := e.modules(ctx)
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted, timed out or stopped by the guard: say which.
			return Result{}, e.cellError(ctx, ctx.Err())
		}
		return Result{}, e.notCompiled(why, fallback, err)
	}
	dir := filepath.Join(m.dir, "weftcell")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, e.notCompiled(why, fallback, err)
	}
	p, err := e.cellProgram(items)
	if err != nil {
		return Result{}, err
	}
	show := p.show
	bin, out, err := e.buildCell(ctx, m.dir, dir, p.text(show), p.runs)
	if err != nil && show && p.showLine > 0 && strings.Contains(out, fmt.Sprintf("cell:%d:", p.showLine)) {
		// The last expression has no single value: run it as a statement.
		show = false
		bin, out, err = e.buildCell(ctx, m.dir, dir, p.text(false), p.runs)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, e.cellError(ctx, ctx.Err())
		}
		return Result{}, e.notCompiled(why, fallback, errors.New(strings.ReplaceAll(out, "weftcell/", "")+m.unpublished(out)))
	}
	fmt.Fprintf(e.io.stderr, "(compiled: %s)\n", why)
	var res Result
	if p.runs {
		if res, err = e.runChild(ctx, bin, show, p); err != nil {
			return Result{}, err
		}
		e.src.markRan(p.included)
	}
	e.noteCompiled(items, p.runs)
	return res, nil
}

// notCompiled is the error of a cell that could not be compiled.
func (e *Engine) notCompiled(why string, fallback, err error) error {
	if fallback != nil {
		// The interpreter's error, and why the go toolchain could not
		// build weft's packages, if that is why it failed too.
		ee, ok := fallback.(*Error)
		if _, note, found := strings.Cut(err.Error(), "\nthe cell imports packages of "); ok && found {
			note = "the go toolchain cannot build it either: the cell imports packages of " + note
			return &Error{Name: ee.Name, Value: ee.Value + "\n" + note, Traceback: append(slices.Clip(ee.Traceback), note)}
		}
		return fallback
	}
	msg := strings.TrimSpace(err.Error())
	return refusal("the cell must run compiled (%s), and it cannot be compiled:\n%s", why, msg)
}

// buildCell writes the program and builds it; out is the compiler's
// output. If link, bin is the executable, named by a digest of the
// program and the work module's go.mod and go.sum: a program built before
// in this session is not built again.
func (e *Engine) buildCell(ctx context.Context, work, dir, text string, link bool) (bin, out string, err error) {
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(text), 0o644); err != nil {
		return "", err.Error(), err
	}
	args := []string{"build", "./weftcell"}
	if link {
		h := sha256.New()
		h.Write([]byte(text))
		for _, f := range []string{"go.mod", "go.sum"} {
			b, _ := os.ReadFile(filepath.Join(work, f))
			h.Write(b)
		}
		bin = filepath.Join(dir, "cell-"+hex.EncodeToString(h.Sum(nil))[:20])
		if _, err := os.Stat(bin); err == nil {
			return bin, "", nil
		}
		args = []string{"build", "-o", bin, "./weftcell"}
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err = cmd.Run()
	var keep []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l != "" && !strings.HasPrefix(l, "# ") {
			keep = append(keep, l)
		}
	}
	return bin, strings.Join(keep, "\n"), err
}

// runChild runs the built cell; its output goes to the cell's streams.
func (e *Engine) runChild(ctx context.Context, bin string, show bool, p *cellProg) (Result, error) {
	val, err := os.CreateTemp("", "weft-value-")
	if err != nil {
		return Result{}, magicError("compiled cell: %v", err)
	}
	defer os.Remove(val.Name())
	defer val.Close()
	vars, err := os.CreateTemp("", "weft-vars-")
	if err != nil {
		return Result{}, magicError("compiled cell: %v", err)
	}
	defer os.Remove(vars.Name())
	defer vars.Close()
	// The child gets an address-space limit of the kernel's heap limit:
	// a cell that allocates without bound fails in its own process.
	limit := strconv.FormatUint(max(e.heapLimit/1024, 1<<20), 10)
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "ulimit -v "+limit+" && exec \"$0\"", bin)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = e.io.stdout, &tailWriter{w: e.stderr.w, buf: &stderr}
	cmd.Stdin = nil
	cmd.ExtraFiles = []*os.File{val, vars}
	err = cmd.Run()
	if ctx.Err() != nil {
		return Result{}, e.cellError(ctx, ctx.Err())
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return Result{}, childError(exit.ExitCode(), stderr.String())
	}
	if err != nil {
		return Result{}, magicError("compiled cell: %v", err)
	}
	if b, err := os.ReadFile(vars.Name()); err == nil {
		if err := e.takeBack(string(b), p.funcLits()); err != nil {
			return Result{}, err
		}
	}
	if !show {
		return Result{}, nil
	}
	b, err := os.ReadFile(val.Name())
	if err != nil || len(b) == 0 {
		return Result{}, nil
	}
	return Result{HasValue: true, Data: display.Data{Data: map[string]any{display.MIMETypeText: string(b)}}}, nil
}

// childError names how a compiled cell's process ended.
func childError(code int, stderr string) error {
	name, v := "Exit", fmt.Sprintf("the compiled cell exited with status %d", code)
	switch {
	case strings.Contains(stderr, "stack overflow") || strings.Contains(stderr, "stack exceeds"):
		name, v = "StackOverflow", "the compiled cell's stack overflowed (its process died)"
	case outOfMemory(stderr) && (strings.Contains(stderr, "runtime.newstack") || strings.Contains(stderr, "runtime.copystack")):
		// Under the address-space limit a runaway recursion runs out of
		// memory growing its stack before Go's 1 GB stack limit.
		name, v = "StackOverflow", "the compiled cell's stack overflowed: growing it ran out of memory (its process died)"
	case outOfMemory(stderr):
		name, v = "MemoryError", "the compiled cell ran out of memory (its process died)"
	case code == 2 && strings.Contains(stderr, "panic: "):
		_, rest, _ := strings.Cut(stderr, "panic: ")
		name, v = "panic", strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0])
	}
	v += "; the kernel and the session's variables are kept, as they were before the cell"
	return &Error{Name: name, Value: v, Traceback: []string{name + ": " + v}}
}

// outOfMemory reports whether a Go process's stderr says it ran out of memory.
func outOfMemory(stderr string) bool {
	return strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory")
}

// tailWriter forwards writes and keeps the first 64 KiB.
type tailWriter struct {
	w   interface{ Write([]byte) (int, error) }
	buf *bytes.Buffer
}

func (t *tailWriter) Write(p []byte) (int, error) {
	if t.buf.Len() < 64<<10 {
		t.buf.Write(p)
	}
	return t.w.Write(p)
}

// noteCompiled records what a compiled cell declared and imported; ran
// tells whether its program ran (its init functions did).
func (e *Engine) noteCompiled(items []item, ran bool) {
	e.src.cells++
	for _, it := range items {
		switch it.kind {
		case importItem:
			for _, s := range parseImports(it.text) {
				n := e.specName(s)
				e.src.imports[n] = canonical(s.path)
				if e.fetched[canonical(s.path)] {
					e.src.only[n] = true
				}
			}
		case declItem:
			e.src.addDecl(it.text, it.line, true, ran)
		}
	}
}

// noteInterpreted records the declarations of an interpreted run.
func (e *Engine) noteInterpreted(text string, line int) {
	for _, it := range splitCell(text) {
		if it.kind == declItem {
			e.src.addDecl(it.text, line+it.line-1, false, false)
		}
	}
}

// cellProg is a compiled cell's program.
type cellProg struct {
	imports  map[string]string // name -> path
	decls    []string          // with //line directives
	stmts    []string
	last     string // the last expression, "" if none
	lastLine int
	show     bool // try to show last's value
	showLine int
	runs     bool // the cell has statements
	uses     map[string]bool
	// carried are the interpreter's variables declared with their
	// values; the child reports those the cell changed.
	carried []string
	// prelude starts main: checks of compiled package vars' digests and
	// values kept for them (pkgvars.go).
	prelude []string
	// pkgVars are the compiled package vars the child reports.
	pkgVars []pkgVar
	// included are the compiled declarations of earlier cells it holds.
	included []declSrc
}

// cellProgram assembles the program of a compiled cell.
func (e *Engine) cellProgram(items []item) (*cellProg, error) {
	p := &cellProg{imports: map[string]string{}, uses: map[string]bool{}}
	for n, path := range e.imported {
		if !strings.HasPrefix(n, "_weft_") && n != "display" && path != DisplayPath {
			p.imports[n] = path
		}
	}
	for n, path := range e.src.imports {
		p.imports[n] = path
	}
	for _, s := range e.autoImports(items) {
		p.imports[s.name] = s.path
	}
	var cellKeys []string
	for _, it := range items {
		if it.kind == declItem {
			k, _ := declKeys(it.text)
			cellKeys = append(cellKeys, k...)
		}
	}
	vars, err := e.carried(items, cellKeys, p.imports)
	if err != nil {
		return nil, err
	}
	for _, d := range vars.decls {
		text := vars.text(d)
		if d.compiled {
			var assign, checks []string
			if text, assign, checks, err = e.src.compiledVarText(d); err != nil {
				return nil, err
			}
			p.prelude = append(append(p.prelude, checks...), assign...)
			p.pkgVars = append(p.pkgVars, compiledPkgVars(d.text)...)
			p.included = append(p.included, d)
		}
		p.decls = append(p.decls, fmt.Sprintf("//line cell#%d:%d:1\n%s", d.cell, d.line, text))
	}
	p.decls = append(p.decls, vars.stmtVars...)
	for n, path := range vars.c.add {
		p.imports[n] = path
	}
	p.carried = vars.names
	sessionFuncs := map[string]int{} // results of session functions
	for i, it := range items {
		switch {
		case it.kind == importItem:
			for _, s := range parseImports(it.text) {
				p.imports[e.specName(s)] = canonical(s.path)
			}
		case it.kind == declItem:
			p.decls = append(p.decls, fmt.Sprintf("//line cell:%d:1\n%s", it.line, it.text))
			p.pkgVars = append(p.pkgVars, compiledPkgVars(it.text)...)
		case i == len(items)-1 && isExpr(it.text):
			p.last, p.lastLine, p.runs = it.text, it.line, true
		default:
			p.stmts = append(p.stmts, fmt.Sprintf("//line cell:%d:1\n%s", it.line, it.text))
			p.runs = true
		}
	}
	for _, d := range p.decls {
		for n, r := range funcResults(d) {
			sessionFuncs[n] = r
		}
	}
	if p.last != "" {
		p.show, p.showLine = true, p.lastLine
		if x, err := parser.ParseExpr(p.last); err == nil {
			if c, ok := x.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok {
					if r, ok := sessionFuncs[id.Name]; ok {
						p.show = r == 1
					}
					if voidBuiltins[id.Name] {
						p.show = false
					}
				}
			}
		}
	}
	return p, nil
}

// funcResults returns the number of results of the functions of a declaration.
func funcResults(text string) map[string]int {
	out := map[string]int{}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution)
	if err != nil {
		return out
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
			out[fd.Name.Name] = fd.Type.Results.NumFields()
		}
	}
	return out
}

// text renders the program; show wraps the last expression to report its value.
func (p *cellProg) text(show bool) string {
	var body strings.Builder
	for _, d := range p.decls {
		body.WriteString(d + "\n\n")
	}
	if p.runs {
		p.mainFunc(&body, show)
	}
	used := selectorNames(body.String())
	var b strings.Builder
	// Declarations alone are compiled as a library package: type-checked,
	// not linked.
	name := "weftcell"
	if p.runs {
		name = "main"
	}
	fmt.Fprintf(&b, "package %s\n\nimport (\n", name)
	names := make([]string, 0, len(p.imports))
	for n := range p.imports {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if used[n] || n == "_" {
			fmt.Fprintf(&b, "\t%s %q\n", n, p.imports[n])
		}
	}
	if show || (p.runs && p.reports()) {
		b.WriteString("\t_weft_fmt \"fmt\"\n\t_weft_os \"os\"\n")
	}
	if p.runs && p.reports() {
		b.WriteString("\t_weft_rt \"reflect\"\n")
	}
	if p.runs && len(p.pkgVars) > 0 {
		b.WriteString("\t_weft_strs \"strings\"\n\t_weft_sha \"crypto/sha256\"\n\t_weft_sort \"sort\"\n")
	}
	b.WriteString(")\n\n")
	b.WriteString(body.String())
	return b.String()
}

// mainFunc writes main: the cell's statements, then its last
// expression, then the report of the variables it changed or defined.
func (p *cellProg) mainFunc(body *strings.Builder, show bool) {
	body.WriteString("func main() {\n")
	for _, s := range p.prelude {
		body.WriteString(s + "\n")
	}
	if len(p.pkgVars) > 0 {
		body.WriteString("_weft_start := []string{")
		for _, v := range p.pkgVars {
			fmt.Fprintf(body, "_weft_digest(&%s, true), ", v.name)
		}
		body.WriteString("}\n")
	}
	defined := definedVars(p.stmts)
	if len(p.carried) > 0 {
		body.WriteString("_weft_was := []string{")
		for _, n := range p.carried {
			fmt.Fprintf(body, "_weft_fmt.Sprintf(\"%%#v\", %s), ", n)
		}
		body.WriteString("}\n")
	}
	for _, s := range p.stmts {
		body.WriteString(s + "\n")
	}
	for _, v := range defined {
		body.WriteString("_ = " + v + "\n")
	}
	if p.last != "" {
		fmt.Fprintf(body, "//line cell:%d:1\n", p.lastLine)
		if show {
			body.WriteString("_weft_show(" + p.last + ")\n")
		} else {
			body.WriteString(p.last + "\n")
		}
	}
	if p.reports() {
		body.WriteString("_weft_f := _weft_os.NewFile(4, \"vars\")\n")
		for i, n := range p.carried {
			fmt.Fprintf(body, "if _weft_fmt.Sprintf(\"%%#v\", %s) != _weft_was[%d] {\n_weft_report(_weft_f, \"set\", %q, %s)\n}\n", n, i, n, n)
		}
		for _, n := range defined {
			fmt.Fprintf(body, "_weft_report(_weft_f, \"def\", %q, %s)\n", n, n)
		}
		for i, v := range p.pkgVars {
			fmt.Fprintf(body, "_weft_keep(_weft_f, %q, &%s, _weft_start[%d])\n", v.name, v.name, i)
		}
		body.WriteString("_weft_f.Close()\n")
	}
	body.WriteString("}\n")
	if show {
		body.WriteString(showFunc)
	}
	if p.reports() {
		body.WriteString(reportFunc)
	}
	if len(p.pkgVars) > 0 {
		body.WriteString(digestFunc)
	}
}

// reports tells whether main reports variables to the kernel.
func (p *cellProg) reports() bool {
	return len(p.carried) > 0 || len(definedVars(p.stmts)) > 0 || len(p.pkgVars) > 0
}

// funcLits tells, for each compiled package var, whether its initialiser
// is a func literal.
func (p *cellProg) funcLits() map[string]bool {
	out := map[string]bool{}
	for _, v := range p.pkgVars {
		out[v.name] = v.funcLit
	}
	return out
}

// reportFunc writes a variable's new value to the kernel (fd 4), as a Go
// literal when it has one: "set|def NAME TYPE LITERAL", else "lost NAME
// WHY".
const reportFunc = `
func _weft_report(f *_weft_os.File, how, name string, v any) {
	if why := _weft_noLiteral(_weft_rt.ValueOf(v)); why != "" {
		_weft_fmt.Fprintf(f, "lost\t%s\t%s\n", name, why)
		return
	}
	_weft_fmt.Fprintf(f, "%s\t%s\t%T\t%#v\n", how, name, v, v)
}

func _weft_noLiteral(v _weft_rt.Value) string {
	if v.IsValid() && (v.Type().Implements(_weft_rt.TypeOf((*_weft_fmt.GoStringer)(nil)).Elem()) ||
		v.Type().Implements(_weft_rt.TypeOf((*_weft_fmt.Formatter)(nil)).Elem())) {
		return "its type formats itself (GoString or Format)"
	}
	switch v.Kind() {
	case _weft_rt.Invalid:
		return "it is nil"
	case _weft_rt.Bool, _weft_rt.Int, _weft_rt.Int8, _weft_rt.Int16, _weft_rt.Int32, _weft_rt.Int64,
		_weft_rt.Uint, _weft_rt.Uint8, _weft_rt.Uint16, _weft_rt.Uint32, _weft_rt.Uint64, _weft_rt.Uintptr, _weft_rt.String:
		return ""
	case _weft_rt.Complex64, _weft_rt.Complex128:
		if c := v.Complex(); real(c) != real(c) || imag(c) != imag(c) || real(c)-real(c) != 0 || imag(c)-imag(c) != 0 {
			return "its value has no Go constant"
		}
		return ""
	case _weft_rt.Float32, _weft_rt.Float64:
		if f := v.Float(); f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 || (f == 0 && 1/f < 0) {
			return "its value has no Go constant"
		}
		return ""
	case _weft_rt.Slice, _weft_rt.Array:
		for i := 0; i < v.Len(); i++ {
			if why := _weft_noLiteral(v.Index(i)); why != "" {
				return why
			}
		}
		return ""
	case _weft_rt.Map:
		for it := v.MapRange(); it.Next(); {
			if why := _weft_noLiteral(it.Key()); why != "" {
				return why
			}
			if why := _weft_noLiteral(it.Value()); why != "" {
				return why
			}
		}
		return ""
	case _weft_rt.Struct:
		if v.Type().PkgPath() != "" && v.Type().PkgPath() != "main" {
			return "it is a struct of package " + v.Type().PkgPath()
		}
		for i := 0; i < v.NumField(); i++ {
			if why := _weft_noLiteral(v.Field(i)); why != "" {
				return why
			}
		}
		return ""
	}
	return "it is a " + v.Kind().String()
}
`

// selectorNames returns the names used as X in X.Sel in Go source.
func selectorNames(body string) map[string]bool {
	out := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+body, parser.SkipObjectResolution)
	if err != nil {
		// Keep every import: the compiler reports the syntax error.
		for _, id := range idents(body) {
			out[id] = true
		}
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				out[id.Name] = true
			}
		}
		return true
	})
	return out
}

// definedVars returns the variables the top-level statements define
// (x := …, var x …): main uses them so Go does not reject them as unused.
func definedVars(stmts []string) []string {
	src := "package p\nfunc _() {\n" + strings.Join(stmts, "\n") + "\n}"
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []string
	for _, s := range f.Decls[0].(*ast.FuncDecl).Body.List {
		switch s := s.(type) {
		case *ast.AssignStmt:
			if s.Tok == token.DEFINE {
				for _, x := range s.Lhs {
					if id, ok := x.(*ast.Ident); ok && id.Name != "_" && !strings.HasPrefix(id.Name, redefPrefix) {
						out = append(out, id.Name)
					}
				}
			}
		case *ast.DeclStmt:
			if g, ok := s.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, n := range genDeclNames(g) {
					if n != "_" {
						out = append(out, n)
					}
				}
			}
		}
	}
	return out
}

// showFunc reports the last expression's value to the kernel on fd 3.
const showFunc = `
func _weft_show[T any](v T) {
	if any(v) == nil {
		return
	}
	f := _weft_os.NewFile(3, "value")
	_weft_fmt.Fprint(f, v)
	f.Close()
}
`
