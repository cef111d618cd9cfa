//go:build linux && amd64

package supervisor

import (
	"bytes"
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

// TestSpareDataRoots: a root given back while others are in use is
// emptied and kept, and the next newDataRoot gives it again under a fresh
// name, with nothing of what its world made in it, its status and
// listing those of a fresh root (markTree equal) and still locked; a root
// whose own status changed is removed, not kept; the last root in use
// removes the spares, so none is left.
func TestSpareDataRoots(t *testing.T) {
	if n := spareDataRoots(); n != 0 {
		t.Fatalf("%d spare roots before the test", n)
	}
	hold, err := newDataRoot()
	if err != nil {
		t.Fatal(err)
	}
	r, err := newDataRoot()
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := markTree(r, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"node0", "node1/sub", ".dirs/run/weft"} {
		if err := os.MkdirAll(filepath.Join(r, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(r, "node1/sub/f"), []byte("branch"), 0o644); err != nil {
		t.Fatal(err)
	}
	removeDataRoot(r)
	if n := spareDataRoots(); n != 1 {
		t.Fatalf("%d spare roots after giving one back, want 1", n)
	}
	again, err := newDataRoot()
	if err != nil {
		t.Fatal(err)
	}
	if again == r || exists(r) {
		t.Errorf("the spare root was given again at its old path %s (now %s; old path there: %v)", r, again, exists(r))
	}
	if mark, err := markTree(again, "", nil); err != nil || !bytes.Equal(mark, fresh) {
		t.Errorf("the spare root given again is not as it was fresh (%v)", err)
	}
	if names := dirNames(t, again); len(names) != 1 || names[0] != dataLockName {
		t.Errorf("the spare root given again holds %q, want only its lock", names)
	}
	if sweepDataRoots(filepath.Dir(again)); !exists(again) {
		t.Errorf("%s: the spare root given again was swept (not locked)", again)
	}

	if err := os.Chmod(again, 0o711); err != nil { // as sys_user.go does
		t.Fatal(err)
	}
	removeDataRoot(again)
	if n := spareDataRoots(); n != 0 || exists(again) {
		t.Errorf("a root whose mode changed was kept (%d spares; still there: %v)", n, exists(again))
	}

	last, err := newDataRoot()
	if err != nil {
		t.Fatal(err)
	}
	removeDataRoot(last)
	if n := spareDataRoots(); n != 1 {
		t.Errorf("%d spare roots, want 1", n)
	}
	removeDataRoot(hold)
	if n := spareDataRoots(); n != 0 || exists(last) || exists(hold) {
		t.Errorf("with no root in use, %d spares are kept (%s there: %v, %s: %v)", n, last, exists(last), hold, exists(hold))
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
