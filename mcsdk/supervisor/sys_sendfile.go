//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// sendfileChunk bounds what one sendfile call moves (Linux moves at most
// 0x7ffff000 bytes; a node's file rarely comes near this).
const sendfileChunk = 1 << 20

// Sendfile implements sendfile(2) into a descriptor that is no inet
// socket: between two kernel descriptors the kernel runs it; from or into
// any other served descriptor it is not modelled (the run ends, verdict
// error). Into an inet socket
// (inetSendfile, one of inetOps) weft reads the file itself, through a
// duplicate of the node's descriptor (pidfd_getfd: the same file
// description, so the same offset), and sends what it read: from *offset
// when given (then advanced), else from the file's position (then moved),
// by as many bytes as the socket took.
func sysSendfile(c *call) result {
	if c.n.fds.At(int(int32(c.arg(1)))) != nil {
		return failf("sendfile from a virtual descriptor is not modelled")
	}
	if c.n.fds.At(int(int32(c.arg(0)))) != nil {
		// Served, but not by inetOps: the kernel would write into weft's
		// placeholder, and the bytes would vanish.
		return failf("sendfile into a weft-served descriptor other than an inet socket (a pipe, unix socket, eventfd, timerfd, epoll instance or random device) is not modelled")
	}
	return cont()
}

// inetSendfile is sendfile(2) into the inet socket v.
func inetSendfile(c *call, v *vfd) result {
	in, offp, count := int(int32(c.arg(1))), c.arg(2), c.arg(3)
	if c.n.fds.At(in) != nil {
		return failf("sendfile between virtual descriptors is not modelled")
	}
	f, err := unix.PidfdGetfd(c.n.pidfd, in, 0)
	if err != nil {
		return errno(unix.EBADF)
	}
	defer unix.Close(f)
	var off int64
	if offp != 0 {
		b, err := c.read(offp, 8)
		if err != nil {
			return errno(unix.EFAULT)
		}
		off = int64(binary.LittleEndian.Uint64(b))
	} else if off, err = unix.Seek(f, 0, unix.SEEK_CUR); err != nil {
		return errno(errnoOf(err))
	}
	buf := make([]byte, min(count, sendfileChunk))
	k, err := unix.Pread(f, buf, off)
	if err != nil {
		return errno(errnoOf(err))
	}
	if k == 0 {
		return ret(0)
	}
	r := c.send(v, buf[:k], 0, 0)
	if r.kind != rReturn || r.errno != 0 || r.val <= 0 {
		return r
	}
	if offp != 0 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(off+r.val))
		if err := c.write(offp, b[:]); err != nil {
			return errno(unix.EFAULT)
		}
	} else if _, err := unix.Seek(f, off+r.val, unix.SEEK_SET); err != nil {
		return errno(errnoOf(err))
	}
	return r
}
