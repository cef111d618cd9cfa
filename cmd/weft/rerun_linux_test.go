//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

// TestRerunKeepsRecordings: a second run of the same seeds into the same
// dataset (--run run2) writes its own recordings beside the first run's,
// which stay byte for byte as they were, and each row names its own.
// --check-determinism says how many seeds it compared.
func TestRerunKeepsRecordings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	base := []string{"campaign", "targets/repl/repl.model", "--variants", "bug", "--seeds", "3", "--out", dir}
	out, errOut, code := weft(t, append(base, "--check-determinism")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "deterministic: 3 of 3 seeds identical") {
		t.Errorf("--check-determinism does not say what it found:\n%s", out)
	}
	first := recordings(t, dir)
	if len(first) != 3 {
		t.Fatalf("%d recordings after run1, want 3", len(first))
	}
	if out, errOut, code := weft(t, append(base, "--run", "run2")...); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	both := recordings(t, dir)
	for name, b := range first {
		if !bytes.Equal(both[name], b) {
			t.Errorf("run2 changed run1's recording %s", name)
		}
	}
	if len(both) != 6 {
		t.Errorf("%d recordings after run2, want 6: %v", len(both), keys(both))
	}
	rows, err := dataset.ReadRows(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, r := range rows {
		if prev, dup := seen[r.RecordingPath]; dup {
			t.Errorf("%s and %s seed %d share the recording %s", prev, r.RunID, r.Seed, r.RecordingPath)
		}
		seen[r.RecordingPath] = r.RunID
		if _, err := os.Stat(filepath.Join(dir, r.RecordingPath)); err != nil {
			t.Errorf("row %s seed %d: %v", r.RunID, r.Seed, err)
		}
	}
	if _, _, code := weft(t, append(base, "--run", "../x")...); code != 2 {
		t.Errorf("--run ../x: exit %d, want 2", code)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
