package kernel

import (
	"github.com/traefik/yaegi/interp"

	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/symbols"
)

// DefaultOptions binds every weft package in kernel/symbols into the
// engine, in addition to the standard library and display.
func DefaultOptions() engine.Options {
	return engine.Options{Symbols: []interp.Exports{symbols.Exports()}}
}

// BoundPackages lists the weft import paths notebooks can import.
func BoundPackages() []string { return symbols.Paths() }
