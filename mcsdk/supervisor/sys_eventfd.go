//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// Eventfds inside a node (eventfd(2)), served in Go: the counter is
// weft's; the node holds a real, idle eventfd as placeholder.

// eventFD is one eventfd's counter.
type eventFD struct {
	count     uint64
	semaphore bool
	genIn     uint64 // writes (they wake readers)
	genOut    uint64 // reads (they wake writers)
}

// eventfdMax is the largest value the counter can hold.
const eventfdMax = 1<<64 - 2

// Eventfd implements eventfd(2).
func sysEventfd(c *call) result { return makeEventfd(c, 0) }

// Eventfd2 implements eventfd2(2): EFD_SEMAPHORE, EFD_NONBLOCK,
// EFD_CLOEXEC.
func sysEventfd2(c *call) result {
	if c.arg(1)&^uint64(unix.EFD_SEMAPHORE|unix.EFD_NONBLOCK|unix.EFD_CLOEXEC) != 0 {
		return errno(unix.EINVAL)
	}
	return makeEventfd(c, c.arg(1))
}

func makeEventfd(c *call, flags uint64) result {
	ph, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return errno(errnoOf(err))
	}
	e := &eventFD{count: uint64(uint32(c.arg(0))), semaphore: flags&unix.EFD_SEMAPHORE != 0}
	return c.installOne(&vfd{obj: e}, ph, flags&unix.EFD_NONBLOCK != 0, flags&unix.EFD_CLOEXEC != 0)
}

var eventfdOps = map[int]fileOp{
	unix.SYS_READ:     func(c *call, v *vfd) result { return readEventfd(c, v, []iovec{{c.arg(1), c.arg(2)}}) },
	unix.SYS_READV:    eventfdReadv,
	unix.SYS_WRITE:    func(c *call, v *vfd) result { return writeEventfd(c, v, c.arg(1), c.arg(2), false) },
	unix.SYS_WRITEV:   func(c *call, v *vfd) result { return writeEventfd(c, v, c.arg(1), c.arg(2), true) },
	unix.SYS_PREAD64:  espipe,
	unix.SYS_PWRITE64: espipe,
	unix.SYS_PREADV2:  espipe,
	unix.SYS_PWRITEV2: espipe,
}

func (e *eventFD) ops() map[int]fileOp { return eventfdOps }

func (e *eventFD) gens() (uint64, uint64) { return e.genIn, e.genOut }

func (e *eventFD) events(*call) uint32 {
	var ev uint32
	if e.count > 0 {
		ev |= unix.EPOLLIN | unix.EPOLLRDNORM
	}
	if e.count < eventfdMax {
		ev |= unix.EPOLLOUT | unix.EPOLLWRNORM
	}
	return ev
}

func (e *eventFD) hash(h *fileHasher) {
	put := h.put
	put(e.count)
	put(boolBits(e.semaphore))
	put(e.genIn)
	put(e.genOut)
}

func (e *eventFD) release(*World, *node) {}

func eventfdReadv(c *call, v *vfd) result {
	iov, err := c.readIovecs(c.arg(1), c.arg(2))
	if err != nil {
		return errno(unix.EINVAL)
	}
	return readEventfd(c, v, iov)
}

// readEventfd returns the counter and resets it (or, EFD_SEMAPHORE, 1 and
// decrements it); it blocks while the counter is zero.
func readEventfd(c *call, v *vfd, iov []iovec) result {
	e := v.obj.(*eventFD)
	if iovLen(iov) < 8 {
		return errno(unix.EINVAL)
	}
	if e.count == 0 {
		if v.nonblocking() {
			return errno(unix.EAGAIN)
		}
		return park()
	}
	n := e.count
	if e.semaphore {
		n = 1
	}
	e.count -= n
	e.genOut++
	if err := c.scatter(iov, binary.LittleEndian.AppendUint64(nil, n)); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(8)
}

// writeEventfd adds an 8-byte value to the counter; it blocks while the
// sum would exceed eventfdMax.
func writeEventfd(c *call, v *vfd, addr, n uint64, vector bool) result {
	e := v.obj.(*eventFD)
	var b []byte
	var err error
	if vector {
		var iov []iovec
		if iov, err = c.readIovecs(addr, n); err == nil {
			b, err = c.gather(iov)
		}
	} else {
		if n < 8 {
			return errno(unix.EINVAL)
		}
		b, err = c.read(addr, 8)
	}
	if err != nil {
		return errno(unix.EFAULT)
	}
	if len(b) < 8 {
		return errno(unix.EINVAL)
	}
	add := binary.LittleEndian.Uint64(b)
	if add == 1<<64-1 {
		return errno(unix.EINVAL)
	}
	if add > eventfdMax-e.count {
		if v.nonblocking() {
			return errno(unix.EAGAIN)
		}
		return park()
	}
	e.count += add
	e.genIn++
	return ret(8)
}
