//go:build linux && amd64

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

// readRandom fills iov from the seeded stream, as a read of /dev/urandom.
func readRandom(c *call, iov []iovec) result {
	buf := make([]byte, min(iovLen(iov), 1<<20))
	c.w.rand.Read(buf)
	if err := c.scatter(iov, buf); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(len(buf)))
}
