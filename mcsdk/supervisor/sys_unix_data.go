//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// The data path of in-node AF_UNIX sockets (sys_unix.go): send, write,
// recv, read and their vector forms, one core each.

func unixReadv(c *call, v *vfd) result {
	iov, err := c.readIovecs(c.arg(1), c.arg(2))
	if err != nil {
		return errno(unix.EINVAL)
	}
	return unixRecv(c, v, iov, 0, 0, 0)
}

// writeData reads the bytes a write(fd, buf, len) or writev(fd, iov, n)
// passes, at most limit of a write's.
func (c *call) writeData(vector bool, limit uint64) ([]byte, error) {
	if !vector {
		return c.read(c.arg(1), int(min(c.arg(2), limit)))
	}
	iov, err := c.readIovecs(c.arg(1), c.arg(2))
	if err != nil {
		return nil, err
	}
	return c.gather(iov)
}

func unixWrite(c *call, v *vfd, vector bool) result {
	data, err := c.writeData(vector, 64<<20)
	if err != nil {
		return errno(unix.EFAULT)
	}
	return unixSend(c, v, data, 0, 0, 0, nil)
}

func unixSendto(c *call, v *vfd) result {
	data, err := c.read(c.arg(1), int(min(c.arg(2), 64<<20)))
	if err != nil {
		return errno(unix.EFAULT)
	}
	return unixSend(c, v, data, c.arg(4), c.arg(5), c.arg(3), nil)
}

func unixSendmsg(c *call, v *vfd) result {
	h, err := c.readMsghdr(c.arg(1))
	if err != nil {
		return errno(unix.EFAULT)
	}
	data, err := c.gather(h.iov)
	if err != nil {
		return errno(unix.EFAULT)
	}
	// Linux takes the descriptors once, at the call's start (scm_send),
	// before it waits: a send that waits before its first byte holds them
	// (c.rights) and sends those when it resumes, whatever the numbers
	// name by then. A blocking stream send that moved bytes and waited
	// comes here again too: its descriptors went with its first bytes
	// (unix_stream_sendmsg attaches them to the first message only), so
	// it takes none again.
	rs := c.rights
	if rs == nil {
		var r result
		var ok bool
		if rs, r, ok = c.readRights(c.arg(1), h.controllen, c.progress == 0); !ok {
			return r
		}
	}
	r := unixSend(c, v, data, h.name, uint64(h.namelen), c.arg(2), rs)
	if r.kind == rPark && rs != nil && !rs.Taken && len(rs.Rights) > 0 {
		c.rights = rs
		return r
	}
	c.rights = nil
	rs.release(c.w, c.n)
	return r
}

func unixRecvfrom(c *call, v *vfd) result {
	return unixRecv(c, v, []iovec{{c.arg(1), c.arg(2)}}, c.arg(3), c.arg(4), c.arg(5))
}

func unixRecvmsg(c *call, v *vfd) result {
	h, err := c.readMsghdr(c.arg(1))
	if err != nil {
		return errno(unix.EFAULT)
	}
	rd, r, ok := unixTake(c, v, iovLen(h.iov), c.arg(2))
	if !ok {
		return r
	}
	if err := c.scatter(h.iov, rd.Data); err != nil {
		return errno(unix.EFAULT)
	}
	flags := uint32(c.arg(2) & unix.MSG_CMSG_CLOEXEC) // echoed in msg_flags, as Linux does
	var pre []byte
	if passCred(v) {
		pre = credMsg(rd.Cred)
	}
	if len(rd.Rights) > 0 || pre != nil {
		f, r := c.installRights(c.arg(1), rd.Rights, c.arg(2)&unix.MSG_CMSG_CLOEXEC != 0, pre)
		if r.errno != 0 {
			return r
		}
		flags |= f
	} else {
		c.write(c.arg(1)+40, make([]byte, 8)) // msg_controllen
	}
	if h.name != 0 {
		if r := c.putUnixName(h.name, c.arg(1)+8, rd.From, 0); r.errno != 0 {
			return r
		}
	}
	if rd.Full > len(rd.Data) {
		flags |= unix.MSG_TRUNC
	}
	c.write(c.arg(1)+48, binary.LittleEndian.AppendUint32(nil, flags))
	return ret(int64(recvCount(v, rd, c.arg(2))))
}

// recvCount is what a receive returns: the bytes read or, MSG_TRUNC on a
// seqpacket or datagram socket, the whole message's length.
func recvCount(v *vfd, rd vkernel.UnixRead, flags uint64) int {
	if flags&unix.MSG_TRUNC != 0 && !sockOf(v).Stream() {
		return rd.Full
	}
	return len(rd.Data)
}

// unixRecv serves the receive calls with a plain name buffer.
func unixRecv(c *call, v *vfd, iov []iovec, flags, nameAddr, nameLen uint64) result {
	rd, r, ok := unixTake(c, v, iovLen(iov), flags)
	if !ok {
		return r
	}
	for _, pf := range rd.Rights {
		pf.(*passedFD).close(c.w, c.n) // no control buffer: the descriptors are lost, as in Linux
	}
	if err := c.scatter(iov, rd.Data); err != nil {
		return errno(unix.EFAULT)
	}
	if r := c.putUnixName(nameAddr, nameLen, rd.From, 0); r.errno != 0 {
		return r
	}
	return ret(int64(recvCount(v, rd, flags)))
}

// unixTake dequeues (or, MSG_PEEK, copies) up to max bytes
// (vkernel.UnixSocket.Recv); the descriptors that came with them are the
// caller's to install or close. ok=false means r is the answer.
func unixTake(c *call, v *vfd, max int, flags uint64) (vkernel.UnixRead, result, bool) {
	if flags&unix.MSG_OOB != 0 {
		return vkernel.UnixRead{}, errno(unix.EOPNOTSUPP), false
	}
	s := sockOf(v)
	rd, err := s.Recv(vkernel.UnixRecv{
		Max:      max,
		Peek:     flags&unix.MSG_PEEK != 0,
		WaitAll:  flags&unix.MSG_WAITALL != 0 && !c.timedOut,
		Nonblock: c.unixNonblock(v, flags, unix.SO_RCVTIMEO),
		PassCred: s.Stream() && passCred(v), // a reader of credentials never gets two writers' bytes at once
	})
	switch {
	case err != nil:
		return rd, c.unixErr(v, err, unix.SO_RCVTIMEO), false
	case !rd.Took:
		return rd, ret(0), false
	}
	return rd, result{}, true
}

// unixNonblock reports whether a call that would block answers EAGAIN:
// a non-blocking description, MSG_DONTWAIT, or its timeout (opt,
// SO_RCVTIMEO or SO_SNDTIMEO: timeoutSock) ran out or is zero.
func (c *call) unixNonblock(v *vfd, flags uint64, opt int) bool {
	s, ok := v.obj.(timeoutSock)
	zero := ok && s.Timeout(opt == unix.SO_SNDTIMEO) < 0
	return flags&unix.MSG_DONTWAIT != 0 || v.nonblocking() || c.timedOut || zero
}

// unixErr answers a socket's error: vkernel.ErrBlock parks the call
// until the world changes or its timeout (option opt, weft's in virtual
// ticks: timeoutSock) runs out in virtual time.
func (c *call) unixErr(v *vfd, err error, opt int) result {
	if err != vkernel.ErrBlock {
		return vkAnswer(err)
	}
	if !c.started {
		c.started = true
		c.deadline = -1
		if s, ok := v.obj.(timeoutSock); ok {
			c.deadline = c.sockDeadline(s.Timeout(opt == unix.SO_SNDTIMEO).Nanos())
		}
	}
	return park()
}

// unixSend queues data for the peer or, a datagram, for the socket named
// at addr (vkernel.UnixSocket.Send and SendDgram). A stream write moves
// what fits and, blocking, parks for the rest (c.progress counts what it
// moved; c.started says it waited); a message is all or nothing.
func unixSend(c *call, v *vfd, data []byte, addr, addrlen, flags uint64, rs *rights) result {
	s := sockOf(v)
	if flags&unix.MSG_OOB != 0 {
		return errno(unix.EOPNOTSUPP)
	}
	rs = c.attachCred(rs)
	nonblock := c.unixNonblock(v, flags, unix.SO_SNDTIMEO)
	addressed := addr != 0 && addrlen != 0
	if s.Dgram() {
		var to func() (*vkernel.UnixSocket, error)
		if addressed {
			to = func() (*vkernel.UnixSocket, error) {
				name, isPath, e := c.unixName(addr, addrlen)
				if e != 0 {
					return nil, vkernel.Errno(e)
				}
				return c.lookupName(name, isPath, s.Type())
			}
		}
		n, err := s.SendDgram(data, to, nonblock, &rs.UnixAnc)
		if err != nil {
			return c.unixErr(v, err, unix.SO_SNDTIMEO)
		}
		return ret(int64(n))
	}
	if addressed {
		if err := s.Addressed(); err != nil {
			return vkAnswer(err)
		}
	}
	n, err := s.Send(data, c.progress, c.started, nonblock, &rs.UnixAnc)
	switch {
	case err == vkernel.ErrBlock:
		c.progress = n
		return c.unixErr(v, err, unix.SO_SNDTIMEO)
	case err == vkernel.EPIPE:
		return c.sigpipe(flags&unix.MSG_NOSIGNAL != 0 || !s.Sigpipe(c.started))
	case err != nil:
		return vkAnswer(err)
	}
	c.progress = 0
	return ret(int64(n))
}

// unixBlock answers a call that would block: EAGAIN if non-blocking (or
// its SO_RCVTIMEO/SO_SNDTIMEO ran out), else
// park (netlink sockets share it).
func (c *call) unixBlock(v *vfd, flags uint64, opt int) result {
	if c.unixNonblock(v, flags, opt) {
		return errno(unix.EAGAIN)
	}
	return c.unixErr(v, vkernel.ErrBlock, opt)
}
