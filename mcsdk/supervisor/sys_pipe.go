//go:build linux && amd64

package supervisor

import (
	"golang.org/x/sys/unix"
)

// Pipes inside a node (pipe(7)), served in Go: the buffer is weft's; the
// node holds the two ends of a real, empty pipe as placeholders.

// pipeBuf is one pipe's buffer.
type pipeBuf struct {
	data    []byte
	size    int // capacity in bytes (F_GETPIPE_SZ)
	readers int // open read descriptions
	writers int
	genIn   uint64 // wake-ups of readers: a write, the last writer leaving
	genOut  uint64 // wake-ups of writers: a read of a full pipe, the last reader leaving
}

// pipeEnd is one end's open file description.
type pipeEnd struct {
	p     *pipeBuf
	write bool
}

// pipeBufDefault is a new pipe's capacity (16 pages); pipeBufAtomic is
// PIPE_BUF, the largest write that is never interleaved.
const (
	pipeBufDefault = 16 * 4096
	pipeBufAtomic  = 4096
	pipeBufMax     = 1 << 20 // /proc/sys/fs/pipe-max-size
	// oNotificationPipe is O_NOTIFICATION_PIPE (O_EXCL), watch_queue(7).
	oNotificationPipe = unix.O_EXCL
)

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
	p := &pipeBuf{size: pipeBufDefault, readers: 1, writers: 1}
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

func (e *pipeEnd) gens() (uint64, uint64) { return e.p.genIn, e.p.genOut }

func (e *pipeEnd) events(*call) uint32 {
	p := e.p
	var ev uint32
	if !e.write {
		if len(p.data) > 0 {
			ev |= unix.EPOLLIN | unix.EPOLLRDNORM
		}
		if p.writers == 0 {
			ev |= unix.EPOLLHUP
		}
		return ev
	}
	if p.size-len(p.data) >= pipeBufAtomic {
		ev |= unix.EPOLLOUT | unix.EPOLLWRNORM
	}
	if p.readers == 0 {
		ev |= unix.EPOLLERR
	}
	return ev
}

func (e *pipeEnd) hash(h *fileHasher) {
	put := h.put
	put(boolBits(e.write))
	id, old := h.ids(e.p)
	put(id)
	if old {
		return
	}
	put(uint64(e.p.size))
	put(uint64(e.p.readers)<<32 | uint64(e.p.writers))
	put(e.p.genIn)
	put(e.p.genOut)
	putBytesTo(put, e.p.data)
}

func (e *pipeEnd) release(*World, *node) {
	if e.write {
		e.p.writers--
		e.p.genIn++ // readers see the end of file
		return
	}
	e.p.readers--
	e.p.genOut++
}

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

func (e *pipeEnd) readBytes(c *call, v *vfd, max int) ([]byte, result, bool) {
	p := e.p
	switch {
	case e.write:
		return nil, errno(unix.EBADF), false
	case max == 0:
		return nil, ret(0), false
	case len(p.data) == 0 && p.writers == 0:
		return nil, ret(0), false // end of file
	case len(p.data) == 0 && v.nonblocking():
		return nil, errno(unix.EAGAIN), false
	case len(p.data) == 0:
		return nil, park(), false
	}
	k := min(max, len(p.data))
	out := append([]byte(nil), p.data[:k]...)
	if len(p.data) >= p.size-pipeBufAtomic+1 {
		p.genOut++ // a full pipe wakes its writers
	}
	p.data = append(p.data[:0:0], p.data[k:]...)
	return out, result{}, true
}

// writeBytes follows pipe(7): writes of at most PIPE_BUF bytes are atomic
// (all or, non-blocking, EAGAIN); larger ones move what fits, and a
// blocking one parks until the rest fits, counting what it moved in
// c.progress.
func (e *pipeEnd) writeBytes(c *call, v *vfd, data []byte) result {
	p := e.p
	if !e.write {
		return errno(unix.EBADF)
	}
	if p.readers == 0 {
		if c.progress > 0 {
			return ret(int64(c.progress))
		}
		return c.sigpipe(false)
	}
	if len(data) == 0 {
		return ret(0)
	}
	free := p.size - len(p.data)
	nb := v.nonblocking()
	if len(data) <= pipeBufAtomic {
		if free < len(data) {
			if nb {
				return errno(unix.EAGAIN)
			}
			return park()
		}
		p.push(data)
		return ret(int64(len(data)))
	}
	rest := data[c.progress:]
	k := min(free, len(rest))
	if k > 0 {
		p.push(rest[:k])
		c.progress += k
	}
	switch {
	case c.progress == len(data) || nb && c.progress > 0:
		n := c.progress
		c.progress = 0
		return ret(int64(n))
	case nb:
		return errno(unix.EAGAIN)
	}
	return park()
}

func (p *pipeBuf) push(b []byte) {
	p.data = append(p.data, b...)
	p.genIn++
}

// pipeIoctl serves FIONREAD; others run on the placeholder (FIONBIO sets
// O_NONBLOCK on the shared description).
func pipeIoctl(c *call, v *vfd) result {
	if c.arg(1) == unix.TIOCINQ {
		n := 0
		if e := v.obj.(*pipeEnd); !e.write {
			n = len(e.p.data)
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
		return ret(int64(p.size))
	case unix.F_SETPIPE_SZ:
		want := int64(int32(c.arg(2)))
		if want < 0 || want > pipeBufMax {
			return errno(unix.EINVAL)
		}
		size := 4096
		for size < int(want) {
			size *= 2
		}
		if size < len(p.data) {
			return errno(unix.EBUSY)
		}
		p.size = size
		p.genOut++
		return ret(int64(size))
	}
	return sysFcntl(c)
}
