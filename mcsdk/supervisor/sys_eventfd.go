//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Eventfds inside a node (eventfd(2)): the counter and its rules are
// vkernel.Eventfd's; this file decodes the calls, moves the 8 bytes and
// parks a call the counter makes wait. The node holds a real, idle
// eventfd as placeholder.

// eventFD is one eventfd's open file description.
type eventFD struct{ vkernel.Eventfd }

func newEventFD(initval uint32, semaphore bool) *eventFD {
	return &eventFD{*vkernel.NewEventfd(initval, semaphore)}
}

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
	e := newEventFD(uint32(c.arg(0)), flags&unix.EFD_SEMAPHORE != 0)
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

func (*eventFD) Kind() vkernel.FileKind { return anonFileKind }

func (e *eventFD) Wake(_ vkernel.FileWorld, x *vkernel.EpollEntry) [2]uint64 {
	return x.WakeOf(e.Gens())
}

func (e *eventFD) Events(vkernel.FileWorld) uint32 { return e.Eventfd.Events() }

func (e *eventFD) Hash(h *vkernel.FileHasher) {
	h.Put(fileTagInNode)
	e.Eventfd.Hash(h.Put)
}

func (e *eventFD) Release(vkernel.FileWorld) {}

func eventfdReadv(c *call, v *vfd) result {
	iov, err := c.readIovecs(c.arg(1), c.arg(2))
	if err != nil {
		return errno(unix.EINVAL)
	}
	return readEventfd(c, v, iov)
}

// readEventfd serves read(2) and readv(2): the value the counter gives
// (vkernel.Eventfd.Read), written to iov as 8 bytes.
func readEventfd(c *call, v *vfd, iov []iovec) result {
	n, err := v.obj.(*eventFD).Read(uint64(iovLen(iov)), v.nonblocking())
	if err != nil {
		return vkAnswer(err)
	}
	if err := c.scatter(iov, binary.LittleEndian.AppendUint64(nil, n)); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(8)
}

// writeEventfd serves write(2) and writev(2): the bytes at addr (or, vector,
// those the iovec array there names) go to vkernel.Eventfd.Write; a
// write(2) of fewer than 8 bytes reads nothing.
func writeEventfd(c *call, v *vfd, addr, n uint64, vector bool) result {
	var b []byte
	var err error
	switch {
	case vector:
		var iov []iovec
		if iov, err = c.readIovecs(addr, n); err == nil {
			b, err = c.gather(iov)
		}
	case n >= 8:
		b, err = c.read(addr, 8)
	}
	if err != nil {
		return errno(unix.EFAULT)
	}
	if err := v.obj.(*eventFD).Write(b, v.nonblocking()); err != nil {
		return vkAnswer(err)
	}
	return ret(8)
}
