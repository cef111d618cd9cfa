//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-mc/weft/internal/lockdir"
)

// TestSweepModDirs checks the sweep of work modules left by killed
// kernels: a directory whose lock no engine holds goes, one whose engine
// lives (its lock held, lockdir.Lock) stays, as do the sweeper's own and a
// directory with no lock file.
func TestSweepModDirs(t *testing.T) {
	parent := t.TempDir()
	mk := func(name string, lock bool) string {
		d := filepath.Join(parent, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "go.mod"), []byte("module x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if lock {
			if err := os.WriteFile(filepath.Join(d, lockdir.Name), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	gone := mk("weft-modules-gone", true)
	live := mk("weft-modules-live", false)
	own := mk("weft-modules-own", true)
	unlocked := mk("weft-modules-old", false)
	other := mk("other-dir", true)
	f, err := lockdir.Lock(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := sweepModDirs(parent, own); n != 1 {
		t.Errorf("swept %d directories, want 1", n)
	}
	for d, want := range map[string]bool{gone: false, live: true, own: true, unlocked: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
	f.Close()
	if n := sweepModDirs(parent, own); n != 1 {
		t.Errorf("after its engine ended, swept %d directories, want 1 (the live one)", n)
	}
}
