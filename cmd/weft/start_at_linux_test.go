//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkloadStartsAtAVirtualTime: a [workload] with start = 60000 (µs
// of virtual time) invokes its first operation no earlier, where the same
// model without it invokes within its first think time (20 ms), on real
// runs of targets/quorum's register workload; the run still completes
// its operations.
func TestWorkloadStartsAtAVirtualTime(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../targets/quorum/register.model")
	if err != nil {
		t.Fatal(err)
	}
	c, err := os.ReadFile("../../targets/quorum/quorum.c")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "quorum.c"), c, 0o644); err != nil {
		t.Fatal(err)
	}
	const think = "think   = 20000\n"
	if !strings.Contains(string(src), think) {
		t.Fatalf("register.model has no %q line to start the workload after", think)
	}
	tests := []struct {
		name          string
		extra         string
		earliest, due int64 // µs: the first invoke's time must be in [earliest, due]
	}{
		{"at once", "", 0, 20000},
		{"at 60 ms", "start   = 60000\n", 60000, 80000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mod := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".model")
			if err := os.WriteFile(mod, []byte(strings.Replace(string(src), think, think+tc.extra, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := weft(t, "run", mod, "--variant", "fixed", "--seed", "2", "--json", "--quiet")
			var res struct {
				Ops     int
				History []struct{ CallT int64 } // ns of virtual time
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || len(res.History) == 0 {
				t.Fatalf("exit %d, %v, %d operations\n%s", code, err, len(res.History), errOut)
			}
			first := res.History[0].CallT / 1000
			for _, op := range res.History {
				first = min(first, op.CallT/1000)
			}
			if first < tc.earliest || first > tc.due || res.Ops != 3 {
				t.Errorf("first operation at %d µs, %d operations; want it in [%d, %d] µs, and 3", first, res.Ops, tc.earliest, tc.due)
			}
		})
	}
}
