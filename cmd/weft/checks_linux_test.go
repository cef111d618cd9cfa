//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompiledChecks: a run of the Chord model, whose invariants and
// crash precondition are Go checks, gives the same output with the checks
// compiled into a helper (the default inside a Go module) and interpreted
// (WEFT_CHECKS=interp), and no helper outlives weft.
func TestCompiledChecks(t *testing.T) {
	cache := t.TempDir()
	out := map[string]string{}
	for _, mode := range []string{"", "interp"} {
		cmd := exec.Command(weftBin, "run", "--seed", "20", "--variant", "orig", "targets/chord/chord.model")
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "WEFT_CACHE="+cache, "WEFT_CHECKS="+mode)
		b, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 3) {
			t.Fatalf("WEFT_CHECKS=%s: %v\n%s", mode, err, b)
		}
		out[mode] = string(b)
		if mode == "" {
			helpers, _ := filepath.Glob(filepath.Join(cache, "checks", "*", "checks"))
			if len(helpers) != 1 {
				t.Fatalf("compiled helpers in the cache: %v", helpers)
			}
		}
	}
	if out[""] != out["interp"] {
		t.Fatalf("compiled and interpreted checks differ:\n%s\n---\n%s", out[""], out["interp"])
	}
	if !strings.Contains(out[""], "invalid") && !strings.Contains(out[""], "holds") && !strings.Contains(out[""], "violated") {
		t.Fatalf("no verdict:\n%s", out[""])
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, p := range procs {
		if exe, err := os.Readlink(p); err == nil && strings.HasPrefix(exe, cache) {
			t.Errorf("%s outlived weft (%s)", exe, p)
		}
	}
}
