package vkernel

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNoHost checks that the package and the virtual network
// (../netsim, which keeps inet sockets' bindings, connection state and
// messages in flight: doc.go) import, in their non-test files, nothing
// that reaches the host: the virtual kernel is plain Go.
func TestImportsNoHost(t *testing.T) {
	for _, dir := range []string{".", "../netsim"} {
		if n := checkImports(t, dir); n == 0 {
			t.Errorf("%s: no non-test Go files checked", dir)
		}
	}
}

// checkImports reports every forbidden import of dir's non-test files and
// returns how many files it checked.
func checkImports(t *testing.T, dir string) int {
	t.Helper()
	forbidden := map[string]bool{"syscall": true, "os": true, "os/exec": true, "os/signal": true,
		"golang.org/x/sys/unix": true, "unsafe": true, "net": true, "time": true}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if forbidden[p] || strings.HasPrefix(p, "golang.org/x/sys/") {
				t.Errorf("%s imports %s", name, p)
			}
		}
		checked++
	}
	return checked
}
