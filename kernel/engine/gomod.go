package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// %go get MODULE@VERSION (or the import of a package that is neither bound
// nor present under the GoPath) runs `go get` in the session's work module
// (compiled.go): the go command resolves and downloads through the Go
// module proxy (GOPROXY) into the module cache. The packages are compiled,
// never interpreted: %go get compiles the package MODULE names (if it is
// one) at once, other packages at their first import. Interpreter state is
// untouched: earlier variables stay in scope.
//
// Cost: the first fetch of a module is a download and a compilation
// (seconds); a module compiled before, in this session or another, is a
// cached plugin opened in well under a second.

// goGet fetches spec (module or package path, optionally @version) into
// the work module and compiles the package it names.
func (e *Engine) goGet(ctx context.Context, spec string) error {
	if e.gopath == "" {
		return magicError("%%go get: the kernel has no GoPath for compiled modules")
	}
	m, err := e.modules(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.io.stderr, "go get %s\n", spec)
	if err := m.get(ctx, e, spec); err != nil {
		return err
	}
	path, _, _ := strings.Cut(spec, "@")
	pkgs, _, err := m.listPackages(ctx, e, []string{path})
	if err != nil {
		return err
	}
	if len(pkgs) == 0 {
		fmt.Fprintf(e.io.stdout, "%s ready: its packages compile at their first import\n", path)
		return nil
	}
	if err := e.compilePackages(ctx, pkgs); err != nil {
		return err
	}
	fmt.Fprintf(e.io.stdout, "%s compiled, ready to import\n", path)
	return nil
}

// goCmd runs the go command in dir ("" for the current directory) with
// the kernel's build environment; its stderr also goes to the cell's.
func (e *Engine) goCmd(ctx context.Context, dir string, stdout io.Writer, args ...string) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return magicError("compiled modules need the go command on PATH: %v", err)
	}
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	if e.mods != nil {
		cmd.Env = append(cmd.Env, e.mods.kb.env...)
	}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = stdout, io.MultiWriter(&stderr, e.io.stderr)
	if err := cmd.Run(); err != nil {
		return magicError("go %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// fetchMissing compiles the imports of items that are neither bound nor
// found under the GoPath, fetching (`go get`) those the work module's
// build list lacks: importing a module is enough.
func (e *Engine) fetchMissing(ctx context.Context, items []item) error {
	if e.gopath == "" {
		return nil
	}
	var need []string
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
			need = append(need, p)
		}
	}
	if len(need) == 0 {
		return nil
	}
	m, err := e.modules(ctx)
	if err != nil {
		return err
	}
	_, missing, err := m.listPackages(ctx, e, need)
	if err != nil {
		return err
	}
	for _, p := range missing {
		fmt.Fprintf(e.io.stderr, "go get %s\n", p)
		if err := m.get(ctx, e, p); err != nil {
			return err
		}
	}
	pkgs, missing, err := m.listPackages(ctx, e, need)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return magicError("cannot find package %s", strings.Join(missing, ", "))
	}
	return e.compilePackages(ctx, pkgs)
}

// present reports whether package path p has sources under the GoPath
// (the user's own packages, which are interpreted).
func (e *Engine) present(p string) bool {
	fi, err := os.Stat(filepath.Join(e.gopath, "src", filepath.FromSlash(p)))
	return err == nil && fi.IsDir()
}
