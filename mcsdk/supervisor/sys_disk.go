//go:build linux && amd64

package supervisor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Fsync implements fsync(2) and fdatasync(2): the kernel performs it; with
// LoseUnsynced weft first remembers the file's content as durable, so a
// later crash can revert the file to it.
func sysFsync(c *call) result {
	if !c.w.cfg.LoseUnsynced || c.w.dataRoot == "" {
		return cont()
	}
	path, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", c.n.memPid(), int32(c.arg(0))))
	if err != nil || !strings.HasPrefix(path, c.w.DataDir(c.n.id)+"/") {
		return cont()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return cont()
	}
	if ino, ok := inode(path); ok {
		if c.w.synced == nil {
			c.w.synced = map[uint64][]byte{}
		}
		c.w.synced[ino] = b
	}
	return cont()
}

func inode(path string) (uint64, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return sys.Ino, true
}

// loseUnsynced reverts every regular file in node i's data directory to
// its content at its last fsync, as a power loss would (names survive).
func (w *World) loseUnsynced(i int) {
	dir := w.DataDir(i)
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		ino, ok := inode(path)
		if !ok {
			return nil
		}
		os.WriteFile(path, w.synced[ino], 0o644)
		return nil
	})
}
