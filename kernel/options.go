package kernel

import (
	"os"
	"path/filepath"

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

// DefaultOptions binds every package in kernel/symbols into the engine,
// in addition to the standard library and display, captures standard
// output, and links modules %go get fetches under GoPath().
func DefaultOptions() Options {
	return Options{
		Engine:        engine.Options{Symbols: []interp.Exports{symbols.Exports()}, GoPath: GoPath(), Probe: probeCommand},
		CaptureStdout: true,
	}
}

// GoPath is where the kernel links the sources of modules fetched by
// %go get: $WEFT_GOPATH, else weft/gopath in the user's cache directory
// ("" if there is none).
func GoPath() string {
	if p := os.Getenv("WEFT_GOPATH"); p != "" {
		return p
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "weft", "gopath")
}

// BoundPackages lists the weft import paths notebooks can import.
func BoundPackages() []string { return symbols.Paths() }
