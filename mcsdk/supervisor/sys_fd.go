//go:build linux && amd64

package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Read implements read(2) on a descriptor whose kind leaves it to the
// kernel: the kernel runs it. A served kind's operations serve it on
// theirs (a receive on an inet socket, inetOps; a timerfd's expiration
// count, timerfdOps; seeded bytes from a random device, randomOps; the
// in-node kinds' own).
func sysRead(c *call) result { return cont() }

// Readv implements readv(2) as sysRead.
func sysReadv(c *call) result { return cont() }

// inetRead is a read of an inet socket into iov.
func inetRead(c *call, v *vfd, iov []iovec) result {
	data, _, r, ok := receive(c, v, iovLen(iov), 0)
	if !ok {
		return r
	}
	if err := c.scatter(iov, data); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(len(data)))
}

// inetReadv is readv(2) of an inet socket.
func inetReadv(c *call, v *vfd) result {
	iov, err := c.readIovecs(c.arg(1), c.arg(2))
	if err != nil {
		return errno(unix.EINVAL)
	}
	return inetRead(c, v, iov)
}

// Write implements write(2) on a descriptor whose kind leaves it to the
// kernel (a send on an inet socket is inetOps'). Writes to stdout and
// stderr are captured by weft, so node output interleaves in the
// scheduler's order rather than the host's.
func sysWrite(c *call) result {
	return nodeOutput(c, func() ([]byte, error) { return c.read(c.arg(1), int(c.arg(2))) })
}

// Writev implements writev(2) as sysWrite.
func sysWritev(c *call) result {
	return nodeOutput(c, func() ([]byte, error) { return c.gatherAt(c.arg(1), c.arg(2)) })
}

// gatherAt reads the buffers of the iovec array at addr (cnt entries).
func (c *call) gatherAt(addr, cnt uint64) ([]byte, error) {
	iov, err := c.readIovecs(addr, cnt)
	if err != nil {
		return nil, err
	}
	return c.gather(iov)
}

// nodeOutput captures a write to the node's stdout or stderr; data reads
// the caller's buffers only then. The kernel runs any other write.
func nodeOutput(c *call, data func() ([]byte, error)) result {
	if fd := c.arg(0); fd != 1 && fd != 2 || !c.isNodeOutput(fd) {
		return cont()
	}
	b, err := data()
	if err != nil {
		return errno(unix.EFAULT)
	}
	c.w.nodeOutput(c.n, b)
	return ret(int64(len(b)))
}

// inetWrite is write(2) (writev(2) if vector) of the buffer (iovec array)
// at addr, of n bytes (entries), to an inet socket.
func inetWrite(c *call, v *vfd, addr, n uint64, vector bool) result {
	var b []byte
	var err error
	if vector {
		b, err = c.gatherAt(addr, n)
	} else {
		b, err = c.read(addr, int(n))
	}
	if err != nil {
		return errno(unix.EFAULT)
	}
	return c.send(v, b, 0, 0)
}

// Pread implements pread64(2) and pwrite64(2) on a descriptor whose kind
// leaves them to the kernel (sockets and pipes are not seekable: their
// operations answer ESPIPE).
func sysPread(c *call) result { return cont() }

// Descriptors: the node's served descriptors are in its process's table
// (n.fds, a vkernel.FDTable), whose rules (dup(2), fcntl(2), close(2),
// close_range(2), execve(2), fork(2)) answer here; the host kernel holds
// every descriptor of the process under the same numbers, so the numbers
// a served descriptor gets are the kernel's (ADDFD picks the lowest free
// one, or the one weft names), and weft's work on the host is its own
// copy of each description (vfd.ours), duplicated and closed here.

// Close implements close(2). The kernel closes the target's descriptor;
// weft closes the virtual socket when its last descriptor goes.
func sysClose(c *call) result {
	c.n.dropFD(int(int32(c.arg(0))), c.w)
	return cont()
}

// dropFD forgets a target descriptor and closes its socket if no other
// descriptor refers to it.
func (n *node) dropFD(fd int, w *World) {
	v := n.fds.At(fd)
	n.closing(fd, v, w)
	if v == nil {
		return
	}
	n.fds.Close(fd)
	unix.Close(v.ours)
}

// Dup implements dup(2) on virtual sockets by injecting the same file
// description again.
func sysDup(c *call) result {
	v := c.n.fds.At(int(int32(c.arg(0))))
	if v == nil {
		return cont()
	}
	return c.dupTo(v, -1, false)
}

// Dup2 implements dup2(2).
func sysDup2(c *call) result { return dup3(c, 0, true) }

// Dup3 implements dup3(2).
func sysDup3(c *call) result { return dup3(c, c.arg(2), false) }

// dup3 serves dup2(2) (dup2 true) and dup3(2). The table's argument
// checks answer first (vkernel.FDTable.DupArgs: dup3 onto itself or with
// an unknown flag is EINVAL, a newfd out of range EBADF), so a call that
// fails leaves newfd open; so does one whose oldfd the kernel does not
// hold (EBADF). dup2 of a served descriptor onto itself changes nothing.
func dup3(c *call, flags uint64, dup2 bool) result {
	oldfd, newfd := int(int32(c.arg(0))), int(int32(c.arg(1)))
	if c.fdTable().DupArgs(oldfd, newfd, int(int32(flags)), dup2) != nil {
		return cont() // the kernel refuses it as the table does
	}
	v := c.n.fds.At(oldfd)
	if v == nil {
		if c.n.fds.At(newfd) != nil && c.fdKind(oldfd) != kindNone {
			c.n.dropFD(newfd, c.w) // the kernel will close it
		}
		return cont()
	}
	if oldfd == newfd {
		return ret(int64(newfd))
	}
	c.n.dropFD(newfd, c.w)
	return c.dupTo(v, newfd, flags&unix.O_CLOEXEC != 0)
}

// dupTo installs a copy of v's description at newfd (-1: the lowest free
// number, which the kernel picks), with close-on-exec if asked, and
// records it in the table.
func (c *call) dupTo(v *vfd, newfd int, cloexec bool) result {
	ours, err := unix.Dup(v.ours)
	if err != nil {
		return errno(unix.EMFILE)
	}
	a := notifAddfd{ID: c.req.ID, SrcFD: uint32(ours)}
	if cloexec {
		a.NewFDFlags = unix.O_CLOEXEC
	}
	var fd int
	if newfd >= 0 {
		a.Flags = unix.SECCOMP_ADDFD_FLAG_SETFD
		a.NewFD = uint32(newfd)
		fd, err = addFD(c.n.listener, &a)
	} else {
		fd, err = injectFD(c.n.listener, c.req.ID, ours, cloexec)
	}
	if err != nil {
		unix.Close(ours)
		return errno(errnoOf(err))
	}
	nv := *v
	nv.ours = ours
	c.n.fds.Record(fd, &nv, cloexec)
	return ret(int64(fd))
}

// CloseRange implements close_range(2): after the table's argument checks
// (vkernel.CloseRangeArgs), weft forgets the served descriptors in the
// range in ascending order, as the kernel closes them, and the kernel
// closes them on the host; with CLOSE_RANGE_CLOEXEC the table only marks
// them, as the kernel does. CLOSE_RANGE_UNSHARE changes nothing weft
// keeps: a process's table is its own (CLONE_FILES is not modelled).
func sysCloseRange(c *call) result {
	first, last, flags := uint32(c.arg(0)), uint32(c.arg(1)), uint32(c.arg(2))
	if err := vkernel.CloseRangeArgs(first, last, int(flags)); err != nil {
		return vkAnswer(err)
	}
	if flags&unix.CLOSE_RANGE_CLOEXEC != 0 {
		c.n.fds.CloseRange(first, last, int(flags))
		return cont()
	}
	for fd := range c.n.fds.All() {
		if vkernel.InRange(fd, first, last) {
			c.n.dropFD(fd, c.w)
		}
	}
	return cont()
}

// Preadv2 implements preadv2(2) and pwritev2(2) on files; with offset -1
// they would read or write a virtual socket's host end, which is not
// modelled.
func sysPreadv2(c *call) result {
	if c.n.fds.At(int(int32(c.arg(0)))) != nil {
		return positionalVector(c, nil)
	}
	return cont()
}

// positionalVector is preadv2 and pwritev2 on a served descriptor.
func positionalVector(*call, *vfd) result {
	return failf("positional vector I/O on a virtual descriptor is not modelled")
}
