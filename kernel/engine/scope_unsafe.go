package engine

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/traefik/yaegi/interp"
)

// forgetGlobals removes names from the interpreter's main package scope, so
// that a later cell's declaration of the same name defines a new type.
// yaegi v0.16.1 reuses the symbol of a redeclared type and keeps its
// cached reflect type: without this, `type P struct{ A, B int }` after
// `type P struct{ A int }` is silently ignored. Values made from the old
// type keep it, as compiled Go would.
//
// yaegi has no API for this; the scope map is reached through its
// unexported fields (Interpreter.scopes["main"].sym), checked by
// TestRedefinedType so a yaegi upgrade that moves them fails loudly.
func forgetGlobals(in *interp.Interpreter, names []string) error {
	sym, err := mainSyms(in)
	if err != nil || !sym.IsValid() {
		return err // nothing declared yet, or yaegi's fields moved
	}
	for _, n := range names {
		sym.SetMapIndex(reflect.ValueOf(n), reflect.Value{})
	}
	return nil
}

// field returns a settable view of the unexported field name of struct v.
func field(v reflect.Value, name string) reflect.Value {
	f := v.FieldByName(name)
	if !f.IsValid() {
		return f
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// globalsSnapshot is the interpreter's main package scope as it was
// before a compilation: each symbol and a copy of what it held.
type globalsSnapshot struct {
	in   *interp.Interpreter
	syms map[string][2]reflect.Value // name -> the *symbol, a copy of *symbol
}

// snapshotGlobals records the main package scope of in, so that what a
// compilation that fails leaves there can be undone (restore). yaegi
// v0.16.1 declares a run's names before it has compiled all of it, and
// keeps them when it fails: a later cell saw the variables, functions and
// types of a cell that never ran (`x := 7` of a cell that did not
// compile made x 7; a function that did not compile could be called).
func snapshotGlobals(in *interp.Interpreter) (*globalsSnapshot, error) {
	sym, err := mainSyms(in)
	if err != nil || !sym.IsValid() {
		return &globalsSnapshot{in: in}, err
	}
	s := &globalsSnapshot{in: in, syms: make(map[string][2]reflect.Value, sym.Len())}
	for it := sym.MapRange(); it.Next(); {
		p := it.Value()
		if p.IsNil() {
			continue
		}
		c := reflect.New(p.Type().Elem())
		c.Elem().Set(p.Elem())
		s.syms[it.Key().String()] = [2]reflect.Value{p, c}
	}
	return s, nil
}

// restore gives the main package scope back the symbols it had at the
// snapshot, with what they held then, and drops the others.
func (s *globalsSnapshot) restore() error {
	sym, err := mainSyms(s.in)
	if err != nil || !sym.IsValid() {
		return err
	}
	for _, k := range sym.MapKeys() {
		if _, ok := s.syms[k.String()]; !ok {
			sym.SetMapIndex(k, reflect.Value{})
		}
	}
	for name, pc := range s.syms {
		pc[0].Elem().Set(pc[1].Elem())
		sym.SetMapIndex(reflect.ValueOf(name), pc[0])
	}
	return nil
}

// mainSyms returns a settable view of the main package scope's symbol
// map (Interpreter.scopes["main"].sym), invalid if there is none yet.
func mainSyms(in *interp.Interpreter) (reflect.Value, error) {
	scopes := field(reflect.ValueOf(in).Elem(), "scopes")
	if !scopes.IsValid() || scopes.Kind() != reflect.Map {
		return reflect.Value{}, fmt.Errorf("engine: yaegi Interpreter.scopes not found")
	}
	main := scopes.MapIndex(reflect.ValueOf("main"))
	if !main.IsValid() || main.IsNil() {
		return reflect.Value{}, nil
	}
	sym := field(main.Elem(), "sym")
	if !sym.IsValid() || sym.Kind() != reflect.Map {
		return reflect.Value{}, fmt.Errorf("engine: yaegi scope.sym not found")
	}
	return sym, nil
}
