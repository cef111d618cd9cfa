//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// NETLINK_ROUTE sockets inside a node (netlink(7)), served in Go by the
// virtual kernel (vkernel.RouteSocket) over the node's virtual
// interfaces: a node that lists its interfaces or addresses (Go's
// net.Interfaces, glibc's getifaddrs) reads lo and eth0 as weft defines
// them, never the host's. The node holds one end of a real unix datagram
// socket pair as placeholder (fstat, fcntl, close and the SOL_SOCKET
// options run natively on it); no data goes through it. Other netlink
// families are refused, naming the family.

// socketNote is the table note of socket(2): which families are served
// where.
const socketNote = "AF_INET and AF_INET6 on the virtual network (sys_net.go); AF_UNIX inside the node (sys_unix.go); AF_NETLINK NETLINK_ROUTE from the virtual kernel (sys_netlink.go): link and address dumps of the node's virtual lo and eth0"

// netlinkSock is one NETLINK_ROUTE socket.
type netlinkSock struct {
	route                vkernel.RouteSocket
	typ                  int    // SOCK_RAW or SOCK_DGRAM
	groups               uint32 // multicast groups joined by bind (nothing is ever announced: the interfaces never change)
	opts                 [netlinkOptMax + 1]uint32
	vkernel.SockTimeouts        // SO_RCVTIMEO, SO_SNDTIMEO in virtual ticks (netlinkSetsockopt)
	genIn                uint64 // replies queued
	genOut               uint64 // datagrams read
}

// SOL_NETLINK options (linux/netlink.h) accepted; netlinkOptMax is the
// largest.
const (
	solNetlink        = 270
	netlinkAddMember  = 1
	netlinkDropMember = 2
	netlinkBcastError = 4
	netlinkNoENOBUFS  = 5
	netlinkCapAck     = 10
	netlinkExtAck     = 11
	netlinkStrictChk  = 12
	netlinkOptMax     = 12
	sockaddrNlLen     = 12
)

// netlinkFlagOpts are the SOL_NETLINK options that are flags a program
// sets and reads back; none changes what weft answers but CAP_ACK.
var netlinkFlagOpts = map[uint64]bool{netlinkBcastError: true, netlinkNoENOBUFS: true, netlinkCapAck: true,
	netlinkExtAck: true, netlinkStrictChk: true}

// sysNetlinkSocket implements socket(2) for AF_NETLINK: NETLINK_ROUTE,
// raw or datagram (the same to netlink).
func sysNetlinkSocket(c *call) result {
	_, typArg, proto, e := vkernel.SocketArgs(c.arg(0), c.arg(1), c.arg(2))
	if e != 0 {
		return errno(unix.Errno(e))
	}
	typ := typArg &^ uint64(unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	if typ != unix.SOCK_RAW && typ != unix.SOCK_DGRAM {
		return errno(unix.ESOCKTNOSUPPORT)
	}
	if proto != unix.NETLINK_ROUTE {
		return failf("netlink family %s is not modelled (only NETLINK_ROUTE)", vkernel.NetlinkFamily(proto))
	}
	ph, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	unix.Close(ph[1])
	s := &netlinkSock{typ: int(typ), route: vkernel.RouteSocket{Ifaces: vkernel.NodeInterfaces(c.n.id, netsim.Loopback)}}
	return c.installOne(&vfd{obj: s}, ph[0], typArg&unix.SOCK_NONBLOCK != 0, typArg&unix.SOCK_CLOEXEC != 0)
}

var netlinkOps = map[int]fileOp{
	unix.SYS_READ:     func(c *call, v *vfd) result { return netlinkRecv(c, v, []iovec{{c.arg(1), c.arg(2)}}, 0, 0, 0) },
	unix.SYS_READV:    netlinkReadv,
	unix.SYS_WRITE:    func(c *call, v *vfd) result { return netlinkWrite(c, v, false) },
	unix.SYS_WRITEV:   func(c *call, v *vfd) result { return netlinkWrite(c, v, true) },
	unix.SYS_PREAD64:  espipe,
	unix.SYS_PWRITE64: espipe,
	unix.SYS_PREADV2:  espipe,
	unix.SYS_PWRITEV2: espipe,
	unix.SYS_RECVFROM: netlinkRecvfrom,
	unix.SYS_SENDTO:   netlinkSendto,
	unix.SYS_RECVMSG:  netlinkRecvmsg,
	unix.SYS_SENDMSG:  netlinkSendmsg,
	unix.SYS_BIND:     netlinkBind,
	unix.SYS_CONNECT:  netlinkConnect,
	unix.SYS_LISTEN:   func(*call, *vfd) result { return errno(unix.EOPNOTSUPP) },
	unix.SYS_ACCEPT:   func(*call, *vfd) result { return errno(unix.EOPNOTSUPP) },
	unix.SYS_ACCEPT4:  func(*call, *vfd) result { return errno(unix.EOPNOTSUPP) },
	unix.SYS_SHUTDOWN: func(*call, *vfd) result { return errno(unix.EOPNOTSUPP) }, // sock_no_shutdown
	unix.SYS_GETSOCKNAME: func(c *call, v *vfd) result {
		return c.putNetlinkName(c.arg(1), c.arg(2), v.obj.(*netlinkSock).route.Port)
	},
	unix.SYS_GETPEERNAME: func(c *call, v *vfd) result { return c.putNetlinkName(c.arg(1), c.arg(2), 0) },
	unix.SYS_SETSOCKOPT:  netlinkSetsockopt,
	unix.SYS_GETSOCKOPT:  netlinkGetsockopt,
	unix.SYS_IOCTL:       netlinkIoctl,
}

func (s *netlinkSock) ops() map[int]fileOp { return netlinkOps }

func (*netlinkSock) Kind() vkernel.FileKind { return socketFileKind }

func (s *netlinkSock) Wake(_ vkernel.FileWorld, x *vkernel.EpollEntry) [2]uint64 {
	return x.WakeOf(s.genIn, s.genOut)
}

// Events: readable while a reply is queued; always writable (a request
// is answered at once).
func (s *netlinkSock) Events(vkernel.FileWorld) uint32 {
	ev := uint32(unix.EPOLLOUT | unix.EPOLLWRNORM)
	if len(s.route.Queue) > 0 {
		ev |= unix.EPOLLIN | unix.EPOLLRDNORM
	}
	return ev
}

func (s *netlinkSock) Hash(h *vkernel.FileHasher) {
	h.Put(fileTagInNode)
	put := h.Put
	put(6) // the kind, apart from the other in-node kinds
	put(uint64(s.typ))
	put(uint64(s.route.Port))
	put(uint64(s.groups))
	for _, o := range s.opts {
		put(uint64(o))
	}
	for i, t := range s.SockTimeouts {
		if t != 0 { // a word with the top bit set, which no queue length is
			put(1<<63 | uint64(i))
			put(uint64(t))
		}
	}
	put(uint64(len(s.route.Queue)))
	for _, d := range s.route.Queue {
		vkernel.PutBytes(put, d)
	}
	put(s.genIn)
	put(s.genOut)
}

func (s *netlinkSock) Release(vkernel.FileWorld) {}

// netlinkPort picks an unbound socket's port id as Linux does: the
// process's (virtual) pid for its first socket, then ids counting down
// from -4096, the first one no socket of the node holds.
func (c *call) netlinkPort() uint32 {
	used := map[uint32]bool{}
	for _, t := range c.n.tables() {
		for _, v := range t.All() {
			if s, ok := v.obj.(*netlinkSock); ok && s.route.Port != 0 {
				used[s.route.Port] = true
			}
		}
	}
	p := uint32(c.n.vpid())
	for k := uint32(4096); used[p]; k++ {
		p = -k
	}
	return p
}

// readNetlinkName reads a sockaddr_nl: its port id and groups.
func (c *call) readNetlinkName(addr, n uint64) (pid, groups uint32, e unix.Errno) {
	if n < sockaddrNlLen {
		return 0, 0, unix.EINVAL
	}
	b, err := c.read(addr, sockaddrNlLen)
	if err != nil {
		return 0, 0, unix.EFAULT
	}
	if binary.LittleEndian.Uint16(b) != unix.AF_NETLINK {
		return 0, 0, unix.EINVAL
	}
	return binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:]), 0
}

// putNetlinkName writes a sockaddr_nl of port id pid at addr, its length
// at lenp (truncated to the room given, as Linux does).
func (c *call) putNetlinkName(addr, lenp uint64, pid uint32) result {
	if addr == 0 || lenp == 0 {
		return ret(0)
	}
	have, err := c.readU32(lenp)
	if err != nil {
		return errno(unix.EFAULT)
	}
	if int32(have) < 0 {
		return errno(unix.EINVAL)
	}
	b := binary.LittleEndian.AppendUint16(nil, unix.AF_NETLINK)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint32(b, pid)
	b = binary.LittleEndian.AppendUint32(b, 0)
	if err := c.write(addr, b[:min(int(have), len(b))]); err != nil {
		return errno(unix.EFAULT)
	}
	return errno(errnoOf(c.writeU32(lenp, sockaddrNlLen)))
}

// netlinkBind binds the socket: port id 0 asks for one (netlinkPort),
// another is taken if no socket of the node holds it; groups are joined
// (nothing is ever announced to them).
func netlinkBind(c *call, v *vfd) result {
	s := v.obj.(*netlinkSock)
	pid, groups, e := c.readNetlinkName(c.arg(1), c.arg(2))
	if e != 0 {
		return errno(e)
	}
	switch {
	case s.route.Port != 0 && pid != 0 && pid != s.route.Port:
		return errno(unix.EINVAL)
	case s.route.Port == 0 && pid != 0:
		if c.netlinkPortUsed(pid) {
			return errno(unix.EADDRINUSE)
		}
		s.route.Port = pid
	case s.route.Port == 0:
		s.route.Port = c.netlinkPort()
	}
	s.groups = groups
	return ret(0)
}

func (c *call) netlinkPortUsed(pid uint32) bool {
	for _, t := range c.n.tables() {
		for _, v := range t.All() {
			if s, ok := v.obj.(*netlinkSock); ok && s.route.Port == pid {
				return true
			}
		}
	}
	return false
}

// netlinkConnect sets the default destination: only the kernel (port id
// 0) is modelled.
func netlinkConnect(c *call, v *vfd) result {
	pid, groups, e := c.readNetlinkName(c.arg(1), c.arg(2))
	if e != 0 {
		return errno(e)
	}
	if pid != 0 || groups != 0 {
		return failf("netlink messages to port %d, groups %#x: only requests to the kernel are modelled", pid, groups)
	}
	s := v.obj.(*netlinkSock)
	if s.route.Port == 0 {
		s.route.Port = c.netlinkPort()
	}
	return ret(0)
}

func netlinkWrite(c *call, v *vfd, vector bool) result {
	data, err := c.writeData(vector, 1<<20)
	if err != nil {
		return errno(unix.EFAULT)
	}
	return netlinkSend(c, v, data, 0, 0, "write")
}

func netlinkSendto(c *call, v *vfd) result {
	data, err := c.read(c.arg(1), int(min(c.arg(2), 1<<20)))
	if err != nil {
		return errno(unix.EFAULT)
	}
	return netlinkSend(c, v, data, c.arg(4), c.arg(5), "sendto")
}

func netlinkSendmsg(c *call, v *vfd) result {
	h, err := c.readMsghdr(c.arg(1))
	if err != nil {
		return errno(unix.EFAULT)
	}
	if h.controllen != 0 {
		return failf("sendmsg with ancillary data on a netlink socket is not modelled")
	}
	data, err := c.gather(h.iov)
	if err != nil {
		return errno(unix.EFAULT)
	}
	return netlinkSend(c, v, data, h.name, uint64(h.namelen), "sendmsg")
}

// netlinkSend hands one datagram of requests to the virtual kernel (to
// the kernel only: port id 0, no groups), binding the socket first if it
// is not; every refusal it reports becomes a note.
func netlinkSend(c *call, v *vfd, data []byte, addr, addrlen uint64, sys string) result {
	s := v.obj.(*netlinkSock)
	if addr != 0 && addrlen != 0 {
		pid, groups, e := c.readNetlinkName(addr, addrlen)
		if e != 0 {
			return errno(e)
		}
		if pid != 0 || groups != 0 {
			return failf("netlink messages to port %d, groups %#x: only requests to the kernel are modelled", pid, groups)
		}
	}
	if s.route.Port == 0 {
		s.route.Port = c.netlinkPort()
	}
	s.route.CapAck = s.opts[netlinkCapAck] != 0
	before := len(s.route.Queue)
	for _, r := range s.route.Send(data) {
		c.refuseRequest(sys, uint64(r.Type), r.Name, uintptrErrno(r.Errno), r.Why)
	}
	if len(s.route.Queue) != before {
		s.genIn++
	}
	return ret(int64(len(data)))
}

func netlinkReadv(c *call, v *vfd) result {
	iov, err := c.readIovecs(c.arg(1), c.arg(2))
	if err != nil {
		return errno(unix.EINVAL)
	}
	return netlinkRecv(c, v, iov, 0, 0, 0)
}

func netlinkRecvfrom(c *call, v *vfd) result {
	return netlinkRecv(c, v, []iovec{{c.arg(1), c.arg(2)}}, c.arg(3), c.arg(4), c.arg(5))
}

// netlinkTake takes (or, MSG_PEEK, copies) the next datagram, at most max
// bytes of it; full is its length. ok=false means r is the answer: a
// socket with nothing queued parks, or answers EAGAIN if non-blocking.
func netlinkTake(c *call, v *vfd, max int, flags uint64) (data []byte, full int, r result, ok bool) {
	if flags&(unix.MSG_OOB|unix.MSG_ERRQUEUE) != 0 {
		return nil, 0, errno(unix.EAGAIN), false
	}
	s := v.obj.(*netlinkSock)
	data, full, ok = s.route.Recv(max, flags&unix.MSG_PEEK != 0)
	if !ok {
		return nil, 0, c.unixBlock(v, flags, unix.SO_RCVTIMEO), false
	}
	if flags&unix.MSG_PEEK == 0 {
		s.genOut++
	}
	return data, full, result{}, true
}

// netlinkRecv serves the receive calls with a plain name buffer: the
// sender is the kernel (port id 0).
func netlinkRecv(c *call, v *vfd, iov []iovec, flags, nameAddr, nameLen uint64) result {
	data, full, r, ok := netlinkTake(c, v, iovLen(iov), flags)
	if !ok {
		return r
	}
	if err := c.scatter(iov, data); err != nil {
		return errno(unix.EFAULT)
	}
	if r := c.putNetlinkName(nameAddr, nameLen, 0); r.errno != 0 {
		return r
	}
	if flags&unix.MSG_TRUNC != 0 {
		return ret(int64(full))
	}
	return ret(int64(len(data)))
}

// netlinkRecvmsg is recvmsg(2): no control messages, MSG_TRUNC in
// msg_flags when the datagram was longer than the buffers.
func netlinkRecvmsg(c *call, v *vfd) result {
	h, err := c.readMsghdr(c.arg(1))
	if err != nil {
		return errno(unix.EFAULT)
	}
	data, full, r, ok := netlinkTake(c, v, iovLen(h.iov), c.arg(2))
	if !ok {
		return r
	}
	if err := c.scatter(h.iov, data); err != nil {
		return errno(unix.EFAULT)
	}
	if h.name != 0 {
		if r := c.putNetlinkName(h.name, c.arg(1)+8, 0); r.errno != 0 {
			return r
		}
	}
	c.write(c.arg(1)+40, make([]byte, 8)) // msg_controllen
	flags := uint32(c.arg(2) & unix.MSG_CMSG_CLOEXEC)
	if full > len(data) {
		flags |= unix.MSG_TRUNC
	}
	c.write(c.arg(1)+48, binary.LittleEndian.AppendUint32(nil, flags))
	if c.arg(2)&unix.MSG_TRUNC != 0 {
		return ret(int64(full))
	}
	return ret(int64(len(data)))
}

// netlinkSetsockopt: SOL_SOCKET options run on the placeholder (buffer
// sizes, read back from it), but a socket filter, which would filter
// nothing there, is refused, and SO_RCVTIMEO and SO_SNDTIMEO weft keeps in
// virtual ticks, as an AF_UNIX socket's (unixSetsockopt); the SOL_NETLINK
// flags and group memberships are kept; other levels are ENOPROTOOPT, as
// in Linux.
func netlinkSetsockopt(c *call, v *vfd) result {
	s := v.obj.(*netlinkSock)
	level, opt := c.arg(1), c.arg(2)
	switch {
	case level == unix.SOL_SOCKET && (opt == unix.SO_ATTACH_FILTER || opt == unix.SO_ATTACH_BPF):
		return failf("a socket filter on a netlink socket is not modelled")
	case level == unix.SOL_SOCKET && sockTimeoutOpts[opt]:
		return c.setTimeout(s)
	case level == unix.SOL_SOCKET:
		return cont()
	case level != solNetlink:
		return errno(unix.ENOPROTOOPT)
	case opt != netlinkAddMember && opt != netlinkDropMember && !netlinkFlagOpts[opt]:
		return failf("netlink option %d is not modelled", opt)
	case c.arg(4) < 4:
		return errno(unix.EINVAL)
	}
	val, err := c.readU32(c.arg(3))
	if err != nil {
		return errno(unix.EFAULT)
	}
	if netlinkFlagOpts[opt] {
		s.opts[opt] = uint32(boolBits(val != 0))
	}
	return ret(0)
}

// netlinkGetsockopt answers what the placeholder would get wrong (its
// domain, protocol and type, its timeouts) and the SOL_NETLINK flags; the
// other SOL_SOCKET options are read from the placeholder.
func netlinkGetsockopt(c *call, v *vfd) result {
	s := v.obj.(*netlinkSock)
	level, opt := c.arg(1), c.arg(2)
	var val []byte
	switch {
	case level == unix.SOL_SOCKET && opt == unix.SO_DOMAIN:
		val = binary.LittleEndian.AppendUint32(nil, unix.AF_NETLINK)
	case level == unix.SOL_SOCKET && opt == unix.SO_PROTOCOL:
		val = binary.LittleEndian.AppendUint32(nil, unix.NETLINK_ROUTE)
	case level == unix.SOL_SOCKET && opt == unix.SO_TYPE:
		val = binary.LittleEndian.AppendUint32(nil, uint32(s.typ))
	case level == unix.SOL_SOCKET && opt == unix.SO_PEERCRED: // no peer: pid 0, the overflow ids
		val = binary.LittleEndian.AppendUint32(nil, 0)
		val = binary.LittleEndian.AppendUint32(val, 65534)
		val = binary.LittleEndian.AppendUint32(val, 65534)
	case level == unix.SOL_SOCKET && opt == unix.SO_PEERSEC:
		return errno(unix.ENOPROTOOPT)
	case level == unix.SOL_SOCKET && (opt == unix.SO_PEERGROUPS || opt == unix.SO_PEERPIDFD):
		return errno(unix.ENODATA)
	case level == unix.SOL_SOCKET && sockTimeoutOpts[opt]:
		val = s.Timeout(sndTimeoutOpt(opt)).Timeval()
	case level == unix.SOL_SOCKET:
		return cont()
	case level == solNetlink && netlinkFlagOpts[opt]:
		val = binary.LittleEndian.AppendUint32(nil, s.opts[opt])
	case level == solNetlink:
		return failf("netlink option %d is not modelled", opt)
	default:
		return errno(unix.ENOPROTOOPT)
	}
	return c.putOption(val)
}

// netlinkIoctl serves FIONREAD (the next datagram's length); others go
// to the ioctl allow-list.
func netlinkIoctl(c *call, v *vfd) result {
	if c.arg(1) == unix.TIOCINQ {
		return errno(errnoOf(c.writeU32(c.arg(2), uint32(v.obj.(*netlinkSock).route.Queued()))))
	}
	return sysIoctl(c)
}
