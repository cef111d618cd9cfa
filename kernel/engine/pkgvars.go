package engine

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
)

// Package vars declared by compiled cells. A compiled cell is a new
// process, so such a var would be initialised again by every compiled
// cell that uses it (GoNB's behaviour). Instead a var keeps its current
// value from cell to cell, as in one Go program:
//
//   - after a compiled cell ran to its end, the child reports each
//     compiled package var of its program: its value as a Go literal of
//     its type when it has one ("pkg" lines), else a digest of its value
//     (followed through pointers, maps, slices, structs and interfaces)
//     that leaves out addresses ("pkgfp");
//   - a later program declares a var with a literal as `var x T = lit`
//     (its initialiser is not run again, nor are init functions and
//     blank vars of compiled cells that ran once); a var without one is
//     initialised again, and the child checks, before any statement of
//     the cell, that the digest of the value it got is the digest the
//     session has: if not (a cell changed what a pointer points to, an
//     init function that set it does not run again…), it reports the var
//     stale and the cell is refused, naming it, rather than run with
//     another value;
//   - a var holding a func value or a channel (whose state a digest
//     cannot see) is kept only if its initialiser is a func literal and
//     no cell changed it; else later cells that use it are refused,
//     naming it and why.
//
// Declaring the var again (in any cell) starts it afresh.

// pkgVarState is what the session knows of a compiled package var.
type pkgVarState struct {
	typ, lit string // its type and value as Go source, if it has a literal
	digest   string // else the digest of its value
	lost     string // why later cells cannot see its value, if they cannot
}

// forgetPkgVars drops what the session knew of the names, redeclared.
func (s *sessionSource) forgetPkgVars(keys []string) {
	for _, k := range keys {
		delete(s.vars, k)
	}
}

// compiledVarText is a compiled var declaration as a later program holds
// it: with the values the session kept, else as declared. assign are the
// statements main must start with: values of names of a declaration whose
// other names are initialised again; checks verify the digests.
func (s *sessionSource) compiledVarText(d declSrc) (text string, assign, checks []string, err error) {
	names, ok := varDeclNames(d.text)
	if !ok {
		return d.text, nil, nil, nil
	}
	var lits, lost []string
	all := true
	for _, n := range names {
		st, ok := s.vars[n]
		switch {
		case n == "_":
			all = false
		case ok && st.lost != "":
			lost = append(lost, n+" ("+st.lost+")")
		case ok && st.lit != "":
			lits = append(lits, fmt.Sprintf("var %s %s = %s", n, st.typ, st.lit))
			assign = append(assign, fmt.Sprintf("%s = %s(%s)", n, st.typ, st.lit))
		case ok && st.digest != "":
			all = false
			checks = append(checks, fmt.Sprintf("if _weft_digest(&%s, false) != %q {\n_weft_stale(%q)\n}", n, st.digest, n))
		default:
			all = false
		}
	}
	if len(lost) > 0 {
		return "", nil, nil, refusal("the cell uses package vars declared by compiled cells whose current values cannot be passed to a new process: %s. Declare them again to start them afresh", strings.Join(lost, ", "))
	}
	if all && len(lits) > 0 {
		return strings.Join(lits, "\n"), nil, nil, nil
	}
	return d.text, assign, checks, nil
}

// pkgVar is a compiled package var a program reports at its end.
type pkgVar struct {
	name    string
	funcLit bool // its initialiser is a func literal
}

// compiledPkgVars returns the package vars of compiled var declarations.
func compiledPkgVars(text string) []pkgVar {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	var out []pkgVar
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name == "_" {
					continue
				}
				lit := false
				if len(vs.Values) == len(vs.Names) {
					_, lit = vs.Values[i].(*ast.FuncLit)
				}
				out = append(out, pkgVar{name: n.Name, funcLit: lit})
			}
		}
	}
	return out
}

// takePkgVar records a compiled package var's value reported by a child:
// fields are the report line's ("pkg", name, type, literal) or ("pkgfp",
// name, digest, flags).
func (s *sessionSource) takePkgVar(f []string, funcLit bool) {
	switch f[0] {
	case "pkg":
		s.vars[f[1]] = pkgVarState{typ: unqualifyMain(f[2]), lit: unqualifyMain(f[3])}
	case "pkgfp":
		flags := strings.Fields(f[3])
		switch {
		case slices.Contains(flags, "opaque") && !funcLit:
			s.vars[f[1]] = pkgVarState{lost: "it holds a func value or a channel: what it captured or holds cannot be passed on"}
		case slices.Contains(flags, "funcchanged"):
			s.vars[f[1]] = pkgVarState{lost: "a cell set it to another func value, which cannot be passed on"}
		default:
			s.vars[f[1]] = pkgVarState{digest: f[2]}
		}
	}
}

// digestFunc is the child's digest of a value, for package vars without
// a literal. withFuncs includes func values' code addresses (comparable
// within one process only).
const digestFunc = `
func _weft_digest(p any, withFuncs bool) string {
	var b _weft_strs.Builder
	opaque := false
	_weft_walk(&b, _weft_rt.ValueOf(p).Elem(), map[uintptr]int{}, 0, withFuncs, &opaque)
	return _weft_fmt.Sprintf("%x", _weft_sha.Sum256([]byte(b.String())))
}

func _weft_opaque(p any) bool {
	var b _weft_strs.Builder
	opaque := false
	_weft_walk(&b, _weft_rt.ValueOf(p).Elem(), map[uintptr]int{}, 0, false, &opaque)
	return opaque
}

func _weft_walk(b *_weft_strs.Builder, v _weft_rt.Value, seen map[uintptr]int, depth int, withFuncs bool, opaque *bool) {
	if depth > 10000 {
		b.WriteString("deep;")
		return
	}
	if !v.IsValid() {
		b.WriteString("nil;")
		return
	}
	b.WriteString(v.Type().String() + ":")
	switch v.Kind() {
	case _weft_rt.Bool:
		_weft_fmt.Fprint(b, v.Bool())
	case _weft_rt.Int, _weft_rt.Int8, _weft_rt.Int16, _weft_rt.Int32, _weft_rt.Int64:
		_weft_fmt.Fprint(b, v.Int())
	case _weft_rt.Uint, _weft_rt.Uint8, _weft_rt.Uint16, _weft_rt.Uint32, _weft_rt.Uint64, _weft_rt.Uintptr:
		_weft_fmt.Fprint(b, v.Uint())
	case _weft_rt.Float32, _weft_rt.Float64:
		_weft_fmt.Fprintf(b, "%b", v.Float())
	case _weft_rt.Complex64, _weft_rt.Complex128:
		_weft_fmt.Fprintf(b, "%b", v.Complex())
	case _weft_rt.String:
		_weft_fmt.Fprintf(b, "%q", v.String())
	case _weft_rt.Pointer, _weft_rt.Map:
		if v.IsNil() {
			b.WriteString("nil")
			break
		}
		if n, ok := seen[v.Pointer()]; ok {
			_weft_fmt.Fprintf(b, "@%d", n)
			break
		}
		seen[v.Pointer()] = len(seen)
		if v.Kind() == _weft_rt.Pointer {
			_weft_walk(b, v.Elem(), seen, depth+1, withFuncs, opaque)
			break
		}
		var pairs []string
		for it := v.MapRange(); it.Next(); {
			var kv _weft_strs.Builder
			_weft_walk(&kv, it.Key(), seen, depth+1, withFuncs, opaque)
			kv.WriteString("=>")
			_weft_walk(&kv, it.Value(), seen, depth+1, withFuncs, opaque)
			pairs = append(pairs, kv.String())
		}
		_weft_sort.Strings(pairs)
		_weft_fmt.Fprint(b, len(pairs), pairs)
	case _weft_rt.Slice, _weft_rt.Array:
		if v.Kind() == _weft_rt.Slice && v.IsNil() {
			b.WriteString("nil")
			break
		}
		_weft_fmt.Fprint(b, v.Len(), "[")
		for i := 0; i < v.Len(); i++ {
			_weft_walk(b, v.Index(i), seen, depth+1, withFuncs, opaque)
		}
		b.WriteString("]")
	case _weft_rt.Struct:
		b.WriteString("{")
		for i := 0; i < v.NumField(); i++ {
			_weft_walk(b, v.Field(i), seen, depth+1, withFuncs, opaque)
		}
		b.WriteString("}")
	case _weft_rt.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			break
		}
		_weft_walk(b, v.Elem(), seen, depth+1, withFuncs, opaque)
	default: // func, chan, unsafe.Pointer: their state is not visible
		if v.IsNil() {
			b.WriteString("nil")
			break
		}
		*opaque = true
		if withFuncs {
			_weft_fmt.Fprint(b, v.Pointer())
		}
	}
	b.WriteString(";")
}

func _weft_stale(name string) {
	f := _weft_os.NewFile(4, "vars")
	_weft_fmt.Fprintf(f, "stale\t%s\n", name)
	f.Close()
	_weft_os.Exit(0)
}

func _weft_keep(f *_weft_os.File, name string, p any, start string) {
	v := _weft_rt.ValueOf(p).Elem()
	t := v.Type().String()
	if v.Kind() == _weft_rt.Interface && v.IsNil() {
		_weft_fmt.Fprintf(f, "pkg\t%s\t%s\tnil\n", name, t)
		return
	}
	if v.Kind() != _weft_rt.Interface && _weft_noLiteral(v) == "" {
		_weft_fmt.Fprintf(f, "pkg\t%s\t%s\t%#v\n", name, t, v.Interface())
		return
	}
	flags := "-"
	if _weft_opaque(p) {
		flags = "opaque"
		if start != _weft_digest(p, true) {
			flags += " funcchanged"
		}
	}
	_weft_fmt.Fprintf(f, "pkgfp\t%s\t%s\t%s\n", name, _weft_digest(p, false), flags)
}
`

// markRan records that a program holding the declarations ran: their init
// functions and blank vars are not run again.
func (s *sessionSource) markRan(included []declSrc) {
	for _, d := range included {
		for i := range s.decls {
			if s.decls[i].cell == d.cell && s.decls[i].line == d.line && s.decls[i].text == d.text {
				s.decls[i].ran = true
			}
		}
	}
}
