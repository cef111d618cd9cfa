package kernel

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/traefik/yaegi/interp"

	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/kernel/symbols"
	"github.com/weft-mc/weft/mcsdk/model"
)

// Options configure Run.
type Options struct {
	Engine engine.Options
	// CaptureStdout redirects file descriptor 1 so that output of compiled
	// code (weft's packages, child processes) reaches the running cell.
	CaptureStdout bool
	_             struct{}
}

// The kernel's settings in its environment. They are decoded once, where
// the kernel's process starts (`weft kernel run`, and a compiler probe's
// start), by OptionsFromEnv; the engine reads no environment.
const (
	// GoPathEnv is where the kernel links the sources of modules %go get
	// fetches (Engine.GoPath).
	GoPathEnv = "WEFT_GOPATH"
	// CellMemoryEnv is the heap size at which a running cell is stopped
	// (Engine.CellMemory): bytes, or a number with a K, M or G suffix.
	CellMemoryEnv = "WEFT_CELL_MEMORY"
)

// DefaultOptions binds every package in kernel/symbols into the engine,
// in addition to the standard library and display, captures standard
// output, and links modules %go get fetches under DefaultGoPath(). The
// cell memory limit is the engine's default (3/4 of the system's memory).
func DefaultOptions() Options {
	return Options{
		Engine: engine.Options{Symbols: []interp.Exports{symbols.Exports()}, GoPath: DefaultGoPath(), Probe: probeCommand,
			CellMemorySetting: CellMemoryEnv},
		CaptureStdout: true,
	}
}

// OptionsFromEnv returns DefaultOptions with the settings getenv gives
// (GoPathEnv, CellMemoryEnv). A value that cannot be used is an error
// naming the variable and its value, so the kernel does not start with it.
func OptionsFromEnv(getenv func(string) string) (Options, error) {
	o := DefaultOptions()
	if p := getenv(GoPathEnv); p != "" {
		o.Engine.GoPath = p
	}
	if s := getenv(CellMemoryEnv); s != "" {
		n, err := parseSize(s)
		if err != nil {
			return Options{}, fmt.Errorf("%s=%q: %v", CellMemoryEnv, s, err)
		}
		o.Engine.CellMemory = n
	}
	return o, nil
}

// parseSize decodes a positive size in bytes in model.ParseSize's syntax
// (the one weft's CLI and models use): 2G, 512M, 1GiB, 1048576.
func parseSize(s string) (uint64, error) {
	n, err := model.ParseSize(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive size in bytes, or with a unit such as K, M, G or GiB (e.g. 2G)")
	}
	return uint64(n), nil
}

// DefaultGoPath is where the kernel links the sources of modules fetched
// by %go get unless WEFT_GOPATH says otherwise: weft/gopath in the user's
// cache directory ("" if there is none).
func DefaultGoPath() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "weft", "gopath")
}

// BoundPackages lists the weft import paths notebooks can import.
func BoundPackages() []string { return symbols.Paths() }
