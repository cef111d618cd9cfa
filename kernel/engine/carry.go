package engine

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// Carrying the interpreter's values into compiled cells. A compiled cell
// is a new process: the package vars and statement variables of
// interpreted cells that it uses are declared in its program with their
// current values, written as Go literals of their static types (the
// interpreter's own type of each variable, read from its scope: reflect
// alone would lose named types, yaegi's values of `type myInt int` are
// ints). A variable whose value has no literal (a func, channel,
// pointer, interface holding a value, NaN…) cannot be carried: the cell
// is refused, naming it, rather than run with the initialiser's value.

// carrier writes the interpreter's variables as Go declarations.
type carrier struct {
	syms    reflect.Value            // map[string]*symbol of the interpreter's main package
	values  map[string]reflect.Value // the interpreter's globals
	imports map[string]string        // path -> import name the program gives it
	add     map[string]string        // import name -> path for qualifiers it had to add
}

// newCarrier reads the interpreter's main scope; imports are the
// program's imports (name -> path).
func newCarrier(in *interp.Interpreter, values map[string]reflect.Value, imports map[string]string) (*carrier, error) {
	pkgs := field(reflect.ValueOf(in).Elem(), "srcPkg")
	if !pkgs.IsValid() || pkgs.Kind() != reflect.Map {
		return nil, fmt.Errorf("engine: yaegi Interpreter.srcPkg not found")
	}
	c := &carrier{syms: pkgs.MapIndex(reflect.ValueOf("main")), values: values,
		imports: map[string]string{}, add: map[string]string{}}
	for n, p := range imports {
		c.imports[p] = n
	}
	return c, nil
}

// decl returns `var name T = literal` for the interpreter's variable, or
// why it cannot be carried.
func (c *carrier) decl(name string) (string, error) {
	if !c.syms.IsValid() || c.syms.IsNil() {
		return "", fmt.Errorf("not in the interpreter's scope")
	}
	sym := c.syms.MapIndex(reflect.ValueOf(name))
	if !sym.IsValid() || sym.IsNil() {
		return "", fmt.Errorf("not in the interpreter's scope")
	}
	t := field(sym.Elem(), "typ")
	v, ok := c.values[name]
	if !ok || !t.IsValid() || t.IsNil() {
		return "", fmt.Errorf("its type is unknown")
	}
	ts, err := c.typeString(t)
	if err != nil {
		return "", err
	}
	lit, err := c.literal(t, v)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("var %s %s = %s", name, ts, lit), nil
}

// itype fields, read through reflection (yaegi's types are unexported;
// TestCarryValues fails loudly if a yaegi upgrade moves them).
func cat(t reflect.Value) string { return fmt.Sprint(field(t.Elem(), "cat").Interface()) }
func tstr(t reflect.Value, f string) string {
	return field(t.Elem(), f).String()
}
func tsub(t reflect.Value, f string) reflect.Value { return field(t.Elem(), f) }

// typeString writes the interpreter type t (a *itype) as Go source.
func (c *carrier) typeString(t reflect.Value) (string, error) {
	name, path := tstr(t, "name"), tstr(t, "path")
	k := cat(t)
	if name != "" && k != "genericT" {
		if path == "" || path == "main" {
			return name, nil
		}
		return c.qualify(path, name), nil
	}
	switch k {
	case "sliceT":
		s, err := c.typeString(tsub(t, "val"))
		return "[]" + s, err
	case "arrayT":
		s, err := c.typeString(tsub(t, "val"))
		return fmt.Sprintf("[%d]%s", tsub(t, "length").Int(), s), err
	case "mapT":
		ks, err := c.typeString(tsub(t, "key"))
		if err != nil {
			return "", err
		}
		vs, err := c.typeString(tsub(t, "val"))
		return "map[" + ks + "]" + vs, err
	case "structT":
		var b strings.Builder
		b.WriteString("struct{")
		fs := tsub(t, "field")
		for i := 0; i < fs.Len(); i++ {
			f := fs.Index(i)
			ft, err := c.typeString(field(f, "typ"))
			if err != nil {
				return "", err
			}
			if i > 0 {
				b.WriteString("; ")
			}
			if !field(f, "embed").Bool() {
				b.WriteString(field(f, "name").String() + " ")
			}
			b.WriteString(ft)
			if tag := field(f, "tag").String(); tag != "" {
				b.WriteString(" " + strconv.Quote(tag))
			}
		}
		b.WriteString("}")
		return b.String(), nil
	case "valueT":
		rt, ok := tsub(t, "rtype").Interface().(reflect.Type)
		if !ok || rt == nil {
			return "", fmt.Errorf("its type is unknown")
		}
		return c.reflectTypeString(rt)
	}
	return "", noLiteral(t)
}

// noLiteral says why values of the interpreter type t have no literal.
func noLiteral(t reflect.Value) error {
	switch cat(t) {
	case "funcT":
		return fmt.Errorf("it is a func value")
	case "chanT", "chanSendT", "chanRecvT":
		return fmt.Errorf("it is a channel")
	case "ptrT":
		return fmt.Errorf("it is a pointer: what it points to is shared with the session")
	case "interfaceT":
		return fmt.Errorf("it is an interface: the dynamic type of its value cannot be carried")
	}
	return fmt.Errorf("its type %s has no literal", tstr(t, "str"))
}

// reflectTypeString writes a compiled package's type as Go source.
func (c *carrier) reflectTypeString(rt reflect.Type) (string, error) {
	if rt.Name() != "" {
		if rt.PkgPath() == "" {
			return rt.Name(), nil
		}
		return c.qualify(rt.PkgPath(), rt.Name()), nil
	}
	switch rt.Kind() {
	case reflect.Slice:
		s, err := c.reflectTypeString(rt.Elem())
		return "[]" + s, err
	case reflect.Array:
		s, err := c.reflectTypeString(rt.Elem())
		return fmt.Sprintf("[%d]%s", rt.Len(), s), err
	case reflect.Map:
		ks, err := c.reflectTypeString(rt.Key())
		if err != nil {
			return "", err
		}
		vs, err := c.reflectTypeString(rt.Elem())
		return "map[" + ks + "]" + vs, err
	}
	return "", fmt.Errorf("its type %s has no literal", rt)
}

// qualify names a package's type, importing the package if the program
// does not.
func (c *carrier) qualify(path, name string) string {
	n, ok := c.imports[path]
	if !ok {
		n = fmt.Sprintf("_weft_q%d", len(c.add))
		c.imports[path], c.add[n] = n, path
	}
	return n + "." + name
}

// literal writes v, a value of the interpreter type t, as Go source.
func (c *carrier) literal(t reflect.Value, v reflect.Value) (string, error) {
	k := cat(t)
	if k == "valueT" {
		return c.reflectLiteral(v)
	}
	if k == "linkedT" {
		return c.literal(tsub(t, "val"), v)
	}
	if v.Kind() == reflect.Interface && k != "interfaceT" && k != "errorT" {
		v = v.Elem()
	}
	if !v.IsValid() {
		return "", fmt.Errorf("its value is unknown")
	}
	switch k {
	case "boolT", "intT", "int8T", "int16T", "int32T", "int64T", "uintT", "uint8T", "uint16T",
		"uint32T", "uint64T", "uintptrT", "float32T", "float64T", "stringT", "complex64T", "complex128T":
		return basicLiteral(v)
	case "sliceT", "arrayT":
		if k == "sliceT" && v.IsNil() {
			return "nil", nil
		}
		ts, err := c.typeString(t)
		if err != nil {
			return "", err
		}
		var elems []string
		for i := 0; i < v.Len(); i++ {
			e, err := c.literal(tsub(t, "val"), v.Index(i))
			if err != nil {
				return "", err
			}
			elems = append(elems, e)
		}
		return ts + "{" + strings.Join(elems, ", ") + "}", nil
	case "mapT":
		if v.IsNil() {
			return "nil", nil
		}
		ts, err := c.typeString(t)
		if err != nil {
			return "", err
		}
		var elems []string
		for _, key := range v.MapKeys() {
			ks, err := c.literal(tsub(t, "key"), key)
			if err != nil {
				return "", err
			}
			vs, err := c.literal(tsub(t, "val"), v.MapIndex(key))
			if err != nil {
				return "", err
			}
			elems = append(elems, ks+": "+vs)
		}
		slices.Sort(elems)
		return ts + "{" + strings.Join(elems, ", ") + "}", nil
	case "structT":
		ts, err := c.typeString(t)
		if err != nil {
			return "", err
		}
		fs := tsub(t, "field")
		if v.Kind() != reflect.Struct || v.NumField() != fs.Len() {
			return "", fmt.Errorf("its struct value does not match its type")
		}
		var elems []string
		for i := 0; i < fs.Len(); i++ {
			e, err := c.literal(field(fs.Index(i), "typ"), v.Field(i))
			if err != nil {
				return "", err
			}
			elems = append(elems, e)
		}
		return ts + "{" + strings.Join(elems, ", ") + "}", nil
	case "interfaceT", "errorT":
		if v.Kind() == reflect.Interface && v.IsNil() {
			return "nil", nil
		}
		return "", fmt.Errorf("it is an interface holding a value: its dynamic type cannot be carried")
	}
	return "", noLiteral(t)
}

// reflectLiteral writes a value of a compiled package's type.
func (c *carrier) reflectLiteral(v reflect.Value) (string, error) {
	rt := v.Type()
	switch rt.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String, reflect.Complex64, reflect.Complex128:
		return basicLiteral(v)
	case reflect.Slice, reflect.Array, reflect.Map:
		if rt.Kind() != reflect.Array && v.IsNil() {
			return "nil", nil
		}
		ts, err := c.reflectTypeString(rt)
		if err != nil {
			return "", err
		}
		var elems []string
		if rt.Kind() == reflect.Map {
			for _, key := range v.MapKeys() {
				ks, err := c.reflectLiteral(key)
				if err != nil {
					return "", err
				}
				vs, err := c.reflectLiteral(v.MapIndex(key))
				if err != nil {
					return "", err
				}
				elems = append(elems, ks+": "+vs)
			}
			slices.Sort(elems)
		} else {
			for i := 0; i < v.Len(); i++ {
				e, err := c.reflectLiteral(v.Index(i))
				if err != nil {
					return "", err
				}
				elems = append(elems, e)
			}
		}
		return ts + "{" + strings.Join(elems, ", ") + "}", nil
	}
	return "", fmt.Errorf("a value of %s has no literal", rt)
}

// basicLiteral writes a boolean, number or string exactly.
func basicLiteral(v reflect.Value) (string, error) {
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		return floatLiteral(v.Float(), v.Type().Bits())
	case reflect.Complex64, reflect.Complex128:
		bits := v.Type().Bits() / 2
		re, err := floatLiteral(real(v.Complex()), bits)
		if err != nil {
			return "", err
		}
		im, err := floatLiteral(imag(v.Complex()), bits)
		if err != nil {
			return "", err
		}
		return "complex(" + re + ", " + im + ")", nil
	case reflect.String:
		return strconv.Quote(v.String()), nil
	}
	return "", fmt.Errorf("a value of %s has no literal", v.Type())
}

// floatLiteral writes f so that it converts back to the same bits; NaN,
// infinities and negative zero have no constant.
func floatLiteral(f float64, bits int) (string, error) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "", fmt.Errorf("its value %v has no Go constant", f)
	case f == 0 && math.Signbit(f):
		return "", fmt.Errorf("its value is negative zero (no Go constant)")
	}
	return strconv.FormatFloat(f, 'g', -1, bits), nil
}

// carriedVars are the session declarations a compiled cell's program
// holds, with the interpreter's variables carried.
type carriedVars struct {
	decls    []declSrc // earlier declarations the cell needs
	stmtVars []string  // declarations of statement variables (x := 1)
	names    []string  // every variable carried, sorted
	c        *carrier
	texts    map[int]string // carried text of interpreted var declarations, by index in decls of the session
	src      *sessionSource
}

// text is d as the program holds it.
func (v *carriedVars) text(d declSrc) string {
	for i := range v.src.decls {
		if v.src.decls[i].cell == d.cell && v.src.decls[i].line == d.line && v.src.decls[i].text == d.text {
			if t, ok := v.texts[i]; ok {
				return t
			}
		}
	}
	return d.text
}

// carried finds the earlier declarations the cell needs and writes the
// interpreter's variables among them, and the statement variables they
// or the cell use, as declarations with their current values. A
// variable that cannot be carried refuses the cell, naming it.
func (e *Engine) carried(items []item, cellKeys []string, imports map[string]string) (*carriedVars, error) {
	g, ok := e.globals()
	if !ok {
		g = map[string]reflect.Value{}
	}
	c, err := newCarrier(e.in, g, imports)
	if err != nil {
		return nil, magicError("compiled cell: %v", err)
	}
	v := &carriedVars{c: c, texts: map[int]string{}, src: &e.src}
	bad := map[string]string{}
	carried := map[string]bool{}
	carry := func(n string) string {
		d, err := c.decl(n)
		if err != nil {
			bad[n] = err.Error()
			return ""
		}
		carried[n] = true
		return d
	}
	for i, d := range e.src.decls {
		if d.compiled {
			continue
		}
		names, ok := varDeclNames(d.text)
		if !ok {
			continue
		}
		var lines []string
		for _, n := range names {
			if n != "_" && g[n].IsValid() {
				lines = append(lines, "var "+n+" = "+n) // placeholder until needed
			}
		}
		v.texts[i] = strings.Join(lines, "\n")
	}
	// The names a carried declaration uses are type names: those decide
	// what else the program needs, not the original initialisers.
	var extra []item
	for round, before := 0, -1; ; round++ {
		v.decls = e.src.needed(append(slices.Clip(items), extra...), cellKeys, v.text)
		use := map[string]bool{}
		for _, it := range items {
			for _, id := range idents(it.text) {
				use[id] = true
			}
		}
		for _, d := range v.decls {
			i := slices.IndexFunc(e.src.decls, func(x declSrc) bool { return x.cell == d.cell && x.line == d.line && x.text == d.text })
			if _, ok := v.texts[i]; ok {
				names, _ := varDeclNames(d.text)
				var lines []string
				for _, n := range names {
					if n != "_" && g[n].IsValid() && !slices.Contains(cellKeys, n) {
						if t := carry(n); t != "" {
							lines = append(lines, t)
						}
					}
				}
				v.texts[i] = strings.Join(lines, "\n")
			}
			for _, id := range idents(v.text(d)) {
				use[id] = true
			}
		}
		var names []string
		for n := range use {
			if g[n].IsValid() && !e.names[n] && !e.src.only[n] && !slices.Contains(cellKeys, n) {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		v.stmtVars = v.stmtVars[:0]
		var next []item
		for _, n := range names {
			if t := carry(n); t != "" {
				v.stmtVars = append(v.stmtVars, t)
				next = append(next, item{kind: declItem, text: t})
			}
		}
		if len(next) == len(extra) && len(v.decls) == before || round > 8 {
			break
		}
		extra, before = next, len(v.decls)
	}
	if len(bad) > 0 {
		var list []string
		for n, why := range bad {
			list = append(list, n+" ("+why+")")
		}
		slices.Sort(list)
		return nil, refusal("the cell must run compiled, in a new process, and it uses variables of the session whose current values cannot be passed to it: %s. Go would see their current values; a compiled cell would not, so it is not run", strings.Join(list, ", "))
	}
	for n := range carried {
		v.names = append(v.names, n)
	}
	slices.Sort(v.names)
	return v, nil
}

// varDeclNames returns the names of a var declaration, ok false if text
// is not one var declaration.
func varDeclNames(text string) ([]string, bool) {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution)
	if err != nil || len(f.Decls) != 1 {
		return nil, false
	}
	gd, ok := f.Decls[0].(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return nil, false
	}
	return genDeclNames(gd), true
}

// takeBack gives the interpreter what a compiled cell reported: the new
// values of the session's variables it changed ("set"), and the
// variables its statements defined ("def"). A changed value the
// interpreter cannot take is an error (later cells would see the old
// one); a defined variable it cannot take is not kept, which the cell's
// stderr says (later cells that use it fail: it is undefined).
func (e *Engine) takeBack(report string, funcLits map[string]bool) error {
	var failed, stale []string
	for _, line := range strings.Split(report, "\n") {
		f := strings.SplitN(line, "\t", 4)
		var src string
		switch {
		case len(f) == 2 && f[0] == "stale":
			e.src.vars[f[1]] = pkgVarState{lost: "its value has no Go literal, and declaring it again does not give the value it has now"}
			stale = append(stale, f[1])
			continue
		case len(f) == 4 && (f[0] == "pkg" || f[0] == "pkgfp"):
			e.src.takePkgVar(f, funcLits[f[1]])
			continue
		case len(f) == 3 && f[0] == "lost":
			fmt.Fprintf(e.io.stderr, "(compiled: %s is not kept for later cells: %s)\n", f[1], f[2])
			continue
		case len(f) != 4:
			continue
		case f[0] == "set":
			src = f[1] + " = " + unqualifyMain(f[3])
		case f[0] == "def":
			src = f[1] + " := " + unqualifyMain(f[2]) + "(" + unqualifyMain(f[3]) + ")"
		}
		err := e.probeCompile(context.Background(), src)
		if err == nil {
			_, err = e.eval(src)
		}
		if err != nil {
			if f[0] == "set" {
				failed = append(failed, fmt.Sprintf("%s (%v)", f[1], err))
			} else {
				fmt.Fprintf(e.io.stderr, "(compiled: %s is not kept for later cells: %v)\n", f[1], err)
			}
			continue
		}
		if f[0] == "def" {
			delete(e.src.only, f[1])
		}
	}
	if len(stale) > 0 {
		return refusal("the cell uses package vars declared by compiled cells whose current values cannot be passed to a new process: %s (each has no Go literal, and declaring it again does not give the value it has now). Declare them again to start them afresh; the cell was not run", strings.Join(stale, ", "))
	}
	if len(failed) > 0 {
		return refusal("the compiled cell changed variables of the session whose new values the interpreter cannot take: %s; later cells would see their old values", strings.Join(failed, ", "))
	}
	return nil
}

// unqualifyMain drops the package name main from qualified identifiers
// of Go source (main.Point -> Point), leaving strings alone.
func unqualifyMain(src string) string {
	var s scanner.Scanner
	b := []byte(src)
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(b)), b, nil, 0)
	var out strings.Builder
	last := 0
	var prevMain int = -1
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		off := fset.Position(pos).Offset
		if tok == token.PERIOD && prevMain >= 0 {
			out.WriteString(src[last:prevMain])
			last = off + 1
		}
		prevMain = -1
		if tok == token.IDENT && lit == "main" {
			prevMain = off
		}
	}
	out.WriteString(src[last:])
	return out.String()
}
