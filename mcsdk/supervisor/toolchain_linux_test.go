//go:build linux && amd64

package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolchainHelpers: weft's own helpers (the native launcher, its vDSO,
// the TSC probe) are built with the toolchain's compiler into its cache
// directory, once per toolchain; no environment variable takes part.
func TestToolchainHelpers(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	cc := filepath.Join(dir, "mycc")
	script := "#!/bin/sh\necho \"$@\" >> " + calls + "\nexec cc \"$@\"\n"
	if err := os.WriteFile(cc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CC", "/nonexistent/cc")
	t.Setenv("WEFT_CACHE", filepath.Join(dir, "not-this"))
	tc := Toolchain{CacheDir: filepath.Join(dir, "cache"), CC: cc}
	bin := filepath.Join(tc.CacheDir, "bin") + "/"
	for round := range 2 { // the second finds each built
		launcher, err := nativeLauncher(tc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(launcher, bin) {
			t.Errorf("native launcher %s, want it in %s", launcher, bin)
		}
		v, err := vdsoImage(tc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(v.path, bin) {
			t.Errorf("vDSO %s, want it in %s", v.path, bin)
		}
		if _, err := TSCTraps(tc); err != nil {
			t.Fatal(err)
		}
		out, _ := os.ReadFile(calls)
		if n := strings.Count(string(out), "\n"); n != 3 {
			t.Errorf("round %d: %s called %d times, want 3 (launcher, vDSO, probe):\n%s", round, cc, n, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "not-this")); err == nil {
		t.Error("$WEFT_CACHE was used")
	}
	if got, want := (Toolchain{}).Compiler(), "cc"; got != want {
		t.Errorf("default compiler %q, want %q", got, want)
	}
	if got, want := (Toolchain{}).Cache(), CacheDir(); got != want {
		t.Errorf("default cache %q, want %q", got, want)
	}
}
