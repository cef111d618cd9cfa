//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// A work module's directory (modSession.dir) outlives a kernel that was
// killed (SIGKILL, a crash of the machine): Close never ran. So each one
// holds a lock file, locked shared while its engine lives, and the first
// work module an engine makes sweeps the others whose lock it can take
// exclusively: their engines are gone. A directory without the lock
// (made before it, or while its lock was being made) is left alone.

// modLockName is the lock file in a work module's directory.
const modLockName = ".weft-lock"

var sweepModsOnce sync.Once

// lockModDir locks dir's lock file for the engine's life, then sweeps
// the work modules of engines that are gone beside it, once per process;
// the returned file is closed with the engine (nil if the lock could not
// be made: the directory is then removed only by Close).
func lockModDir(dir string) *os.File {
	f := lockDir(dir)
	sweepModsOnce.Do(func() { sweepModDirs(filepath.Dir(dir), dir) })
	return f
}

// lockDir makes and locks, shared, dir's lock file.
func lockDir(dir string) *os.File {
	f, err := os.OpenFile(filepath.Join(dir, modLockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil
	}
	if unix.Flock(int(f.Fd()), unix.LOCK_SH) != nil {
		f.Close()
		return nil
	}
	return f
}

// sweepModDirs removes the work modules in parent whose lock no engine
// holds, except own; it returns how many.
func sweepModDirs(parent, own string) int {
	matches, _ := filepath.Glob(filepath.Join(parent, "weft-modules-*"))
	removed := 0
	for _, m := range matches {
		if m == own {
			continue
		}
		f, err := os.Open(filepath.Join(m, modLockName))
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil && os.RemoveAll(m) == nil {
			removed++
		}
		f.Close()
	}
	return removed
}
