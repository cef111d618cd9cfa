// Package netsim is weft's virtual network: sockets, connections, and the
// channels of in-flight messages between them. It is pure Go and touches no
// process or host socket; the supervisor translates node syscalls into calls
// on a Network, and the scheduler chooses which in-flight message arrives
// next.
//
// Semantics mirror Linux AF_INET and AF_INET6 sockets closely enough for
// ordinary programs (see socket(7), tcp(7), udp(7), ipv6(7)):
//   - Connecting takes a network delay like any message: connect puts a SYN
//     on the new connection's channel, and the connection is established
//     (queued on the listener, the connector writable) when the scheduler
//     delivers it. A SYN to a port nobody listens on when it arrives (a
//     crashed node's, say) is refused then: the connector gets
//     ECONNREFUSED. There is no SYN-ACK: one delivery stands for the
//     handshake.
//   - SOCK_STREAM is a byte stream: each send is one message on the
//     connection's channel; delivery appends its bytes to the receiver's
//     buffer, and a receive takes at most the requested length (partial
//     reads). close or shutdown(SHUT_WR) sends a FIN after the data: after
//     it is delivered and the buffer drained, receives return 0 (EOF).
//   - Buffers are bounded: a stream send takes at most the room left in the
//     sender's send buffer plus the receiver's receive buffer (bytes in
//     flight and bytes unread count against it), so sends may be partial
//     and a full connection is not writable; a datagram that arrives at a
//     full receive buffer is dropped. Sizes default to Linux's
//     (tcp_wmem/tcp_rmem and wmem_default/rmem_default) and follow
//     SO_SNDBUF/SO_RCVBUF, which Linux doubles.
//   - SOCK_DGRAM keeps datagram boundaries; a datagram to a port nobody has
//     bound when it arrives is dropped.
//   - An IPv6 socket bound to :: accepts IPv4 clients too (seen as
//     ::ffff:127.0.0.1) unless IPV6_V6ONLY; one port has at most one
//     listener, whatever its family.
//
// The environment (a model's client) is a peer whose node index is EnvNode:
// its connections are established at once, and bytes sent to it are handed
// to Network.OnEnvData at once instead of being queued, because the
// environment observes replies rather than choosing their order.
package netsim

import (
	"fmt"
)

// EnvNode is the node index of the environment's client sockets.
const EnvNode = -1

// Kind is a socket type.
type Kind int

// Socket kinds.
const (
	Stream Kind = iota // SOCK_STREAM (TCP)
	Dgram              // SOCK_DGRAM (UDP)
)

func (k Kind) String() string {
	if k == Stream {
		return "tcp"
	}
	return "udp"
}

// Errno values netsim reports; the supervisor maps them to unix.Errno.
type Errno int

// Errors, named after the Linux errno they become.
const (
	OK Errno = iota
	EADDRINUSE
	EINVAL
	ENOTCONN
	EISCONN
	ECONNREFUSED
	ECONNRESET
	EPIPE
	EAGAIN
	EDESTADDRREQ
	EOPNOTSUPP
	EINPROGRESS
	EALREADY
	EAFNOSUPPORT
	EADDRNOTAVAIL
)

var errnoNames = [...]string{"OK", "EADDRINUSE", "EINVAL", "ENOTCONN", "EISCONN", "ECONNREFUSED", "ECONNRESET", "EPIPE", "EAGAIN", "EDESTADDRREQ", "EOPNOTSUPP", "EINPROGRESS", "EALREADY", "EAFNOSUPPORT", "EADDRNOTAVAIL"}

func (e Errno) String() string { return errnoNames[e] }

// Message is one unit in flight on a channel.
type Message struct {
	Data []byte
	From Addr // datagram source
	To   Addr // SYN and datagram: the destination
	SYN  bool // stream: a connection request
	FIN  bool // stream: end of data from the sender
	RST  bool // stream: connection reset by the sender (crash)
	// Sent is the virtual time (ns) at which the message was sent.
	Sent int64
	// Copy marks a duplicate made by the network. When a message arrives
	// is the scheduler's business (package sched), not the network's.
	Copy bool
	// ID names the message for those who watch the network (the seeded
	// scheduler keeps each message's arrival time by it, a run's timeline
	// its send): unique in its network, given in send order from 1, a
	// duplicate getting its own. It is not state: nothing the network or
	// a node does depends on it, so Hash leaves it out, and two states
	// reached by different histories stay equal.
	ID uint64
}

// Channel holds the messages in flight from one socket toward a
// destination: one per direction of a stream connection, one per (socket,
// destination port) pair for datagrams.
type Channel struct {
	ID       int
	From     *Socket
	To       *Socket // stream: the receiving socket, nil until the SYN arrives; nil for datagrams
	Stream   bool    // a stream connection's channel (else datagrams)
	DstPort  uint16  // datagram or SYN destination port
	FromNode int
	ToNode   int // receiving node, resolved at creation (-2 unknown)
	Msgs     []Message
}

// Datagram reports whether c carries datagrams (which may be lost,
// duplicated and reordered) rather than a stream's segments.
func (c *Channel) Datagram() bool { return !c.Stream }

// Socket is a virtual socket owned by a node (or by the environment).
type Socket struct {
	ID        int
	Node      int
	Kind      Kind
	V6        bool // AF_INET6
	V6Only    bool // IPV6_V6ONLY
	Local     Addr
	Peer      Addr
	bound     bool
	listening bool
	acceptQ   []*Socket
	peer      *Socket  // stream: the other end
	out       *Channel // stream: channel toward peer
	connected bool
	syn       bool  // stream: a SYN is in flight (connect in progress)
	inProg    bool  // a connect returned EINPROGRESS and none has reported its end yet (SS_CONNECTING)
	soError   Errno // pending error (SO_ERROR): a refused connect
	refused   bool  // the last connect was refused (the socket is closed for I/O)
	rbuf      []byte
	rdEOF     bool // FIN received
	reset     bool // RST received
	rdShut    bool // shutdown(SHUT_RD)
	wrShut    bool
	closed    bool
	dgrams    []Message
	dgramOut  map[uint16]*Channel
	sndBuf    int // SO_SNDBUF as getsockopt reports it
	rcvBuf    int // SO_RCVBUF likewise
}

// Network is the whole virtual network of one run.
type Network struct {
	Sockets  []*Socket
	Channels []*Channel
	// OnEnvData receives bytes a node sends to an environment socket.
	OnEnvData func(env *Socket, data []byte)
	// OnEnvClose is called when a node closes its end of an environment
	// connection.
	OnEnvClose func(env *Socket)
	// OnAccept is called when a listener l establishes a connection, with
	// s, its end of it, as it joins l's accept queue: Linux clones the
	// listener's socket then, so the options the caller keeps are l's as
	// they are at that moment.
	OnAccept func(l, s *Socket)
	// Now is the virtual time (ns) stamped on sent messages.
	Now int64
	// Bufs are the default buffer sizes (a model may change them before
	// the first socket).
	Bufs      BufSizes
	listeners map[uint16]*Socket
	// second listeners: a port's other listener, whose traffic does not
	// overlap the first's (an IPv6 IPV6_V6ONLY one beside an IPv4 one, as
	// epmd binds), made at first use.
	second    map[uint16]*Socket
	dgramPort map[uint16]*Socket
	ephemeral uint16
	lastID    uint64 // the last Message.ID given (not state: see Message.ID)
}

// stamp gives m the network's next message identity.
func (n *Network) stamp(m Message) Message {
	n.lastID++
	m.ID = n.lastID
	return m
}

// LastID is the identity of the last message sent or duplicated (0 none):
// a message with a greater ID is newer than a look that saw LastID.
func (n *Network) LastID() uint64 { return n.lastID }

// New returns an empty network with Linux's default buffer sizes.
func New() *Network {
	return &Network{listeners: map[uint16]*Socket{}, dgramPort: map[uint16]*Socket{}, ephemeral: 40000, Bufs: LinuxBufs}
}

// NewSocket creates an unbound IPv4 socket for node.
func (n *Network) NewSocket(node int, kind Kind) *Socket { return n.NewSocketIn(node, kind, false) }

// NewSocketIn creates an unbound socket of family IPv6 (v6) or IPv4.
func (n *Network) NewSocketIn(node int, kind Kind, v6 bool) *Socket {
	s := &Socket{ID: len(n.Sockets), Node: node, Kind: kind, V6: v6}
	n.defaultBufs(s)
	s.Local.IP = Loopback
	if v6 {
		s.Local = Addr{Six: Any6}
	}
	n.Sockets = append(n.Sockets, s)
	return s
}

func (n *Network) nextPort() uint16 {
	for {
		n.ephemeral++
		p := n.ephemeral
		if n.listeners[p] == nil && n.dgramPort[p] == nil {
			return p
		}
	}
}

// Bind assigns a local port on the wildcard address of s's family (0 picks
// an ephemeral port), as bind(2).
func (n *Network) Bind(s *Socket, port uint16) Errno {
	a := Addr{Port: port}
	if s.V6 {
		a.Six = Any6
	}
	return n.BindAddr(s, a)
}

// BindAddr binds s to a, as bind(2): the address must be of s's family and
// of this host (the wildcard, 127.0.0.0/8, ::1 or a mapped loopback).
func (n *Network) BindAddr(s *Socket, a Addr) Errno {
	if s.bound || s.closed {
		return EINVAL
	}
	if e := bindable(s.V6, a); e != OK {
		return e
	}
	if a.Port == 0 {
		a.Port = n.nextPort()
	}
	if s.Kind == Dgram {
		if n.dgramPort[a.Port] != nil {
			return EADDRINUSE
		}
		n.dgramPort[a.Port] = s
	} else if l := n.listeners[a.Port]; l != nil && (n.second[a.Port] != nil || overlaps(l, s, a)) {
		return EADDRINUSE
	}
	s.Local = a
	s.bound = true
	return OK
}

// Listen marks a bound stream socket as accepting connections, as listen(2).
func (n *Network) Listen(s *Socket) Errno {
	if s.Kind != Stream {
		return EOPNOTSUPP
	}
	if s.connected || s.syn {
		return EINVAL
	}
	if !s.bound {
		if e := n.Bind(s, 0); e != OK {
			return e
		}
	}
	p := s.Local.Port
	l := n.listeners[p]
	switch {
	case l == nil || l == s:
		n.listeners[p] = s
	case n.second[p] == s:
	case n.second[p] != nil || overlaps(l, s, s.Local):
		return EADDRINUSE
	default:
		if n.second == nil {
			n.second = map[uint16]*Socket{}
		}
		n.second[p] = s
	}
	s.listening = true
	return OK
}

// overlaps reports whether a socket s bound to a would take traffic
// listener l takes, which Linux refuses (EADDRINUSE): one of either
// family, unless one is IPv6-only (IPV6_V6ONLY, or bound to ::1) and the
// other IPv4-only.
func overlaps(l, s *Socket, a Addr) bool {
	v4, v6 := takes(s.V6, s.V6Only, a)
	l4, l6 := takes(l.V6, l.V6Only, l.Local)
	return v4 && l4 || v6 && l6
}

// takes reports which traffic a socket of family v6 bound to a takes:
// IPv4, IPv6 (Socket.accepts).
func takes(v6, only bool, a Addr) (bool, bool) {
	switch {
	case !v6:
		return true, false
	case a.Six == Any6:
		return !only, true
	case a.Six == Loop6:
		return false, true
	}
	return true, false
}

// HasListener reports whether a stream socket listens on port.
func (n *Network) HasListener(port uint16) bool {
	return n.listeners[port] != nil || n.second[port] != nil
}

// listenerFor is the live listener that takes a connection to dst, or nil.
func (n *Network) listenerFor(dst Addr) *Socket {
	for _, l := range []*Socket{n.listeners[dst.Port], n.second[dst.Port]} {
		if l != nil && !l.closed && l.accepts(dst) {
			return l
		}
	}
	return nil
}

// Connect connects s to dst, as connect(2). A datagram socket only records
// its peer. A stream socket sends a SYN and returns EINPROGRESS: the
// connection is established, or refused, when the SYN is delivered
// (Connecting tells which); the supervisor parks a blocking connect until
// then. A second Connect while the SYN is in flight returns EALREADY.
func (n *Network) Connect(s *Socket, dst Addr) Errno {
	if e := n.checkDst(s, dst); e != OK {
		return e
	}
	dst = resolve(dst)
	if s.Kind == Dgram {
		if !s.bound {
			n.Bind(s, 0)
		}
		s.Peer = as(s.V6, dst)
		s.connected = true
		return OK
	}
	if s.inProg || s.syn {
		e, _ := s.ConnectResult()
		return e
	}
	switch {
	case s.connected:
		return EISCONN
	case s.listening, s.closed:
		return EINVAL
	}
	n.bindForConnect(s, dst)
	s.Peer = as(s.V6, dst)
	s.refused, s.soError = false, OK
	s.syn, s.inProg = true, true
	toNode := -2
	if l := n.listenerFor(dst); l != nil {
		toNode = l.Node
	}
	s.out = &Channel{ID: len(n.Channels), From: s, Stream: true, DstPort: dst.Port, FromNode: s.Node, ToNode: toNode}
	n.Channels = append(n.Channels, s.out)
	s.out.Msgs = append(s.out.Msgs, n.stamp(Message{SYN: true, From: s.Local, To: dst, Sent: n.Now}))
	return EINPROGRESS
}

// checkDst refuses a destination s's family cannot reach: an IPv4 socket
// an IPv6 address, an IPV6_V6ONLY socket a mapped one.
func (n *Network) checkDst(s *Socket, dst Addr) Errno {
	switch {
	case !s.V6 && dst.V6():
		return EAFNOSUPPORT
	case s.V6 && !dst.V6():
		return EAFNOSUPPORT
	case s.V6Only && dst.Six == Mapped:
		return EAFNOSUPPORT
	}
	return OK
}

// bindForConnect gives a connecting socket its local address: an
// ephemeral port if unbound, and the loopback of the destination's kind.
func (n *Network) bindForConnect(s *Socket, dst Addr) {
	if !s.bound {
		s.Local.Port = n.nextPort()
		s.bound = true
	}
	switch {
	case dst.native6():
		s.Local.Six = Loop6
	case s.V6:
		s.Local.Six, s.Local.IP = Mapped, Loopback
	default:
		s.Local.IP = Loopback
	}
}

// Connecting reports a stream connect in progress (its SYN in flight).
func (s *Socket) Connecting() bool { return s.syn }

// ConnectResult is what a connect call reports about the connect in
// progress, as Linux's __inet_stream_connect does for a socket in
// SS_CONNECTING: EALREADY while the SYN is in flight (done false);
// afterwards, once, OK if established or the error (ECONNREFUSED), and
// then the socket is an ordinary connected or closed one.
func (s *Socket) ConnectResult() (e Errno, done bool) {
	if s.syn {
		return EALREADY, false
	}
	s.inProg = false
	if s.connected {
		return OK, true
	}
	if e := s.TakeError(); e != OK {
		return e, true
	}
	return ECONNREFUSED, true
}

// TakeError returns and clears the socket's pending error, as
// getsockopt(SO_ERROR) does.
func (s *Socket) TakeError() Errno {
	e := s.soError
	s.soError = OK
	return e
}

// Err reports a pending error (POLLERR).
func (s *Socket) Err() bool { return s.soError != OK || s.reset }

// deliverSYN establishes or refuses the connection a SYN asks for.
func (n *Network) deliverSYN(c *Channel, m Message) int {
	s := c.From
	if s.closed || !s.syn || s.out != c {
		return -1 // abandoned: the connector closed or crashed
	}
	s.syn = false
	l := n.listenerFor(m.To)
	if l == nil {
		s.refused, s.soError = true, ECONNREFUSED
		return -1
	}
	n.accept(l, s, c, m.To)
	return l.Node
}

// accept creates l's end of a connection from s (whose channel toward it
// is out) and queues it on l.
func (n *Network) accept(l, s *Socket, out *Channel, dst Addr) {
	srv := n.NewSocketIn(l.Node, Stream, l.V6)
	srv.Local = as(l.V6, dst)
	srv.Local.Port = l.Local.Port
	srv.bound = true
	srv.sndBuf, srv.rcvBuf = l.sndBuf, l.rcvBuf
	srv.V6Only = l.V6Only
	s.peer, srv.peer = srv, s
	srv.Peer = as(l.V6, s.Local)
	s.connected, srv.connected = true, true
	out.To, out.ToNode = srv, l.Node
	srv.out = &Channel{ID: len(n.Channels), From: srv, To: s, Stream: true, DstPort: s.Local.Port, FromNode: l.Node, ToNode: s.Node}
	n.Channels = append(n.Channels, srv.out)
	l.acceptQ = append(l.acceptQ, srv)
	if n.OnAccept != nil {
		n.OnAccept(l, srv)
	}
}

// Queued lists the sockets of the connections a listener has established
// and no Accept has taken yet, by ID, in queue order.
func (s *Socket) Queued() []int {
	ids := make([]int, len(s.acceptQ))
	for i, q := range s.acceptQ {
		ids[i] = q.ID
	}
	return ids
}

// ConnectEnv opens a connection from the environment to the listener on
// port and returns the environment's socket, or ECONNREFUSED. The
// environment's connections are established at once, over IPv4 or, to a
// listener only IPv6 clients reach, over ::1.
func (n *Network) ConnectEnv(port uint16) (*Socket, Errno) {
	dst := Addr{IP: Loopback, Port: port}
	l := n.listenerFor(dst)
	if l == nil {
		dst = Addr{Six: Loop6, Port: port}
		if l = n.listenerFor(dst); l == nil {
			return nil, ECONNREFUSED
		}
	}
	s := n.NewSocketIn(EnvNode, Stream, dst.V6())
	n.bindForConnect(s, dst)
	s.Peer = dst
	out := &Channel{ID: len(n.Channels), From: s, Stream: true, DstPort: port, FromNode: EnvNode, ToNode: l.Node}
	n.Channels = append(n.Channels, out)
	s.out = out
	n.accept(l, s, out, dst)
	return s, OK
}

// Accept takes the next established connection from a listener; ok is false
// when the queue is empty.
func (n *Network) Accept(l *Socket) (s *Socket, ok bool) {
	if len(l.acceptQ) == 0 {
		return nil, false
	}
	s = l.acceptQ[0]
	l.acceptQ = l.acceptQ[1:]
	return s, true
}

// Send queues data from s, as send(2) on a connected socket or sendto(2)
// with dst (dst nil means the connected peer). It returns the byte count,
// which for a stream is at most the room left (Room); EAGAIN means no room
// at all (for a datagram: its sender's charge has reached SO_SNDBUF), or
// a connect still in progress.
func (n *Network) Send(s *Socket, data []byte, dst *Addr) (int, Errno) {
	if s.Kind == Dgram {
		return n.sendDgram(s, data, dst)
	}
	switch {
	case s.reset:
		return 0, EPIPE
	case s.soError != OK:
		return 0, s.TakeError()
	case s.syn:
		return 0, EAGAIN
	case s.refused, s.wrShut && s.connected:
		return 0, EPIPE
	case !s.connected:
		return 0, ENOTCONN
	}
	if s.peer.Node == EnvNode {
		if n.OnEnvData != nil && !s.peer.closed {
			n.OnEnvData(s.peer, append([]byte(nil), data...))
		}
		return len(data), OK
	}
	if len(data) == 0 {
		return 0, OK // a zero-length stream send sends nothing (tcp_sendmsg)
	}
	k := min(len(data), n.Room(s))
	if k == 0 {
		return 0, EAGAIN
	}
	s.out.Msgs = append(s.out.Msgs, n.stamp(Message{Data: append([]byte(nil), data[:k]...), Sent: n.Now}))
	return k, OK
}

func (n *Network) sendDgram(s *Socket, data []byte, dst *Addr) (int, Errno) {
	to := s.Peer
	if dst != nil {
		if e := n.checkDst(s, *dst); e != OK {
			return 0, e
		}
		to = resolve(*dst)
	} else if !s.connected {
		return 0, EDESTADDRREQ
	}
	if !s.bound {
		n.Bind(s, 0)
	}
	if s.Outgoing() >= s.sndBuf {
		// sock_alloc_send_pskb: a datagram is charged to its sender until
		// it arrives, and a sender whose charge has reached SO_SNDBUF
		// waits (EAGAIN when it may not), as on Linux; so a node that
		// floods a port nobody reads holds at most its send buffer in
		// flight, not all it sent.
		return 0, EAGAIN
	}
	c := s.dgramOut[to.Port]
	if c == nil {
		if s.dgramOut == nil {
			s.dgramOut = map[uint16]*Channel{}
		}
		toNode := -2
		if r := n.dgramPort[to.Port]; r != nil {
			toNode = r.Node
		}
		c = &Channel{ID: len(n.Channels), From: s, DstPort: to.Port, FromNode: s.Node, ToNode: toNode}
		n.Channels = append(n.Channels, c)
		s.dgramOut[to.Port] = c
	}
	from := s.Local
	if from.Six == Any6 {
		from.Six = Loop6
		if !to.native6() {
			from.Six, from.IP = Mapped, Loopback
		}
	} else if from.IP == [4]byte{} {
		from.IP = Loopback
	}
	c.Msgs = append(c.Msgs, n.stamp(Message{Data: append([]byte(nil), data...), From: from, To: to, Sent: n.Now}))
	return len(data), OK
}

// InjectEnv places data in the receive buffer of the node socket connected
// to env, at once (the environment's requests are actions of their own).
func (n *Network) InjectEnv(env *Socket, data []byte) {
	if env.peer != nil && !env.peer.closed {
		env.peer.rbuf = append(env.peer.rbuf, data...)
	}
}

// CloseEnv ends the environment's side of a connection: the node reads
// what was injected, then EOF.
func (n *Network) CloseEnv(env *Socket) {
	env.closed = true
	if env.peer != nil {
		env.peer.rdEOF = true
	}
}

// Recv reads up to max bytes (stream) or one datagram (truncated to max).
// It returns ok=false when nothing is available and the call would block;
// a stream at EOF returns ok=true with no data. peek leaves data queued.
func (n *Network) Recv(s *Socket, max int, peek bool) (data []byte, from Addr, e Errno, ok bool) {
	if s.Kind == Dgram {
		if len(s.dgrams) == 0 {
			if s.rdShut {
				return nil, Addr{}, OK, true
			}
			return nil, Addr{}, OK, false
		}
		m := s.dgrams[0]
		if !peek {
			s.dgrams = s.dgrams[1:]
		}
		d := m.Data
		if len(d) > max {
			d = d[:max]
		}
		return d, m.From, OK, true
	}
	if len(s.rbuf) > 0 {
		k := min(max, len(s.rbuf))
		data = append([]byte(nil), s.rbuf[:k]...)
		if !peek {
			s.rbuf = s.rbuf[k:]
		}
		return data, s.Peer, OK, true
	}
	switch {
	case s.reset:
		return nil, s.Peer, ECONNRESET, true
	case s.soError != OK:
		return nil, s.Peer, s.TakeError(), true
	case s.rdEOF, s.rdShut, s.refused:
		return nil, s.Peer, OK, true
	case s.syn:
		return nil, Addr{}, OK, false
	case !s.connected:
		return nil, Addr{}, ENOTCONN, true
	}
	return nil, Addr{}, OK, false
}

// Shutdown stops further receives (rd: SHUT_RD, which Linux answers
// with EOF once the buffer is read) and sends (wr: SHUT_WR, which sends a
// FIN after the data in flight), as shutdown(2).
func (n *Network) Shutdown(s *Socket, rd, wr bool) Errno {
	if s.Kind == Stream && !s.connected {
		return ENOTCONN
	}
	if rd {
		s.rdShut = true
	}
	if wr && s.Kind == Stream && !s.wrShut {
		n.sendFIN(s, false)
	}
	return OK
}

func (n *Network) sendFIN(s *Socket, rst bool) {
	s.wrShut = true
	if s.peer == nil {
		return
	}
	if s.peer.Node == EnvNode {
		if n.OnEnvClose != nil {
			n.OnEnvClose(s.peer)
		}
		return
	}
	s.out.Msgs = append(s.out.Msgs, n.stamp(Message{FIN: !rst, RST: rst, Sent: n.Now}))
}

// Close closes s, as close(2) of its last descriptor. A connected stream
// sends a FIN; with reset (the process crashed) it sends an RST instead.
// A SYN still in flight is abandoned: it establishes nothing on arrival.
func (n *Network) Close(s *Socket, reset bool) {
	if s.closed {
		return
	}
	s.closed = true
	if s.listening {
		p := s.Local.Port
		switch {
		case n.second[p] == s:
			delete(n.second, p)
		case n.second[p] != nil:
			n.listeners[p] = n.second[p]
			delete(n.second, p)
		default:
			delete(n.listeners, p)
		}
		for _, q := range s.acceptQ {
			n.Close(q, true)
		}
		s.acceptQ = nil
	}
	if s.Kind == Dgram {
		if n.dgramPort[s.Local.Port] == s {
			delete(n.dgramPort, s.Local.Port)
		}
		return
	}
	if s.connected && (!s.wrShut || reset) {
		n.sendFIN(s, reset)
	}
}

// Readable reports whether a receive or accept would not block (POLLIN).
func (s *Socket) Readable() bool {
	if s.listening {
		return len(s.acceptQ) > 0
	}
	if s.Kind == Dgram {
		return len(s.dgrams) > 0 || s.rdShut
	}
	return len(s.rbuf) > 0 || s.rdEOF || s.reset || s.rdShut || s.refused || s.soError != OK
}

// Hup reports POLLHUP: the peer has closed and everything has been read, or
// the connection was reset or refused.
func (s *Socket) Hup() bool {
	return s.Kind == Stream && ((s.connected && ((s.rdEOF && s.wrShut) || s.reset)) || s.refused)
}

// RdHup reports POLLRDHUP: the peer has shut down its side (or we ours).
func (s *Socket) RdHup() bool {
	return s.Kind == Stream && (s.rdEOF || s.reset || s.rdShut || s.refused)
}

// Writable reports POLLOUT: a send would not block (room in the buffers),
// or would fail at once (a refused connect, a reset connection).
func (s *Socket) Writable() bool {
	if s.Kind == Dgram {
		return s.Outgoing() < s.sndBuf/2 // sock_writeable
	}
	if s.refused || s.reset || s.soError != OK {
		return true
	}
	return s.connected && !s.wrShut && s.room() > 0
}

// Outgoing is how many bytes s has sent that are still in flight: a
// datagram socket's charge against its send buffer (Send), a stream's
// bytes its peer has not yet received.
func (s *Socket) Outgoing() int {
	if s.Kind == Stream {
		return s.out.bytes()
	}
	k := 0
	for _, c := range s.dgramOut {
		k += c.bytes()
	}
	return k
}

// bytes is how many bytes the messages in flight on c hold (0 for no
// channel).
func (c *Channel) bytes() int {
	k := 0
	if c != nil {
		for _, m := range c.Msgs {
			k += len(m.Data)
		}
	}
	return k
}

// Listening reports whether s accepts connections.
func (s *Socket) Listening() bool { return s.listening }

// Connected reports whether s has a peer.
func (s *Socket) Connected() bool { return s.connected }

// Closed reports whether s has been closed.
func (s *Socket) Closed() bool { return s.closed }

// Pending is the number of bytes (stream) or datagrams waiting to be read.
func (s *Socket) Pending() int {
	if s.Kind == Dgram {
		if len(s.dgrams) == 0 {
			return 0
		}
		return len(s.dgrams[0].Data)
	}
	return len(s.rbuf)
}

// Delivery names one deliverable message: the Index-th message of channel
// Chan (always 0 on FIFO channels).
type Delivery struct {
	Chan  int
	Index int
}

// Deliverable lists the messages that may arrive next, in a canonical order:
// by channel, then index. With fifo, only each channel's head; otherwise
// (a bag) every message.
func (n *Network) Deliverable(fifo bool) []Delivery {
	var out []Delivery
	for _, c := range n.Channels {
		for i := range c.Msgs {
			if fifo && i > 0 {
				break
			}
			out = append(out, Delivery{Chan: c.ID, Index: i})
		}
	}
	return out
}

// Deliver moves one message from its channel to its receiver and returns
// the receiving node (or -1 if the message was dropped because nobody
// receives it any more, or was a refused SYN).
func (n *Network) Deliver(d Delivery) (m Message, toNode int, err error) {
	if d.Chan < 0 || d.Chan >= len(n.Channels) {
		return Message{}, -1, fmt.Errorf("netsim: no channel %d", d.Chan)
	}
	c := n.Channels[d.Chan]
	if d.Index < 0 || d.Index >= len(c.Msgs) {
		return Message{}, -1, fmt.Errorf("netsim: channel %d has no message %d", d.Chan, d.Index)
	}
	m = c.Msgs[d.Index]
	c.Msgs = append(c.Msgs[:d.Index:d.Index], c.Msgs[d.Index+1:]...)
	switch {
	case m.SYN:
		return m, n.deliverSYN(c, m), nil
	case !c.Stream:
		return m, n.deliverDgram(c, m), nil
	}
	r := c.To
	if r == nil || r.closed {
		return m, -1, nil
	}
	switch {
	case m.RST:
		r.reset = true
	case m.FIN:
		r.rdEOF = true
	default:
		r.rbuf = append(r.rbuf, m.Data...)
	}
	return m, r.Node, nil
}

// deliverDgram queues a datagram at the socket bound to its port, if that
// socket takes it and has room.
func (n *Network) deliverDgram(c *Channel, m Message) int {
	r := n.dgramPort[c.DstPort]
	if r == nil || r.closed || !r.accepts(m.To) || r.rdShut {
		return -1
	}
	queued := 0
	for _, q := range r.dgrams {
		queued += len(q.Data)
	}
	if queued+len(m.Data) > r.rcvBuf {
		return -1 // udp(7): a full receive buffer drops the datagram
	}
	m.From = as(r.V6, m.From)
	r.dgrams = append(r.dgrams, m)
	return r.Node
}

// Drop removes a message without delivering it (a lost datagram or segment).
func (n *Network) Drop(d Delivery) {
	c := n.Channels[d.Chan]
	c.Msgs = append(c.Msgs[:d.Index:d.Index], c.Msgs[d.Index+1:]...)
}

// Duplicate inserts a copy of a datagram right after it, as a network
// that duplicates packets does; the copy is marked Copy and has an ID of
// its own, which Duplicate returns.
func (n *Network) Duplicate(d Delivery) uint64 {
	c := n.Channels[d.Chan]
	m := c.Msgs[d.Index]
	m.Copy = true
	m = n.stamp(m)
	c.Msgs = append(c.Msgs, Message{})
	copy(c.Msgs[d.Index+2:], c.Msgs[d.Index+1:])
	c.Msgs[d.Index+1] = m
	return m.ID
}

// InFlight is the number of messages in flight.
func (n *Network) InFlight() int {
	k := 0
	for _, c := range n.Channels {
		k += len(c.Msgs)
	}
	return k
}

// CloseNode closes every socket of node; crash selects RST over FIN.
func (n *Network) CloseNode(node int, crash bool) {
	for _, s := range n.Sockets {
		if s.Node == node && !s.closed {
			n.Close(s, crash)
		}
	}
	// Messages the dead node had sent stay in flight; those addressed to
	// it are dropped at delivery.
}

// ReceiverNode is the node that would receive c's next message now: the
// stream peer, the node listening where a SYN goes, or the node bound to a
// datagram's destination port (-1 if none).
func (n *Network) ReceiverNode(c *Channel) int {
	if c.To != nil {
		return c.To.Node
	}
	if c.Stream {
		if l := n.listeners[c.DstPort]; l != nil && !l.closed {
			return l.Node
		}
		return -1
	}
	if r := n.dgramPort[c.DstPort]; r != nil && !r.closed {
		return r.Node
	}
	return -1
}
