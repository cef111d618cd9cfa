//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Opening a file (open, openat, openat2, creat): the random devices are
// virtual (reads draw from the seeded stream), and every file below /proc
// and /sys is served by the table in sys_procfs.go (virtual content in a
// memfd, the node's own kernel file, or absent); an open that could write
// outside the run directory is refused (sys_fs.go); every other open
// runs natively.

// Openat implements openat(2).
func sysOpenat(c *call) result { return openFile(c, fsAt(0, 1, true, -1), c.arg(2)) }

// Open implements open(2).
func sysOpen(c *call) result { return openFile(c, fsPath(0, true), c.arg(1)) }

// Creat implements creat(2): open with O_CREAT|O_WRONLY|O_TRUNC.
func sysCreat(c *call) result {
	return openFile(c, fsPath(0, true), unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC)
}

// Openat2 implements openat2(2); the resolve flags are the kernel's.
func sysOpenat2(c *call) result {
	if c.arg(3) < 24 {
		return errno(unix.EINVAL)
	}
	how, err := c.read(c.arg(2), 24) // struct open_how: flags, mode, resolve
	if err != nil {
		return errno(unix.EFAULT)
	}
	return openFile(c, fsAt(0, 1, true, -1), binary.LittleEndian.Uint64(how))
}

func openFile(c *call, a fsArg, oflags uint64) result {
	path, err := c.readPath(c.arg(a.path))
	if err != nil {
		return errno(errnoOf(err))
	}
	if strings.HasPrefix(path, "/") {
		if r, ok := c.openProcFile(filepath.Clean(path), oflags); ok {
			return r
		}
	}
	if !openWrites(oflags) {
		return cont()
	}
	tg, err := c.fsTarget(a)
	if err != nil {
		return errno(errnoOf(err))
	}
	// O_CREAT|O_EXCL and O_NOFOLLOW never follow a final symlink; O_TMPFILE
	// names the directory the file goes in.
	follow := oflags&unix.O_NOFOLLOW == 0 && oflags&(unix.O_CREAT|unix.O_EXCL) != unix.O_CREAT|unix.O_EXCL
	if !c.mayWrite(tg.host, follow, true) {
		return c.refuseWrite(tg.host)
	}
	return cont()
}

// installFile gives the node a new descriptor for a read-only memfd
// holding content, or the random device when content is nil.
func (c *call) installFile(content []byte, oflags uint64) result {
	flags := uint64(0)
	if oflags&unix.O_CLOEXEC != 0 {
		flags |= unix.SOCK_CLOEXEC
	}
	if content == nil {
		return c.install(&vfd{random: true}, flags)
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
