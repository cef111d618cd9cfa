package vkernel

import "fmt"

// AF_UNIX sockets inside a node (unix(7), socket(7)): stream, datagram
// and seqpacket sockets, their names, listen backlogs, connections,
// queues with message boundaries, shutdown and readiness. What travels
// with a message beside its bytes (descriptors in flight for
// SCM_RIGHTS, the sender's credentials) is carried as it is given: the
// descriptors are opaque values the supervisor captured and installs,
// and credentials are the virtual values the supervisor stated. Path
// names are resolved by the supervisor (a path-served operation); here
// a bound path is known by the key the supervisor made of its file.

// Socket types (socket(2)); SOCK_RAW is SOCK_DGRAM for AF_UNIX.
const (
	SockStream    = 1
	SockDgram     = 2
	SockSeqpacket = 5
)

// Error numbers of sockets (errno(3)).
const (
	EMSGSIZE     Errno = 90
	EPROTOTYPE   Errno = 91
	EADDRINUSE   Errno = 98
	ECONNRESET   Errno = 104
	EISCONN      Errno = 106
	ENOTCONN     Errno = 107
	ECONNREFUSED Errno = 111
)

const (
	// UnixCapacity bounds a socket's unread bytes (net.core.wmem_default).
	UnixCapacity = 212992
	// UnixDgramQlen bounds a datagram socket's unread messages from
	// others (net.unix.max_dgram_qlen, 10, plus the one the kernel admits
	// beyond it).
	UnixDgramQlen = 11
	// UnixMaxBacklog is net.core.somaxconn, the largest listen backlog.
	UnixMaxBacklog = 4096
)

// Shutdown flags (RCV_SHUTDOWN, SEND_SHUTDOWN).
const (
	ShutRcv  = 1
	ShutSend = 2
)

// Ucred is struct ucred with a virtual pid: the credentials a message
// carries (SCM_CREDENTIALS).
type Ucred struct {
	Pid      int32
	Uid, Gid uint32
}

// Hash writes the credentials for the world hash (nil: one zero word).
func (cr *Ucred) Hash(put func(uint64)) {
	if cr == nil {
		put(0)
		return
	}
	put(1 | uint64(uint32(cr.Pid))<<8)
	put(uint64(cr.Uid) | uint64(cr.Gid)<<32)
}

// SameCred reports whether two messages' credentials are the same.
func SameCred(a, b *Ucred) bool { return a == b || a != nil && b != nil && *a == *b }

// UnixAnc is what one send carries beside its bytes: descriptors in
// flight (opaque to the socket), which the first message it delivers
// takes (Taken), and the credentials every message it delivers carries.
type UnixAnc struct {
	Rights []any
	Taken  bool
	Cred   *Ucred
}

// unixMsg is one queued message (a stream's bytes may span several).
type unixMsg struct {
	data   []byte
	from   []byte // the sender's name (datagrams)
	rights []any  // descriptors in flight
	cred   *Ucred
}

// UnixSocket is one AF_UNIX socket.
type UnixSocket struct {
	typ          int
	name         []byte // bound address as getsockname reports it (family first); nil unbound
	key          string // its key in the namespace, "" if none
	listening    bool
	backlog      []*UnixSocket // connections waiting for accept (their server ends)
	maxQueue     int           // listen backlog
	peer         *UnixSocket   // the other end (stream, seqpacket) or the default destination (datagram)
	connected    bool          // stream or seqpacket: has (had) a peer
	queue        []unixMsg     // received, unread
	queued       int           // bytes in queue
	shut         uint8         // ShutRcv, ShutSend
	err          Errno         // a pending error (SO_ERROR): ECONNRESET when the peer closed with unread data
	closed       bool
	creds        bool // the peer's credentials are known (socketpair, a stream or seqpacket connection)
	SockTimeouts      // SO_RCVTIMEO, SO_SNDTIMEO (SetTimeout)
	genIn        uint64
	genOut       uint64
}

// UnixType is a socket type argument without its flags (SOCK_NONBLOCK,
// SOCK_CLOEXEC) and whether AF_UNIX models it; SOCK_RAW is SOCK_DGRAM,
// as af_unix makes it.
func UnixType(arg uint64) (int, bool) {
	const sockRaw, flags = 3, 0o4000 | 0o2000000
	typ := arg &^ flags
	if typ == sockRaw {
		typ = SockDgram
	}
	switch typ {
	case SockStream, SockDgram, SockSeqpacket:
		return int(typ), true
	}
	return int(typ), false
}

// af_unix's answer to a type it does not take, and its family number.
const (
	ESOCKTNOSUPPORT = Errno(94)
	afUnix          = 1 // AF_UNIX, PF_UNIX
)

// UnixPairArgs are socket(2)'s arguments for AF_UNIX, and
// socketpair(2)'s for a caller without CAP_NET_RAW (SocketpairArgs).
func UnixPairArgs(domain, typArg, proto uint64) (typ int, flags uint64, e Errno) {
	return SocketpairArgs(domain, typArg, proto, false)
}

// SocketpairArgs are socketpair(2)'s arguments, as Linux reads them: the
// checks socket(2) makes first (SocketArgs: C ints, the type's flags, the
// family's and the type's range), then those of the family's create
// (pairCreate: whether the kernel has the family, the family's type and
// protocol rules), then the family's socketpair, which only AF_UNIX has
// (EOPNOTSUPP for the others). AF_UNIX's create (unix_create) takes
// protocol 0 and PF_UNIX (else EPROTONOSUPPORT) and a type it serves
// (else ESOCKTNOSUPPORT). netRaw is whether the caller has CAP_NET_RAW,
// which AF_PACKET and raw IP sockets need. typ is the socket's type
// (UnixType), flags the type argument's SOCK_NONBLOCK and SOCK_CLOEXEC.
func SocketpairArgs(domain, typArg, proto uint64, netRaw bool) (typ int, flags uint64, e Errno) {
	domain, typArg, proto, e = SocketArgs(domain, typArg, proto)
	if e != 0 {
		return 0, 0, e
	}
	if domain != afUnix {
		if e = pairCreate(domain, typArg&sockTypeMask, int32(proto), netRaw); e != 0 {
			return 0, 0, e
		}
		return 0, 0, EOPNOTSUPP // sock_no_socketpair
	}
	if proto != 0 && proto != afUnix {
		return 0, 0, EPROTONOSUPPORT
	}
	typ, ok := UnixType(typArg)
	if !ok {
		return 0, 0, ESOCKTNOSUPPORT
	}
	return typ, typArg & (SockNonblock | SockCloexec), 0
}

// Families, types and protocols socketpair's creates look at
// (linux/socket.h, linux/net.h, linux/in.h, linux/netlink.h).
const (
	afNetlink       = 16
	afPacket        = 17
	sockRaw         = 3
	sockPacket      = 10
	ipProtoICMP     = 1
	ipProtoICMPv6   = 58
	ipProtoUDPLite  = 136
	ipProtoMPTCP    = 262
	ipProtoMax      = 263 // IPPROTO_MAX
	netlinkMaxLinks = 32  // MAX_LINKS
)

// noFamily are the families below AF_MAX that no Linux 6 kernel has
// (net_families holds nothing for them: never written, or removed):
// AF_UNSPEC, AF_IPX, AF_BRIDGE, AF_DECnet, AF_NETBEUI, AF_SECURITY,
// AF_ASH, AF_ECONET, AF_SNA, AF_IRDA, AF_WANPIPE, AF_IB, AF_MPLS.
var noFamily = map[uint64]bool{0: true, 4: true, 7: true, 12: true, 13: true, 14: true, 18: true, 19: true, 22: true,
	23: true, 25: true, 27: true, 28: true}

// noNetlink are the netlink protocols below MAX_LINKS that nothing
// registers (unused numbers and removed users); the others are taken
// as registered, the kernel's or a module's.
var noNetlink = map[int32]bool{1: true, 3: true, 5: true, 13: true, 14: true, 17: true, 23: true, 24: true, 25: true,
	26: true, 27: true, 28: true, 29: true, 30: true, 31: true}

// inetProtos are the protocols inet_create and inet6_create find for a
// type (inetsw: TCP and MPTCP streams; UDP, ping and UDP-Lite
// datagrams), the first the one protocol 0 picks; raw sockets take any
// protocol but 0.
var inetProtos = map[uint64][2][]int32{
	SockStream: {{IPProtoTCP, ipProtoMPTCP}, {IPProtoTCP, ipProtoMPTCP}},
	SockDgram:  {{IPProtoUDP, ipProtoICMP, ipProtoUDPLite}, {IPProtoUDP, ipProtoICMPv6, ipProtoUDPLite}},
}

// pairCreate is the answer of sock_create for a family other than
// AF_UNIX whose arguments passed SocketArgs: EAFNOSUPPORT for a family
// no kernel has; for AF_INET and AF_INET6 (inet_create), a protocol
// outside 0..IPPROTO_MAX-1 is EINVAL, a type with no protocols
// ESOCKTNOSUPPORT, a protocol the type does not have EPROTONOSUPPORT, a
// raw socket without CAP_NET_RAW EPERM, a ping socket EACCES (the
// default ping_group_range holds no group); AF_INET's SOCK_PACKET is
// AF_PACKET's; AF_PACKET (packet_create) needs CAP_NET_RAW (EPERM) and
// takes SOCK_DGRAM, SOCK_RAW and SOCK_PACKET (else ESOCKTNOSUPPORT);
// AF_NETLINK (netlink_create) takes SOCK_RAW and SOCK_DGRAM (else
// ESOCKTNOSUPPORT) and a registered protocol (else EPROTONOSUPPORT).
// Another family is taken to create the socket (0).
func pairCreate(domain, typ uint64, proto int32, netRaw bool) Errno {
	if domain == AfInet && typ == sockPacket {
		domain = afPacket
	}
	switch {
	case noFamily[domain]:
		return EAFNOSUPPORT
	case domain == AfInet || domain == AfInet6:
		if proto < 0 || proto >= ipProtoMax {
			return EINVAL
		}
		v6 := 0
		if domain == AfInet6 {
			v6 = 1
		}
		if typ == sockRaw {
			switch {
			case proto == 0:
				return EPROTONOSUPPORT
			case !netRaw:
				return EPERM
			}
			return 0
		}
		protos, ok := inetProtos[typ]
		if !ok {
			return ESOCKTNOSUPPORT
		}
		for _, p := range protos[v6] {
			if proto == p || proto == 0 && p == protos[v6][0] {
				if proto == ipProtoICMP || proto == ipProtoICMPv6 {
					return EACCES
				}
				return 0
			}
		}
		return EPROTONOSUPPORT
	case domain == afPacket:
		switch {
		case !netRaw:
			return EPERM
		case typ != SockDgram && typ != sockRaw && typ != sockPacket:
			return ESOCKTNOSUPPORT
		}
	case domain == afNetlink:
		switch {
		case typ != sockRaw && typ != SockDgram:
			return ESOCKTNOSUPPORT
		case proto < 0 || proto >= netlinkMaxLinks || noNetlink[proto]:
			return EPROTONOSUPPORT
		}
	}
	return 0
}

// NewUnixSocket is a new, unbound socket of type typ (socket(2)).
func NewUnixSocket(typ int) *UnixSocket { return &UnixSocket{typ: typ} }

// NewUnixPair is a pair of connected sockets (socketpair(2)): each the
// other's peer, each knowing the other's credentials.
func NewUnixPair(typ int) (*UnixSocket, *UnixSocket) {
	a, b := &UnixSocket{typ: typ, creds: true}, &UnixSocket{typ: typ, creds: true}
	a.peer, b.peer = b, a
	a.connected, b.connected = typ != SockDgram, typ != SockDgram
	return a, b
}

// Type is the socket's type.
func (s *UnixSocket) Type() int { return s.typ }

// Stream reports a SOCK_STREAM socket, Dgram a SOCK_DGRAM one.
func (s *UnixSocket) Stream() bool { return s.typ == SockStream }
func (s *UnixSocket) Dgram() bool  { return s.typ == SockDgram }

// Name is the socket's bound address (getsockname), nil if unbound.
func (s *UnixSocket) Name() []byte { return s.name }

// Listening reports a listening socket (SO_ACCEPTCONN).
func (s *UnixSocket) Listening() bool { return s.listening }

// PeerCreds reports whether the peer's credentials are known
// (SO_PEERCRED): a socketpair's ends and both ends of a connection.
func (s *UnixSocket) PeerCreds() bool { return s.creds }

// TakeError is SO_ERROR: the pending error, which it clears.
func (s *UnixSocket) TakeError() Errno {
	e := s.err
	s.err = 0
	return e
}

// PeerName is getpeername(2): the peer's name (nil: unnamed), or
// ENOTCONN with no peer, or a stream or seqpacket connection whose peer
// closed after both directions were shut.
func (s *UnixSocket) PeerName() ([]byte, error) {
	if s.peer == nil || !s.Dgram() && s.shut == ShutRcv|ShutSend && s.peer.closed {
		return nil, ENOTCONN
	}
	return s.peer.name, nil
}

// InQueue is SIOCINQ (FIONREAD): the unread bytes of a stream, the
// length of the next message of the others; EINVAL on a listener.
func (s *UnixSocket) InQueue() (int, error) {
	if s.listening {
		return 0, EINVAL
	}
	if !s.Stream() && len(s.queue) > 0 {
		return len(s.queue[0].data), nil
	}
	return s.queued, nil
}

// OutQueue is SIOCOUTQ: a connection's bytes the peer has not read.
func (s *UnixSocket) OutQueue() int {
	if s.peer != nil && !s.peer.closed && !s.Dgram() {
		return s.peer.queued
	}
	return 0
}

// UnixNames is a node's namespace of bound AF_UNIX names: abstract names
// by their bytes, path names by the key the supervisor makes of the
// socket file (its device and inode). An abstract name never reaches the
// host's abstract namespace.
type UnixNames struct {
	m map[string]*UnixSocket
}

// abstractKey is the namespace key of an abstract name (family first).
func abstractKey(name []byte) string { return "a" + string(name[2:]) }

// Bind is bind(2) of name (family first) to s: pathKey is the key of the
// socket file the supervisor made for a path name, "" for an abstract
// name; a bare family (len 2) binds an automatic abstract name, five hex
// digits, the first free in order. A bound socket is EINVAL, a name in
// use EADDRINUSE.
func (ns *UnixNames) Bind(s *UnixSocket, name []byte, pathKey string) error {
	if s.name != nil {
		return EINVAL
	}
	if ns.m == nil {
		ns.m = map[string]*UnixSocket{}
	}
	key := pathKey
	switch {
	case len(name) == 2:
		for i := 0; ; i++ {
			name = append([]byte{1, 0, 0}, fmt.Sprintf("%05x", i)...)
			if key = abstractKey(name); ns.m[key] == nil {
				break
			}
		}
	case pathKey == "":
		key = abstractKey(name)
		if ns.m[key] != nil {
			return EADDRINUSE
		}
	}
	s.name, s.key = name, key
	ns.m[key] = s
	return nil
}

// Lookup finds the socket of type typ a name designates (pathKey as for
// Bind): ECONNREFUSED with no open socket bound to it; a socket of
// another type is EPROTOTYPE by path, and no match by abstract name
// (ECONNREFUSED), as in af_unix.
func (ns *UnixNames) Lookup(name []byte, pathKey string, typ int) (*UnixSocket, error) {
	key := pathKey
	if key == "" {
		key = abstractKey(name)
	}
	if t := ns.m[key]; t != nil && !t.closed {
		if t.typ == typ {
			return t, nil
		}
		if pathKey != "" {
			return nil, EPROTOTYPE
		}
	}
	return nil, ECONNREFUSED
}

// Len is the number of bound names.
func (ns *UnixNames) Len() int { return len(ns.m) }

// Listen is listen(2): a datagram socket is EOPNOTSUPP, an unbound or
// connected one EINVAL; the backlog is clamped to [0, UnixMaxBacklog].
func (s *UnixSocket) Listen(backlog int32) error {
	switch {
	case s.Dgram():
		return EOPNOTSUPP
	case s.name == nil || s.connected:
		return EINVAL
	}
	s.listening = true
	s.maxQueue = min(max(int(backlog), 0), UnixMaxBacklog)
	return nil
}

// CanConnect is what connect(2) on a stream or seqpacket socket answers
// before it looks the name up: EINVAL on a listener, EISCONN when
// connected.
func (s *UnixSocket) CanConnect() error {
	switch {
	case s.Dgram():
		return nil
	case s.listening:
		return EINVAL
	case s.connected:
		return EISCONN
	}
	return nil
}

// Disconnect is connect(2) of a datagram socket to AF_UNSPEC: it forgets
// its default destination.
func (s *UnixSocket) Disconnect() { s.peer = nil }

// Connect is connect(2) to t, the socket the name designates (Lookup).
// A datagram socket records t as its destination (EPERM if t is
// connected to another open socket). A stream or seqpacket connection
// is queued on the listener t at once (ECONNREFUSED if t does not
// listen); with its backlog full it waits (EAGAIN non-blocking, ErrBlock
// blocking) until an accept makes room.
func (s *UnixSocket) Connect(t *UnixSocket, nonblock bool) error {
	if s.Dgram() {
		if t.peer != nil && t.peer != s && !t.peer.closed {
			return EPERM
		}
		s.peer = t
		return nil
	}
	if err := s.CanConnect(); err != nil {
		return err
	}
	if !t.listening {
		return ECONNREFUSED
	}
	if len(t.backlog) > t.maxQueue {
		return wouldBlock(nonblock)
	}
	srv := &UnixSocket{typ: s.typ, name: t.name, peer: s, connected: true, creds: true}
	s.peer, s.connected, s.creds = srv, true, true
	t.backlog = append(t.backlog, srv)
	t.genIn++
	s.genOut++
	return nil
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Pending is the connection accept(2) would take now, left queued
// (Accepted takes it): EOPNOTSUPP on a datagram socket, EINVAL if s does
// not listen, EAGAIN (non-blocking) or ErrBlock with none waiting.
func (s *UnixSocket) Pending(nonblock bool) (*UnixSocket, error) {
	switch {
	case s.Dgram():
		return nil, EOPNOTSUPP
	case !s.listening:
		return nil, EINVAL
	case len(s.backlog) == 0:
		return nil, wouldBlock(nonblock)
	}
	return s.backlog[0], nil
}

// Accepted takes the first waiting connection (Pending's) off the
// backlog: a connect waiting for room may go on.
func (s *UnixSocket) Accepted() {
	srv := s.backlog[0]
	s.backlog = s.backlog[1:]
	s.genOut++
	if srv.peer != nil {
		srv.peer.genOut++
	}
}

// PeerNameOf is the name of the socket that made a connection Pending
// returned (accept's address), nil if unnamed.
func (s *UnixSocket) PeerNameOf() []byte {
	if s.peer == nil {
		return nil
	}
	return s.peer.name
}

// Shutdown is shutdown(2) with how SHUT_RD (0), SHUT_WR (1) or SHUT_RDWR
// (2), a C int (the low 32 bits): EINVAL beyond, ENOTCONN on an unconnected stream or seqpacket
// socket. On a connection the peer sees the mirror image (SHUT_WR here
// is the end of file there).
func (s *UnixSocket) Shutdown(how uint64) error {
	how = uint64(uint32(how))
	if how > 2 {
		return EINVAL
	}
	if !s.Dgram() && !s.connected {
		return ENOTCONN
	}
	mode := uint8(how + 1) // SHUT_RD 0 → ShutRcv, SHUT_WR 1 → ShutSend, SHUT_RDWR 2 → both
	s.shut |= mode
	s.genIn++
	s.genOut++
	if p := s.peer; p != nil && !s.Dgram() && !p.closed {
		p.shut |= mode>>1 | (mode&1)<<1
		p.genIn++
		p.genOut++
	}
	return nil
}

// Close is the close of the socket's last description: its name goes
// from ns, waiting connections are closed, and a connected peer sees
// the end (ECONNRESET first if this end left data unread or was a
// connection waiting in a closed listener's backlog, as unix_release_sock
// does with an embryo). drop is called for every descriptor in flight
// the closed sockets' queues held, each queue's after it was emptied.
func (s *UnixSocket) Close(ns *UnixNames, drop func(any)) { s.close(ns, drop, false) }

// close is Close; embryo: s waited in a closed listener's backlog.
func (s *UnixSocket) close(ns *UnixNames, drop func(any), embryo bool) {
	s.closed = true
	if s.key != "" && ns.m[s.key] == s {
		delete(ns.m, s.key)
	}
	for _, b := range s.backlog {
		b.close(ns, drop, true)
	}
	s.backlog = nil
	if p := s.peer; p != nil && !s.Dgram() {
		p.shut = ShutRcv | ShutSend
		if len(s.queue) > 0 || embryo {
			p.err = ECONNRESET
		}
		p.genIn++
		p.genOut++
	}
	queue := s.queue
	s.queue, s.queued = nil, 0
	for _, m := range queue {
		for _, r := range m.rights {
			drop(r)
		}
	}
}

// InFlight reports whether found holds for a descriptor in flight on a
// message queued on s or on a connection waiting in its backlog.
func (s *UnixSocket) InFlight(found func(any) bool) bool {
	for _, m := range s.queue {
		for _, r := range m.rights {
			if found(r) {
				return true
			}
		}
	}
	for _, b := range s.backlog {
		if b.InFlight(found) {
			return true
		}
	}
	return false
}

// Events is the poll mask, as unix_poll and unix_dgram_poll report it.
func (s *UnixSocket) Events() uint32 {
	var ev uint32
	if s.listening {
		if len(s.backlog) > 0 {
			ev |= PollIn | PollRdNorm
		}
		return ev
	}
	if len(s.queue) > 0 || s.shut&ShutRcv != 0 {
		ev |= PollIn | PollRdNorm
	}
	if s.shut&ShutRcv != 0 {
		ev |= PollRdHup
	}
	if s.shut == ShutRcv|ShutSend || !s.Dgram() && !s.connected {
		ev |= PollHup
	}
	if s.err != 0 {
		ev |= PollErr
	}
	if s.writable() {
		ev |= PollOut | PollWrNorm
	}
	return ev
}

// writable reports room in the peer's queue (a quarter of the capacity
// free, as unix_writable asks of the sender's buffer).
func (s *UnixSocket) writable() bool {
	p := s.peer
	if p == nil || p.closed {
		return true
	}
	if s.Dgram() && p.peer != s && len(p.queue) >= UnixDgramQlen {
		return false
	}
	return p.queued*4 <= UnixCapacity*3
}

// Gens counts the wake-ups of readers and of writers.
func (s *UnixSocket) Gens() (in, out uint64) { return s.genIn, s.genOut }

// UnixRecv is how a receive call reads (recv(2) flags and the socket's
// state the supervisor knows).
type UnixRecv struct {
	Max      int  // the bytes the caller's buffers hold
	Peek     bool // MSG_PEEK: copy, take nothing
	WaitAll  bool // MSG_WAITALL, and the call's timeout has not run out
	Nonblock bool // a non-blocking description, MSG_DONTWAIT, or the timeout ran out
	PassCred bool // SO_PASSCRED: a stream read stops where the writer changes
}

// UnixRead is what a receive took.
type UnixRead struct {
	Data   []byte
	Full   int    // the whole message's length (a longer one was truncated to Data)
	From   []byte // the sender's name (datagrams), nil unnamed
	Rights []any  // descriptors in flight that came with Data (none for a peek)
	Cred   *Ucred // the credentials of the first message read
	Took   bool   // false: nothing taken (the end of file, a stream read of 0 bytes), the answer is 0 and nothing else
}

// Recv is a receive (read, recv, recvfrom, recvmsg). A stream takes
// bytes across messages, up to and including one that carries
// descriptors; seqpacket and datagram sockets take one whole message,
// the rest of a longer one discarded (Full tells its length, for
// MSG_TRUNC). With nothing queued: the pending error (cleared), else 0
// bytes at the end of file (shut for reading: the peer closed or shut
// its sending side), else EAGAIN or ErrBlock. An unconnected seqpacket
// socket is ENOTCONN; a listener or an unconnected stream EINVAL. A
// stream read of 0 bytes reads nothing; MSG_WAITALL waits for Max bytes
// (or the end of file).
func (s *UnixSocket) Recv(r UnixRecv) (UnixRead, error) {
	switch {
	case s.typ == SockSeqpacket && !s.connected:
		return UnixRead{}, ENOTCONN
	case s.listening || s.Stream() && !s.connected:
		return UnixRead{}, EINVAL
	}
	if len(s.queue) == 0 {
		switch {
		case s.err != 0:
			return UnixRead{}, s.TakeError()
		case s.shut&ShutRcv != 0:
			return UnixRead{}, nil
		}
		return UnixRead{}, wouldBlock(r.Nonblock)
	}
	out := UnixRead{Cred: s.queue[0].cred, Took: true}
	if !s.Stream() {
		m := s.queue[0]
		if !r.Peek {
			s.queue = s.queue[1:]
			s.consumed(len(m.data))
			out.Rights = m.rights
		}
		out.Data, out.Full, out.From = m.data[:min(r.Max, len(m.data))], len(m.data), m.from
		return out, nil
	}
	if r.Max == 0 {
		return UnixRead{}, nil
	}
	if r.WaitAll && !r.Peek && s.queued < r.Max && s.shut&ShutRcv == 0 {
		return UnixRead{}, wouldBlock(r.Nonblock)
	}
	var data []byte
	for _, m := range s.queue {
		if len(data) == r.Max || r.PassCred && len(data) > 0 && !SameCred(m.cred, out.Cred) {
			break
		}
		data = append(data, m.data[:min(len(m.data), r.Max-len(data))]...)
		if len(m.rights) > 0 {
			break
		}
	}
	if !r.Peek {
		left := len(data)
		for left > 0 {
			m := &s.queue[0]
			k := min(left, len(m.data))
			m.data = m.data[k:]
			left -= k
			out.Rights = append(out.Rights, m.rights...)
			m.rights = nil
			if len(m.data) == 0 {
				s.queue = s.queue[1:]
			}
		}
		s.consumed(len(data))
	}
	out.Data, out.Full = data, len(data)
	return out, nil
}

// consumed accounts a read of k bytes: the writers waiting for room wake.
func (s *UnixSocket) consumed(k int) {
	s.queued -= k
	s.genOut++
	if s.peer != nil {
		s.peer.genOut++
	}
}

// Send is a send on a stream or seqpacket socket (write, send, sendmsg
// without an address). A blocking stream send that waited (ErrBlock)
// comes again with waited set and done, the bytes it has moved. Send
// returns the bytes moved in all, or:
//
//   - ENOTCONN unconnected;
//   - on a seqpacket socket, first its pending error, taken (ECONNRESET:
//     the peer closed with data unread, or the connection waited in a
//     closed listener's backlog), as unix_seqpacket_sendmsg asks it;
//   - on a stream that waited, what sock_alloc_send_pskb wakes to: the
//     pending error, taken, else EPIPE once this end is shut for sending
//     (the peer closed or shut for reading); the count instead once it
//     moved bytes (unix_stream_sendmsg: "return sent ? : err"). A Linux
//     sender still between two buffers when the peer closes answers the
//     count and leaves the reset pending; weft's moves what fits at once,
//     so it is always the one that waited;
//   - EPIPE once this end is shut for sending or the peer is closed or
//     shut for reading (Sigpipe tells whether SIGPIPE goes with it).
//
// A seqpacket message is all or nothing (EMSGSIZE beyond the capacity;
// EAGAIN or ErrBlock while it does not fit). A stream moves what fits: a
// non-blocking sender returns once it moved something (EAGAIN if
// nothing), a blocking one waits (ErrBlock, with the count so far) until
// all is moved.
func (s *UnixSocket) Send(data []byte, done int, waited, nonblock bool, anc *UnixAnc) (int, error) {
	if s.typ == SockSeqpacket && s.err != 0 {
		return 0, s.TakeError()
	}
	if waited && s.Stream() {
		var err error
		switch {
		case s.err != 0:
			err = s.TakeError()
		case s.shut&ShutSend != 0 || s.peer != nil && (s.peer.closed || s.peer.shut&ShutRcv != 0):
			err = EPIPE
		}
		if err != nil && done > 0 {
			return done, nil
		}
		if err != nil {
			return 0, err
		}
	}
	if s.shut&ShutSend != 0 {
		return 0, EPIPE
	}
	if !s.connected || s.listening {
		return 0, ENOTCONN
	}
	p := s.peer
	if p.closed || p.shut&ShutRcv != 0 {
		return 0, EPIPE
	}
	if !s.Stream() {
		switch {
		case len(data) > UnixCapacity:
			return 0, EMSGSIZE
		case p.queued+len(data) > UnixCapacity:
			return 0, wouldBlock(nonblock)
		}
		p.deliver(data, nil, anc)
		return len(data), nil
	}
	if len(data) == 0 {
		return 0, nil
	}
	rest := data[done:]
	if k := min(UnixCapacity-p.queued, len(rest)); k > 0 {
		p.deliver(rest[:k], nil, anc)
		done += k
	}
	switch {
	case done == len(data) || done > 0 && nonblock:
		return done, nil
	case nonblock:
		return 0, EAGAIN
	}
	return done, ErrBlock
}

// Sigpipe reports whether an EPIPE from Send comes with SIGPIPE (unless
// MSG_NOSIGNAL): on a stream that had not waited. A seqpacket send never
// raises it (unix_dgram_sendmsg), nor does a stream send that waited and
// woke to its end shut (sock_alloc_send_pskb's EPIPE).
func (s *UnixSocket) Sigpipe(waited bool) bool { return s.Stream() && !waited }

// SendDgram is a send on a datagram socket: to the socket to designates
// (to nil: the socket's destination, ENOTCONN with none, ECONNREFUSED,
// forgetting it, once it closed). EPIPE if this end is shut for sending
// (before to is asked) or the receiver for reading; EPERM if the
// receiver is connected to another open socket; EMSGSIZE beyond the
// capacity; EAGAIN or ErrBlock while the receiver's queue is full (at
// most UnixDgramQlen messages from others). The datagram carries s's
// name.
func (s *UnixSocket) SendDgram(data []byte, to func() (*UnixSocket, error), nonblock bool, anc *UnixAnc) (int, error) {
	if s.shut&ShutSend != 0 {
		return 0, EPIPE
	}
	t := s.peer
	if to != nil {
		var err error
		if t, err = to(); err != nil {
			return 0, err
		}
	} else if t == nil {
		return 0, ENOTCONN
	} else if t.closed {
		s.peer = nil
		return 0, ECONNREFUSED
	}
	switch {
	case t.peer != nil && t.peer != s && !t.peer.closed:
		return 0, EPERM
	case t.shut&ShutRcv != 0:
		return 0, EPIPE
	case len(data) > UnixCapacity:
		return 0, EMSGSIZE
	case t.peer != s && len(t.queue) >= UnixDgramQlen || t.queued+len(data) > UnixCapacity:
		return 0, wouldBlock(nonblock)
	}
	t.deliver(data, s.name, anc)
	return len(data), nil
}

// Addressed is what a send with an address answers on a stream
// socket: EISCONN when connected, else EOPNOTSUPP (a seqpacket socket
// ignores the address: nil).
func (s *UnixSocket) Addressed() error {
	switch {
	case !s.Stream():
		return nil
	case s.connected:
		return EISCONN
	}
	return EOPNOTSUPP
}

// deliver queues one message on s, with the descriptors of anc if they
// travel yet.
func (s *UnixSocket) deliver(data, from []byte, anc *UnixAnc) {
	m := unixMsg{data: append([]byte(nil), data...), from: from}
	if anc != nil {
		m.cred = anc.Cred
		if !anc.Taken {
			m.rights, anc.Taken = anc.Rights, true
		}
	}
	s.queue = append(s.queue, m)
	s.queued += len(data)
	s.genIn++
}

// UnixHasher is how a socket's hash reaches what it shares: ref numbers
// a socket and reports whether its state was written already (marking
// it written), right writes one descriptor in flight.
type UnixHasher struct {
	Put   func(uint64)
	Ref   func(*UnixSocket) (id uint64, written bool)
	Right func(any)
}

// Hash writes the socket's state for the world hash and, once each
// (numbered by h.Ref), the sockets it reaches: its peer and its waiting
// connections. The namespace key is not written: it holds the host's
// inode number, and the name covers it. The timeouts, which change how
// long later calls wait, are: whether each is zero or positive in the
// flags word, then the ticks of each positive one.
func (s *UnixSocket) Hash(h UnixHasher) {
	put := h.Put
	put(uint64(s.typ))
	PutBytes(put, s.name)
	put(flagBits(s.listening, s.connected, s.closed, s.creds, s.SockTimeouts[0] < 0, s.SockTimeouts[1] < 0, s.SockTimeouts[0] > 0, s.SockTimeouts[1] > 0) |
		uint64(s.shut)<<8 | uint64(s.err)<<16)
	for _, t := range s.SockTimeouts {
		if t > 0 { // flagged above: a socket without timeouts writes nothing more
			put(uint64(t))
		}
	}
	put(uint64(s.maxQueue))
	put(s.genIn)
	put(s.genOut)
	put(uint64(len(s.queue)))
	for _, m := range s.queue {
		PutBytes(put, m.data)
		PutBytes(put, m.from)
		m.cred.Hash(put)
		put(uint64(len(m.rights)))
		for _, r := range m.rights {
			h.Right(r)
		}
	}
	s.peer.hashRef(h)
	put(uint64(len(s.backlog)))
	for _, b := range s.backlog {
		b.hashRef(h)
	}
}

// hashRef writes another socket's number and, the first time, its state.
func (s *UnixSocket) hashRef(h UnixHasher) {
	if s == nil {
		h.Put(0)
		return
	}
	id, old := h.Ref(s)
	h.Put(id)
	if !old {
		s.Hash(h)
	}
}

// flagBits packs flags, the first in bit 0.
func flagBits(bs ...bool) uint64 {
	var v uint64
	for i, b := range bs {
		if b {
			v |= 1 << i
		}
	}
	return v
}
