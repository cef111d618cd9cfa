package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/weft-mc/weft/kernel/display"
)

// TestCellCannotKillTheSession: a cell that calls os.Exit(3), one that
// recurses without end and one that allocates without bound each end in an
// error naming what happened, and the next cell still sees the session's
// variables. (The same through a real Jupyter client: TestIsolation in
// package kernel.)
func TestCellCannotKillTheSession(t *testing.T) {
	e := newEngineWith(t, Options{CellMemory: 2 << 30, CellMemorySetting: "WEFT_CELL_MEMORY"})
	defer e.Close()
	ctx := context.Background()
	run := func(code string) (Result, error) { return e.Execute(ctx, code, newRecorder()) }
	if _, err := run("kept := 41"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ code, name, inValue string }{
		{"import \"os\"\nos.Exit(3)", "Exit", "os.Exit(3)"},
		{"func deep(n int) int { return deep(n+1) + 1 }\ndeep(0)", "StackOverflow", "goroutine stacks"},
		{"func hoard() { var h [][]byte; for { h = append(h, make([]byte, 1<<20)) } }\nhoard()", "MemoryError", "WEFT_CELL_MEMORY"},
	} {
		_, err := run(c.code)
		ee, ok := err.(*Error)
		if !ok || ee.Name != c.name || !strings.Contains(ee.Value, c.inValue) {
			t.Fatalf("%s: got %v, want %s containing %q", c.code, err, c.name, c.inValue)
		}
		res, err := run("kept + 1")
		if err != nil {
			t.Fatalf("after %s: %v", c.name, err)
		}
		if got := res.Data.Data[display.MIMETypeText]; got != "42" {
			t.Fatalf("after %s: kept + 1 = %v", c.name, got)
		}
		// A cell that runs past the guard's first poll: the stopped
		// cell's garbage is no heap of this one.
		if _, err := run("time.Sleep(100 * time.Millisecond)"); err != nil {
			t.Fatalf("after %s: a cell that sleeps: %v", c.name, err)
		}
	}
}
