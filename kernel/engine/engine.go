// Package engine evaluates Go cells for weft's Jupyter kernel with the
// yaegi interpreter. State persists from cell to cell. The engine never
// touches sockets: each Execute gets a Publisher for the cell's streams
// and displays.
package engine

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
	"github.com/traefik/yaegi/stdlib/unsafe"

	"github.com/weft-mc/weft/kernel/display"
)

// DisplayPath is the import path of weft's display package.
const DisplayPath = "github.com/weft-mc/weft/kernel/display"

// Publisher receives what a running cell produces.
type Publisher interface {
	// Stream sends text written to "stdout" or "stderr".
	Stream(name, text string)
	// Display and Update send display_data and update_display_data.
	display.Output
	// Clear sends clear_output.
	Clear(wait bool) error
	// Input asks the front end for a line of input (without the newline);
	// it fails if the front end does not allow input.
	Input(prompt string, password bool) (string, error)
}

// Options configure an Engine.
type Options struct {
	// Symbols are extra compiled packages to bind, e.g. symbols.Exports().
	// The standard library and the display package are always bound.
	Symbols []interp.Exports
	// GoPath is where yaegi looks for source packages; "" disables that.
	GoPath string
	// CellMemory is the heap size at which the guard stops a running
	// cell (MemoryError), and the address-space limit of a compiled
	// cell's process; 0 means three quarters of the system's memory.
	CellMemory uint64
	// CellMemorySetting names where a user sets CellMemory (the kernel:
	// "WEFT_CELL_MEMORY"), for the messages of cells stopped at it; ""
	// names none.
	CellMemorySetting string
	// Probe makes the command of a compiler probe: a process that calls
	// ServeProbe with these options and the pipes it gets as its file
	// descriptors 3 (requests) and 4 (replies). Every source is compiled
	// there first, so that a crash of yaegi's compiler ends the probe,
	// not the kernel (probe.go). nil: sources are compiled in-process.
	Probe func() *exec.Cmd
	_     struct{}
}

// Engine is one interpreter session. Execute calls are serialised.
type Engine struct {
	mu     sync.Mutex // held by Execute
	in     *interp.Interpreter
	io     *cellIO
	stderr *pipeStream // os.Stderr of cells
	// line1Decl tells whether the running cell's first line is in a run
	// of declarations (yaegi's wrapper there is shorter).
	line1Decl bool
	imported  map[string]string // bound package name -> canonical path
	names     map[string]bool   // names declared by cells
	packages  map[string]bool   // every bound import path
	pkgNames  map[string]string // bound import path -> its package's declared name
	gopath    string            // where %go get links module sources; "" disables it
	timeout   time.Duration     // %timeout: 0 means none
	// cellTimeout is the running cell's timeout.
	cellTimeout time.Duration
	docs        map[string]string // go doc output by symbol
	checked     map[string]error  // checkSource's verdict by package path
	heapLimit   uint64            // the guard stops a cell whose heap passes it
	heapSetting string            // where heapLimit comes from, for its message
	ctxMu       sync.Mutex
	cellCtx     context.Context         // the running cell's context (display.Context)
	stopCell    context.CancelCauseFunc // cancels the running cell (alloc.go)
	mods        *modSession             // the work module of compiled packages, made at first use
	fetched     map[string]bool         // packages fetched by %go get: used by compiled cells only
	src         sessionSource           // what compiled cells are built from (cellbuild.go)
	probeCmd    func() *exec.Cmd
	probe       *probeProc // the running compiler probe, if any (probe.go)
	probeLog    []string   // the sources given to the probe, in order
	probeBroken string     // why no probe can be started any more
}

// cellContext is the running cell's context: cancelled when the cell is
// interrupted, so long compiled work (mcsdk.Campaign) can stop promptly.
func (e *Engine) cellContext() context.Context {
	e.ctxMu.Lock()
	defer e.ctxMu.Unlock()
	if e.cellCtx == nil {
		return context.Background()
	}
	return e.cellCtx
}

// Result is what a cell evaluated to.
type Result struct {
	// HasValue is false when the cell's last statement is not an
	// expression with one non-nil value.
	HasValue bool
	Data     display.Data
	// Page is help text ?NAME asked for (the execute_reply's page payload).
	Page string
}

// Error is a failed cell: the protocol's ename, evalue and traceback.
type Error struct {
	Name      string
	Value     string
	Traceback []string
}

func (e *Error) Error() string { return e.Name + ": " + e.Value }

// New starts an interpreter with the standard library, the display package
// (importable as "display", gophernotes-style, and by its full path, and
// imported by default) and opts.Symbols bound.
func New(opts Options) (*Engine, error) {
	e := &Engine{
		imported: map[string]string{},
		names:    map[string]bool{},
		packages: map[string]bool{},
		pkgNames: map[string]string{},
		checked:  map[string]error{},
		fetched:  map[string]bool{},
		src:      sessionSource{imports: map[string]string{}, only: map[string]bool{}, vars: map[string]pkgVarState{}},
		docs:     map[string]string{},
		gopath:   opts.GoPath,
		probeCmd: opts.Probe,
	}
	e.heapLimit, e.heapSetting = heapLimit(opts.CellMemory, opts.CellMemorySetting)
	if opts.GoPath != "" {
		if err := os.MkdirAll(filepath.Join(opts.GoPath, "src"), 0o755); err != nil {
			return nil, fmt.Errorf("engine: GoPath: %w", err)
		}
	}
	e.io = newCellIO()
	stderr, err := newPipeStream(e.io.stderr)
	if err != nil {
		return nil, fmt.Errorf("engine: stderr pipe: %w", err)
	}
	e.stderr = stderr
	e.in = interp.New(interp.Options{
		// Cells see the kernel's environment, as a Go program would (yaegi
		// otherwise gives interpreted code an empty one).
		Env:    os.Environ(),
		GoPath: opts.GoPath,
		// go/build's file selection, //go:build lines included.
		SourcecodeFilesystem: newSourceFS(),
		Stdout:               e.io.stdout, Stderr: stderr.w, Stdin: e.io.stdin,
	})
	tables := append(append([]interp.Exports{stdlib.Symbols, exitExports(), e.allocExports(), unsafe.Symbols}, opts.Symbols...), e.displayExports())
	for _, t := range tables {
		if err := e.in.Use(t); err != nil {
			return nil, fmt.Errorf("engine: bind symbols: %w", err)
		}
		e.noteBound(t)
	}
	if _, err := e.in.Eval(prelude); err != nil {
		return nil, fmt.Errorf("engine: prelude: %w", err)
	}
	e.imported["display"] = DisplayPath
	e.imported["_weft_display"] = DisplayPath
	return e, nil
}

// prelude imports display and defines the renderer of last values: type
// switches run inside the interpreter, where methods of interpreted types
// are visible. yaegi v0.16.1 gets comma-ok tests right but panics
// when it converts an interpreted value to an interpreted interface in an
// assertion, and its type switches match too loosely; a comma-ok test
// guarding a one-case type switch works.
const prelude = `import (
	"display"
	_weft_fmt "fmt"
	_weft_os "os"
	_weft_display "github.com/weft-mc/weft/kernel/display"
	_weft_hook "weft.internal/hook"
	_weft_alloc "weft.internal/alloc"
)

// Display shows d now, as gophernotes's top-level Display does.
func Display(d _weft_display.Data) error { return _weft_display.Display(d) }

func _weft_recover() {
	if r := recover(); r != nil {
		_weft_hook.GoroutinePanic(r)
	}
}

type (
	_weft_Render interface{ Render() _weft_display.Data }
	_weft_SimpleRender interface{ SimpleRender() map[string]interface{} }
	_weft_HTML interface{ HTML() string }
	_weft_Markdown interface{ Markdown() string }
	_weft_SVG interface{ SVG() string }
	_weft_Latex interface{ Latex() string }
	_weft_JavaScript interface{ JavaScript() string }
	_weft_PNG interface{ PNG() []byte }
	_weft_JPEG interface{ JPEG() []byte }
	_weft_PDF interface{ PDF() []byte }
	_weft_JSON interface{ JSON() map[string]interface{} }
)

func _weft_render(v interface{}, text string) _weft_display.Data {
	if v == nil {
		return _weft_display.Data{}
	}
	switch d := v.(type) {
	case _weft_display.Data:
		return _weft_display.Auto(d)
	}
	parts := []_weft_display.Data{{Data: map[string]interface{}{"text/plain": text}}}
	if _, ok := v.(_weft_Render); ok {
		switch x := v.(type) {
		case _weft_Render:
			parts = append(parts, x.Render())
		}
	}
	if _, ok := v.(_weft_SimpleRender); ok {
		switch x := v.(type) {
		case _weft_SimpleRender:
			parts = append(parts, _weft_display.Data{Data: x.SimpleRender()})
		}
	}
	if _, ok := v.(_weft_HTML); ok {
		switch x := v.(type) {
		case _weft_HTML:
			parts = append(parts, _weft_display.Data{Data: map[string]interface{}{"text/html": x.HTML()}})
		}
	}
	if _, ok := v.(_weft_Markdown); ok {
		switch x := v.(type) {
		case _weft_Markdown:
			parts = append(parts, _weft_display.Data{Data: map[string]interface{}{"text/markdown": x.Markdown()}})
		}
	}
	if _, ok := v.(_weft_SVG); ok {
		switch x := v.(type) {
		case _weft_SVG:
			parts = append(parts, _weft_display.Data{Data: map[string]interface{}{"image/svg+xml": x.SVG()}})
		}
	}
	if _, ok := v.(_weft_Latex); ok {
		switch x := v.(type) {
		case _weft_Latex:
			parts = append(parts, _weft_display.Data{Data: map[string]interface{}{"text/latex": x.Latex()}})
		}
	}
	if _, ok := v.(_weft_JavaScript); ok {
		switch x := v.(type) {
		case _weft_JavaScript:
			parts = append(parts, _weft_display.Data{Data: map[string]interface{}{"application/javascript": x.JavaScript()}})
		}
	}
	if _, ok := v.(_weft_PNG); ok {
		switch x := v.(type) {
		case _weft_PNG:
			parts = append(parts, _weft_display.Data{Data: map[string]interface{}{"image/png": x.PNG()}})
		}
	}
	if _, ok := v.(_weft_JPEG); ok {
		switch x := v.(type) {
		case _weft_JPEG:
			parts = append(parts, _weft_display.Data{Data: map[string]interface{}{"image/jpeg": x.JPEG()}})
		}
	}
	if _, ok := v.(_weft_PDF); ok {
		switch x := v.(type) {
		case _weft_PDF:
			parts = append(parts, _weft_display.Data{Data: map[string]interface{}{"application/pdf": x.PDF()}})
		}
	}
	if _, ok := v.(_weft_JSON); ok {
		switch x := v.(type) {
		case _weft_JSON:
			parts = append(parts, _weft_display.Data{Data: map[string]interface{}{"application/json": x.JSON()}})
		}
	}
	return _weft_display.Merge(v, parts...)
}`

// displayExports binds the display package under both import paths, with
// its output functions bound to whichever cell is running.
func (e *Engine) displayExports() interp.Exports {
	full := DisplayPath + "/display"
	syms := map[string]reflect.Value{}
	for k, v := range displaySymbols() {
		syms[k] = v
	}
	f := display.Bind(e.io)
	syms["Display"] = reflect.ValueOf(f.Display)
	syms["Update"] = reflect.ValueOf(f.Update)
	syms["Show"] = reflect.ValueOf(f.Show)
	syms["NewProgress"] = reflect.ValueOf(f.NewProgress)
	syms["ClearOutput"] = reflect.ValueOf(f.ClearOutput)
	syms["Context"] = reflect.ValueOf(e.cellContext)
	hook := map[string]reflect.Value{
		"GoroutinePanic": reflect.ValueOf(func(r any) {
			fmt.Fprintf(e.io.stderr, "panic in goroutine (recovered by the kernel): %v\n", r)
			if a, ok := r.(*allocError); ok {
				e.stopRunningCell(a)
			}
		}),
	}
	return interp.Exports{full: syms, "display/display": syms, "weft.internal/hook/hook": hook}
}

// Close releases the engine's stderr pipe. The engine must not be used after.
func (e *Engine) Close() error {
	e.stopProbe()
	if e.mods != nil {
		os.RemoveAll(e.mods.dir)
		if e.mods.lock != nil {
			e.mods.lock.Close()
		}
	}
	return e.stderr.Close()
}

// Execute evaluates code. Output goes to pub while the cell runs. A
// cancelled ctx interrupts the cell (an *Error named "Interrupted"); the
// engine stays usable. Errors in the cell are *Error values.
func (e *Engine) Execute(ctx context.Context, code string, pub Publisher) (Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.io.attach(pub)
	defer e.io.detach()
	defer e.stderr.sync() // before detach: the cell's stderr reaches its stream
	e.cellTimeout = e.timeout
	if e.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.timeout)
		defer cancel()
	}
	ctx, stopCell := context.WithCancelCause(ctx)
	defer stopCell(nil)
	defer guard(stopCell, e.heapLimit, e.heapSetting)()
	e.ctxMu.Lock()
	e.cellCtx, e.stopCell = workOf(ctx), stopCell
	e.ctxMu.Unlock()
	code, page, timeCell, err := e.cellMagics(ctx, code)
	if err != nil {
		return Result{}, err
	}
	start := time.Now()
	res, err := e.onFreshStack(ctx, code)
	if timeCell {
		fmt.Fprintf(e.io.stdout, "time: %v\n", time.Since(start).Round(time.Microsecond))
	}
	res.Page = page
	return res, err
}

// onFreshStack evaluates the Go code of a cell on a goroutine of its own,
// so that the stack a deep recursion grew is freed with the cell and the
// guard's stack limit applies to each cell afresh.
func (e *Engine) onFreshStack(ctx context.Context, code string) (Result, error) {
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := e.goCode(ctx, code)
		done <- outcome{res, err}
	}()
	o := <-done
	return o.res, o.err
}

// goCode evaluates the Go code of a cell.
func (e *Engine) goCode(ctx context.Context, code string) (Result, error) {
	res, err := e.goItems(ctx, code)
	return res, e.clearerError(code, err)
}

// yaegiUndefined matches yaegi's messages for a name that is not defined.
var yaegiUndefined = regexp.MustCompile(`incomplete type |constant definition loop`)

// clearerError replaces yaegi's messages for undefined names ("CFG
// post-order panic: incomplete type x", "constant definition loop") by
// "line:col: undefined: x" at the name's first use in the cell.
func (e *Engine) clearerError(code string, err error) error {
	ee, ok := err.(*Error)
	if !ok || ee.Name != "CompileError" || !yaegiUndefined.MatchString(ee.Value) {
		return err
	}
	g, _ := e.globals()
	for _, name := range e.unresolvedNames(splitCell(code)) {
		if _, ok := e.imported[name]; ok || e.names[name] || g[name].IsValid() || slices.Contains(goWords, name) {
			continue
		}
		line, col, ok := firstUse(code, name)
		if !ok {
			continue
		}
		v := fmt.Sprintf("%d:%d: undefined: %s", line, col, name)
		return &Error{Name: "CompileError", Value: v, Traceback: []string{"CompileError: " + v}}
	}
	return err
}

// goItems evaluates the Go code of a cell.
func (e *Engine) goItems(ctx context.Context, code string) (Result, error) {
	items := e.filterImports(splitCell(code))
	if len(items) == 0 {
		return Result{}, nil
	}
	items = parenBuiltinResults(assignRedeclared(items, e.stmtVar()))
	if err := e.fetchMissing(ctx, items); err != nil {
		return Result{}, err
	}
	if err := e.checkImports(items); err != nil {
		return Result{}, err
	}
	if why := e.compileReason(items); why != "" {
		return e.runCompiled(ctx, items, why, nil)
	}
	if why := e.hugeArray(items); why != "" {
		return e.runCompiled(ctx, items, why, nil)
	}
	if why := unproven(items, e.declaredBy(items)); why != "" {
		return e.runCompiled(ctx, items, why, nil)
	}
	if err := e.checkCell(items); err != nil {
		// What the interpreter would compute differently runs compiled.
		return e.runCompiled(ctx, items, err.(*Error).Value, nil)
	}
	res, ran, err := e.interpret(ctx, items)
	var crash *compilerCrash
	if errors.As(err, &crash) {
		if !ran {
			return e.runCompiled(ctx, items, crash.Error(), nil)
		}
		return Result{}, refusal("the rest of the cell was not run: %v; its earlier statements ran, and the session is kept", crash)
	}
	if err != nil && !ran && isCompileError(err) {
		// The interpreter cannot compile the cell and nothing ran: try
		// the go toolchain; its failure reports the interpreter's error.
		if r, cerr := e.runCompiled(ctx, items, "the interpreter cannot compile it", err); cerr == nil {
			return r, nil
		}
	}
	return res, err
}

// stmtVar returns a test of whether a name is a variable of the
// interpreter that a statement defined (x := 1), not a package-level
// declaration or an import. The interpreter's globals are listed once, at
// the first name asked for.
func (e *Engine) stmtVar() func(string) bool {
	var g map[string]reflect.Value
	return func(name string) bool {
		if e.names[name] || e.src.only[name] || strings.HasPrefix(name, "_weft_") {
			return false
		}
		if _, ok := e.imported[name]; ok {
			return false
		}
		if g == nil {
			if g, _ = e.globals(); g == nil {
				g = map[string]reflect.Value{}
			}
		}
		return g[name].IsValid()
	}
}

// isCompileError reports whether err is the interpreter's compile error.
func isCompileError(err error) bool {
	ee, ok := err.(*Error)
	return ok && ee.Name == "CompileError"
}

// interpret evaluates the cell's items with the interpreter; ran is true
// once a run of statements or of var declarations was evaluated.
func (e *Engine) interpret(ctx context.Context, items []item) (res Result, ran bool, err error) {
	e.src.cells++
	if auto := e.autoImports(items); len(auto) > 0 {
		g := group{decl: true, imports: true, text: importText(auto), line: 1}
		if err := e.probeCompile(ctx, g.text); err != nil {
			return Result{}, false, err
		}
		if _, err := e.evalSource(ctx, g.text); err != nil {
			return Result{}, false, e.cellError(ctx, err)
		}
		e.noteGroup(g)
	}
	var last *item
	if it := items[len(items)-1]; it.kind == stmtItem && isExpr(it.text) {
		last, items = &it, items[:len(items)-1]
	}
	gs := groups(items)
	e.line1Decl = len(gs) > 0 && gs[0].line == 1 && gs[0].decl
	declared := e.declaredBy(items)
	origs := make([]string, len(gs))
	for i := range gs {
		g := &gs[i]
		origs[i] = g.text
		g.text = guardAllocs(guardGoroutines(g.text, g.decl), g.decl, declared)
		if !g.decl {
			g.text, g.shifts = scopeBlocks(g.text)
		}
	}
	probed := false
	if (len(gs) > 1 || len(gs) == 1 && last != nil) && !declaresMethods(items) {
		if err := e.compilesWhole(ctx, gs, last); err != nil {
			return Result{}, false, err
		}
		probed = true
	}
	for i, g := range gs {
		if err := e.forgetRedeclared(g); err != nil {
			return Result{}, ran, err
		}
		if !probed {
			if err := e.probeCompile(ctx, g.source()); err != nil {
				return Result{}, ran, err
			}
		}
		if _, err := e.evalSource(ctx, g.source()); err != nil {
			return Result{}, ran, e.errorIn(ctx, err, g, 0)
		}
		e.noteGroup(g)
		if g.decl {
			e.noteInterpreted(origs[i], g.line)
		}
		ran = ran || !g.decl || strings.Contains(origs[i], "var")
	}
	if last == nil {
		return Result{}, ran, nil
	}
	res, err = e.evalLast(ctx, *last, declared)
	return res, true, err
}

// lastCheck encloses a cell's final expression for compilesWhole: in a
// function literal's body it is compiled as a statement, whatever number
// of values it has, and nothing of it runs.
const lastCheck = "_ = func() { "

// compilesWhole compiles every run of the cell, and its final expression,
// without running anything, and then gives the interpreter's scope back
// as it was. A cell of several runs is evaluated run by run (yaegi takes
// either declarations or statements), so without this check a run that
// does not compile stopped the cell after the earlier runs had run: in Go
// such a program never runs. Each source is given to the compiler probe
// first, as the runs are when they are evaluated.
func (e *Engine) compilesWhole(ctx context.Context, gs []group, last *item) error {
	snap, err := snapshotGlobals(e.in)
	if err != nil {
		return nil // yaegi's fields moved (TestRedefinedType fails): run as before
	}
	defer snap.restore()
	for _, g := range gs {
		if err := e.forgetRedeclared(g); err != nil {
			return err
		}
		if err := e.probeCompile(ctx, g.source()); err != nil {
			return err
		}
		if _, err := e.compile(g.source()); err != nil {
			return e.errorIn(ctx, err, g, 0)
		}
	}
	if last == nil || isNil(last.text) {
		return nil
	}
	g := group{text: lastCheck + last.text + " }", line: last.line}
	if err := e.probeCompile(ctx, g.source()); err != nil {
		return err
	}
	if _, err := e.compile(g.source()); err != nil {
		if err := undefinedName(*last); err != nil {
			return err
		}
		return e.errorIn(ctx, err, g, len(lastCheck))
	}
	return nil
}

// declaresMethods reports whether items declare a method. compilesWhole
// cannot undo one: yaegi attaches it to its receiver's type, not to the
// scope, and a method compiled twice on a type of an earlier cell was
// called with the first compilation's frame (P{1, 2}.Sum() gave 0). A
// cell that declares methods is evaluated run by run, as before.
func declaresMethods(items []item) bool {
	for _, it := range items {
		if it.kind != declItem || !strings.HasPrefix(it.text, "func") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+it.text, parser.SkipObjectResolution)
		if err != nil {
			return true // unknown: as before
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil {
				return true
			}
		}
	}
	return false
}

// evalLast evaluates the cell's final expression and renders its value.
// If the expression has no single value (a call of a function returning
// nothing or several values), it runs for its effects only.
func (e *Engine) evalLast(ctx context.Context, it item, declared func(string) bool) (Result, error) {
	alone := group{text: guardAllocs(it.text, false, declared), line: it.line}
	alone.text, alone.shifts = scopeBlocks(alone.text)
	if isNil(it.text) || e.arity(it.text) != 1 {
		if err := e.probeCompile(ctx, alone.source()); err != nil {
			return Result{}, err
		}
		_, err := e.evalSource(ctx, alone.source())
		return Result{}, e.errorIn(ctx, err, alone, 0)
	}
	// The value is bound to a typed variable first: formatted through an
	// interface{} parameter, interpreted values print as yaegi's wrappers.
	const bind = "_weft_v := "
	g := group{text: bind + guardAllocs(guardGoroutines(it.text, false), false, declared) + "; _weft_render(_weft_v, _weft_fmt.Sprint(_weft_v))", line: it.line}
	if err := e.probeCompile(ctx, g.source()); err != nil {
		return Result{}, err
	}
	prog, err := e.compile(g.source())
	if err != nil {
		// yaegi cannot compile some forms (generic calls in :=): if the
		// expression alone compiles, evaluate it and render its value
		// host-side; else report the expression's own error.
		if err := undefinedName(it); err != nil {
			return Result{}, err
		}
		if err := e.probeCompile(ctx, alone.source()); err != nil {
			return Result{}, err
		}
		if _, err := e.compile(alone.source()); err != nil {
			return Result{}, e.errorIn(ctx, err, alone, 0)
		}
		v, err := e.evalSource(ctx, alone.source())
		if err != nil {
			return Result{}, e.errorIn(ctx, err, alone, 0)
		}
		return hostResult(v), nil
	}
	v, err := e.in.ExecuteWithContext(ctx, prog)
	if err != nil {
		return Result{}, e.errorIn(ctx, err, g, len(bind))
	}
	d, ok := v.Interface().(display.Data)
	if !ok || len(d.Data) == 0 {
		return Result{}, nil
	}
	return Result{HasValue: true, Data: d}, nil
}

// undefinedName reports a bare identifier that failed to compile as
// undefined: alone, yaegi would evaluate it to the previous cell's value.
func undefinedName(it item) error {
	x, err := parser.ParseExpr(it.text)
	id, ok := x.(*ast.Ident)
	if err != nil || !ok {
		return nil
	}
	msg := fmt.Sprintf("%d:%d: undefined: %s", it.line, 1+strings.Index(it.text, id.Name), id.Name)
	return &Error{Name: "CompileError", Value: msg, Traceback: []string{"CompileError: " + msg}}
}

// globals returns the interpreter's global variables; ok is false if yaegi
// failed to list them (its Globals panics after some failed compilations).
func (e *Engine) globals() (g map[string]reflect.Value, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			g, ok = nil, false
		}
	}()
	return e.in.Globals(), true
}

// compile compiles src, turning yaegi's panics into errors. If src does
// not compile, the names its compilation declared are undone.
func (e *Engine) compile(src string) (prog *interp.Program, err error) {
	snap, serr := snapshotGlobals(e.in)
	defer func() {
		if r := recover(); r != nil {
			v := fmt.Sprint(r)
			err = &Error{Name: "CompileError", Value: v, Traceback: lines("CompileError", v)}
		}
		if err != nil && serr == nil {
			snap.restore()
		}
	}()
	return e.in.Compile(src)
}

// evalSource compiles and runs src in the interpreter. If src does not
// compile (nothing of it ran), the names its compilation declared are
// undone: a cell that failed to compile leaves nothing in the session,
// as in Go, where such a program never runs.
func (e *Engine) evalSource(ctx context.Context, src string) (reflect.Value, error) {
	snap, serr := snapshotGlobals(e.in)
	v, err := e.in.EvalWithContext(ctx, src)
	if err != nil && serr == nil && notCompiled(err) {
		snap.restore()
	}
	return v, err
}

// notCompiled reports whether err is yaegi's failure to compile a source
// (a syntax error, a compile error, a panic of its compiler), before
// anything of it ran.
func notCompiled(err error) bool {
	var p interp.Panic
	var sl scanner.ErrorList
	switch {
	case errors.As(err, &sl):
		return true
	case errors.As(err, &p):
		return strings.Contains(fmt.Sprint(p.Value), "CFG post-order panic")
	}
	return fmt.Sprintf("%T", err) == "*interp.cfgError"
}

// hostResult renders a value returned by the interpreter on the host side.
func hostResult(v reflect.Value) Result {
	if !v.IsValid() || !v.CanInterface() {
		return Result{}
	}
	x := v.Interface()
	if x == nil {
		return Result{}
	}
	return Result{HasValue: true, Data: display.Auto(x)}
}

// arity returns how many values the expression yields: that of the called
// function for calls of named functions, methods and builtins, else 1.
// yaegi does not check assignment counts, so the engine does.
func (e *Engine) arity(text string) int {
	x, err := parser.ParseExpr(text)
	if err != nil {
		return 1
	}
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return 1
	}
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		return lit.Type.Results.NumFields()
	}
	if id, ok := call.Fun.(*ast.Ident); ok && voidBuiltins[id.Name] && !e.names[id.Name] {
		return 0
	}
	fun, ok := selectorChain(call.Fun)
	if !ok {
		return 1
	}
	v, err := e.eval(fun) // a name or selector chain: no side effects
	if err != nil || !v.IsValid() || v.Kind() != reflect.Func {
		return 1
	}
	return v.Type().NumOut()
}

// eval evaluates src, turning yaegi's panics into errors.
func (e *Engine) eval(src string) (v reflect.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("engine: eval: %v", r)
		}
	}()
	return e.in.Eval(src)
}

// voidBuiltins are the builtins that return nothing.
var voidBuiltins = map[string]bool{"print": true, "println": true, "panic": true, "close": true, "delete": true, "clear": true}

// selectorChain returns the source of x if it is a name or a chain of
// selectors on a name (a.b.c), the only forms safe to evaluate twice.
func selectorChain(x ast.Expr) (string, bool) {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name, true
	case *ast.SelectorExpr:
		s, ok := selectorChain(x.X)
		return s + "." + x.Sel.Name, ok
	}
	return "", false
}

// isNil reports whether the expression is the literal nil.
func isNil(text string) bool { return strings.TrimSpace(text) == "nil" }

// filterImports drops imports already bound under the same name (so
// re-running a cell works) and records the names declared.
func (e *Engine) filterImports(items []item) []item {
	out := items[:0:0]
	for _, it := range items {
		if it.kind != importItem {
			out = append(out, it)
			continue
		}
		specs := parseImports(it.text)
		if specs == nil {
			out = append(out, it)
			continue
		}
		var fresh []importSpec
		for _, s := range specs {
			if e.imported[e.specName(s)] != canonical(s.path) {
				fresh = append(fresh, s)
			}
		}
		if len(fresh) > 0 {
			it.text = importText(fresh)
			out = append(out, it)
		}
	}
	return out
}

// canonical maps the gophernotes path "display" to weft's display package.
func canonical(path string) string {
	if path == "display" {
		return DisplayPath
	}
	return path
}

// forgetRedeclared drops the earlier types a run of declarations
// redeclares, so that the new declarations take effect.
func (e *Engine) forgetRedeclared(g group) error {
	if !g.decl {
		return nil
	}
	var old []string
	for _, n := range declaredTypes(g.text) {
		if e.names[n] {
			old = append(old, n)
		}
	}
	if len(old) == 0 {
		return nil
	}
	return forgetGlobals(e.in, old)
}

// noteGroup records what a successfully evaluated run declared.
func (e *Engine) noteGroup(g group) {
	if !g.decl {
		return
	}
	for _, it := range splitCell(g.text) {
		switch it.kind {
		case importItem:
			for _, s := range parseImports(it.text) {
				e.imported[e.specName(s)] = canonical(s.path)
			}
		case declItem:
			for _, n := range declaredNames(it.text) {
				e.names[n] = true
			}
		}
	}
}

// yaegi's wrappers of REPL input: positions on the first line of a run
// that starts on the cell's first line are shifted by their length.
const (
	stmtWrapper = "package main; func main() {"
	declWrapper = "package main;"
)

// posRE matches a line:col position in a message.
var posRE = regexp.MustCompile(`\b(\d+):(\d+)\b`)

// errorIn converts err, raised evaluating g, into an *Error whose
// positions are the cell's: yaegi's wrapper of the run on the cell's first
// line is taken off columns on line 1, and extra characters the engine put
// before g's text off columns on g's first line.
func (e *Engine) errorIn(ctx context.Context, err error, g group, extra int) error {
	err = e.cellError(ctx, err)
	ee, ok := err.(*Error)
	if !ok {
		return err
	}
	e.stderr.sync()
	if frames := e.stderr.takeFrames(); ee.Name == "panic" {
		for _, f := range frames {
			ee.Traceback = append(ee.Traceback, "\tat "+strings.Replace(f, ": panic: ", ": in ", 1))
		}
	}
	shift := func(line int) int {
		n := 0
		if line == g.line {
			n += extra
		}
		if line == 1 && e.line1Decl {
			n += len(declWrapper)
		} else if line == 1 {
			n += len(stmtWrapper)
		}
		return n
	}
	fix := func(s string) string {
		return posRE.ReplaceAllStringFunc(s, func(p string) string {
			m := posRE.FindStringSubmatch(p)
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			if d := shift(line); d > 0 && col > d {
				col -= d
			} else if d > 0 {
				return p
			}
			return fmt.Sprintf("%d:%d", line, g.unshift(line, col))
		})
	}
	out := &Error{Name: ee.Name, Value: fix(ee.Value)}
	for _, l := range ee.Traceback {
		out.Traceback = append(out.Traceback, fix(l))
	}
	return out
}

// cellError converts an interpreter error into an *Error.
func (e *Engine) cellError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ee, ok := err.(*Error); ok {
		return ee
	}
	var p interp.Panic
	var sl scanner.ErrorList
	var limit *limitError
	switch a := allocRefused(ctx, err); {
	case a != nil:
		debug.FreeOSMemory()
		return &Error{Name: "MemoryError", Value: a.Error(), Traceback: []string{"MemoryError: " + a.Error()}}
	case errors.As(context.Cause(ctx), &limit):
		debug.FreeOSMemory()
		return &Error{Name: limit.name, Value: limit.Error(), Traceback: []string{limit.name + ": " + limit.Error()}}
	case errors.As(err, &p) && isExit(p.Value):
		v := fmt.Sprintf("the cell called os.Exit(%d); the kernel does not exit: the session's variables are kept", p.Value.(exitRequest).code)
		return &Error{Name: "Exit", Value: v, Traceback: []string{"Exit: " + v}}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		v := fmt.Sprintf("cell interrupted after %v (%%timeout)", e.cellTimeout)
		return &Error{Name: "Timeout", Value: v, Traceback: []string{"Timeout: " + v}}
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return &Error{Name: "Interrupted", Value: "execution interrupted", Traceback: []string{"Interrupted: execution interrupted"}}
	case errors.As(err, &p) && strings.Contains(fmt.Sprint(p.Value), "CFG post-order panic"):
		// yaegi reports some compile errors as panics of its compiler.
		v := fmt.Sprint(p.Value)
		return &Error{Name: "CompileError", Value: v, Traceback: lines("CompileError", v)}
	case errors.As(err, &p):
		v := fmt.Sprint(p.Value)
		return &Error{Name: "panic", Value: v, Traceback: []string{"panic: " + v}}
	case errors.As(err, &sl):
		return &Error{Name: "SyntaxError", Value: sl.Error(), Traceback: lines("SyntaxError", sl.Error())}
	}
	if fmt.Sprintf("%T", err) == "*interp.cfgError" { // yaegi's compile errors (type unexported)
		return &Error{Name: "CompileError", Value: err.Error(), Traceback: lines("CompileError", err.Error())}
	}
	return &Error{Name: "Error", Value: err.Error(), Traceback: lines("Error", err.Error())}
}

// isExit reports whether a panic value is os.Exit's in a cell.
func isExit(v any) bool {
	_, ok := v.(exitRequest)
	return ok
}

func lines(name, msg string) []string {
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		out = append(out, name+": "+l)
	}
	return out
}
