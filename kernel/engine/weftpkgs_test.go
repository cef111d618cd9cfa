package engine

import (
	"errors"
	"strings"
	"testing"
)

// TestCompiledWeftPackages: a compiled cell that imports weft's own
// packages builds them from the kernel's module source (weft is not
// published: the module proxy answered 403 and the cell was refused).
func TestCompiledWeftPackages(t *testing.T) {
	runSessions(t, map[string][]cellRun{
		"a weft package in a compiled cell": {
			{code: "import (\"fmt\"; \"github.com/weft-mc/weft/mcsdk/dataset\")", compiled: true},
			{code: "r := dataset.Row{Steps: 4}\nfmt.Println(min(r.Steps, 9))", stdout: "4\n", compiled: true}},
	})
}

// TestUnpublishedSource: without the kernel's module source on disk, a
// failed build that names weft's packages says why precisely.
func TestUnpublishedSource(t *testing.T) {
	dir, why := sourceModule("github.com/weft-mc/weft")
	if dir == "" || why != "" {
		t.Fatalf("sourceModule = %q, %q: this checkout is the kernel's module", dir, why)
	}
	if _, why := sourceModule("example.com/other"); !strings.Contains(why, "is no longer module example.com/other") {
		t.Errorf("sourceModule of another module: %q", why)
	}
	gone := &modSession{kb: &kernelBuild{main: "github.com/weft-mc/weft", why: "the kernel was built with -trimpath, so the directory of its module's source was not recorded"}}
	out := "main.go:4:2: module github.com/weft-mc/weft/mcsdk/dataset: reading https://proxy.golang.org/…: 403 Forbidden"
	if got := gone.unpublished(out); !strings.Contains(got, "github.com/weft-mc/weft, which is not published") || !strings.Contains(got, "-trimpath") {
		t.Errorf("unpublished = %q", got)
	}
	if got := gone.unpublished("main.go:3:2: undefined: x"); got != "" {
		t.Errorf("unpublished of an unrelated error = %q", got)
	}
	var e Engine
	interp := &Error{Name: "CompileError", Value: "1:1: undefined: dataset", Traceback: []string{"CompileError: 1:1: undefined: dataset"}}
	got := e.notCompiled("the interpreter cannot compile it", interp, errors.New(out+gone.unpublished(out)))
	if ee, ok := got.(*Error); !ok || !strings.Contains(ee.Value, "undefined: dataset\nthe go toolchain cannot build it either: the cell imports packages of github.com/weft-mc/weft") {
		t.Errorf("the interpreter's error with the build's reason = %v", got)
	}
	here := &modSession{kb: &kernelBuild{main: "github.com/weft-mc/weft", source: dir}}
	if got := here.unpublished(out); got != "" {
		t.Errorf("unpublished with the source on disk = %q", got)
	}
	if !strings.Contains(string(workGoMod(here.kb)), "replace github.com/weft-mc/weft => "+dir) {
		t.Errorf("work go.mod lacks the replace:\n%s", workGoMod(here.kb))
	}
}
