//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Opening a file (open, openat, openat2, creat) is served by weft: the
// path resolves in the node's view (sys_view.go), then a host file is
// opened by weft beneath the root with openat2 and handed over
// (SECCOMP_IOCTL_NOTIF_ADDFD); the random devices are virtual (reads
// draw from the seeded stream), identity files virtual, /proc and /sys
// served by vkernel's table (sys_procfs.go); an open that could write outside
// the run directory is refused with EACCES (sys_fs.go). No open runs
// natively.

// Openat implements openat(2).
func sysOpenat(c *call) result { return openFile(c, fsAt(0, 1, true, -1), c.arg(2), uint32(c.arg(3))) }

// Open implements open(2).
func sysOpen(c *call) result { return openFile(c, fsPath(0, true), c.arg(1), uint32(c.arg(2))) }

// Creat implements creat(2): open with O_CREAT|O_WRONLY|O_TRUNC.
func sysCreat(c *call) result {
	return openFile(c, fsPath(0, true), unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC, uint32(c.arg(1)))
}

// Openat2 implements openat2(2). Its resolve flags are not modelled: a
// call with any is ENOSYS, as on a kernel without them, and callers fall
// back to openat.
func sysOpenat2(c *call) result {
	if c.arg(3) < 24 {
		return errno(unix.EINVAL)
	}
	how, err := c.read(c.arg(2), 24) // struct open_how: flags, mode, resolve
	if err != nil {
		return errno(unix.EFAULT)
	}
	if binary.LittleEndian.Uint64(how[16:]) != 0 {
		return errno(unix.ENOSYS)
	}
	return openFile(c, fsAt(0, 1, true, -1), binary.LittleEndian.Uint64(how), uint32(binary.LittleEndian.Uint64(how[8:])))
}

// openFile serves an open of the path a with open flags oflags and
// creation mode mode.
func openFile(c *call, a fsArg, oflags uint64, mode uint32) result {
	// O_CREAT|O_EXCL and O_NOFOLLOW never follow a final symlink; O_TMPFILE
	// names the directory the file goes in.
	a.follow = oflags&unix.O_NOFOLLOW == 0 && oflags&(unix.O_CREAT|unix.O_EXCL) != unix.O_CREAT|unix.O_EXCL
	wh, err := c.resolveArg(a)
	if err != nil {
		return errno(pathErrno(err))
	}
	r := wh.res
	switch r.Kind {
	case vkernel.Proc:
		if strings.HasPrefix(r.Path, "/dev/") {
			return errno(unix.ELOOP) // a /dev link, not followed (O_NOFOLLOW)
		}
		if res, ok := c.openProcFile(r.Path, oflags); ok {
			return res
		}
		return errno(unix.ENOENT)
	case vkernel.File:
		if openWrites(oflags) {
			return c.refuseWrite(r.Path)
		}
		return c.installFile(r.Content, oflags)
	case vkernel.Device:
		if res, ok := c.openProcFile(r.Path, oflags); ok {
			return res // the random devices
		}
		return c.openHost(r.Path, oflags&^(unix.O_CREAT|unix.O_EXCL), 0, false)
	case vkernel.Dir:
		if openWrites(oflags) {
			return errno(unix.EISDIR)
		}
		// A virtual directory lists only the virtual directories below
		// it (the skeleton's).
		d, ok := c.skeletonDir(r)
		if !ok {
			return errno(unix.EACCES)
		}
		return c.openHost(d, unix.O_RDONLY|unix.O_DIRECTORY|oflags&unix.O_CLOEXEC, 0, false)
	case vkernel.Missing:
		switch {
		case oflags&unix.O_CREAT == 0:
			return errno(unix.ENOENT)
		case !r.Writable:
			return c.refuseWrite(r.Path)
		case r.DirOnly:
			return errno(unix.EISDIR)
		}
		return c.openHost(r.HostPath, oflags|unix.O_EXCL, mode, true)
	}
	switch {
	case openWrites(oflags) && !r.Writable:
		return c.refuseWrite(r.Path)
	case r.Type == vkernel.TypeOther:
		return errno(unix.ENXIO) // FIFOs, sockets and devices of the file system are not modelled
	case oflags&unix.O_PATH != 0 && r.Type == vkernel.TypeSymlink:
		return errno(unix.ELOOP) // O_PATH|O_NOFOLLOW of a symlink: no file weft can hand over
	case oflags&unix.O_PATH != 0:
		oflags = pathOpen(oflags)
	}
	return c.openHost(r.HostPath, oflags, mode, oflags&unix.O_TMPFILE == unix.O_TMPFILE)
}

// pathOpen is the read-only open that serves an O_PATH open of a file
// or directory: SECCOMP_IOCTL_NOTIF_ADDFD takes no O_PATH file (the
// kernel's fget skips them: EBADF), so the node gets a descriptor that
// can also read (weft checks a node user's read permission for it).
func pathOpen(oflags uint64) uint64 {
	return unix.O_RDONLY | unix.O_NONBLOCK | oflags&(unix.O_CLOEXEC|unix.O_DIRECTORY|unix.O_NOFOLLOW)
}

// openHost opens the canonical host path p for the node and hands it the
// descriptor; a file it creates gets mode less the node's umask.
func (c *call) openHost(p string, oflags uint64, mode uint32, create bool) result {
	if r, denied := c.userDenied(p, oflags, create); denied {
		return r
	}
	fd, err := openBeneath(p, oflags&^unix.O_CLOEXEC, mode)
	if err != nil {
		return errno(errnoOf(err))
	}
	defer unix.Close(fd)
	if create {
		unix.Fchmod(fd, mode&^c.umask()&0o7777) // weft's own umask must not apply
		c.ownNew(fd, "")
	}
	tfd, err := injectFD(c.n.listener, c.req.ID, fd, oflags&unix.O_CLOEXEC != 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	return ret(int64(tfd))
}

// installRandom gives the node a new descriptor for the random device at
// path (/dev/random or /dev/urandom), opened with oflags.
func (c *call) installRandom(path string, oflags uint64) result {
	flags := oflags & unix.O_NONBLOCK // SOCK_NONBLOCK: F_GETFL shows it
	if oflags&unix.O_CLOEXEC != 0 {
		flags |= unix.SOCK_CLOEXEC
	}
	v := &vfd{obj: &randomDev{accmode: uint8(oflags & unix.O_ACCMODE), random: path == "/dev/random"}}
	v.file = vkernel.NewOpenFile(v.obj.Kind(), int(oflags)) // O_APPEND, O_SYNC… as open keeps them
	return c.install(v, flags)
}

// installFile gives the node a new descriptor for a read-only memfd
// holding content.
func (c *call) installFile(content []byte, oflags uint64) result {
	flags := uint64(0)
	if oflags&unix.O_CLOEXEC != 0 {
		flags |= unix.SOCK_CLOEXEC
	}
	fd, err := unix.MemfdCreate("weft-virtual", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return errno(unix.ENFILE)
	}
	defer unix.Close(fd)
	if _, err := unix.Pwrite(fd, content, 0); err != nil {
		return failf("writing a virtual file: %v", err)
	}
	unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_WRITE|unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL)
	tfd, err := injectFD(c.n.listener, c.req.ID, fd, flags != 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	return ret(int64(tfd))
}
