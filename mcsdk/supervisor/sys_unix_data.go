//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
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
	rs, r, ok := c.readRights(c.arg(1), h.controllen)
	if !ok {
		return r
	}
	r = unixSend(c, v, data, h.name, uint64(h.namelen), c.arg(2), rs)
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
	data, full, from, fds, r, ok := unixTake(c, v, iovLen(h.iov), c.arg(2))
	if !ok {
		return r
	}
	if err := c.scatter(h.iov, data); err != nil {
		return errno(unix.EFAULT)
	}
	flags := uint32(c.arg(2) & unix.MSG_CMSG_CLOEXEC) // echoed in msg_flags, as Linux does
	var pre []byte
	if passCred(v) {
		pre = credMsg(v.obj.(*unixSock).readCred)
	}
	if len(fds) > 0 || pre != nil {
		f, r := c.installRights(c.arg(1), fds, c.arg(2)&unix.MSG_CMSG_CLOEXEC != 0, pre)
		if r.errno != 0 {
			return r
		}
		flags |= f
	} else {
		c.write(c.arg(1)+40, make([]byte, 8)) // msg_controllen
	}
	if h.name != 0 {
		if r := c.putUnixName(h.name, c.arg(1)+8, from, 0); r.errno != 0 {
			return r
		}
	}
	if full > len(data) {
		flags |= unix.MSG_TRUNC
	}
	c.write(c.arg(1)+48, binary.LittleEndian.AppendUint32(nil, flags))
	if c.arg(2)&unix.MSG_TRUNC != 0 && !v.obj.(*unixSock).stream() {
		return ret(int64(full))
	}
	return ret(int64(len(data)))
}

// unixRecv serves the receive calls with a plain name buffer.
func unixRecv(c *call, v *vfd, iov []iovec, flags, nameAddr, nameLen uint64) result {
	data, full, from, fds, r, ok := unixTake(c, v, iovLen(iov), flags)
	if !ok {
		return r
	}
	for _, pf := range fds {
		pf.close(c.w, c.n) // no control buffer: the descriptors are lost, as in Linux
	}
	if err := c.scatter(iov, data); err != nil {
		return errno(unix.EFAULT)
	}
	if r := c.putUnixName(nameAddr, nameLen, from, 0); r.errno != 0 {
		return r
	}
	if flags&unix.MSG_TRUNC != 0 && !v.obj.(*unixSock).stream() {
		return ret(int64(full))
	}
	return ret(int64(len(data)))
}

// unixTake dequeues (or, MSG_PEEK, copies) up to max bytes: a stream's
// bytes across messages, up to and including one that carries
// descriptors; one whole message otherwise (full is its length, the rest
// of it discarded). fds are the descriptors that came with what was read
// (a peek takes none). ok=false means r is the answer.
func unixTake(c *call, v *vfd, max int, flags uint64) (data []byte, full int, from []byte, fds []*passedFD, r result, ok bool) {
	s := v.obj.(*unixSock)
	switch {
	case flags&unix.MSG_OOB != 0:
		return nil, 0, nil, nil, errno(unix.EOPNOTSUPP), false
	case s.typ == unix.SOCK_SEQPACKET && !s.connected:
		return nil, 0, nil, nil, errno(unix.ENOTCONN), false
	case s.listening || s.stream() && !s.connected:
		return nil, 0, nil, nil, errno(unix.EINVAL), false
	}
	if len(s.queue) == 0 {
		switch {
		case s.err != 0:
			e := s.err
			s.err = 0
			return nil, 0, nil, nil, errno(e), false
		case s.shut&shutRcv != 0:
			return nil, 0, nil, nil, ret(0), false
		}
		return nil, 0, nil, nil, c.unixBlock(v, flags, unix.SO_RCVTIMEO), false
	}
	peek := flags&unix.MSG_PEEK != 0
	s.readCred = s.queue[0].cred
	if !s.stream() {
		m := s.queue[0]
		k := min(max, len(m.data))
		if !peek {
			s.queue = s.queue[1:]
			s.consumed(len(m.data))
		}
		if !peek {
			fds = m.fds
		}
		return m.data[:k], len(m.data), m.from, fds, result{}, true
	}
	if max == 0 {
		return nil, 0, nil, nil, ret(0), false
	}
	if flags&unix.MSG_WAITALL != 0 && !peek && s.queued < max && s.shut&shutRcv == 0 && !c.timedOut {
		return nil, 0, nil, nil, c.unixBlock(v, flags, unix.SO_RCVTIMEO), false
	}
	glue := !passCred(v) // a reader of credentials never gets two writers' bytes at once
	for _, m := range s.queue {
		if len(data) == max || !glue && len(data) > 0 && !sameCred(m.cred, s.readCred) {
			break
		}
		data = append(data, m.data[:min(len(m.data), max-len(data))]...)
		if len(m.fds) > 0 {
			break
		}
	}
	if !peek {
		left := len(data)
		for left > 0 {
			m := &s.queue[0]
			k := min(left, len(m.data))
			m.data = m.data[k:]
			left -= k
			fds = append(fds, m.fds...)
			m.fds = nil
			if len(m.data) == 0 {
				s.queue = s.queue[1:]
			}
		}
		s.consumed(len(data))
	}
	return data, len(data), nil, fds, result{}, true
}

// consumed accounts a read of k bytes: the writers waiting for room wake.
func (s *unixSock) consumed(k int) {
	s.queued -= k
	s.genOut++
	if s.peer != nil {
		s.peer.genOut++
	}
}

// unixBlock answers a call that would block: EAGAIN if non-blocking (or
// its SO_RCVTIMEO/SO_SNDTIMEO, read from the placeholder, ran out), else
// park.
func (c *call) unixBlock(v *vfd, flags uint64, opt int) result {
	if flags&unix.MSG_DONTWAIT != 0 || v.nonblocking() || c.timedOut {
		return errno(unix.EAGAIN)
	}
	if !c.started {
		c.started = true
		c.deadline = -1
		if tv, err := unix.GetsockoptTimeval(v.ours, unix.SOL_SOCKET, opt); err == nil {
			c.deadline = c.sockDeadline(tv.Sec*1e9 + tv.Usec*1e3)
		}
	}
	return park()
}

// unixSend queues data for the peer or, a datagram, for the socket named
// at addr. A stream write moves what fits and, blocking, parks for the
// rest (c.progress counts what it moved); a message is all or nothing.
func unixSend(c *call, v *vfd, data []byte, addr, addrlen, flags uint64, rs *rights) result {
	s := v.obj.(*unixSock)
	if flags&unix.MSG_OOB != 0 {
		return errno(unix.EOPNOTSUPP)
	}
	noSig := flags&unix.MSG_NOSIGNAL != 0
	rs = c.attachCred(rs)
	if s.dgram() {
		return unixSendDgram(c, v, s, data, addr, addrlen, flags, rs)
	}
	if addr != 0 && addrlen != 0 && s.stream() {
		if s.connected {
			return errno(unix.EISCONN)
		}
		return errno(unix.EOPNOTSUPP)
	}
	if s.shut&shutSend != 0 {
		return c.sigpipe(noSig)
	}
	if !s.connected || s.listening {
		return errno(unix.ENOTCONN)
	}
	p := s.peer
	if p.closed || p.shut&shutRcv != 0 {
		if c.progress > 0 {
			n := c.progress
			c.progress = 0
			return ret(int64(n))
		}
		return c.sigpipe(noSig)
	}
	if !s.stream() {
		switch {
		case len(data) > unixCapacity:
			return errno(unix.EMSGSIZE)
		case p.queued+len(data) > unixCapacity:
			return c.unixBlock(v, flags, unix.SO_SNDTIMEO)
		}
		p.deliver(data, nil, rs)
		return ret(int64(len(data)))
	}
	if len(data) == 0 {
		return ret(0)
	}
	rest := data[c.progress:]
	if k := min(unixCapacity-p.queued, len(rest)); k > 0 {
		p.deliver(rest[:k], nil, rs)
		c.progress += k
	}
	if c.progress == len(data) || c.progress > 0 && (v.nonblocking() || flags&unix.MSG_DONTWAIT != 0 || c.timedOut) {
		n := c.progress
		c.progress = 0
		return ret(int64(n))
	}
	return c.unixBlock(v, flags, unix.SO_SNDTIMEO)
}

// unixSendDgram sends one datagram.
func unixSendDgram(c *call, v *vfd, s *unixSock, data []byte, addr, addrlen, flags uint64, rs *rights) result {
	if s.shut&shutSend != 0 {
		return errno(unix.EPIPE)
	}
	t := s.peer
	if addr != 0 && addrlen != 0 {
		name, isPath, e := c.unixName(addr, addrlen)
		if e != 0 {
			return errno(e)
		}
		if t, e = c.lookupName(name, isPath, s.typ); e != 0 {
			return errno(e)
		}
	} else if t == nil {
		return errno(unix.ENOTCONN)
	} else if t.closed {
		s.peer = nil
		return errno(unix.ECONNREFUSED)
	}
	switch {
	case t.peer != nil && t.peer != s && !t.peer.closed:
		return errno(unix.EPERM)
	case t.shut&shutRcv != 0:
		return errno(unix.EPIPE)
	case len(data) > unixCapacity:
		return errno(unix.EMSGSIZE)
	case t.peer != s && len(t.queue) >= unixDgramQlen || t.queued+len(data) > unixCapacity:
		return c.unixBlock(v, flags, unix.SO_SNDTIMEO)
	}
	t.deliver(data, s.name, rs)
	return ret(int64(len(data)))
}

// deliver queues one message on s, with the descriptors of rs if they
// travel yet.
func (s *unixSock) deliver(data, from []byte, rs *rights) {
	m := unixMsg{data: append([]byte(nil), data...), from: from}
	if rs != nil {
		m.cred = rs.cred
	}
	if rs != nil && !rs.taken {
		m.fds, rs.taken = rs.fds, true
	}
	s.queue = append(s.queue, m)
	s.queued += len(data)
	s.genIn++
}
