//go:build linux && amd64

package supervisor

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/weft-mc/weft/internal/lockdir"
)

// Data directories live under os.TempDir() as weft-data-*, one root per
// world, removed when the world closes. A weft killed before that
// (SIGKILL, an OOM kill) leaves its roots behind. So each root holds a
// lock file that its weft keeps locked (flock, shared) while the root is
// in use, and the first root a weft process makes is preceded by a sweep
// that removes every root whose lock nobody holds: what dead wefts left,
// never a live one's, whichever pid namespace it runs in (a flock is the
// file system's, a pid is not).

const dataLockName = lockdir.Name

var (
	sweepOnce sync.Once
	dataLocks sync.Map // root → *os.File holding its lock
)

// newDataRoot makes a fresh, locked root for a world's data directories,
// after sweeping what dead weft processes left (once per process).
func newDataRoot() (string, error) {
	sweepOnce.Do(func() { sweepDataRoots(os.TempDir()) })
	root, err := os.MkdirTemp("", "weft-data-")
	if err != nil {
		return "", err
	}
	f, err := lockdir.Lock(root)
	if err != nil {
		os.RemoveAll(root)
		return "", err
	}
	dataLocks.Store(root, f)
	return root, nil
}

// releaseDataRoot gives a root a checkpoint lent (datapool_linux.go)
// back to it, or removes a root newDataRoot made, then drops its lock.
func releaseDataRoot(root string) {
	if l, ok := lent.LoadAndDelete(root); ok && l.(*lentRoot).pool.put(l.(*lentRoot)) {
		return
	}
	removeDataRoot(root)
}

// removeDataRoot removes a root newDataRoot made, then drops its lock.
func removeDataRoot(root string) {
	os.RemoveAll(root)
	if f, ok := dataLocks.LoadAndDelete(root); ok {
		f.(*os.File).Close()
	}
}

// sweepDataRoots removes the weft-data-* roots in dir whose lock no
// process holds, and reports how many it removed. A root without a lock
// file is one a weft is making at this moment (or an old weft's, which
// it leaves).
func sweepDataRoots(dir string) int {
	return lockdir.Sweep(filepath.Join(dir, "weft-data-*"), "")
}
