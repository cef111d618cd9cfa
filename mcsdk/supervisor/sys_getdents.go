//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"path"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// getdents and getdents64 read a directory for the node: weft reads it
// through its duplicate of the node's descriptor (one open file
// description, so the node's position moves as the node's own call would
// move it) and rewrites each entry's d_ino to the virtual number stat
// shows for the same file (sys_inodes.go).

// maxDents bounds the buffer weft reads a directory into for one call.
const maxDents = 1 << 16

// sysGetdents64 implements getdents64(2).
func sysGetdents64(c *call) result { return c.getdents(unix.SYS_GETDENTS64, 19) }

// sysGetdents implements getdents(2) (struct linux_dirent: the name at
// offset 18, the type in the record's last byte).
func sysGetdents(c *call) result { return c.getdents(unix.SYS_GETDENTS, 18) }

// getdents reads entries with the host call nr, whose records hold the
// entry's name at nameOff (both layouts: d_ino at 0, d_reclen at 16).
func (c *call) getdents(nr int, nameOff int) result {
	fd := int(int32(c.arg(0)))
	if fd < 0 {
		return errno(unix.EBADF)
	}
	dup, r, ok := c.nodeDup(fd)
	if !ok {
		return r
	}
	defer unix.Close(dup)
	buf := make([]byte, min(int(c.arg(2)), maxDents))
	if len(buf) == 0 {
		return errno(unix.EINVAL)
	}
	var n uintptr
	var e unix.Errno
	withoutSignals(func() { // a pending signal would end the listing early
		n, _, e = unix.Syscall(uintptr(nr), uintptr(dup), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	})
	if e != 0 {
		return errno(e)
	}
	buf = buf[:n]
	dir := c.statName(statPlace{host: c.fdHost(int32(fd)), fd: true, follow: true})
	c.w.traceDir(c.t, dir, n)
	for off := 0; off+nameOff < len(buf); {
		reclen := int(binary.LittleEndian.Uint16(buf[off+16:]))
		if reclen == 0 || off+reclen > len(buf) {
			break
		}
		name := cString(buf[off+nameOff : off+reclen])
		ino := c.direntIno(dup, dir, name, binary.LittleEndian.Uint64(buf[off:]))
		binary.LittleEndian.PutUint64(buf[off:], ino)
		off += reclen
	}
	if err := c.write(c.arg(1), buf); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(n))
}

// direntIno is the virtual number of the entry name of the directory
// dirfd, whose view path is dir ("" none); hostIno is the entry's host
// number, used when the entry cannot be stated (gone since).
func (c *call) direntIno(dirfd int, dir, name string, hostIno uint64) uint64 {
	full := ""
	if dir != "" {
		full = path.Join(dir, name)
	}
	var stx unix.Statx_t
	f := vkernel.HostFile{HostIno: vkernel.HostIno{Dev: ^uint64(0) - 1, Ino: hostIno}}
	if unix.Statx(dirfd, name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &stx) == nil {
		f.Dev, f.Ino = unix.Mkdev(stx.Dev_major, stx.Dev_minor), stx.Ino
		if stx.Mask&unix.STATX_BTIME != 0 {
			f.Birth = stxNs(stx.Btime)
		}
	}
	return c.w.inodeTable().Ino(f, full)
}

// cString is b up to its first NUL.
func cString(b []byte) string {
	for i, x := range b {
		if x == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
