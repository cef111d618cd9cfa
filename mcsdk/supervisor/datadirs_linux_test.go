//go:build linux && amd64

package supervisor

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSweepDataRoots: a root whose lock no process holds (its weft was
// killed) is removed; a root in use, here by another process holding its
// lock, and a root without a lock file are kept; a root newDataRoot made
// is locked until releaseDataRoot.
func TestSweepDataRoots(t *testing.T) {
	dir := t.TempDir()
	root := func(name string, lock bool) string {
		d := filepath.Join(dir, "weft-data-"+name)
		if err := os.MkdirAll(filepath.Join(d, "node0"), 0o755); err != nil {
			t.Fatal(err)
		}
		if lock {
			if err := os.WriteFile(filepath.Join(d, dataLockName), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	dead, live, making := root("dead", true), root("live", true), root("making", false)
	holder := exec.Command("flock", "--shared", filepath.Join(live, dataLockName), "sleep", "30")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	for held := false; !held; { // until flock holds it
		f, err := os.Open(filepath.Join(live, dataLockName))
		if err != nil {
			t.Fatal(err)
		}
		held = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil
		f.Close()
		time.Sleep(time.Millisecond)
	}
	if n := sweepDataRoots(dir); n != 1 {
		t.Errorf("swept %d roots, want 1", n)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("%s: an unlocked root is still there (%v)", dead, err)
	}
	for _, d := range []string{live, making} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: removed (%v)", d, err)
		}
	}

	mine, err := newDataRoot()
	if err != nil {
		t.Fatal(err)
	}
	if sweepDataRoots(filepath.Dir(mine)); !exists(mine) {
		t.Errorf("%s: a root in use was swept", mine)
	}
	releaseDataRoot(mine)
	if exists(mine) {
		t.Errorf("%s: still there after releaseDataRoot", mine)
	}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }
