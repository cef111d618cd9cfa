package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"math/bits"
	"reflect"
	"sort"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// One huge allocation. The guard (guard.go) stops a cell whose heap grows
// past $WEFT_CELL_MEMORY, but it samples: a single allocation the OS
// refuses (`make([]byte, 1<<40)`) is a fatal error of the Go runtime in
// the kernel's process, before any sample. So an allocation sized by a
// count is checked before the runtime makes it, against the same limit,
// and refused as the cell's MemoryError:
//
//   - in interpreted sources, guardAllocs passes the size arguments of
//     make (slice length and capacity, map hint, channel buffer), the
//     growth of append(s, xs...) and the argument of a .Grow(n) call
//     through the checks of the bound package weft.internal/alloc;
//   - compiled entry points that allocate by a count (strings.Repeat,
//     bytes.Repeat, bufio's sized readers and writers, reflect's makers)
//     are rebound to checking wrappers (allocExports);
//   - a cell with an array type larger than the limit runs compiled, in
//     a child process (hugeArray): values of such a type are made by
//     new, var, composite literals and every zero value, which no
//     rewrite of call sites covers.

// allocPkg is the name cells see the checks under (bound, imported by
// the prelude).
const allocPkg = "_weft_alloc"

// allocError is an allocation refused before the runtime made it.
type allocError struct {
	what    string // what asked for the memory
	need    uint64 // bytes it needs; 0 with over set
	over    bool   // the size overflows a uint64
	limit   uint64
	setting string
}

func (a *allocError) Error() string {
	need := mb(a.need)
	if a.over {
		need = "more than 2^64 bytes"
	}
	return fmt.Sprintf("%s needs %s, more than the cell's memory limit %s%s: refused before the allocation (the OS could refuse it, which would end the kernel); the session's variables are kept",
		a.what, need, mb(a.limit), a.setting)
}

// allocCheck is the limit the checks hold allocations to.
type allocCheck struct {
	limit   uint64
	setting string
}

// bytes refuses count elements of size bytes each when they pass the
// limit; what describes the allocation (called only then: a check costs
// a multiplication).
func (c allocCheck) bytes(what func() string, count, size uint64) {
	hi, lo := bits.Mul64(count, size)
	if hi == 0 && lo <= c.limit {
		return
	}
	panic(&allocError{what: what(), need: lo, over: hi != 0, limit: c.limit, setting: c.setting})
}

// count converts a size argument (any integer, or an integral float from
// an untyped constant) to an int; ok is false for a negative size, which
// the builtin itself rejects.
func count(n any) (int, uint64, bool) {
	v := reflect.ValueOf(n)
	switch {
	case v.CanInt():
		i := v.Int()
		return int(i), uint64(i), i >= 0
	case v.CanUint():
		u := v.Uint()
		return int(u), u, true
	case v.CanFloat():
		f := v.Float()
		return int(f), uint64(f), f >= 0
	}
	panic(fmt.Sprintf("a size must be an integer, not %T", n))
}

// elemSize is the memory one unit of a make of t's type costs.
func elemSize(t reflect.Type) uint64 {
	switch t.Kind() {
	case reflect.Map:
		return uint64(t.Key().Size() + t.Elem().Size() + 1)
	case reflect.Slice, reflect.Chan, reflect.Array, reflect.Pointer:
		return uint64(t.Elem().Size())
	}
	return uint64(t.Size())
}

// makeSize checks a size argument of make(T, …); typ is a (*T)(nil).
func (c allocCheck) makeSize(typ, n any) int {
	i, u, ok := count(n)
	if !ok {
		return i
	}
	t := reflect.TypeOf(typ).Elem()
	c.bytes(func() string { return fmt.Sprintf("make(%v, %d)", t, u) }, u, elemSize(t))
	return i
}

// appendSize checks append(s, xs...): it returns len(xs), for xs[:n].
func (c allocCheck) appendSize(s, xs any) int {
	sv, xv := reflect.ValueOf(s), reflect.ValueOf(xs)
	if !xv.IsValid() {
		return 0
	}
	n := uint64(xv.Len())
	if sv.IsValid() && sv.Kind() == reflect.Slice {
		what := func() string { return fmt.Sprintf("append to a %v of length %d of %d more", sv.Type(), sv.Len(), n) }
		c.bytes(what, uint64(sv.Len())+n, uint64(sv.Type().Elem().Size()))
	}
	return xv.Len()
}

// growSize checks the argument of a .Grow(n) call (strings.Builder,
// bytes.Buffer: n bytes).
func (c allocCheck) growSize(n any) int {
	i, u, ok := count(n)
	if ok {
		c.bytes(func() string { return fmt.Sprintf("Grow(%d)", u) }, u, 1)
	}
	return i
}

// allocExports binds the checks and the checking wrappers of compiled
// functions that allocate by a count.
func (e *Engine) allocExports() interp.Exports {
	c := allocCheck{limit: e.heapLimit, setting: e.heapSetting}
	repeat := func(what func() string, n, count int) {
		if n > 0 && count > 0 {
			c.bytes(what, uint64(n), uint64(count))
		}
	}
	v := reflect.ValueOf
	return interp.Exports{
		"weft.internal/alloc/alloc": {
			"Make": v(c.makeSize), "Append": v(c.appendSize), "Grow": v(c.growSize),
		},
		"strings/strings": {"Repeat": v(func(s string, n int) string {
			repeat(func() string { return fmt.Sprintf("strings.Repeat(%d bytes, %d)", len(s), n) }, len(s), n)
			return strings.Repeat(s, n)
		})},
		"bytes/bytes": {"Repeat": v(func(b []byte, n int) []byte {
			repeat(func() string { return fmt.Sprintf("bytes.Repeat(%d bytes, %d)", len(b), n) }, len(b), n)
			return bytes.Repeat(b, n)
		})},
		"bufio/bufio": {
			"NewReaderSize": v(func(r io.Reader, n int) *bufio.Reader {
				repeat(func() string { return fmt.Sprintf("bufio.NewReaderSize(r, %d)", n) }, n, 1)
				return bufio.NewReaderSize(r, n)
			}),
			"NewWriterSize": v(func(w io.Writer, n int) *bufio.Writer {
				repeat(func() string { return fmt.Sprintf("bufio.NewWriterSize(w, %d)", n) }, n, 1)
				return bufio.NewWriterSize(w, n)
			}),
		},
		"reflect/reflect": {
			"MakeSlice": v(func(t reflect.Type, n, m int) reflect.Value {
				repeat(func() string { return fmt.Sprintf("reflect.MakeSlice(%v, %d, %d)", t, n, m) }, max(n, m), int(elemSize(t)))
				return reflect.MakeSlice(t, n, m)
			}),
			"MakeMapWithSize": v(func(t reflect.Type, n int) reflect.Value {
				repeat(func() string { return fmt.Sprintf("reflect.MakeMapWithSize(%v, %d)", t, n) }, n, int(elemSize(t)))
				return reflect.MakeMapWithSize(t, n)
			}),
			"MakeChan": v(func(t reflect.Type, n int) reflect.Value {
				repeat(func() string { return fmt.Sprintf("reflect.MakeChan(%v, %d)", t, n) }, n, int(elemSize(t)))
				return reflect.MakeChan(t, n)
			}),
			"New": v(func(t reflect.Type) reflect.Value {
				repeat(func() string { return fmt.Sprintf("reflect.New(%v)", t) }, int(t.Size()), 1)
				return reflect.New(t)
			}),
			"Zero": v(func(t reflect.Type) reflect.Value {
				repeat(func() string { return fmt.Sprintf("reflect.Zero(%v)", t) }, int(t.Size()), 1)
				return reflect.Zero(t)
			}),
		},
	}
}

// stopRunningCell cancels the running cell with err as its cause: a
// refusal in a goroutine the cell started stops the cell too.
func (e *Engine) stopRunningCell(err error) {
	e.ctxMu.Lock()
	defer e.ctxMu.Unlock()
	if e.stopCell != nil {
		e.stopCell(err)
	}
}

// allocRefused returns the refusal a cell's error or its context's cause
// carries, or nil.
func allocRefused(ctx context.Context, err error) *allocError {
	if a, ok := context.Cause(ctx).(*allocError); ok {
		return a
	}
	var p interp.Panic
	if errors.As(err, &p) {
		if a, ok := p.Value.(*allocError); ok {
			return a
		}
	}
	return nil
}

// insertion is text put into a source at an offset; nested rewrites put
// several at one offset, so each says how to order them (see guardAllocs).
type insertion struct {
	at    int
	close bool // a closing part: it comes after the parts of nodes inside
	seq   int  // the node's order in a pre-order walk
	text  string
}

// guardAllocs rewrites an interpreted source (a run of statements if decl
// is false, else of declarations) so that the sizes it asks the runtime
// to allocate pass through the checks of allocExports first:
//
//	make(T, n, m)      make(T, _weft_alloc.Make((*T)(nil), (n)<<0), _weft_alloc.Make((*T)(nil), (m)<<0))
//	append(s, xs...)   append(s, xs[:_weft_alloc.Append(s, xs)]...)   (s and xs names or selectors)
//	x.Grow(n)          x.Grow(_weft_alloc.Grow((n)<<0))
//
// `(n)<<0` keeps Go's check that a size is an integer (or an untyped
// constant representable as one). Only text is inserted, without line
// breaks, so positions of errors stay on their lines. declared tells
// whether make or append is a name the session or the cell declared.
// Sources that do not parse are returned unchanged (the interpreter
// reports their errors).
func guardAllocs(src string, decl bool, declared func(string) bool) string {
	if !strings.Contains(src, "make") && !strings.Contains(src, "append") && !strings.Contains(src, "Grow") {
		return src
	}
	prefix, suffix := "package main\nfunc _() {\n", "\n}"
	if decl {
		prefix, suffix = "package main\n", ""
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", prefix+src+suffix, parser.SkipObjectResolution)
	if err != nil {
		return src
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset - len(prefix) }
	// On one line (struct types lose their comments), so that the
	// inserted text moves no line of the source.
	text := types.ExprString
	var ins []insertion
	seq := 0
	wrap := func(x ast.Expr, open string) {
		seq++
		ins = append(ins, insertion{at: off(x.Pos()), seq: seq, text: open + "("},
			insertion{at: off(x.End()), close: true, seq: seq, text: ")<<0)"})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch fun := call.Fun.(type) {
		case *ast.Ident:
			switch {
			case declared(fun.Name):
			case fun.Name == "make" && len(call.Args) >= 2:
				for _, a := range call.Args[1:] {
					wrap(a, allocPkg+".Make((*"+text(call.Args[0])+")(nil), ")
				}
			case fun.Name == "append" && call.Ellipsis.IsValid() && len(call.Args) == 2 && plain(call.Args[0]) && plain(call.Args[1]):
				seq++
				ins = append(ins, insertion{at: off(call.Args[1].End()), close: true, seq: seq,
					text: "[:" + allocPkg + ".Append(" + text(call.Args[0]) + ", " + text(call.Args[1]) + ")]"})
			}
		case *ast.SelectorExpr:
			if fun.Sel.Name == "Grow" && len(call.Args) == 1 && !call.Ellipsis.IsValid() {
				wrap(call.Args[0], allocPkg+".Grow(")
			}
		}
		return true
	})
	return insert(src, ins)
}

// plain reports whether x is a name or a selector of names: evaluating it
// twice has no effect and gives the same value.
func plain(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Ident:
		return x.Name != "nil"
	case *ast.SelectorExpr:
		return plain(x.X)
	case *ast.ParenExpr:
		return plain(x.X)
	}
	return false
}

// insert applies insertions to src. At one offset, closing parts come
// before opening ones; opening parts of outer nodes (earlier in a
// pre-order walk) come first, closing parts of outer nodes last.
func insert(src string, ins []insertion) string {
	if len(ins) == 0 {
		return src
	}
	sort.SliceStable(ins, func(i, j int) bool {
		a, b := ins[i], ins[j]
		switch {
		case a.at != b.at:
			return a.at < b.at
		case a.close != b.close:
			return a.close
		case a.close:
			return a.seq > b.seq
		}
		return a.seq < b.seq
	})
	var out strings.Builder
	last := 0
	for _, in := range ins {
		out.WriteString(src[last:in.at])
		out.WriteString(in.text)
		last = in.at
	}
	out.WriteString(src[last:])
	return out.String()
}

// hugeArray returns why a cell must run compiled because one of its array
// types is larger than the memory limit (or of a length the engine cannot
// evaluate), or "". Every value of such a type (new, var, a composite
// literal, a zero result) is an allocation the OS may refuse; compiled,
// the refusal ends a child process, not the kernel.
func (e *Engine) hugeArray(items []item) string {
	var files []*ast.File
	var srcs, consts []string
	fset := token.NewFileSet()
	for _, it := range items {
		if it.kind == importItem {
			continue
		}
		src := "package p\n" + it.text
		if it.kind == stmtItem {
			src = "package p\nfunc _() {\n" + it.text + "\n}"
		}
		f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
		if err != nil {
			return "" // the interpreter reports the syntax error
		}
		files, srcs = append(files, f), append(srcs, src)
		ast.Inspect(f, func(n ast.Node) bool {
			if d, ok := n.(*ast.GenDecl); ok && d.Tok == token.CONST {
				consts = append(consts, nodeText(fset, src, d))
			}
			return true
		})
	}
	ev := &arrayEval{e: e, consts: constScope(consts)}
	for i, f := range files {
		var why string
		ast.Inspect(f, func(n ast.Node) bool {
			at, ok := n.(*ast.ArrayType)
			if !ok || at.Len == nil || why != "" {
				return why == ""
			}
			if _, ok := at.Len.(*ast.Ellipsis); ok {
				return true
			}
			src := srcs[i]
			size, known := ev.size(fset, src, at)
			switch {
			case !known:
				why = fmt.Sprintf("the length of its array type %s cannot be evaluated before it runs, so its size cannot be checked against the cell's memory limit", nodeText(fset, src, at))
			case size > e.heapLimit:
				why = fmt.Sprintf("its array type %s needs %s, more than the cell's memory limit %s%s: a value of it could end the kernel's process", nodeText(fset, src, at), mb(size), mb(e.heapLimit), e.heapSetting)
			}
			return why == ""
		})
		if why != "" {
			return why
		}
	}
	return ""
}

// nodeText is n's text in src, the source of its file in fset.
func nodeText(fset *token.FileSet, src string, n ast.Node) string {
	return src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset]
}

// constScope type-checks a cell's const declarations (those that depend
// on nothing else) so array lengths can be evaluated in their scope.
func constScope(decls []string) *types.Package {
	src := "package p\n" + strings.Join(decls, "\n")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	conf := types.Config{Error: func(error) {}}
	pkg, _ := conf.Check("p", fset, []*ast.File{f}, nil)
	return pkg
}

// arrayEval evaluates the sizes of a cell's array types.
type arrayEval struct {
	e      *Engine
	consts *types.Package
}

// size is a lower bound of the bytes a value of array type at needs: its
// length times that of its element type (itself if an array, 0 for an
// empty struct, else 1 byte); known is false if a length cannot be
// evaluated.
func (a *arrayEval) size(fset *token.FileSet, src string, at *ast.ArrayType) (uint64, bool) {
	n, ok := a.length(nodeText(fset, src, at.Len), at.Len)
	if !ok {
		return 0, false
	}
	elem := uint64(1)
	switch t := at.Elt.(type) {
	case *ast.ArrayType:
		if t.Len == nil {
			break
		}
		if elem, ok = a.size(fset, src, t); !ok {
			return 0, false
		}
	case *ast.StructType:
		if len(t.Fields.List) == 0 {
			elem = 0
		}
	}
	hi, lo := bits.Mul64(n, elem)
	if hi != 0 {
		return ^uint64(0), true
	}
	return lo, true
}

// length evaluates an array length: as a constant of the cell's const
// declarations, else by the interpreter (a constant of the session) when
// it calls nothing.
func (a *arrayEval) length(text string, x ast.Expr) (uint64, bool) {
	if a.consts != nil {
		if tv, err := types.Eval(token.NewFileSet(), a.consts, token.NoPos, text); err == nil && tv.Value != nil {
			return constLength(tv.Value)
		}
	}
	calls := false
	ast.Inspect(x, func(n ast.Node) bool {
		_, ok := n.(*ast.CallExpr)
		calls = calls || ok
		return !calls
	})
	if calls {
		return 0, false
	}
	v, err := a.e.eval(text)
	if err != nil || !v.IsValid() {
		return 0, false
	}
	switch {
	case v.CanInt() && v.Int() >= 0:
		return uint64(v.Int()), true
	case v.CanUint():
		return v.Uint(), true
	}
	return 0, false
}

// constLength is a constant array length as a uint64 (saturated).
func constLength(v constant.Value) (uint64, bool) {
	v = constant.ToInt(v)
	if v.Kind() != constant.Int || constant.Sign(v) < 0 {
		return 0, false
	}
	if u, exact := constant.Uint64Val(v); exact {
		return u, true
	}
	return ^uint64(0), true
}

// SessionNames lists, sorted, the names the session's cells defined
// (variables, constants, functions, types, imports of cells left out): what
// a new interpreter would not have.
func (e *Engine) SessionNames() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := map[string]bool{}
	for n := range e.names {
		seen[n] = true
	}
	if g, ok := e.globals(); ok {
		for n := range g {
			seen[n] = true
		}
	}
	var out []string
	for n := range seen {
		if n != "_" && !strings.HasPrefix(n, "_weft_") && n != "Display" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
