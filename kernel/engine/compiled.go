package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
)

// Packages of modules fetched by %go get run compiled, never interpreted:
// the cells that use them are compiled with the go toolchain and run in a
// child process (cellbuild.go). The engine keeps a work module per session
// whose go.mod requires the kernel binary's own dependency versions
// (runtime/debug.ReadBuildInfo), so compiled cells see the versions of
// gonum, arrow-go… that interpreted cells see, and the modules %go get
// added. A module that needs another version of a module the kernel links
// is refused, naming both versions: interpreted and compiled cells of one
// session would otherwise use two versions of one package. The go command
// must be the kernel's own Go release (the work module's go line).

// kernelBuild is the running binary's toolchain and dependency versions.
type kernelBuild struct {
	goVersion string // runtime.Version(), e.g. "go1.26.8"
	main      string // the kernel's own module path (github.com/weft-mc/weft)
	// source is the directory of the kernel's own module on disk, ""
	// if it is not there (why says so): compiled cells that import the
	// kernel's packages (weft's) build them from it, the module being
	// unpublished.
	source, why string
	deps        map[string]string // module path -> version linked into the kernel
	flags       []string          // go build flags the kernel was built with
	env         []string          // build environment (CGO_ENABLED, GOAMD64…)
	key         string            // digest of all the above
}

// readKernelBuild reads the running binary's build information.
func readKernelBuild() (*kernelBuild, error) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil, errors.New("the kernel binary has no build information (runtime/debug.ReadBuildInfo)")
	}
	k := &kernelBuild{goVersion: runtime.Version(), main: bi.Main.Path, deps: map[string]string{}}
	k.source, k.why = sourceModule(bi.Main.Path)
	var id strings.Builder
	fmt.Fprintf(&id, "%s %s/%s\n", k.goVersion, runtime.GOOS, runtime.GOARCH)
	deps := bi.Deps
	if len(deps) == 0 && bi.Main.Path != "" {
		// A test binary records no dependencies; go list gives them
		// from the package's directory, where tests run.
		var err error
		if deps, err = linkedModules(bi.Main.Path); err != nil {
			return nil, err
		}
	}
	for _, d := range deps {
		if d.Replace != nil {
			return nil, fmt.Errorf("the kernel binary replaces module %s: compiled cells cannot be pinned to its versions", d.Path)
		}
		k.deps[d.Path] = d.Version
		fmt.Fprintf(&id, "dep %s %s\n", d.Path, d.Version)
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "CGO_ENABLED":
			k.env = append(k.env, s.Key+"="+s.Value)
		case s.Key == "GOAMD64" || s.Key == "GOARM64" || s.Key == "GOEXPERIMENT":
			k.env = append(k.env, s.Key+"="+s.Value)
		case s.Key == "-trimpath" && s.Value == "true", s.Key == "-race" && s.Value == "true",
			s.Key == "-asan" && s.Value == "true", s.Key == "-msan" && s.Value == "true":
			k.flags = append(k.flags, s.Key)
		case s.Key == "-tags":
			k.flags = append(k.flags, "-tags="+s.Value)
		default:
			continue
		}
		fmt.Fprintf(&id, "set %s=%s\n", s.Key, s.Value)
	}
	sum := sha256.Sum256([]byte(id.String()))
	k.key = hex.EncodeToString(sum[:])
	return k, nil
}

// sourceModule returns the directory of module main's source, as the
// build recorded it: the path of this file, which the compiler writes into
// the binary (unless -trimpath). It is "" with the reason if that
// directory is gone or is not module main's.
func sourceModule(main string) (dir, why string) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", "the kernel was built with -trimpath, so the directory of its module's source was not recorded"
	}
	for dir = filepath.Dir(file); ; dir = filepath.Dir(dir) {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			if modulePath(b) != main {
				return "", fmt.Sprintf("%s, where the kernel was built, is no longer module %s", dir, main)
			}
			return dir, ""
		}
		if parent := filepath.Dir(dir); parent == dir {
			return "", fmt.Sprintf("the kernel's module source is no longer on disk (it was built from %s)", filepath.Dir(file))
		}
	}
}

// modulePath returns the module path a go.mod declares.
func modulePath(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`)
		}
	}
	return ""
}

// linkedModules returns the modules whose packages a test binary of the
// package in the current directory links (go list -deps -test), with their
// versions: what a binary's build information records.
func linkedModules(main string) ([]*debug.Module, error) {
	out, err := exec.Command("go", "list", "-deps", "-test", "-f", "{{with .Module}}{{.Path}} {{.Version}}{{end}}", ".").Output()
	if err != nil {
		return nil, fmt.Errorf("the kernel binary records no dependency versions and go list -deps failed: %v", err)
	}
	seen := map[string]bool{main: true}
	var deps []*debug.Module
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if p, v, ok := strings.Cut(l, " "); ok && !seen[p] {
			seen[p] = true
			deps = append(deps, &debug.Module{Path: p, Version: v})
		}
	}
	if !slices.ContainsFunc(strings.Split(string(out), "\n"), func(l string) bool { return strings.HasPrefix(l, main+" ") }) {
		return nil, fmt.Errorf("the kernel binary records no dependency versions and is not run inside its module %s", main)
	}
	return deps, nil
}

// modSession is the work module of a session's compiled packages.
type modSession struct {
	dir string // the work module
	kb  *kernelBuild
	// fixed are the module versions interpreted cells use: the kernel's.
	fixed map[string]string
	// fixedBy names who fixed each version, for refusals.
	fixedBy map[string]string
	// lock is dir's lock file, held while the engine lives (modlock_unix.go).
	lock *os.File
}

// modules returns the engine's work module, creating it at first use.
func (e *Engine) modules(ctx context.Context) (*modSession, error) {
	if e.mods != nil {
		return e.mods, nil
	}
	kb, err := readKernelBuild()
	if err != nil {
		return nil, magicError("compiled modules: %v", err)
	}
	var v bytes.Buffer
	if err := e.goCmd(ctx, "", &v, "env", "GOVERSION"); err != nil {
		return nil, err
	}
	if got := strings.TrimSpace(v.String()); got != kb.goVersion {
		return nil, magicError("compiled modules: the go command is %s, the kernel was built by %s: compiled cells need the kernel's own Go release on PATH", got, kb.goVersion)
	}
	dir, err := os.MkdirTemp("", "weft-modules-")
	if err != nil {
		return nil, magicError("compiled modules: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), workGoMod(kb), 0o644); err != nil {
		return nil, magicError("compiled modules: %v", err)
	}
	if kb.source != "" {
		// The kernel's module's checksums: its dependencies are verified
		// as when it was built.
		if b, err := os.ReadFile(filepath.Join(kb.source, "go.sum")); err == nil {
			if err := os.WriteFile(filepath.Join(dir, "go.sum"), b, 0o644); err != nil {
				return nil, magicError("compiled modules: %v", err)
			}
		}
	}
	m := &modSession{dir: dir, kb: kb, lock: lockModDir(dir),
		fixed: map[string]string{}, fixedBy: map[string]string{}}
	for p, v := range kb.deps {
		m.fixed[p], m.fixedBy[p] = v, "the kernel links"
	}
	e.mods = m
	return m, nil
}

// workGoMod is the work module's go.mod: the kernel's versions required.
func workGoMod(kb *kernelBuild) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "module weft.local/modules\n\ngo %s\n\nrequire (\n", strings.TrimPrefix(kb.goVersion, "go"))
	paths := make([]string, 0, len(kb.deps))
	for p := range kb.deps {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "\t%s %s\n", p, kb.deps[p])
	}
	b.WriteString(")\n")
	if kb.source != "" && kb.main != "" {
		// The kernel's own module is not published: its packages are
		// built from the source the kernel was built from. The go
		// command requires it (at a zero pseudo-version) when a cell
		// first imports one of them.
		fmt.Fprintf(&b, "\nreplace %s => %s\n", kb.main, kb.source)
	}
	return b.Bytes()
}

// unpublished explains a failed build of a compiled cell that imports the
// kernel's own packages when their source is not on disk; "" otherwise.
func (m *modSession) unpublished(out string) string {
	if m == nil || m.kb.source != "" || m.kb.main == "" || !strings.Contains(out, m.kb.main+"/") {
		return ""
	}
	return fmt.Sprintf("\nthe cell imports packages of %s, which is not published: compiled cells build them from the kernel's module source, and %s", m.kb.main, m.kb.why)
}

// get runs `go get spec` in the work module and refuses (restoring the
// work module) a spec that moves a module the kernel links to another
// version.
func (m *modSession) get(ctx context.Context, e *Engine, spec string) error {
	saved := map[string][]byte{}
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(m.dir, f))
		if err == nil {
			saved[f] = b
		}
	}
	restore := func() {
		for _, f := range []string{"go.mod", "go.sum"} {
			if b, ok := saved[f]; ok {
				os.WriteFile(filepath.Join(m.dir, f), b, 0o644)
			} else {
				os.Remove(filepath.Join(m.dir, f))
			}
		}
	}
	if m.kb.source != "" && m.kb.main != "" {
		// Unrequired, the kernel's module is left out of go get's
		// version selection, which would look for other versions of it
		// on the module proxy (a 403: it is not published) to move one
		// of its dependencies; that move is refused below.
		if err := e.goCmd(ctx, m.dir, io.Discard, "mod", "edit", "-droprequire="+m.kb.main); err != nil {
			restore()
			return err
		}
	}
	if err := e.goCmd(ctx, m.dir, e.io.stderr, "get", spec); err != nil {
		restore()
		return magicError("go get %s: %v", spec, err)
	}
	list, err := m.buildList(ctx, e)
	if err != nil {
		restore()
		return err
	}
	var moved []string
	for p, v := range list {
		if want, ok := m.fixed[p]; ok && v != want {
			moved = append(moved, p)
		}
	}
	// The requested module first, else the first by path.
	slices.SortFunc(moved, func(a, b string) int {
		ra, rb := strings.HasPrefix(spec, a), strings.HasPrefix(spec, b)
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(moved) > 0 {
		p := moved[0]
		v, want := list[p], m.fixed[p]
		restore()
		return refusal("%%go get %s: it needs %s %s, but %s %s %s, and compiled packages loaded together must share one version of every package; ask for a version of the module that accepts %s %s",
			spec, p, v, m.fixedBy[p], p, want, p, want)
	}
	return nil
}

// buildList returns the work module's build list: version by module path.
func (m *modSession) buildList(ctx context.Context, e *Engine) (map[string]string, error) {
	var out bytes.Buffer
	if err := e.goCmd(ctx, m.dir, &out, "list", "-m", "-f", "{{.Path}} {{.Version}}", "all"); err != nil {
		return nil, err
	}
	list := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if p, v, ok := strings.Cut(line, " "); ok {
			list[p] = v
		}
	}
	return list, nil
}

// goPackage is a package of the work module's build list.
type goPackage struct{ path, name string }

// listPackages returns those of paths that are packages of the work
// module's build list, and the others (not found, or without Go files).
func (m *modSession) listPackages(ctx context.Context, e *Engine, paths []string) (pkgs []goPackage, missing []string, err error) {
	var out bytes.Buffer
	// -mod=readonly: a package outside the build list is missing, not
	// looked up (and fetched at its latest version) by go list.
	args := append([]string{"list", "-mod=readonly", "-e", "-f", "{{.ImportPath}} {{if .Error}}-{{else}}{{.Name}}{{end}}"}, paths...)
	if err := e.goCmd(ctx, m.dir, &out, args...); err != nil {
		return nil, nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case len(f) != 2 || f[1] == "-":
			missing = append(missing, f[0])
		case f[1] == "main":
			return nil, nil, magicError("%s is a command (package main), not a package to import", f[0])
		default:
			pkgs = append(pkgs, goPackage{f[0], f[1]})
		}
	}
	return pkgs, missing, nil
}

// noteBound records the packages of symbol tables bound to the interpreter.
func (e *Engine) noteBound(t map[string]map[string]reflect.Value) {
	for k := range t {
		if i := strings.LastIndex(k, "/"); i > 0 {
			e.packages[k[:i]] = true
			e.pkgNames[k[:i]] = k[i+1:]
		}
	}
}

// idents returns the identifiers of Go source text, in order.
func idents(text string) []string {
	var s scanner.Scanner
	src := []byte(text)
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(src)), src, nil, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.IDENT {
			out = append(out, lit)
		}
	}
}
