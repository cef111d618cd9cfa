//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Linux msg flags (socket.h) that change weft's behaviour.
const (
	msgPeek     = unix.MSG_PEEK
	msgDontwait = unix.MSG_DONTWAIT
	msgWaitall  = unix.MSG_WAITALL
)

// Socket implements socket(2) for AF_INET and AF_INET6 stream and
// datagram sockets; SOCK_NONBLOCK and SOCK_CLOEXEC set the descriptor's
// flags.
func sysSocket(c *call) result {
	typ := c.arg(1)
	stream, v6, e, unmodelled := vkernel.InetType(c.arg(0), typ, c.arg(2))
	switch {
	case unmodelled != "":
		return failf("%s", unmodelled)
	case e != 0:
		return errno(unix.Errno(e))
	}
	if c.noRoomFor(1) {
		return errno(unix.EMFILE)
	}
	kind := netsim.Dgram
	if stream {
		kind = netsim.Stream
	}
	return c.installSocket(c.w.net.NewSocketIn(c.n.id, kind, v6), typ)
}

// inetBind implements bind(2).
func inetBind(c *call, v *vfd) result {
	a, e := c.readSockaddr(c.arg(1), c.arg(2))
	if e != 0 {
		return errno(e)
	}
	return netResult(c.w.net.BindAddr(v.sock(), a), 0)
}

// inetListen implements listen(2).
func inetListen(c *call, v *vfd) result {
	return netResult(c.w.net.Listen(v.sock()), 0)
}

// inetAccept implements accept(2).
func inetAccept(c *call, v *vfd) result { return accept(c, v, 0) }

// Accept4 implements accept4(2) on a descriptor that is no socket weft
// serves: its flags are checked first, as on a socket.
func sysAccept4(c *call) result {
	if e := vkernel.Accept4Flags(c.arg(3)); e != 0 {
		return errno(unix.Errno(e))
	}
	return notSocket(c, c.arg(0))
}

// inetAccept4 implements accept4(2).
func inetAccept4(c *call, v *vfd) result {
	if e := vkernel.Accept4Flags(c.arg(3)); e != 0 {
		return errno(unix.Errno(e))
	}
	return accept(c, v, c.arg(3))
}

func accept(c *call, v *vfd, flags uint64) result {
	if !c.started && v.sock().Listening() && c.noRoomFor(1) {
		return errno(unix.EMFILE) // before the wait, the connection stays queued
	}
	if err := vkernel.InetAccept(v.sock().Listening(), v.sock().Readable(), v.nonblocking()); err != nil {
		return vkAnswer(err)
	}
	s, _ := c.w.net.Accept(v.sock())
	if e := c.writeSockaddr(c.arg(1), c.arg(2), s.Peer); e != 0 {
		return errno(e)
	}
	return c.installSocket(s, flags)
}

// accepted gives s, the connection listener l has just established
// (netsim.Network.OnAccept), the options of l that Linux's clone of the
// listener keeps (vkernel.InetOptValues.Inherit).
func (w *World) accepted(l, s *netsim.Socket) {
	if l.Node >= 0 && l.Node < len(w.nodes) {
		w.nodes[l.Node].opts.Inherit(l.ID, s.ID)
	}
}

// inetConnect implements connect(2). A stream connect sends a SYN, which the
// scheduler delivers like any message: a non-blocking connect returns
// EINPROGRESS (the socket polls writable when the SYN has arrived, and
// SO_ERROR tells whether it was refused); a blocking one parks until then.
func inetConnect(c *call, v *vfd) result {
	if c.started { // a parked blocking connect, retried
		return connected(c, v)
	}
	a, e := c.readSockaddr(c.arg(1), c.arg(2))
	if e != 0 {
		return errno(e)
	}
	if r := c.w.net.Connect(v.sock(), a); r != netsim.EINPROGRESS {
		return netResult(r, 0)
	}
	if err := vkernel.InetConnectStarted(v.nonblocking() || c.n.sndTimeout(v) < 0); err != vkernel.ErrBlock {
		return vkAnswer(err)
	}
	return c.parkSending(v)
}

// connected answers a blocking connect once its SYN has been delivered;
// one that SO_SNDTIMEO ends first returns EINPROGRESS, as Linux's does
// (the connect goes on).
func connected(c *call, v *vfd) result {
	e, done := v.sock().ConnectResult()
	if err := vkernel.InetConnectWait(done, netErrno(e), c.timedOut); err != nil {
		return vkAnswer(err)
	}
	return ret(0)
}

// parkSending parks a blocking send or connect, with SO_SNDTIMEO's
// deadline if set.
func (c *call) parkSending(v *vfd) result {
	if !c.started {
		c.started = true
		c.deadline = c.sockDeadline(c.n.sndTimeout(v))
	}
	return park()
}

// inetSendto implements sendto(2) and send(2).
func inetSendto(c *call, v *vfd) result {
	data, err := c.read(c.arg(1), int(c.arg(2)))
	if err != nil {
		return errno(unix.EFAULT)
	}
	return c.sendFlags(v, data, c.arg(4), c.arg(5), c.arg(3))
}

// send is write(2)'s and writev(2)'s send: sendFlags without flags.
func (c *call) send(v *vfd, data []byte, addr, addrlen uint64) result {
	return c.sendFlags(v, data, addr, addrlen, 0)
}

// sendFlags is the one send path (send, sendto, sendmsg, write, writev): a
// datagram socket honours an explicit destination (sockaddr at addr),
// a stream socket ignores it, as Linux does for connected TCP sockets. A
// datagram send waits while its sender's send buffer is full (netsim's
// Send; EAGAIN when non-blocking or past SO_SNDTIMEO). A
// stream send takes what the buffers have room for: a non-blocking one
// returns that count (EAGAIN if none), a blocking one parks until all is
// queued (call.progress counts what was), or SO_SNDTIMEO passes (then it
// returns what it queued, or EAGAIN). EPIPE raises no SIGPIPE: weft
// delivers no signals (MSG_NOSIGNAL is therefore always in effect).
func (c *call) sendFlags(v *vfd, data []byte, addr, addrlen, flags uint64) result {
	var dst *netsim.Addr
	if addr != 0 && v.sock().Kind == netsim.Dgram {
		a, e := c.readSockaddr(addr, addrlen)
		if e != 0 {
			return errno(e)
		}
		dst = &a
	}
	nonblock := flags&msgDontwait != 0 || v.nonblocking() || c.timedOut || c.n.sndTimeout(v) < 0
	if v.sock().Kind == netsim.Dgram {
		n, e := c.w.net.Send(v.sock(), data, dst)
		if e == netsim.EAGAIN && !nonblock {
			return c.parkSending(v) // its send buffer is full: until a datagram of it arrives
		}
		return netResult(e, int64(n))
	}
	done := c.progress
	n, e := c.w.net.Send(v.sock(), data[min(done, len(data)):], nil)
	c.progress += n
	sent, err := vkernel.StreamSend(netErrno(e), nonblock, c.progress, len(data))
	switch {
	case err == vkernel.ErrBlock:
		return c.parkSending(v)
	case err != nil:
		return vkAnswer(err)
	}
	return ret(int64(sent))
}

// inetRecvfrom implements recvfrom(2) and recv(2).
func inetRecvfrom(c *call, v *vfd) result {
	data, from, r, ok := receive(c, v, int(c.arg(2)), c.arg(3))
	if !ok {
		return r
	}
	if err := c.write(c.arg(1), data); err != nil {
		return errno(unix.EFAULT)
	}
	if v.sock().Kind == netsim.Dgram {
		if e := c.writeSockaddr(c.arg(4), c.arg(5), from); e != 0 {
			return errno(e)
		}
	}
	return ret(int64(len(data)))
}

// receive is the one receive path (recv, recvfrom, recvmsg, read, readv):
// ok=false means r is the answer (park, EAGAIN, an error).
func receive(c *call, v *vfd, max int, flags uint64) (data []byte, from netsim.Addr, r result, ok bool) {
	if max == 0 && v.sock().Kind == netsim.Stream {
		return nil, netsim.Addr{}, ret(0), false
	}
	if flags&msgWaitall != 0 && flags&msgPeek == 0 && v.sock().Kind == netsim.Stream &&
		vkernel.WaitAll(v.sock().Pending(), max, v.sock().Hup(), v.sock().Connected(), c.timedOut || c.n.rcvTimeout(v) < 0) {
		if probe, _, _, _ := c.w.net.Recv(v.sock(), max, true); probe != nil || !v.sock().Readable() {
			return nil, netsim.Addr{}, c.block(v, flags), false
		}
	}
	data, from, e, ok := c.w.net.Recv(v.sock(), max, flags&msgPeek != 0)
	if !ok {
		return nil, netsim.Addr{}, c.block(v, flags), false
	}
	if e != netsim.OK {
		return nil, netsim.Addr{}, errno(sysErrno(e)), false
	}
	return data, from, result{}, true
}

// block answers a call that has nothing to return: EAGAIN when
// non-blocking, otherwise park (with SO_RCVTIMEO's deadline if set).
func (c *call) block(v *vfd, flags uint64) result {
	if err := vkernel.InetBlock(flags&msgDontwait != 0 || v.nonblocking() || c.n.rcvTimeout(v) < 0, c.timedOut); err != vkernel.ErrBlock {
		return vkAnswer(err)
	}
	if !c.started {
		c.started = true
		c.deadline = c.sockDeadline(c.n.rcvTimeout(v))
	}
	return park()
}

// inetSendmsg implements sendmsg(2) without ancillary data.
func inetSendmsg(c *call, v *vfd) result {
	h, err := c.readMsghdr(c.arg(1))
	if err != nil {
		return errno(unix.EFAULT)
	}
	if h.controllen != 0 {
		return failf("sendmsg with ancillary data is not modelled")
	}
	data, err := c.gather(h.iov)
	if err != nil {
		return errno(unix.EFAULT)
	}
	return c.sendFlags(v, data, h.name, uint64(h.namelen), c.arg(2))
}

// inetRecvmsg implements recvmsg(2); no ancillary data is ever returned.
func inetRecvmsg(c *call, v *vfd) result {
	h, err := c.readMsghdr(c.arg(1))
	if err != nil {
		return errno(unix.EFAULT)
	}
	data, from, r, ok := receive(c, v, iovLen(h.iov), c.arg(2))
	if !ok {
		return r
	}
	if err := c.scatter(h.iov, data); err != nil {
		return errno(unix.EFAULT)
	}
	if h.name != 0 && v.sock().Kind == netsim.Dgram {
		if e := c.writeSockaddr(h.name, c.arg(1)+8, from); e != 0 {
			return errno(e)
		}
	}
	// msg_controllen = 0, msg_flags = 0
	var zero [8]byte
	c.write(c.arg(1)+40, zero[:])
	c.write(c.arg(1)+48, zero[:4])
	return ret(int64(len(data)))
}

// msghdr is the part of struct msghdr weft reads (x86-64 layout).
type msghdr struct {
	name       uint64
	namelen    uint32
	iov        []iovec
	controllen uint64
}

func (c *call) readMsghdr(addr uint64) (msghdr, error) {
	b, err := c.read(addr, 56)
	if err != nil {
		return msghdr{}, err
	}
	h := msghdr{
		name:       binary.LittleEndian.Uint64(b[0:]),
		namelen:    binary.LittleEndian.Uint32(b[8:]),
		controllen: binary.LittleEndian.Uint64(b[40:]),
	}
	h.iov, err = c.readIovecs(binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:]))
	return h, err
}

// inetShutdown implements shutdown(2): SHUT_WR sends a FIN after the data in
// flight (the peer reads it, then EOF); SHUT_RD makes receives return EOF
// once the buffer is read, as Linux does.
func inetShutdown(c *call, v *vfd) result {
	rd, wr, e := vkernel.InetShutdown(c.arg(1))
	if e != 0 {
		return errno(unix.Errno(e))
	}
	return netResult(c.w.net.Shutdown(v.sock(), rd, wr), 0)
}

// inetGetsockname implements getsockname(2).
func inetGetsockname(c *call, v *vfd) result {
	return errno(c.writeSockaddr(c.arg(1), c.arg(2), v.sock().Local))
}

// inetGetpeername implements getpeername(2).
func inetGetpeername(c *call, v *vfd) result {
	if e := vkernel.InetPeername(v.sock().Connected()); e != 0 {
		return errno(unix.Errno(e))
	}
	return errno(c.writeSockaddr(c.arg(1), c.arg(2), v.sock().Peer))
}

// netErrno is the network's answer as Linux's error number (0 for OK).
func netErrno(e netsim.Errno) vkernel.Errno {
	if e == netsim.OK {
		return 0
	}
	return vkernel.Errno(sysErrno(e))
}

func netResult(e netsim.Errno, v int64) result {
	if e != netsim.OK {
		return errno(sysErrno(e))
	}
	return ret(v)
}

// notSocket answers a socket call on a descriptor that is not a virtual
// socket (every socket a node has is virtual): EBADF if the node has no
// such descriptor, ENOTSOCK otherwise, as Linux checks in that order.
func notSocket(c *call, fd uint64) result {
	var st unix.Stat_t
	if unix.Lstat(fmt.Sprintf("/proc/%d/fd/%d", c.n.memPid(), int32(fd)), &st) != nil {
		return errno(unix.EBADF)
	}
	return errno(unix.ENOTSOCK)
}

// inetSock is a socket of the virtual network (netsim): AF_INET or
// AF_INET6, stream or datagram.
type inetSock struct{ *netsim.Socket }

// sock is the virtual network's socket behind v, nil for another kind.
func (v *vfd) sock() *netsim.Socket {
	if s, ok := v.obj.(*inetSock); ok {
		return s.Socket
	}
	return nil
}

// inetOps are the calls an inet socket serves. The rows of the socket
// calls (sysNotSocket, sysAccept4) answer them on any other descriptor;
// ioctl goes by kind through ioctlTable (vsockIoctl), fcntl to the
// kernel's placeholder.
var inetOps = map[int]fileOp{
	unix.SYS_READ:        func(c *call, v *vfd) result { return inetRead(c, v, []iovec{{c.arg(1), c.arg(2)}}) },
	unix.SYS_READV:       inetReadv,
	unix.SYS_WRITE:       func(c *call, v *vfd) result { return inetWrite(c, v, c.arg(1), c.arg(2), false) },
	unix.SYS_WRITEV:      func(c *call, v *vfd) result { return inetWrite(c, v, c.arg(1), c.arg(2), true) },
	unix.SYS_PREAD64:     espipe,
	unix.SYS_PWRITE64:    espipe,
	unix.SYS_PREADV2:     positionalVector,
	unix.SYS_PWRITEV2:    positionalVector,
	unix.SYS_BIND:        inetBind,
	unix.SYS_LISTEN:      inetListen,
	unix.SYS_ACCEPT:      inetAccept,
	unix.SYS_ACCEPT4:     inetAccept4,
	unix.SYS_CONNECT:     inetConnect,
	unix.SYS_SENDTO:      inetSendto,
	unix.SYS_RECVFROM:    inetRecvfrom,
	unix.SYS_SENDMSG:     inetSendmsg,
	unix.SYS_RECVMSG:     inetRecvmsg,
	unix.SYS_SHUTDOWN:    inetShutdown,
	unix.SYS_GETSOCKNAME: inetGetsockname,
	unix.SYS_GETPEERNAME: inetGetpeername,
	unix.SYS_SETSOCKOPT:  inetSetsockopt,
	unix.SYS_GETSOCKOPT:  inetGetsockopt,
	unix.SYS_SENDMMSG:    inetSendmmsg,
	unix.SYS_RECVMMSG:    inetRecvmmsg,
	unix.SYS_SENDFILE:    inetSendfile,
}

// NotSocket implements the socket calls (bind, listen, accept, connect,
// sendto, recvfrom, sendmsg, recvmsg, shutdown, getsockname,
// getpeername, setsockopt, getsockopt, sendmmsg, recvmmsg) on a
// descriptor that is no socket weft serves: EBADF or ENOTSOCK, as the
// kernel answers (a served socket's own operations serve them on it).
func sysNotSocket(c *call) result { return notSocket(c, c.arg(0)) }

func (s *inetSock) ops() map[int]fileOp { return inetOps }

func (*inetSock) Kind() vkernel.FileKind { return socketFileKind }

// Events follows the socket's state in the virtual network
// (vkernel.InetReadiness).
func (s *inetSock) Events(vkernel.FileWorld) uint32 {
	return vkernel.InetReadiness{Readable: s.Readable(), Writable: s.Writable(), Hup: s.Hup(), Err: s.Err(), RdHup: s.RdHup()}.Events()
}

// Wake: the socket keeps no wake-up counts; the bytes pending and its
// readiness change with every one.
func (s *inetSock) Wake(w vkernel.FileWorld, _ *vkernel.EpollEntry) [2]uint64 {
	return [2]uint64{uint64(s.Pending())<<32 | uint64(s.Events(w)), 0}
}

// hash writes the socket's number and its option values (the node
// keeps them), then those of a listener's queued connections: the rest
// of its state is the network's, hashed with the network.
func (s *inetSock) Hash(h *vkernel.FileHasher) {
	h.Put(fileTagInet)
	h.Put(uint64(s.ID))
	h.Opts.HashSocket(s.ID, h.Put)
	h.Opts.HashQueued(s.Queued(), h.Put)
}

// Release closes the socket in the virtual network.
func (s *inetSock) Release(w vkernel.FileWorld) { w.CloseInet(s.Socket) }
