package kernel_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIsolation drives the installed kernel with jupyter_client: a cell
// that calls os.Exit(3), one that recurses without end and one that
// allocates without bound each get an error reply naming what happened,
// the kernel process stays alive, and the next cell sees a variable of
// the first cell. Each of the three runs interpreted, then compiled (min
// is not in the interpreter: the cell is built with the go toolchain and
// runs in a child process). A cell nested deeper than the interpreter's
// compiler is given runs compiled: the kernel's process never recurses
// on it. A cell on which yaegi's compiler recurses without end (a shallow
// recursive array type) ends only the compiler probe: the cell runs
// compiled, or, if statements of it ran already, stops with an error;
// the next cells see the earlier variables.
func TestIsolation(t *testing.T) {
	requireJupyter(t)
	_, jupyterPath := buildAndInstall(t, "weft-isolation")
	cells := []string{
		"kept := 41",
		"import \"os\"\nos.Exit(3)", "fmt.Println(kept + 1)",
		"func deep(n int) int { return deep(n+1) + 1 }\ndeep(0)", "fmt.Println(kept + 1)",
		"func hoard() { var h [][]byte; for { h = append(h, make([]byte, 1<<20)) } }\nhoard()", "fmt.Println(kept + 1)",
		"os.Exit(min(3, 4))", "fmt.Println(kept + 1)",
		"func deepC(n int) int { return deepC(n+min(1, 2)) + 1 }\ndeepC(0)", "fmt.Println(kept + 1)",
		"func hoardC() { var h [][]byte; for { h = append(h, make([]byte, min(1<<20, 1<<21))) } }\nhoardC()", "fmt.Println(kept + 1)",
		"deepSum := " + strings.Repeat("1+", 2999) + "1", "fmt.Println(kept + 1)", "fmt.Println(deepSum)",
		// yaegi's compiler recurses without end on this type: the probe
		// dies on it, and the cell runs compiled.
		"type ring [2]*ring\nvar r ring\nfmt.Println(r[0] == nil)", "fmt.Println(kept + 1)",
		// The whole cell is compiled before any of it runs: the probe
		// dies on the declaration before the statement ran, so the cell
		// runs compiled, and later is kept.
		"later := kept * 2\ntype loop [3]*loop\nvar lp loop", "fmt.Println(kept + 1)", "fmt.Println(later)",
	}
	want := []struct{ ename, inValue string }{
		{}, {"Exit", "os.Exit(3)"}, {}, {"StackOverflow", "goroutine stacks"}, {}, {"MemoryError", "WEFT_CELL_MEMORY"}, {},
		{"Exit", "compiled cell exited with status 3"}, {},
		{"StackOverflow", "compiled cell's stack overflowed"}, {},
		{"MemoryError", "compiled cell ran out of memory"}, {},
		{}, {}, {},
		{}, {},
		{}, {}, {},
	}
	got := runCells(t, "weft-isolation", jupyterPath, cells)
	for i, g := range got {
		w := want[i]
		switch {
		case !g.Alive:
			t.Errorf("cell %d %q: the kernel died", i, cells[i])
		case w.ename == "" && g.Status != "ok":
			t.Errorf("cell %d %q: %s: %s", i, cells[i], g.Ename, g.Evalue)
		case w.ename != "" && (g.Ename != w.ename || !strings.Contains(g.Evalue, w.inValue)):
			t.Errorf("cell %d %q: got %s: %s, want %s containing %q", i, cells[i], g.Ename, g.Evalue, w.ename, w.inValue)
		case strings.HasPrefix(cells[i], "type ring") && g.Stdout != "true\n":
			t.Errorf("cell %d %q printed %q, want true", i, cells[i], g.Stdout)
		case cells[i] == "fmt.Println(later)" && g.Stdout != "82\n":
			t.Errorf("cell %d %q printed %q, want 82", i, cells[i], g.Stdout)
		case cells[i] == "fmt.Println(deepSum)" && g.Stdout != "3000\n":
			t.Errorf("cell %d %q printed %q, want 3000", i, cells[i], g.Stdout)
		case cells[i] == "fmt.Println(kept + 1)" && g.Stdout != "42\n":
			t.Errorf("cell %d %q printed %q, want 42", i, cells[i], g.Stdout)
		}
	}
}

// cellResult is what testdata/cells.py reports of one cell.
type cellResult struct {
	Status, Ename, Evalue, Stdout string
	Alive                         bool
}

// runCells sends cells, in order, to one kernel kernelName (installed
// under jupyterPath) through jupyter_client, with WEFT_CELL_MEMORY=2G.
func runCells(t *testing.T, kernelName, jupyterPath string, cells []string) []cellResult {
	t.Helper()
	spec, _ := json.Marshal(cells)
	path := filepath.Join(t.TempDir(), "cells.json")
	if err := os.WriteFile(path, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/cells.py", kernelName, path)
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+jupyterPath, "JUPYTER_PLATFORM_DIRS=1", "WEFT_CELL_MEMORY=2G")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cells.py: %v\n%s", err, stderr.String())
	}
	var got []cellResult
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got) != len(cells) {
		t.Fatalf("cells.py output: %v\n%s", err, out.String())
	}
	return got
}

// TestIsolationHugeAllocations drives the installed kernel with
// jupyter_client: each cell of testdata/huge_allocations.json asks for
// one allocation the OS would refuse (make of slices, maps and channels,
// arrays, append, strings.Repeat, Builder.Grow…, also inside functions,
// closures, methods and goroutines); each gets its error reply, the
// kernel process stays alive, and the next cell reads a variable defined
// before them all. Then a route no check covers (image.NewRGBA of 4 TB
// allocates inside compiled code) kills the executor process: the reply
// is SessionLost naming every name of the session (kept among them), the
// kernel process Jupyter started stays, kept is undefined, and a new
// cell runs.
func TestIsolationHugeAllocations(t *testing.T) {
	requireJupyter(t)
	_, jupyterPath := buildAndInstall(t, "weft-huge")
	b, err := os.ReadFile("testdata/huge_allocations.json")
	if err != nil {
		t.Fatal(err)
	}
	var routes []struct {
		Route, Code, Name string
		InValue           string `json:"in_value"`
	}
	if err := json.Unmarshal(b, &routes); err != nil {
		t.Fatal(err)
	}
	cells := []string{"import \"fmt\"\nkept := 41"}
	for _, r := range routes {
		cells = append(cells, r.Code, "fmt.Println(kept + 1)")
	}
	cells = append(cells, "import \"image\"\nimg := image.NewRGBA(image.Rect(0, 0, 1<<20, 1<<20))",
		"fmt.Println(kept + 1)", "import \"fmt\"\nagain := 41\nfmt.Println(again + 1)")
	got := runCells(t, "weft-huge", jupyterPath, cells)
	if got[0].Status != "ok" {
		t.Fatalf("cell 0: %s: %s", got[0].Ename, got[0].Evalue)
	}
	for i, r := range routes {
		g, next := got[1+2*i], got[2+2*i]
		switch {
		case !g.Alive || !next.Alive:
			t.Errorf("%s: the kernel died", r.Route)
		case g.Ename != r.Name || !strings.Contains(g.Evalue, r.InValue):
			t.Errorf("%s: %q: got %s: %s, want %s containing %q", r.Route, r.Code, g.Ename, g.Evalue, r.Name, r.InValue)
		case next.Status != "ok" || next.Stdout != "42\n":
			t.Errorf("after %s: kept + 1: %s %s: %s, printed %q", r.Route, next.Status, next.Ename, next.Evalue, next.Stdout)
		}
	}
	lost, undefined, again := got[len(got)-3], got[len(got)-2], got[len(got)-1]
	switch {
	case !lost.Alive || !undefined.Alive || !again.Alive:
		t.Errorf("uncovered route: the kernel process died")
	case lost.Ename != "SessionLost" || !strings.Contains(lost.Evalue, "out of memory") || !strings.Contains(lost.Evalue, "kept"):
		t.Errorf("uncovered route: got %s: %s, want SessionLost naming out of memory and kept", lost.Ename, lost.Evalue)
	case undefined.Status != "error" || !strings.Contains(undefined.Evalue, "undefined: kept"):
		t.Errorf("after the lost session: kept + 1: %s %s: %s, want undefined: kept", undefined.Status, undefined.Ename, undefined.Evalue)
	case again.Status != "ok" || again.Stdout != "42\n":
		t.Errorf("after the lost session: %s %s: %s, printed %q", again.Status, again.Ename, again.Evalue, again.Stdout)
	}
}
