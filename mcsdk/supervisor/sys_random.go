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
// run's seeded stream, writes are taken and change nothing (Linux mixes
// them into its pool; the seeded stream is the run's only randomness);
// the kernel answers the calls it does not name (on weft's placeholder).
// accmode is the open's O_ACCMODE (0, O_RDONLY, for the zero value);
// random says it is /dev/random (else /dev/urandom), which fstat shows.
type randomDev struct {
	accmode uint8
	random  bool
}

// path is the device the descriptor is an open of.
func (r *randomDev) path() string {
	if r.random {
		return "/dev/random"
	}
	return "/dev/urandom"
}

// writeRandom takes a write of iov to a random device: every byte, as
// Linux's write_pool copies it in (EFAULT if it cannot), up to 1 MiB.
func writeRandom(c *call, iov []iovec) result {
	var k uint64
	for _, e := range iov {
		n := min(e.len, 1<<20-k)
		if _, err := c.read(e.base, int(n)); err != nil {
			if k > 0 {
				break
			}
			return errno(unix.EFAULT)
		}
		if k += n; k == 1<<20 {
			break
		}
	}
	return ret(int64(k))
}

// randomOp serves op on a random device opened for access, else EBADF.
func randomOp(access uint8, op func(*call, []iovec) result, vector bool) fileOp {
	return func(c *call, v *vfd) result {
		if m := v.obj.(*randomDev).accmode; m != unix.O_RDWR && m != access {
			return errno(unix.EBADF)
		}
		if !vector {
			return op(c, []iovec{{c.arg(1), c.arg(2)}})
		}
		iov, err := c.readIovecs(c.arg(1), c.arg(2))
		if err != nil {
			return errno(unix.EINVAL)
		}
		return op(c, iov)
	}
}

var randomOps = map[int]fileOp{
	unix.SYS_READ:   randomOp(unix.O_RDONLY, readRandom, false),
	unix.SYS_READV:  randomOp(unix.O_RDONLY, readRandom, true),
	unix.SYS_WRITE:  randomOp(unix.O_WRONLY, writeRandom, false),
	unix.SYS_WRITEV: randomOp(unix.O_WRONLY, writeRandom, true),
}

func (*randomDev) ops() map[int]fileOp { return randomOps }

// Kind: a device node's description, root's, with the open's access
// mode; its fasync has nothing left to signal (vkernel.AsyncQuiet).
func (r *randomDev) Kind() vkernel.FileKind {
	return vkernel.FileKind{Mode: int(r.accmode) | vkernel.OLargefile, Async: vkernel.AsyncQuiet, RootOwned: true}
}

func (*randomDev) Events(vkernel.FileWorld) uint32 { return vkernel.RandomEvents }

// Wake: a random device keeps no wake-ups.
func (*randomDev) Wake(vkernel.FileWorld, *vkernel.EpollEntry) [2]uint64 { return [2]uint64{} }

func (r *randomDev) Hash(h *vkernel.FileHasher) {
	h.Put(fileTagRandom)
	if r.accmode != unix.O_RDONLY || r.random {
		h.Put(uint64(r.accmode)<<32 | uint64(boolBits(r.random))<<40) // EBADF by the mode; fstat's device
	}
}

func (*randomDev) Release(vkernel.FileWorld) {}
