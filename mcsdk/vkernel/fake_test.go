package vkernel

import (
	"path"
	"strings"
	"testing"
)

// fakeFS is a host file system for tests: files by canonical path, a
// symlink's target, a directory's marker "/".
type fakeFS struct {
	t     *testing.T
	files map[string]string // path → "/" (a directory), "->target" (a symlink) or content
}

func (f fakeFS) typeOf(p string) (FileType, bool) {
	c, ok := f.files[p]
	switch {
	case !ok:
		return TypeNone, false
	case c == "/":
		return TypeDir, true
	case strings.HasPrefix(c, "->"):
		return TypeSymlink, true
	}
	return TypeRegular, true
}

// canonical fails the test when a directory of p is a symlink: HostFS's
// contract says resolution never asks the host to follow one.
func (f fakeFS) canonical(p string) {
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		if t, _ := f.typeOf(d); t == TypeSymlink {
			f.t.Errorf("HostFS asked for %s below the symlink %s", p, d)
		}
	}
}

func (f fakeFS) Lstat(p string) (FileType, error) {
	f.canonical(p)
	if t, ok := f.typeOf(p); ok {
		return t, nil
	}
	return TypeNone, ENOENT
}

func (f fakeFS) Readlink(p string) (string, error) {
	f.canonical(p)
	if t, _ := f.typeOf(p); t != TypeSymlink {
		return "", EINVAL
	}
	return strings.TrimPrefix(f.files[p], "->"), nil
}
