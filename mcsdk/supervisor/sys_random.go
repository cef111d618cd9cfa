//go:build linux && amd64

package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
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

// randomDev is an open /dev/random or /dev/urandom: reads come from the
// run's seeded stream; the kernel answers the calls it does not name (on
// weft's placeholder).
type randomDev struct{}

var randomOps = map[int]fileOp{
	unix.SYS_READ: func(c *call, _ *vfd) result { return readRandom(c, []iovec{{c.arg(1), c.arg(2)}}) },
	unix.SYS_READV: func(c *call, _ *vfd) result {
		iov, err := c.readIovecs(c.arg(1), c.arg(2))
		if err != nil {
			return errno(unix.EINVAL)
		}
		return readRandom(c, iov)
	},
}

func (*randomDev) ops() map[int]fileOp { return randomOps }

func (*randomDev) events(*call) uint32 { return vkernel.RandomEvents }

// wake: a random device keeps no wake-ups.
func (*randomDev) wake(*call, *vkernel.EpollEntry) [2]uint64 { return [2]uint64{} }

func (*randomDev) hash(h *fileHasher) { h.put(fileTagRandom) }

func (*randomDev) release(*World, *node) {}
