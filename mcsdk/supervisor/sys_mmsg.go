//go:build linux && amd64

package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
)

// mmsghdrSize is sizeof(struct mmsghdr) on x86-64: a msghdr (56 bytes),
// msg_len and padding.
const mmsghdrSize = 64

// msgWaitforone is MSG_WAITFORONE (socket.h).
const msgWaitforone = 0x10000

// uioMaxiov is UIO_MAXIOV, the most messages one batched call handles.
const uioMaxiov = 1024

// inetSendmmsg implements sendmmsg(2): each message goes as one sendmsg
// would; the count sent is returned, and an error only if none was.
// A blocking socket parks only in its first message (Linux returns the
// messages sent so far).
func inetSendmmsg(c *call, v *vfd) result {
	vec, vlen, flags := c.arg(1), min(c.arg(2), uioMaxiov), c.arg(3)
	sent := 0
	for i := uint64(0); i < vlen; i++ {
		at := vec + i*mmsghdrSize
		h, err := c.readMsghdr(at)
		if err != nil {
			return mmsgResult(sent, unix.EFAULT)
		}
		if h.controllen != 0 {
			return failf("sendmmsg with ancillary data is not modelled")
		}
		data, err := c.gather(h.iov)
		if err != nil {
			return mmsgResult(sent, unix.EFAULT)
		}
		if sent > 0 {
			flags |= msgDontwait
		}
		r := c.sendFlags(v, data, h.name, uint64(h.namelen), flags)
		c.progress = 0 // the first message may have parked part-sent
		switch {
		case r.kind != rReturn:
			return r
		case r.errno != 0:
			return mmsgResult(sent, r.errno)
		}
		if err := c.writeU32(at+56, uint32(r.val)); err != nil {
			return mmsgResult(sent, unix.EFAULT)
		}
		sent++
		if int(r.val) < len(data) {
			break // a partial stream send ends the batch
		}
	}
	return ret(int64(sent))
}

// mmsgResult is a batched call's answer after an error: the count done,
// or the error if nothing was.
func mmsgResult(done int, e unix.Errno) result {
	if done > 0 {
		return ret(int64(done))
	}
	return errno(e)
}

// inetRecvmmsg implements recvmmsg(2): up to vlen messages, each as recvmsg
// would receive it. A blocking call waits for the first message and, with
// MSG_WAITFORONE or once the socket is empty after at least one, returns
// what it has; without MSG_WAITFORONE it parks until vlen have arrived,
// as Linux does. The timeout argument is accepted and not modelled (Linux
// checks it only between messages).
func inetRecvmmsg(c *call, v *vfd) result {
	vec, vlen, flags := c.arg(1), min(c.arg(2), uioMaxiov), c.arg(3)
	nonblock := flags&msgDontwait != 0 || v.nonblocking()
	for uint64(c.progress) < vlen {
		at := vec + uint64(c.progress)*mmsghdrSize
		h, err := c.readMsghdr(at)
		if err != nil {
			return mmsgResult(c.progress, unix.EFAULT)
		}
		data, from, r, ok := receive(c, v, iovLen(h.iov), flags|msgDontwait)
		if !ok {
			if r.kind == rReturn && r.errno == unix.EAGAIN {
				if c.progress > 0 && (nonblock || c.timedOut || flags&msgWaitforone != 0) {
					break
				}
				if nonblock {
					return r
				}
				return c.block(v, flags&^msgDontwait)
			}
			return mmsgResult(c.progress, r.errno)
		}
		if err := c.scatter(h.iov, data); err != nil {
			return mmsgResult(c.progress, unix.EFAULT)
		}
		if h.name != 0 && v.sock().Kind == netsim.Dgram {
			if e := c.writeSockaddr(h.name, at+8, from); e != 0 {
				return mmsgResult(c.progress, e)
			}
		}
		var tail [8]byte // msg_controllen = 0 … msg_flags = 0
		c.write(at+40, tail[:])
		c.write(at+48, tail[:4])
		c.writeU32(at+56, uint32(len(data)))
		c.progress++
		if v.sock().Kind == netsim.Stream && len(data) == 0 {
			break // EOF
		}
	}
	return ret(int64(c.progress))
}
