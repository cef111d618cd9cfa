//go:build linux

package supervisor

import (
	"golang.org/x/sys/unix"
)

// Getrandom implements getrandom(2) from the run's seeded stream.
func sysGetrandom(c *call) result {
	n := int(min(c.arg(1), 1<<20))
	buf := make([]byte, n)
	c.w.rand.Read(buf)
	if err := c.write(c.arg(0), buf); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(n))
}

// randomDevices are the paths whose reads come from the seeded stream.
var randomDevices = map[string]bool{"/dev/urandom": true, "/dev/random": true}

// Openat implements openat(2): the random devices are virtual, served as
// a socket-like descriptor whose reads draw from the seeded stream; every
// other path is opened natively.
func sysOpenat(c *call) result { return openPath(c, c.arg(1), c.arg(2)) }

// Open implements open(2).
func sysOpen(c *call) result { return openPath(c, c.arg(0), c.arg(1)) }

func openPath(c *call, pathAddr, oflags uint64) result {
	path, err := c.readString(pathAddr, 64)
	if err != nil || !randomDevices[path] {
		return cont()
	}
	flags := uint64(0)
	if oflags&unix.O_CLOEXEC != 0 {
		flags |= unix.SOCK_CLOEXEC
	}
	return c.install(&vfd{random: true}, flags)
}

// readRandom fills iov from the seeded stream, as a read of /dev/urandom.
func readRandom(c *call, iov []iovec) result {
	buf := make([]byte, min(iovLen(iov), 1<<20))
	c.w.rand.Read(buf)
	if err := c.scatter(iov, buf); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(len(buf)))
}

// readString reads a NUL-terminated string of at most max bytes.
func (c *call) readString(addr uint64, max int) (string, error) {
	buf := make([]byte, max)
	k, err := readMem(c.n.pid, uintptr(addr), buf)
	if k <= 0 {
		return "", err
	}
	for i, b := range buf[:k] {
		if b == 0 {
			return string(buf[:i]), nil
		}
	}
	return string(buf[:k]), nil
}
