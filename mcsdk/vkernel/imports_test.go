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

// TestImportsNoHost checks that the package (its non-test files) imports
// nothing that reaches the host: the virtual kernel is plain Go.
func TestImportsNoHost(t *testing.T) {
	forbidden := map[string]bool{"syscall": true, "os": true, "os/exec": true, "os/signal": true,
		"golang.org/x/sys/unix": true, "unsafe": true, "net": true, "time": true}
	names, err := filepath.Glob("*.go")
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files: %v", err)
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
	if checked == 0 {
		t.Fatal("no non-test files checked")
	}
}
