//go:build linux && amd64

package supervisor

import (
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Calls that change the file system by path, performed by weft (see
// sys_fs.go): each resolves its paths in the node's view, is refused
// outside the run directory, and acts on the canonical host path through
// its parent directory, opened beneath the root.

// need is what a changing call needs at a path.
type need uint8

const (
	needFile need = iota // an existing file (unlink, chmod, rename's source)
	needName             // no file yet (mkdir, symlink, link's new name)
	needAny              // either (rename's target)
)

// writePlace resolves a for a call that changes the file system there:
// the canonical host path, or the result to answer (EACCES, counted,
// outside the run directory).
func (c *call) writePlace(a fsArg, n need) (string, vkernel.Result, *result) {
	fail := func(r result) (string, vkernel.Result, *result) { return "", vkernel.Result{}, &r }
	wh, err := c.resolveArg(a)
	switch {
	case err != nil:
		return fail(errno(pathErrno(err)))
	case wh.fd:
		return fail(errno(unix.ENOENT))
	}
	r := wh.res
	switch {
	case r.Kind == vkernel.Missing && n == needFile:
		return fail(errno(unix.ENOENT))
	case r.Kind != vkernel.Missing && n == needName:
		return fail(errno(unix.EEXIST))
	case r.Kind != vkernel.Missing && r.Kind != vkernel.Host, !r.Writable:
		return fail(c.refuseWrite(r.Path))
	}
	return r.HostPath, r, nil
}

// atParent runs op on the parent directory of the canonical host path p,
// opened beneath the root, and p's last name.
func atParent(p string, op func(dir int, name string) error) error {
	dir, name := filepath.Split(p)
	if name == "" {
		return unix.EBUSY // the root
	}
	fd, err := openBeneath(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return op(fd, name)
}

// answer is the result of a host call performed for the node.
func answer(err error) result {
	if err != nil {
		return errno(errnoOf(err))
	}
	return ret(0)
}

// Mkdir implements mkdir(2).
func sysMkdir(c *call) result { return mkdirAt(c, fsPath(0, false), uint32(c.arg(1))) }

// Mkdirat implements mkdirat(2).
func sysMkdirat(c *call) result { return mkdirAt(c, fsAt(0, 1, false, -1), uint32(c.arg(2))) }

func mkdirAt(c *call, a fsArg, mode uint32) result {
	p, _, fail := c.writePlace(a, needName)
	if fail != nil {
		return *fail
	}
	perm := mode &^ c.umask() & 0o1777
	return answer(atParent(p, func(dir int, name string) error {
		if err := unix.Mkdirat(dir, name, perm); err != nil {
			return err
		}
		c.ownNew(dir, name)
		return unix.Fchmodat(dir, name, perm, 0) // weft's own umask must not apply
	}))
}

// Unlink implements unlink(2).
func sysUnlink(c *call) result { return unlinkAt(c, fsPath(0, false), 0) }

// Rmdir implements rmdir(2).
func sysRmdir(c *call) result { return unlinkAt(c, fsPath(0, false), unix.AT_REMOVEDIR) }

// Unlinkat implements unlinkat(2).
func sysUnlinkat(c *call) result {
	flags := int(c.arg(2))
	if flags&^unix.AT_REMOVEDIR != 0 {
		return errno(unix.EINVAL)
	}
	return unlinkAt(c, fsAt(0, 1, false, -1), flags)
}

func unlinkAt(c *call, a fsArg, flags int) result {
	if flags&unix.AT_REMOVEDIR != 0 {
		if r, bad := c.dotName(a, unix.EINVAL, unix.ENOTEMPTY); bad {
			return r
		}
	}
	p, _, fail := c.writePlace(a, needFile)
	if fail != nil {
		return *fail
	}
	return answer(atParent(p, func(dir int, name string) error { return unix.Unlinkat(dir, name, flags) }))
}

// dotName answers a call whose path ends in "." (dot) or ".." (dotdot),
// which Linux refuses before it resolves (rmdir, rename).
func (c *call) dotName(a fsArg, dot, dotdot unix.Errno) (result, bool) {
	if a.path < 0 || c.arg(a.path) == 0 {
		return result{}, false
	}
	name, err := c.readPath(c.arg(a.path))
	if err != nil {
		return errno(pathErrno(err)), true
	}
	switch filepath.Base(name) {
	case ".":
		return errno(dot), true
	case "..":
		return errno(dotdot), true
	}
	return result{}, false
}

// Rename implements rename(2).
func sysRename(c *call) result { return renameAt(c, fsPath(0, false), fsPath(1, false), 0) }

// Renameat implements renameat(2).
func sysRenameat(c *call) result {
	return renameAt(c, fsAt(0, 1, false, -1), fsAt(2, 3, false, -1), 0)
}

// Renameat2 implements renameat2(2).
func sysRenameat2(c *call) result {
	return renameAt(c, fsAt(0, 1, false, -1), fsAt(2, 3, false, -1), uint(c.arg(4)))
}

func renameAt(c *call, from, to fsArg, flags uint) result {
	for _, a := range []fsArg{from, to} {
		if r, bad := c.dotName(a, unix.EBUSY, unix.EBUSY); bad {
			return r
		}
	}
	src, _, fail := c.writePlace(from, needFile)
	if fail != nil {
		return *fail
	}
	dst, _, fail := c.writePlace(to, needAny)
	if fail != nil {
		return *fail
	}
	return answer(atParent(src, func(sdir int, sname string) error {
		return atParent(dst, func(ddir int, dname string) error {
			return unix.Renameat2(sdir, sname, ddir, dname, flags)
		})
	}))
}

// Link implements link(2): both names in the run directory.
func sysLink(c *call) result { return linkAt(c, fsPath(0, false), fsPath(1, false)) }

// Linkat implements linkat(2); with AT_EMPTY_PATH the descriptor's file
// must be in the run directory and the new name is resolved in the view
// like any other (an O_TMPFILE linked outside is refused), and weft links
// the file through its /proc name.
func sysLinkat(c *call) result {
	if c.arg(4)&unix.AT_EMPTY_PATH != 0 {
		if r := guardFD(0)(c); r.kind != rContinue {
			return r
		}
		dst, _, fail := c.writePlace(fsAt(2, 3, false, -1), needName)
		if fail != nil {
			return *fail
		}
		src := c.fdHost(int32(c.arg(0)))
		return answer(atParent(dst, func(ddir int, dname string) error {
			return unix.Linkat(unix.AT_FDCWD, src, ddir, dname, unix.AT_SYMLINK_FOLLOW)
		}))
	}
	return linkAt(c, fsAtFollow(0, 1, 4, unix.AT_SYMLINK_FOLLOW), fsAt(2, 3, false, -1))
}

func linkAt(c *call, from, to fsArg) result {
	src, _, fail := c.writePlace(from, needFile)
	if fail != nil {
		return *fail
	}
	dst, _, fail := c.writePlace(to, needName)
	if fail != nil {
		return *fail
	}
	return answer(atParent(src, func(sdir int, sname string) error {
		return atParent(dst, func(ddir int, dname string) error { return unix.Linkat(sdir, sname, ddir, dname, 0) })
	}))
}

// Symlink implements symlink(2); the link's content is the node's, read
// by nobody but the node (through its view).
func sysSymlink(c *call) result { return symlinkAt(c, c.arg(0), fsPath(1, false)) }

// Symlinkat implements symlinkat(2).
func sysSymlinkat(c *call) result { return symlinkAt(c, c.arg(0), fsAt(1, 2, false, -1)) }

func symlinkAt(c *call, targetAddr uint64, a fsArg) result {
	target, err := c.readPath(targetAddr)
	switch {
	case err != nil:
		return errno(pathErrno(err))
	case target == "":
		return errno(unix.ENOENT)
	}
	p, _, fail := c.writePlace(a, needName)
	if fail != nil {
		return *fail
	}
	return answer(atParent(p, func(dir int, name string) error {
		if err := unix.Symlinkat(target, dir, name); err != nil {
			return err
		}
		c.ownNew(dir, name)
		return nil
	}))
}

// Mknod implements mknod(2): regular files, FIFOs and sockets; a device
// node is EPERM, as for a process without CAP_MKNOD.
func sysMknod(c *call) result { return mknodAt(c, fsPath(0, false), uint32(c.arg(1))) }

// Mknodat implements mknodat(2).
func sysMknodat(c *call) result { return mknodAt(c, fsAt(0, 1, false, -1), uint32(c.arg(2))) }

func mknodAt(c *call, a fsArg, mode uint32) result {
	switch mode & unix.S_IFMT {
	case unix.S_IFCHR, unix.S_IFBLK:
		return errno(unix.EPERM)
	case 0, unix.S_IFREG, unix.S_IFIFO, unix.S_IFSOCK:
	default:
		return errno(unix.EINVAL)
	}
	p, _, fail := c.writePlace(a, needName)
	if fail != nil {
		return *fail
	}
	perm := mode &^ c.umask() & 0o7777
	return answer(atParent(p, func(dir int, name string) error {
		if err := unix.Mknodat(dir, name, mode&unix.S_IFMT|perm, 0); err != nil {
			return err
		}
		c.ownNew(dir, name)
		return unix.Fchmodat(dir, name, perm, 0)
	}))
}

// Chmod implements chmod(2).
func sysChmod(c *call) result { return chmodAt(c, fsPath(0, true), uint32(c.arg(1))) }

// Fchmodat implements fchmodat(2).
func sysFchmodat(c *call) result { return chmodAt(c, fsAt(0, 1, true, -1), uint32(c.arg(2))) }

// Fchmodat2 implements fchmodat2(2); with AT_EMPTY_PATH it acts on the
// descriptor.
func sysFchmodat2(c *call) result {
	if c.arg(3)&unix.AT_EMPTY_PATH != 0 {
		return guardFD(0)(c)
	}
	return chmodAt(c, fsAt(0, 1, true, 3), uint32(c.arg(2)))
}

func chmodAt(c *call, a fsArg, mode uint32) result {
	p, r, fail := c.writePlace(a, needFile)
	switch {
	case fail != nil:
		return *fail
	case r.Type == vkernel.TypeSymlink:
		return errno(unix.EOPNOTSUPP) // a symlink's mode, as Linux answers fchmodat2(AT_SYMLINK_NOFOLLOW)
	}
	return answer(atParent(p, func(dir int, name string) error { return unix.Fchmodat(dir, name, mode&0o7777, 0) }))
}

// Chown implements chown(2).
func sysChown(c *call) result { return chownAt(c, fsPath(0, true), c.arg(1), c.arg(2)) }

// Lchown implements lchown(2).
func sysLchown(c *call) result { return chownAt(c, fsPath(0, false), c.arg(1), c.arg(2)) }

// Fchownat implements fchownat(2); with AT_EMPTY_PATH it acts on the
// descriptor.
func sysFchownat(c *call) result {
	if c.arg(4)&unix.AT_EMPTY_PATH != 0 {
		return guardFD(0)(c)
	}
	return chownAt(c, fsAt(0, 1, true, 4), c.arg(2), c.arg(3))
}

func chownAt(c *call, a fsArg, uid, gid uint64) result {
	p, _, fail := c.writePlace(a, needFile)
	if fail != nil {
		return *fail
	}
	return answer(atParent(p, func(dir int, name string) error {
		return unix.Fchownat(dir, name, int(int32(uid)), int(int32(gid)), unix.AT_SYMLINK_NOFOLLOW)
	}))
}

// Truncate implements truncate(2).
func sysTruncate(c *call) result {
	p, r, fail := c.writePlace(fsPath(0, true), needFile)
	switch {
	case fail != nil:
		return *fail
	case r.Type == vkernel.TypeDir:
		return errno(unix.EISDIR)
	case r.Type != vkernel.TypeRegular:
		return errno(unix.EINVAL)
	case int64(c.arg(1)) < 0:
		return errno(unix.EINVAL)
	}
	fd, err := openBeneath(p, unix.O_WRONLY, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	defer unix.Close(fd)
	return answer(unix.Ftruncate(fd, int64(c.arg(1))))
}

// checkedWrite serves a call that changes the file at a (extended
// attributes): refused outside the run directory, and, once weft's view
// has resolved it there, run natively. The node's path reaches the host
// kernel here, which resolves it as weft did (nothing of the node runs
// in between); these calls are not yet performed by weft.
func checkedWrite(a fsArg) handler {
	return func(c *call) result {
		_, r, fail := c.writePlace(a, needFile)
		if fail != nil {
			return *fail
		}
		if !r.Native {
			return c.refuseForeign(r)
		}
		return cont()
	}
}

// refuseForeign refuses a call the host kernel would resolve elsewhere
// than the node's view does (Result.Native): EACCES, reported once.
func (c *call) refuseForeign(r vkernel.Result) result {
	c.w.refuseKey(refusalKey{node: c.n.id, nr: int(c.req.Data.Nr), what: r.Path, answer: "EACCES", rule: ruleNative})
	return errno(unix.EACCES)
}

// checkedRead serves a call that reads at a (extended attributes,
// chdir, exec): a path outside the node's view is its errno; one inside
// runs natively, as checkedWrite; then next runs.
func checkedRead(a fsArg, next handler) handler {
	return func(c *call) result {
		wh, err := c.resolveArg(a)
		if err != nil {
			return errno(pathErrno(err))
		}
		switch r := wh.res; {
		case wh.fd:
		case r.Kind == vkernel.Missing:
			return errno(unix.ENOENT)
		case r.Kind == vkernel.Proc && c.procHostPath(r.Path) == absentProcPath:
			return errno(unix.ENOENT)
		case r.Kind == vkernel.File || r.Kind == vkernel.Device || r.Kind == vkernel.Dir:
			return errno(unix.EACCES) // served only by open, stat and readlink; a virtual directory has no host file here
		case r.Kind == vkernel.Host && !r.Native && isExec(c.req.Data.Nr):
			return c.execForeign(a, r, next)
		case r.Kind == vkernel.Host && !r.Native:
			return c.refuseForeign(r)
		}
		return next(c)
	}
}

// Getcwd implements getcwd(2): the node's working directory as its view
// names it.
func sysGetcwd(c *call) result {
	dir, err := c.startDir(unix.AT_FDCWD)
	if err != nil {
		return errno(pathErrno(err))
	}
	b := append([]byte(dir), 0)
	if uint64(len(b)) > c.arg(1) {
		return errno(unix.ERANGE)
	}
	if err := c.write(c.arg(0), b); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(len(b)))
}

// pass lets a call run natively (after checkedRead).
func pass(*call) result { return cont() }

// Access implements access(2).
func sysAccess(c *call) result { return accessAt(c, fsPath(0, true), uint32(c.arg(1)), 0) }

// Faccessat implements faccessat(2) (no flags: glibc emulates them).
func sysFaccessat(c *call) result { return accessAt(c, fsAt(0, 1, true, -1), uint32(c.arg(2)), 0) }

// Faccessat2 implements faccessat2(2).
func sysFaccessat2(c *call) result {
	flags := int(c.arg(3))
	if flags&^(unix.AT_EACCESS|unix.AT_SYMLINK_NOFOLLOW|unix.AT_EMPTY_PATH) != 0 {
		return errno(unix.EINVAL)
	}
	return accessAt(c, fsAt(0, 1, true, 3), uint32(c.arg(2)), flags&unix.AT_EACCESS)
}

// accessAt answers whether the node may access the file at a with mode
// (R_OK, W_OK, X_OK): nothing outside its view, no write outside its
// run directory (EACCES, as a read-only place), and the host's answer
// for the rest.
func accessAt(c *call, a fsArg, mode uint32, flags int) result {
	if mode&^7 != 0 {
		return errno(unix.EINVAL)
	}
	wh, err := c.resolveArg(a)
	if err != nil {
		return errno(pathErrno(err))
	}
	r, write, exec := wh.res, mode&unix.W_OK != 0, mode&unix.X_OK != 0
	host := c.hostOf(r)
	switch {
	case wh.fd:
		host = c.fdHost(wh.dirfd)
	case r.Kind == vkernel.Missing:
		return errno(unix.ENOENT)
	case r.Kind == vkernel.File && (write || exec), r.Kind == vkernel.Dir && write,
		r.Kind == vkernel.Proc && write, r.Kind == vkernel.Device && exec, r.Kind == vkernel.Host && write && !r.Writable:
		return errno(unix.EACCES)
	case r.Kind == vkernel.File:
		return ret(0)
	case r.Kind == vkernel.Proc:
		if host = c.procHostPath(r.Path); host == absentProcPath {
			return errno(unix.ENOENT)
		}
	case r.Kind == vkernel.Host && r.Type == vkernel.TypeSymlink:
		flags |= unix.AT_SYMLINK_NOFOLLOW
	}
	return answer(unix.Faccessat(unix.AT_FDCWD, host, mode, flags))
}

// Chdir implements chdir(2): the path resolves in the node's view to a
// directory the node may search, and the node's host working directory
// becomes its host directory (the skeleton's for a virtual directory,
// skeletonDir; EACCES in a view without one). The node cannot name that host path itself (a run directory
// is shown at its virtual path), so weft opens it and has the thread
// fchdir to the descriptor (injected; fchdir is passed). getcwd and
// relative paths then read the view's path back (Locate).
func sysChdir(c *call) result {
	wh, err := c.resolveArg(fsPath(0, true))
	if err != nil {
		return errno(pathErrno(err))
	}
	r := wh.res
	switch {
	case r.Kind == vkernel.Missing:
		return errno(unix.ENOENT)
	case r.Kind == vkernel.Proc:
		return errno(unix.EACCES) // /proc and /sys are files of the table, never a working directory
	case r.Kind == vkernel.File || r.Kind == vkernel.Device || r.Kind == vkernel.Host && r.Type != vkernel.TypeDir:
		return errno(unix.ENOTDIR)
	}
	host := r.HostPath
	if r.Kind == vkernel.Dir {
		var ok bool
		if host, ok = c.skeletonDir(r); !ok {
			return errno(unix.EACCES)
		}
	}
	if res, denied := c.userDenied(host+"/.", unix.O_PATH, false); denied {
		return res
	}
	// Not O_PATH: SECCOMP_IOCTL_NOTIF_ADDFD takes no O_PATH file (EBADF).
	fd, err := openBeneath(host, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	defer unix.Close(fd)
	tfd, err := injectFD(c.n.listener, c.req.ID, fd, true)
	if err != nil {
		return errno(errnoOf(err))
	}
	got, res, ok := c.injectCalls([]injected{
		{nr: unix.SYS_FCHDIR, args: [6]uint64{uint64(tfd)}},
		{nr: unix.SYS_CLOSE, args: [6]uint64{uint64(tfd)}},
	})
	if !ok {
		return res
	}
	return c.heldAnswer(int64(got[0]))
}
