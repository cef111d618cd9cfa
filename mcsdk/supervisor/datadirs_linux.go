//go:build linux && amd64

package supervisor

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/weft-mc/weft/internal/lockdir"
	"golang.org/x/sys/unix"
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

// Making a root and removing it are a handful of journalled metadata
// operations (mkdir, the lock file's create and rename, its unlink, the
// rmdir), on every world and checkpoint whose root no pool lends
// (datapool_linux.go): about 4 % of weft's CPU samples on redis depth 6.
// So a root given back is emptied (every entry but its lock removed) and
// kept for the next newDataRoot, if it is then as newDataRoot made it:
// markTree of the emptied root (the root's status, listing and the lock
// file's status; not the times, which nodes see virtually, nor the name)
// equal byte for byte to markTree of the root fresh. Whatever a world did
// below the root went with the removed entries, so the next world builds
// its tree in the root as in a fresh one; a root whose own status or
// listing changed (a mode, a directory grown past a block) is removed as
// before. A kept root is renamed to a fresh name when given again (one
// rename, RENAME_NOREPLACE): a root's path names its world's directories
// in weft's own state (a node's run directory, its view: World.view
// keeps a view while the run directory's path is the same), which a
// world copies from another, so no path is given to two worlds. Spare
// roots stay locked, and are removed when no root is in use (the last
// world or checkpoint closed), so a weft leaves none behind.

// maxSpareRoots bounds the emptied roots kept.
const maxSpareRoots = 8

// roots are the data roots newDataRoot gave and not yet removed (inUse,
// each with markTree of it fresh, nil if that could not be read) and the
// emptied ones kept for reuse.
var roots = struct {
	sync.Mutex
	inUse map[string][]byte
	spare []spareRoot
}{inUse: map[string][]byte{}}

type spareRoot struct {
	root string
	mark []byte
}

// newDataRoot gives a locked root for a world's data directories: a spare
// one, emptied, or a fresh one, made after sweeping what dead weft
// processes left (once per process).
func newDataRoot() (string, error) {
	for {
		roots.Lock()
		n := len(roots.spare)
		if n == 0 {
			roots.Unlock()
			break
		}
		s := roots.spare[n-1]
		roots.spare = roots.spare[:n-1]
		roots.Unlock()
		root, err := renameDataRoot(s.root)
		if err != nil {
			dropDataRoot(s.root)
			continue
		}
		roots.Lock()
		roots.inUse[root] = s.mark
		roots.Unlock()
		return root, nil
	}
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
	mark, err := markTree(root, "", nil)
	if err != nil {
		mark = nil // never kept
	}
	roots.Lock()
	roots.inUse[root] = mark
	roots.Unlock()
	return root, nil
}

// releaseDataRoot gives a root a checkpoint lent (datapool_linux.go)
// back to it, or removes a root newDataRoot made (removeDataRoot).
func releaseDataRoot(root string) {
	if l, ok := lent.LoadAndDelete(root); ok && l.(*lentRoot).pool.put(l.(*lentRoot)) {
		return
	}
	removeDataRoot(root)
}

// removeDataRoot ends the use of a root newDataRoot gave: it is emptied
// and kept as a spare if it is then as fresh (and others are in use),
// removed and its lock dropped otherwise. The last root in use removes
// the spares too.
func removeDataRoot(root string) {
	roots.Lock()
	mark, ok := roots.inUse[root]
	delete(roots.inUse, root)
	keep := ok && mark != nil && len(roots.inUse) > 0 && len(roots.spare) < maxSpareRoots
	var flush []spareRoot
	if len(roots.inUse) == 0 {
		flush, roots.spare = roots.spare, nil
	}
	roots.Unlock()
	for _, s := range flush {
		dropDataRoot(s.root)
	}
	if keep && emptyDataRoot(root, mark) {
		roots.Lock()
		if len(roots.inUse) > 0 && len(roots.spare) < maxSpareRoots {
			roots.spare = append(roots.spare, spareRoot{root, mark})
			roots.Unlock()
			return
		}
		roots.Unlock()
	}
	dropDataRoot(root)
}

// emptyDataRoot removes every entry of root but its lock file, and
// reports whether root is then as it was fresh: markTree equal to mark.
func emptyDataRoot(root string, mark []byte) bool {
	f, err := os.Open(root)
	if err != nil {
		return false
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return false
	}
	for _, name := range names {
		if name == dataLockName {
			continue
		}
		if os.RemoveAll(filepath.Join(root, name)) != nil {
			return false
		}
	}
	now, err := markTree(root, "", nil)
	return err == nil && bytes.Equal(now, mark)
}

// renameDataRoot gives root a fresh name in its directory, as
// os.MkdirTemp's pattern weft-data-* (the sweep's), never an existing
// entry's, and moves its lock's entry in dataLocks; it returns the new
// path.
func renameDataRoot(root string) (string, error) {
	dir := filepath.Dir(root)
	for try := 0; ; try++ {
		to := filepath.Join(dir, "weft-data-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := unix.Renameat2(unix.AT_FDCWD, root, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
		if err == nil {
			if f, ok := dataLocks.LoadAndDelete(root); ok {
				dataLocks.Store(to, f)
			}
			return to, nil
		}
		if err != unix.EEXIST || try == 100 {
			return "", err
		}
	}
}

// dropDataRoot removes root, then drops its lock.
func dropDataRoot(root string) {
	os.RemoveAll(root)
	if f, ok := dataLocks.LoadAndDelete(root); ok {
		f.(*os.File).Close()
	}
}

// releaseDataRoots removes the spare roots and lists the roots still in
// use (ReleaseHost).
func releaseDataRoots() []string {
	roots.Lock()
	flush := roots.spare
	roots.spare = nil
	var used []string
	for root := range roots.inUse {
		used = append(used, root)
	}
	roots.Unlock()
	for _, s := range flush {
		dropDataRoot(s.root)
	}
	slices.Sort(used)
	return used
}

// spareDataRoots is how many emptied roots are kept (for tests).
func spareDataRoots() int {
	roots.Lock()
	defer roots.Unlock()
	return len(roots.spare)
}

// sweepDataRoots removes the weft-data-* roots in dir whose lock no
// process holds, and reports how many it removed. A root without a lock
// file is one a weft is making at this moment (or an old weft's, which
// it leaves).
func sweepDataRoots(dir string) int {
	return lockdir.Sweep(filepath.Join(dir, "weft-data-*"), "")
}
