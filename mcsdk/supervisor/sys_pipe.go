//go:build linux && amd64

package supervisor

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Pipes inside a node (pipe(7)): the buffer and its rules are
// vkernel.Pipe's; this file decodes the calls, moves the bytes between
// the node's memory and the buffer, and parks a call the buffer makes
// wait. The node holds the two ends of a real, empty pipe as
// placeholders.

// pipeEnd is one end's open file description.
type pipeEnd struct {
	p     *vkernel.Pipe
	write bool
}

// oNotificationPipe is O_NOTIFICATION_PIPE (O_EXCL), watch_queue(7).
const oNotificationPipe = unix.O_EXCL

// Pipe implements pipe(2).
func sysPipe(c *call) result { return makePipe(c, 0) }

// Pipe2 implements pipe2(2): O_NONBLOCK and O_CLOEXEC; O_DIRECT (packet
// mode) is not modelled.
func sysPipe2(c *call) result {
	if c.arg(1)&^uint64(unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_DIRECT|oNotificationPipe) != 0 {
		return errno(unix.EINVAL)
	}
	if c.arg(1)&(unix.O_DIRECT|oNotificationPipe) != 0 {
		return failf("pipe2 flags %#x (packet or notification pipes) are not modelled", c.arg(1))
	}
	return makePipe(c, c.arg(1))
}

func makePipe(c *call, flags uint64) result {
	var ph [2]int
	if err := unix.Pipe2(ph[:], unix.O_CLOEXEC); err != nil {
		return errno(errnoOf(err))
	}
	p := vkernel.NewPipe()
	return c.installPair(&vfd{obj: &pipeEnd{p: p}}, &vfd{obj: &pipeEnd{p: p, write: true}}, ph[0], ph[1], c.arg(0), flags)
}

var pipeOps = map[int]fileOp{
	unix.SYS_READ:     func(c *call, v *vfd) result { return readFile(c, v, []iovec{{c.arg(1), c.arg(2)}}) },
	unix.SYS_READV:    func(c *call, v *vfd) result { return readvFile(c, v) },
	unix.SYS_WRITE:    func(c *call, v *vfd) result { return writeFile(c, v, c.arg(1), c.arg(2), false) },
	unix.SYS_WRITEV:   func(c *call, v *vfd) result { return writeFile(c, v, c.arg(1), c.arg(2), true) },
	unix.SYS_PREAD64:  espipe,
	unix.SYS_PWRITE64: espipe,
	unix.SYS_PREADV2:  espipe,
	unix.SYS_PWRITEV2: espipe,
	unix.SYS_IOCTL:    pipeIoctl,
	unix.SYS_FCNTL:    pipeFcntl,
}

func espipe(*call, *vfd) result { return errno(unix.ESPIPE) }

func (e *pipeEnd) ops() map[int]fileOp { return pipeOps }

// fileKind: a pipe's end, read-only or write-only, which sends SIGIO
// (vkernel.AsyncSignals) and takes O_DIRECT as packet mode.
func (e *pipeEnd) Kind() vkernel.FileKind {
	k := vkernel.FileKind{Mode: vkernel.ORdonly, Async: vkernel.AsyncSignals, Pipe: true}
	if e.write {
		k.Mode = vkernel.OWronly
	}
	return k
}

func (e *pipeEnd) Wake(_ vkernel.FileWorld, x *vkernel.EpollEntry) [2]uint64 {
	return x.WakeOf(e.p.Gens())
}

func (e *pipeEnd) Events(vkernel.FileWorld) uint32 { return e.p.Events(e.write) }

// Hash writes the end, then the buffer's number and, the first time, its
// state.
func (e *pipeEnd) Hash(h *vkernel.FileHasher) {
	h.Put(fileTagInNode)
	h.Put(boolBits(e.write))
	id, old := h.IDs(e.p)
	h.Put(id)
	if !old {
		e.p.Hash(h.Put)
	}
}

func (e *pipeEnd) Release(vkernel.FileWorld) { e.p.Close(e.write) }

// fileReader and fileWriter are the byte-stream kinds readFile and
// writeFile serve (pipe ends here; eventfds have their own rules).
type fileReader interface {
	readBytes(c *call, v *vfd, max int) ([]byte, result, bool)
}

type fileWriter interface {
	writeBytes(c *call, v *vfd, data []byte) result
}

// readvFile is readv(2) on an in-node descriptor.
func readvFile(c *call, v *vfd) result {
	iov, err := c.readIovecs(c.arg(1), c.arg(2))
	if err != nil {
		return errno(unix.EINVAL)
	}
	return readFile(c, v, iov)
}

// readFile reads into iov from a byte-stream in-node descriptor.
func readFile(c *call, v *vfd, iov []iovec) result {
	r, ok := v.obj.(fileReader)
	if !ok {
		return errno(unix.EINVAL)
	}
	data, res, ok := r.readBytes(c, v, iovLen(iov))
	if !ok {
		return res
	}
	if err := c.scatter(iov, data); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(len(data)))
}

// writeFile writes the buffer (or, vector, the iovec array) at addr to a
// byte-stream in-node descriptor.
func writeFile(c *call, v *vfd, addr, n uint64, vector bool) result {
	w, ok := v.obj.(fileWriter)
	if !ok {
		return errno(unix.EINVAL)
	}
	var data []byte
	var err error
	if vector {
		var iov []iovec
		if iov, err = c.readIovecs(addr, n); err == nil {
			data, err = c.gather(iov)
		}
	} else {
		data, err = c.read(addr, int(min(n, 64<<20)))
	}
	if err != nil {
		return errno(unix.EFAULT)
	}
	return w.writeBytes(c, v, data)
}

// readBytes reads at most max bytes from the buffer (vkernel.Pipe.Read).
func (e *pipeEnd) readBytes(c *call, v *vfd, max int) ([]byte, result, bool) {
	if e.write {
		return nil, errno(unix.EBADF), false
	}
	data, err := e.p.Read(max, v.nonblocking())
	switch {
	case err != nil:
		return nil, vkAnswer(err), false
	case len(data) == 0:
		return nil, ret(0), false // max 0, or the end of file
	}
	return data, result{}, true
}

// writeBytes writes data to the buffer (vkernel.Pipe.Write): a blocking
// write larger than PIPE_BUF parks with the bytes it moved counted in
// c.progress; EPIPE raises SIGPIPE.
func (e *pipeEnd) writeBytes(c *call, v *vfd, data []byte) result {
	if !e.write {
		return errno(unix.EBADF)
	}
	n, err := e.p.Write(data, c.progress, v.nonblocking())
	switch {
	case errors.Is(err, vkernel.ErrBlock):
		c.progress = n
		return park()
	case err == vkernel.EPIPE:
		return c.sigpipe(false)
	case err != nil:
		return vkAnswer(err)
	}
	c.progress = 0
	return ret(int64(n))
}

// pipeIoctl serves FIONREAD; others run on the placeholder (FIONBIO sets
// O_NONBLOCK on the shared description).
func pipeIoctl(c *call, v *vfd) result {
	if c.arg(1) == unix.TIOCINQ {
		n := 0
		if e := v.obj.(*pipeEnd); !e.write {
			n = e.p.Len()
		}
		return errno(errnoOf(c.writeU32(c.arg(2), uint32(n))))
	}
	return sysIoctl(c)
}

// pipeFcntl serves F_GETPIPE_SZ and F_SETPIPE_SZ on weft's buffer.
func pipeFcntl(c *call, v *vfd) result {
	p := v.obj.(*pipeEnd).p
	switch c.arg(1) {
	case unix.F_GETPIPE_SZ:
		return ret(int64(p.Size()))
	case unix.F_SETPIPE_SZ:
		size, err := p.SetSize(int64(int32(c.arg(2))))
		if err != nil {
			return vkAnswer(err)
		}
		return ret(int64(size))
	}
	return sysFcntl(c)
}
