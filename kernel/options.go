package kernel

import (
	"github.com/traefik/yaegi/interp"

	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/symbols"
)

// Options configure Run.
type Options struct {
	Engine engine.Options
	// CaptureStdout redirects file descriptor 1 so that output of compiled
	// code (weft's packages, child processes) reaches the running cell.
	CaptureStdout bool
	_             struct{}
}

// DefaultOptions binds every weft package in kernel/symbols into the
// engine, in addition to the standard library and display, and captures
// standard output.
func DefaultOptions() Options {
	return Options{Engine: engine.Options{Symbols: []interp.Exports{symbols.Exports()}}, CaptureStdout: true}
}

// BoundPackages lists the weft import paths notebooks can import.
func BoundPackages() []string { return symbols.Paths() }
