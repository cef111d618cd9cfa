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
	scopes := field(reflect.ValueOf(in).Elem(), "scopes")
	if !scopes.IsValid() || scopes.Kind() != reflect.Map {
		return fmt.Errorf("engine: yaegi Interpreter.scopes not found")
	}
	main := scopes.MapIndex(reflect.ValueOf("main"))
	if !main.IsValid() || main.IsNil() {
		return nil // nothing declared yet
	}
	sym := field(main.Elem(), "sym")
	if !sym.IsValid() || sym.Kind() != reflect.Map {
		return fmt.Errorf("engine: yaegi scope.sym not found")
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
