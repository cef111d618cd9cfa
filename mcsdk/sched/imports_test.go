package sched

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"
)

// TestPure keeps the scheduler pure: no file of the package (tests
// included) imports a package that reaches the host, so every choice is a
// function of the seed or the replayed prefix and what the world reports.
func TestPure(t *testing.T) {
	forbidden := map[string]bool{"os": true, "time": true, "net": true, "syscall": true, "golang.org/x/sys/unix": true,
		"github.com/weft-mc/weft/mcsdk/supervisor": true, "os/exec": true, "math/rand": true, "crypto/rand": true}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files: %v", err)
	}
	for _, f := range files {
		pf, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range pf.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if forbidden[p] {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
