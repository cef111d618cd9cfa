//go:build unix

// Package lockdir marks a temporary directory as in use for as long as the
// process that made it lives, so that a later process can remove the
// directories their makers left when they died (SIGKILL, a crash): weft's
// data roots and the Jupyter kernel's work modules.
//
// A directory in use holds a lock file (Name) that its maker keeps
// locked, shared (flock(2)): the lock goes with the last descriptor of
// it, so with the process however it ends. A sweep removes a directory
// whose lock it can take exclusively. A directory without the lock file
// is one being made at this moment, or one made before the lock existed,
// and is left alone.
package lockdir

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Name is the lock file's name in a locked directory.
const Name = ".weft-lock"

// Lock makes dir's lock file and locks it, shared, until the returned
// file is closed. The file is locked under another name, then renamed into
// place: a sweep never finds it unlocked while it is being made.
func Lock(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, Name+".new")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	err = unix.Flock(int(f.Fd()), unix.LOCK_SH)
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, Name))
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	return f, nil
}

// Sweep removes the directories matching pattern (filepath.Glob's) whose
// lock no process holds, except skip, and reports how many it removed.
func Sweep(pattern, skip string) int {
	matches, _ := filepath.Glob(pattern)
	removed := 0
	for _, m := range matches {
		if m == skip {
			continue
		}
		f, err := os.Open(filepath.Join(m, Name))
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
