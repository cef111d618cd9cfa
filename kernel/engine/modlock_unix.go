//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/weft-mc/weft/internal/lockdir"
)

// A work module's directory (modSession.dir) outlives a kernel that was
// killed (SIGKILL, a crash of the machine): Close never ran. So each one
// holds a lock while its engine lives (internal/lockdir), and the first
// work module an engine makes sweeps the others whose engine is gone.

var sweepModsOnce sync.Once

// lockModDir locks dir for the engine's life, then sweeps the work
// modules of engines that are gone beside it, once per process; the
// returned file is closed with the engine (nil if the lock could not be
// made: the directory is then removed only by Close).
func lockModDir(dir string) *os.File {
	f, err := lockdir.Lock(dir)
	if err != nil {
		f = nil
	}
	sweepModsOnce.Do(func() { sweepModDirs(filepath.Dir(dir), dir) })
	return f
}

// sweepModDirs removes the work modules in parent whose engine is gone,
// except own; it returns how many.
func sweepModDirs(parent, own string) int {
	return lockdir.Sweep(filepath.Join(parent, "weft-modules-*"), own)
}
