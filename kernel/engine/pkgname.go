package engine

import (
	"go/build"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// packageName returns the name package p declares, the name an import
// without a name binds, as go/build finds it: from the symbol tables for
// bound packages (yaegi's key is "path/name"), else from the package
// clause of its source under the GoPath, else guessed from the path as
// goimports does (last element that is not a major version suffix, less a
// "go-" prefix or ".go" suffix).
func (e *Engine) packageName(p string) string {
	p = canonical(p)
	if n, ok := e.pkgNames[p]; ok {
		return n
	}
	if e.gopath != "" {
		ctx := build.Default
		ctx.GOPATH = e.gopath
		if bp, err := ctx.ImportDir(filepath.Join(e.gopath, "src", filepath.FromSlash(p)), 0); err == nil && bp.Name != "" {
			return bp.Name
		}
	}
	return assumedName(p)
}

// specName is the name an import spec binds in the cell.
func (e *Engine) specName(s importSpec) string {
	if s.name != "" {
		return s.name
	}
	return e.packageName(s.path)
}

// majorVersion matches a module path's major version suffix element.
var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// assumedName guesses a package's name from its import path.
func assumedName(p string) string {
	elems := strings.Split(p, "/")
	base := elems[len(elems)-1]
	if majorVersion.MatchString(base) && len(elems) > 1 {
		base = elems[len(elems)-2]
	}
	base = strings.TrimPrefix(strings.TrimSuffix(base, ".go"), "go-")
	if i := strings.IndexFunc(base, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}); i >= 0 {
		base = base[:i]
	}
	if base == "" {
		return path.Base(p)
	}
	return base
}
