package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// mountTmpfs mounts a tmpfs of size bytes on a new directory (root only:
// the test fails, not skips, without the capability).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Fatalf("mount tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// fill writes a file in dir until the file system has no space left.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	must(t, err)
	defer f.Close()
	for _, chunk := range []int{1 << 16, 4096, 1} {
		buf := make([]byte, chunk)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				break
			}
		}
	}
}

// TestFullDiskKeepsEveryRow fills the file system under a writer: the
// flush that meets the full disk spends the reserve and succeeds, the
// writer then reports the full disk, and the rows finished afterwards are
// written by Close. Nothing is lost.
func TestFullDiskKeepsEveryRow(t *testing.T) {
	mnt := mountTmpfs(t, "4m")
	dir := filepath.Join(mnt, "ds")
	all := sampleRows(40, "run1")
	w, err := Create(dir, testManifest(40), FlushEvery(10))
	must(t, err)
	for _, r := range all[:10] {
		must(t, w.Write(r))
	}
	fill(t, mnt)
	var full error
	for _, r := range all[10:] {
		if err := w.Write(r); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("Write: %v, want a full-disk error", err)
			}
			full = err
		}
	}
	if full == nil {
		t.Fatal("no Write reported the full disk")
	}
	t.Logf("reported: %v", full)
	if err := w.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close = %v, want the full-disk error again", err)
	}
	got, err := ReadRows(dir)
	must(t, err)
	if len(got) != len(all) {
		t.Fatalf("after a full disk: %d rows read, want all %d", len(got), len(all))
	}
}

// TestResumeReadOnlyFailsFirst: OpenAppend on a read-only directory fails
// at once, so a resumed campaign runs nothing it cannot keep.
func TestResumeReadOnlyFailsFirst(t *testing.T) {
	dir := writeDataset(t, testManifest(10), sampleRows(10, "run1"))
	if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
		t.Fatalf("bind mount (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	if err := unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	_, err := OpenAppend(dir)
	if err == nil || !errors.Is(err, syscall.EROFS) {
		t.Fatalf("OpenAppend on a read-only dataset = %v, want a read-only error", err)
	}
	t.Logf("refused: %v", err)
	if _, err := ReadRows(dir); err != nil {
		t.Fatalf("a read-only dataset must stay readable: %v", err)
	}
}
