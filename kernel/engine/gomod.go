package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Modules beyond the bound ones are interpreted from source. %go get
// MODULE@VERSION (or the import of a package that is neither bound nor
// present) runs the go command in a scratch module: `go get` resolves and
// downloads through the Go module proxy (GOPROXY) into the module cache,
// `go mod download -json all` lists every module of the build list with its
// directory, and each is linked into GOPATH-style src/ under the engine's
// GoPath, where yaegi finds imports it has no symbols for. Interpreter
// state is untouched: earlier variables stay in scope.
//
// Cost: the first fetch of a module is a download (seconds); afterwards
// the module cache and the links make it a local `go get` (well under a
// second) and kernel restarts need no fetch at all. Each session parses
// and interprets an imported package's source once, at its first import.
// Packages using cgo or assembly cannot be interpreted; bind them with
// kernel/gen_symbols.sh instead.

// goGet fetches spec (module or package path, optionally @version) and
// links its build list into e.gopath/src.
func (e *Engine) goGet(ctx context.Context, spec string) error {
	if e.gopath == "" {
		return magicError("%%go get: the kernel has no GoPath for module sources")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return magicError("%%go get needs the go command on PATH: %v", err)
	}
	dir, err := os.MkdirTemp("", "weft-go-get-")
	if err != nil {
		return magicError("%%go get: %v", err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module weft.local/goget\n\ngo 1.22\n"), 0o644); err != nil {
		return magicError("%%go get: %v", err)
	}
	fmt.Fprintf(e.io.stderr, "go get %s\n", spec)
	if err := e.goRun(ctx, goCmd, dir, e.io.stderr, "get", spec); err != nil {
		return magicError("go get %s: %v", spec, err)
	}
	var out bytes.Buffer
	if err := e.goRun(ctx, goCmd, dir, &out, "mod", "download", "-json", "all"); err != nil {
		return magicError("go mod download: %v", err)
	}
	mods, bad, err := decodeModules(&out)
	if err != nil {
		return magicError("go mod download: %v", err)
	}
	for _, m := range bad {
		// A module of the graph no package imports may be gone from
		// the proxy; its packages, if imported, fail then by name.
		fmt.Fprintf(e.io.stderr, "go mod download: %s %s: %s\n", m.Path, m.Version, m.Error)
	}
	for _, m := range mods {
		if err := linkModule(filepath.Join(e.gopath, "src"), m); err != nil {
			return magicError("%%go get: %v", err)
		}
		fmt.Fprintf(e.io.stdout, "%s %s ready to import\n", m.Path, m.Version)
	}
	return nil
}

func (e *Engine) goRun(ctx context.Context, goCmd, dir string, stdout io.Writer, args ...string) error {
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, io.MultiWriter(&stderr, e.io.stderr)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// module is one entry of `go mod download -json`.
type module struct {
	Path, Version, Dir, Error string
}

// decodeModules returns the downloaded modules of `go mod download -json`
// output and those that failed.
func decodeModules(r io.Reader) (ok, bad []module, err error) {
	d := json.NewDecoder(r)
	for {
		var m module
		err := d.Decode(&m)
		if errors.Is(err, io.EOF) {
			return ok, bad, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if m.Error != "" {
			bad = append(bad, m)
			continue
		}
		if m.Dir != "" {
			ok = append(ok, m)
		}
	}
}

// linkModule points src/PATH at the module's directory in the module cache,
// replacing a link to another version.
func linkModule(src string, m module) error {
	link := filepath.Join(src, filepath.FromSlash(m.Path))
	if cur, err := os.Readlink(link); err == nil {
		if cur == m.Dir {
			return nil
		}
		if err := os.Remove(link); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return err
	}
	return os.Symlink(m.Dir, link)
}

// fetchMissing runs %go get for the imports of items that are neither
// bound nor found under the GoPath: importing a module is enough.
func (e *Engine) fetchMissing(ctx context.Context, items []item) error {
	if e.gopath == "" {
		return nil
	}
	for _, it := range items {
		if it.kind != importItem {
			continue
		}
		for _, s := range parseImports(it.text) {
			p := canonical(s.path)
			first, _, _ := strings.Cut(p, "/")
			if e.packages[p] || !strings.Contains(first, ".") || e.present(p) {
				continue
			}
			if err := e.goGet(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// present reports whether package path p has sources under the GoPath.
func (e *Engine) present(p string) bool {
	fi, err := os.Stat(filepath.Join(e.gopath, "src", filepath.FromSlash(p)))
	return err == nil && fi.IsDir()
}
