//go:build linux && amd64

package supervisor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// Nodes that run as a named user (NodeSpec.User). The native launcher
// starts as root, sets its descriptor limit to the node's bound, then
// takes the user's groups, gid and uid (setgroups, setgid, setuid; the
// credentials launchHead passes it) before its filter and the target's
// exec, so the node and everything it starts hold that user's
// credentials, and a setuid, setgid or capset inside it acts on its own
// processes only. The launcher binary lies in weft's cache; it is
// executed through a descriptor weft opened (/proc/self/fd/N). The node's run directory, and the files weft
// put in it, are the user's; its parents are made traversable (0711),
// listing nothing.

// launcherFD is the descriptor a user's node's launcher is executed from
// (fds 3 and 4 are the ready pipe and the filter).
const launcherFD = 5

// asUser makes the launch of r run as r.user: the user may execute the
// binary, and the launcher is executed from a descriptor in extra (its
// index launcherFD-3); the launcher takes the credentials itself.
func asUser(r launchRequest, exe string, extra []*os.File) (string, []*os.File, error) {
	if r.user == nil {
		return exe, extra, nil
	}
	if _, err := r.native(); err != nil {
		return "", extra, fmt.Errorf("running as user %s needs the native launcher: %v", r.user.Name, err)
	}
	if len(extra) != launcherFD-4 {
		return "", extra, fmt.Errorf("launcher descriptors: %d, want %d", len(extra), launcherFD-4)
	}
	if err := r.user.mayExec(r.path); err != nil {
		return "", extra, err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", extra, err
	}
	return fmt.Sprintf("/proc/self/fd/%d", launcherFD), append(extra, f), nil
}

// giveRunDirs gives each node that runs as a user its run directory
// (owner of the directory and of everything in it) and lets it through
// the data root.
func (w *World) giveRunDirs() error {
	for i, spec := range w.cfg.Nodes {
		if spec.User == nil || w.dataRoot == "" {
			continue
		}
		if err := os.Chmod(w.dataRoot, 0o711); err != nil {
			return err
		}
		uid, gid := int(spec.User.UID), int(spec.User.GID)
		err := filepath.WalkDir(w.DataDir(i), func(path string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, uid, gid)
		})
		if err != nil {
			return fmt.Errorf("node %d: giving its run directory to %s: %w", i, spec.User.Name, err)
		}
	}
	return nil
}

// mayExec checks, by the mode bits, that u may reach and execute path
// (the launcher's exec would otherwise fail EACCES as the user, after
// the filter is loaded): a clear error before anything starts.
func (u *User) mayExec(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if !u.may(dir, 1) {
			return fmt.Errorf("user %s may not enter %s (to run %s)", u.Name, dir, path)
		}
		if dir == "/" {
			break
		}
	}
	if !u.may(abs, 1) {
		return fmt.Errorf("user %s may not execute %s", u.Name, path)
	}
	return nil
}

// may reports whether u's mode bits on path allow bit (1 execute or
// search, 2 write, 4 read).
func (u *User) may(path string, bit uint32) bool {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return false
	}
	switch {
	case u.UID == 0:
		return true
	case st.Uid == u.UID:
		return st.Mode>>6&bit != 0
	case st.Gid == u.GID || slices.Contains(u.Groups, st.Gid):
		return st.Mode>>3&bit != 0
	}
	return st.Mode&bit != 0
}

// nodeUser is the user the calling node runs as, nil for weft's own.
func (c *call) nodeUser() *User { return c.w.cfg.Nodes[c.n.id].User }

// ownNew gives a file weft created for a node that runs as a user to the
// caller's effective ids, as the kernel would have made it: the
// descriptor fd (name ""), or name in directory fd.
func (c *call) ownNew(fd int, name string) {
	if c.nodeUser() == nil {
		return
	}
	cr, err := c.ipcCred()
	if err != nil {
		return
	}
	if name == "" {
		unix.Fchown(fd, int(cr.UID), int(cr.GID))
		return
	}
	unix.Fchownat(fd, name, int(cr.UID), int(cr.GID), unix.AT_SYMLINK_NOFOLLOW)
}

// userDenied refuses, EACCES, an open weft would make as root for a
// node that runs as a user whose mode bits do not allow it: a directory
// above p it may not search, or p itself (existing) it may not read or
// write as oflags asks. ACLs are not consulted.
func (c *call) userDenied(p string, oflags uint64, create bool) (result, bool) {
	u := c.nodeUser()
	if u == nil {
		return result{}, false
	}
	cr, err := c.ipcCred()
	if err != nil {
		return errno(unix.ESRCH), true
	}
	who := &User{Name: u.Name, UID: cr.UID, GID: cr.GID, Groups: cr.Groups}
	for dir := filepath.Dir(p); ; dir = filepath.Dir(dir) {
		if !who.may(dir, 1) {
			return errno(unix.EACCES), true
		}
		if dir == "/" || dir == "." {
			break
		}
	}
	if create {
		if !who.may(filepath.Dir(p), 2) {
			return errno(unix.EACCES), true
		}
		return result{}, false
	}
	var need uint32
	switch oflags & unix.O_ACCMODE {
	case unix.O_RDONLY:
		need = 4
	case unix.O_WRONLY:
		need = 2
	default:
		need = 6
	}
	if oflags&unix.O_PATH != 0 {
		return result{}, false
	}
	if (need&4 != 0 && !who.may(p, 4)) || (need&2 != 0 && !who.may(p, 2)) {
		return errno(unix.EACCES), true
	}
	return result{}, false
}
