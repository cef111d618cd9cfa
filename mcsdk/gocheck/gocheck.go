// Package gocheck loads a model's checks written in Go — invariants and
// fault preconditions that the expression language cannot state — from the
// source files the model names, with the yaegi interpreter, so that a
// user's own target needs no rebuild of weft.
//
// The files form one package (any name) that imports only the standard
// library (non-generic parts: yaegi binds no generic functions of it) and
// github.com/weft-mc/weft/mcsdk/model. It exports
//
//	func Registry() model.Registry
//
// whose entries a model references as "go:NAME" invariants, and optionally
//
//	func Preconditions() map[string]func(model.State, int) (bool, string)
//
// for "go:NAME" fault preconditions.
//
// Load compiles the files into a helper program when it can (native.go:
// the files inside a Go module, a Go toolchain on PATH) and interprets
// them otherwise; both run the same source, so they give the same answers.
// Mode Interpreted always interprets; Native makes a failure to compile
// an error (weft's CLI takes the mode from WEFT_CHECKS=interp|native).
package gocheck

//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract -name gocheck github.com/weft-mc/weft/mcsdk/model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing/fstest"

	"github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"

	"github.com/weft-mc/weft/mcsdk/model"
)

// Symbols are the compiled packages interpreted checks may import besides
// the standard library: mcsdk/model (generated into model_symbols.go).
var Symbols = interp.Exports{}

// Precondition decides whether node may crash in state s.
type Precondition = func(s model.State, node int) (bool, string)

// Checks are the Go checks of one model.
type Checks struct {
	Registry      model.Registry
	Preconditions map[string]Precondition
	// Compiled is true when a compiled helper answers the calls, false
	// when the interpreter does; NotCompiled says why not.
	Compiled    bool
	NotCompiled string
}

// Mode chooses how Load runs checks.
type Mode string

// Modes.
const (
	Auto        Mode = ""       // compiled when it can, interpreted otherwise
	Interpreted Mode = "interp" // always interpreted
	Native      Mode = "native" // compiled; failing to compile is an error
)

// Load is LoadCached with the default cache directory.
func Load(files []string, mode Mode) (*Checks, error) {
	return LoadCached(files, mode, "")
}

// LoadCached loads files (paths; one package) and returns what they
// export, compiled when it can, interpreted otherwise (see the package
// comment), as mode says. Compiled checks are cached under cacheDir ("":
// supervisor.CacheDir()).
func LoadCached(files []string, mode Mode, cacheDir string) (*Checks, error) {
	if len(files) == 0 || mode == Interpreted {
		return LoadInterpreted(files)
	}
	c, err := loadCompiled(files, cacheDir)
	if err == nil {
		return c, nil
	}
	var ce *checkError
	if mode == Native || errors.As(err, &ce) {
		return nil, err
	}
	c, ierr := LoadInterpreted(files)
	if ierr != nil {
		return nil, ierr
	}
	c.NotCompiled = err.Error()
	return c, nil
}

// LoadInterpreted interprets files (paths; one package) with yaegi and
// returns what they export.
func LoadInterpreted(files []string) (*Checks, error) {
	if len(files) == 0 {
		return &Checks{Registry: model.Registry{}, Preconditions: map[string]Precondition{}}, nil
	}
	fsys := fstest.MapFS{}
	const pkg = "weftchecks/model"
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("checks: %v", err)
		}
		fsys["src/"+pkg+"/"+filepath.Base(f)] = &fstest.MapFile{Data: b}
	}
	i := interp.New(interp.Options{GoPath: ".", SourcecodeFilesystem: fsys})
	if err := i.Use(stdlib.Symbols); err != nil {
		return nil, err
	}
	if err := i.Use(Symbols); err != nil {
		return nil, err
	}
	if err := call(func() { _, err := i.Eval(fmt.Sprintf("import checks %q", pkg)); panicIf(err) }); err != nil {
		return nil, fmt.Errorf("checks %s: %v", files[0], err)
	}
	out := &Checks{Registry: model.Registry{}, Preconditions: map[string]Precondition{}}
	reg, err := i.Eval("checks.Registry")
	if err != nil {
		return nil, fmt.Errorf("checks %s: the package must export func Registry() model.Registry: %v", files[0], err)
	}
	f, ok := reg.Interface().(func() model.Registry)
	if !ok {
		return nil, fmt.Errorf("checks %s: Registry is %s, want func() model.Registry", files[0], reg.Type())
	}
	if err := call(func() { out.Registry = f() }); err != nil {
		return nil, fmt.Errorf("checks %s: Registry(): %v", files[0], err)
	}
	if pre, err := i.Eval("checks.Preconditions"); err == nil && pre.Kind() == reflect.Func {
		g, ok := pre.Interface().(func() map[string]func(model.State, int) (bool, string))
		if !ok {
			return nil, fmt.Errorf("checks %s: Preconditions is %s, want func() map[string]func(model.State, int) (bool, string)", files[0], pre.Type())
		}
		if err := call(func() { out.Preconditions = g() }); err != nil {
			return nil, fmt.Errorf("checks %s: Preconditions(): %v", files[0], err)
		}
	}
	return out, nil
}

func panicIf(err error) {
	if err != nil {
		panic(err)
	}
}

// call runs f, turning a panic of interpreted code (or of the interpreter,
// which panics on some constructs it cannot compile) into an error.
func call(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	f()
	return nil
}
