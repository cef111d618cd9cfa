package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestKernelRunBadSetting: `weft kernel run` with a WEFT_CELL_MEMORY it
// cannot use stops at its start, naming the variable and the value,
// before it reads the connection file or starts an executor.
func TestKernelRunBadSetting(t *testing.T) {
	t.Setenv("WEFT_CELL_MEMORY", "lots")
	var stdout, stderr bytes.Buffer
	code := runMain([]string{"kernel", "run", "-f", "/nonexistent/connection.json"}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), `WEFT_CELL_MEMORY="lots": want a positive size`) {
		t.Fatalf("exit %d, stderr %q: want %d and the setting named", code, stderr.String(), exitUsage)
	}
}
