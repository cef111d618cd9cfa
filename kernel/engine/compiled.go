package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"plugin"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/traefik/yaegi/interp"
)

// Packages of modules fetched by %go get run compiled, not interpreted.
// The engine keeps a work module per session whose go.mod requires the
// kernel binary's own dependency versions (runtime/debug.ReadBuildInfo)
// and the modules %go get added. A package a cell imports from it is
// compiled with the go command into a Go plugin that holds the package and
// a yaegi symbol table for it (what `yaegi extract` generates, written by
// a small generator built in the work module); the engine opens the plugin
// and binds the table, as it binds the packages compiled into the kernel.
// A plugin shares every package it has in common with the kernel binary,
// so both must be built by the same toolchain, with the same flags and the
// same versions: the go command must be the kernel's own Go release, the
// kernel must be built with cgo (it is dynamically linked), and a module
// that needs another version of a module the kernel links is refused,
// naming both versions. Plugins are cached under the GoPath's
// pkg/weft-plugins, keyed by the kernel's toolchain, build settings and
// dependency versions, the work module's build list and the packages, so a
// second %go get of the same module in any later session is a lookup.

// kernelBuild is what a plugin must share with the running binary.
type kernelBuild struct {
	goVersion string            // runtime.Version(), e.g. "go1.26.8"
	deps      map[string]string // module path -> version linked into the kernel
	flags     []string          // go build flags the kernel was built with
	env       []string          // build environment (CGO_ENABLED, GOAMD64…)
	key       string            // digest of all the above
}

// readKernelBuild reads the running binary's build information; it fails
// when plugins cannot be loaded into it.
func readKernelBuild() (*kernelBuild, error) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil, errors.New("the kernel binary has no build information (runtime/debug.ReadBuildInfo)")
	}
	k := &kernelBuild{goVersion: runtime.Version(), deps: map[string]string{}}
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
			return nil, fmt.Errorf("the kernel binary replaces module %s: plugins cannot be pinned to it", d.Path)
		}
		k.deps[d.Path] = d.Version
		fmt.Fprintf(&id, "dep %s %s\n", d.Path, d.Version)
	}
	cgo := false
	for _, s := range bi.Settings {
		switch {
		case s.Key == "CGO_ENABLED":
			cgo = s.Value == "1"
			k.env = append(k.env, s.Key+"="+s.Value)
		case s.Key == "GOAMD64" || s.Key == "GOARM64" || s.Key == "GOEXPERIMENT":
			k.env = append(k.env, s.Key+"="+s.Value)
		case s.Key == "-trimpath" && s.Value == "true", s.Key == "-race" && s.Value == "true",
			s.Key == "-asan" && s.Value == "true", s.Key == "-msan" && s.Value == "true":
			k.flags = append(k.flags, s.Key)
		case s.Key == "-tags":
			k.flags = append(k.flags, "-tags="+s.Value)
		case s.Key == "-buildmode" && s.Value != "exe" && s.Value != "pie":
			return nil, fmt.Errorf("the kernel binary is built with -buildmode=%s: it cannot load plugins", s.Value)
		default:
			continue
		}
		fmt.Fprintf(&id, "set %s=%s\n", s.Key, s.Value)
	}
	if !cgo {
		return nil, errors.New("the kernel binary is built with CGO_ENABLED=0: Go plugins need cgo")
	}
	sum := sha256.Sum256([]byte(id.String()))
	k.key = hex.EncodeToString(sum[:])
	return k, nil
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
	dir   string // the work module
	kb    *kernelBuild
	cache string // where plugins are kept
	// fixed are the module versions packages already loaded were built
	// with: the kernel's, then the build lists of the plugins opened.
	fixed map[string]string
	// fixedBy names who fixed each version, for refusals.
	fixedBy map[string]string
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
		return nil, magicError("compiled modules: the go command is %s, the kernel was built by %s: plugins need the kernel's own Go release on PATH", got, kb.goVersion)
	}
	dir, err := os.MkdirTemp("", "weft-modules-")
	if err != nil {
		return nil, magicError("compiled modules: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), workGoMod(kb), 0o644); err != nil {
		return nil, magicError("compiled modules: %v", err)
	}
	m := &modSession{dir: dir, kb: kb, cache: filepath.Join(e.gopath, "pkg", "weft-plugins"),
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
	return b.Bytes()
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

// compilePackages builds (or finds in the cache) the plugin of pkgs and binds the
// symbol tables it holds.
func (e *Engine) compilePackages(ctx context.Context, pkgs []goPackage) error {
	m := e.mods
	list, err := m.buildList(ctx, e)
	if err != nil {
		return err
	}
	mods := make([]string, 0, len(list))
	for p, v := range list {
		mods = append(mods, p+" "+v)
	}
	slices.Sort(mods)
	id := sha256.New()
	fmt.Fprintf(id, "%s\n%s\n", m.kb.key, strings.Join(mods, "\n"))
	var names []string
	for _, p := range pkgs {
		names = append(names, p.path)
	}
	slices.Sort(names)
	fmt.Fprintf(id, "%s\n", strings.Join(names, "\n"))
	so := filepath.Join(m.cache, hex.EncodeToString(id.Sum(nil))[:24]+".so")
	if _, err := os.Stat(so); err == nil {
		fmt.Fprintf(e.io.stderr, "compiled %s (cached)\n", strings.Join(names, " "))
	} else {
		fmt.Fprintf(e.io.stderr, "compiling %s\n", strings.Join(names, " "))
		if err := m.build(ctx, e, names, so); err != nil {
			return err
		}
	}
	if err := e.bindPlugin(so); err != nil {
		return err
	}
	for _, p := range names {
		e.fetched[p] = true
	}
	for p, v := range list {
		if _, ok := m.fixed[p]; !ok {
			m.fixed[p], m.fixedBy[p] = v, "packages compiled earlier in this session use"
		}
	}
	return nil
}

// build writes the symbol tables of pkgs into a new plugin package of the
// work module and builds it into so.
func (m *modSession) build(ctx context.Context, e *Engine, pkgs []string, so string) error {
	// The plugin's package path is its identity in the process (Go
	// refuses a second plugin of the same path): one per plugin file.
	id := sha256.Sum256([]byte(so))
	gen := filepath.Join(m.dir, "internal", "gensymbols")
	pdir := filepath.Join(m.dir, "p"+hex.EncodeToString(id[:])[:20])
	for _, d := range []string{gen, pdir, m.cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return magicError("compiling: %v", err)
		}
	}
	files := map[string]string{
		filepath.Join(gen, "main.go"):     genSymbolsMain,
		filepath.Join(pdir, "symbols.go"): pluginMain,
	}
	for f, text := range files {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			return magicError("compiling: %v", err)
		}
	}
	args := append([]string{"run", "./internal/gensymbols", pdir}, pkgs...)
	if err := e.goCmd(ctx, m.dir, e.io.stderr, args...); err != nil {
		return magicError("symbol tables of %s: %v", strings.Join(pkgs, " "), err)
	}
	tmp := so + fmt.Sprintf(".%d.tmp", os.Getpid())
	args = append(append([]string{"build", "-buildmode=plugin"}, m.kb.flags...), "-o", tmp, "./"+filepath.Base(pdir))
	if err := e.goCmd(ctx, m.dir, e.io.stderr, args...); err != nil {
		os.Remove(tmp)
		return refusal("cannot compile %s: %v", strings.Join(pkgs, " "), err)
	}
	if err := os.Rename(tmp, so); err != nil {
		return magicError("compiling: %v", err)
	}
	return nil
}

// bindPlugin opens the plugin so and binds its symbol tables.
func (e *Engine) bindPlugin(so string) error {
	p, err := plugin.Open(so)
	if err != nil {
		return refusal("cannot load the compiled packages: %v", err)
	}
	s, err := p.Lookup("Symbols")
	if err != nil {
		return refusal("compiled packages: %v", err)
	}
	tables, ok := s.(*map[string]map[string]reflect.Value)
	if !ok {
		return refusal("compiled packages: Symbols is a %T", s)
	}
	if err := e.in.Use(interp.Exports(*tables)); err != nil {
		return refusal("compiled packages: %v", err)
	}
	e.noteBound(*tables)
	return nil
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

// genSymbolsMain is the generator of symbol tables: yaegi's extract run in
// the work module (it resolves packages from the current directory).
const genSymbolsMain = `// Command gensymbols writes yaegi symbol tables of packages into a directory.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/traefik/yaegi/extract"
)

func main() {
	x := extract.Extractor{Dest: "main"}
	for i, p := range os.Args[2:] {
		f, err := os.Create(filepath.Join(os.Args[1], fmt.Sprintf("symbols%d.go", i)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if _, err := x.Extract(p, "", f); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", p, err)
			os.Exit(1)
		}
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
`

// pluginMain declares the table the generated files fill.
const pluginMain = `// Package main is a plugin of compiled packages for weft's Go kernel.
package main

import "reflect"

// Symbols are the yaegi symbol tables of the packages, by "path/name".
var Symbols = map[string]map[string]reflect.Value{}
`

// checkNamedCrossing refuses a cell that uses a package compiled by %go
// get and names a type declared by cells other than an interface: yaegi
// builds such values with reflect, which cannot make named types, so
// compiled code sees an int where Go passes a myInt (spf13/cast's
// ToInt(myInt(7)) is 7, Go's 0) and an unnamed struct where Go passes a
// point (hashstructure hashes the type's name: another hash). The check is
// syntactic: a variable of such a type made in an earlier cell and passed
// on its own is not seen.
func (e *Engine) checkNamedCrossing(items []item) error {
	names := map[string]string{} // import name -> fetched package path
	for p := range e.fetched {
		names[e.pkgNames[p]] = p // the name a cell's automatic import binds
	}
	for name, p := range e.imported {
		if e.fetched[p] {
			names[name] = p
		}
	}
	for _, it := range items {
		if it.kind == importItem {
			for _, s := range parseImports(it.text) {
				if p := canonical(s.path); e.fetched[p] {
					names[e.specName(s)] = p
				}
			}
		}
		if it.kind == declItem {
			for n := range plainTypes(it.text) {
				e.plainTypes[n] = true
			}
		}
	}
	var pkg, typ string
	for _, it := range items {
		for _, id := range idents(it.text) {
			if p, ok := names[id]; ok && pkg == "" {
				pkg = p
			}
			if e.plainTypes[id] && typ == "" {
				typ = id
			}
		}
	}
	if pkg == "" || typ == "" {
		return nil
	}
	return refusal("the cell uses compiled package %s and type %s, declared by a cell: the interpreter builds its values without the type's name (a %s reaches compiled code as its underlying type, where Go passes a %s); pass values of predeclared or compiled types", pkg, typ, typ, typ)
}

// plainTypes returns the named types a declaration introduces, interfaces
// and aliases excluded.
func plainTypes(text string) map[string]bool {
	out := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+text, parser.SkipObjectResolution)
	if err != nil {
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Assign.IsValid() {
			return true
		}
		if _, iface := ts.Type.(*ast.InterfaceType); !iface {
			out[ts.Name.Name] = true
		}
		return true
	})
	return out
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
