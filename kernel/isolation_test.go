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
		// Its statements ran before the declaration that crashes the
		// probe: the cell stops there, the session goes on.
		"later := kept * 2\ntype loop [3]*loop\nvar lp loop", "fmt.Println(kept + 1)", "fmt.Println(later)",
	}
	want := []struct{ ename, inValue string }{
		{}, {"Exit", "os.Exit(3)"}, {}, {"StackOverflow", "goroutine stacks"}, {}, {"MemoryError", "WEFT_CELL_MEMORY"}, {},
		{"Exit", "compiled cell exited with status 3"}, {},
		{"StackOverflow", "compiled cell's stack overflowed"}, {},
		{"MemoryError", "compiled cell ran out of memory"}, {},
		{}, {}, {},
		{}, {},
		{"Unsupported", "compiler crashed on it in a probe process"}, {}, {},
	}
	spec, _ := json.Marshal(cells)
	path := filepath.Join(t.TempDir(), "cells.json")
	if err := os.WriteFile(path, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/cells.py", "weft-isolation", path)
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+jupyterPath, "JUPYTER_PLATFORM_DIRS=1", "WEFT_CELL_MEMORY=2G")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cells.py: %v\n%s", err, stderr.String())
	}
	var got []struct {
		Status, Ename, Evalue, Stdout string
		Alive                         bool
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got) != len(cells) {
		t.Fatalf("cells.py output: %v\n%s", err, out.String())
	}
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
