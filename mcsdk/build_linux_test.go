//go:build linux

package mcsdk_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// TestBuildToolchain: BuildWith compiles with the toolchain's compiler
// into its cache directory, and again only when the compiler changes (it
// is part of the build's key); no environment variable takes part.
func TestBuildToolchain(t *testing.T) {
	m := depthModel(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	calls := filepath.Join(dir, "calls")
	cc := filepath.Join(dir, "mycc")
	script := "#!/bin/sh\necho \"$@\" >> " + calls + "\nexec cc \"$@\"\n"
	if err := os.WriteFile(cc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CC", "/nonexistent/cc") // read by weft's CLI only
	t.Setenv("WEFT_CACHE", filepath.Join(dir, "not-this"))
	for i, tc := range []struct {
		tc        supervisor.Toolchain
		wantCalls int
	}{
		{supervisor.Toolchain{CacheDir: cache, CC: cc}, 1},
		{supervisor.Toolchain{CacheDir: cache, CC: cc}, 1}, // cached
		{supervisor.Toolchain{CacheDir: cache, CC: "cc"}, 1},
	} {
		b, err := mcsdk.BuildWith(m, "", tc.tc)
		if err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		if !strings.HasPrefix(b.Path, filepath.Join(cache, "bin")+"/") {
			t.Errorf("build %d: %s, want it in %s/bin", i, b.Path, cache)
		}
		out, _ := os.ReadFile(calls)
		if n := strings.Count(string(out), "\n"); n != tc.wantCalls {
			t.Errorf("build %d: %s called %d times, want %d:\n%s", i, cc, n, tc.wantCalls, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "not-this")); err == nil {
		t.Error("$WEFT_CACHE was used")
	}
}
