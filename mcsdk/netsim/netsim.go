// Package netsim is weft's virtual network: sockets, connections, and the
// channels of in-flight messages between them. It is pure Go and touches no
// process or host socket; the supervisor translates node syscalls into calls
// on a Network, and the scheduler chooses which in-flight message arrives
// next.
//
// Semantics mirror Linux AF_INET sockets closely enough for ordinary
// programs (see socket(7), tcp(7), udp(7)):
//   - SOCK_STREAM is a byte stream: each send is one message on the
//     connection's channel; delivery appends its bytes to the receiver's
//     buffer, and a receive takes at most the requested length (partial
//     reads). close or shutdown(SHUT_WR) sends a FIN: after it is delivered
//     and the buffer drained, receives return 0 (EOF).
//   - SOCK_DGRAM keeps datagram boundaries; a datagram to a port nobody has
//     bound when it arrives is dropped.
//   - A connection pairs by the port that connect targets; it is established
//     at once if a listener exists (the accept queue is the SYN's arrival).
//
// The environment (a model's client) is a peer whose node index is EnvNode:
// bytes sent to it are handed to Network.OnEnvData at once instead of being
// queued, because the environment observes replies rather than choosing
// their order.
package netsim

import (
	"encoding/binary"
	"fmt"
	"hash"
	"sort"
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

// Addr is an IPv4 address and port.
type Addr struct {
	IP   [4]byte
	Port uint16
}

func (a Addr) String() string {
	return fmt.Sprintf("%d.%d.%d.%d:%d", a.IP[0], a.IP[1], a.IP[2], a.IP[3], a.Port)
}

// Loopback is the address every node appears to have.
var Loopback = [4]byte{127, 0, 0, 1}

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
)

var errnoNames = [...]string{"OK", "EADDRINUSE", "EINVAL", "ENOTCONN", "EISCONN", "ECONNREFUSED", "ECONNRESET", "EPIPE", "EAGAIN", "EDESTADDRREQ", "EOPNOTSUPP"}

func (e Errno) String() string { return errnoNames[e] }

// Message is one unit in flight on a channel.
type Message struct {
	Data []byte
	From Addr // datagram source
	FIN  bool // stream: end of data from the sender
	RST  bool // stream: connection reset by the sender (crash)
	// Sent is the virtual time (ns) at which the message was sent.
	Sent int64
	// Copy marks a duplicate made by the network. When a message arrives
	// is the scheduler's business (package sched), not the network's.
	Copy bool
}

// Channel holds the messages in flight from one socket toward a
// destination: one per direction of a stream connection, one per (socket,
// destination port) pair for datagrams.
type Channel struct {
	ID       int
	From     *Socket
	To       *Socket // stream: the receiving socket; nil for datagrams
	DstPort  uint16  // datagram destination port
	FromNode int
	ToNode   int // receiving node, resolved at creation (-2 unknown)
	Msgs     []Message
}

// Socket is a virtual socket owned by a node (or by the environment).
type Socket struct {
	ID        int
	Node      int
	Kind      Kind
	Local     Addr
	Peer      Addr
	bound     bool
	listening bool
	acceptQ   []*Socket
	peer      *Socket  // stream: the other end
	out       *Channel // stream: channel toward peer
	connected bool
	rbuf      []byte
	rdEOF     bool // FIN received
	reset     bool // RST received
	wrShut    bool
	closed    bool
	dgrams    []Message
	dgramOut  map[uint16]*Channel
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
	// Now is the virtual time (ns) stamped on sent messages.
	Now       int64
	listeners map[uint16]*Socket
	dgramPort map[uint16]*Socket
	ephemeral uint16
}

// New returns an empty network.
func New() *Network {
	return &Network{listeners: map[uint16]*Socket{}, dgramPort: map[uint16]*Socket{}, ephemeral: 40000}
}

// NewSocket creates an unbound socket for node.
func (n *Network) NewSocket(node int, kind Kind) *Socket {
	s := &Socket{ID: len(n.Sockets), Node: node, Kind: kind}
	s.Local.IP = Loopback
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

// Bind assigns a local port (0 picks an ephemeral one), as bind(2).
func (n *Network) Bind(s *Socket, port uint16) Errno {
	if s.bound {
		return EINVAL
	}
	if port == 0 {
		port = n.nextPort()
	}
	if s.Kind == Dgram {
		if n.dgramPort[port] != nil {
			return EADDRINUSE
		}
		n.dgramPort[port] = s
	} else if n.listeners[port] != nil {
		return EADDRINUSE
	}
	s.Local.Port = port
	s.bound = true
	return OK
}

// Listen marks a bound stream socket as accepting connections, as listen(2).
func (n *Network) Listen(s *Socket) Errno {
	if s.Kind != Stream {
		return EOPNOTSUPP
	}
	if !s.bound {
		if e := n.Bind(s, 0); e != OK {
			return e
		}
	}
	if l := n.listeners[s.Local.Port]; l != nil && l != s {
		return EADDRINUSE
	}
	s.listening = true
	n.listeners[s.Local.Port] = s
	return OK
}

// HasListener reports whether a stream socket listens on port.
func (n *Network) HasListener(port uint16) bool { return n.listeners[port] != nil }

// Connect connects s to dst, as connect(2). For a stream socket the
// connection is established at once and queued on the listener.
func (n *Network) Connect(s *Socket, dst Addr) Errno {
	if s.Kind == Dgram {
		if !s.bound {
			n.Bind(s, 0)
		}
		s.Peer = dst
		s.connected = true
		return OK
	}
	if s.connected {
		return EISCONN
	}
	if s.listening {
		return EINVAL
	}
	l := n.listeners[dst.Port]
	if l == nil || l.closed {
		return ECONNREFUSED
	}
	if !s.bound {
		s.Local.Port = n.nextPort()
		s.bound = true
	}
	srv := n.NewSocket(l.Node, Stream)
	srv.Local = l.Local
	srv.Local.IP = Loopback
	srv.bound = true
	n.pair(s, srv)
	l.acceptQ = append(l.acceptQ, srv)
	return OK
}

// pair links two stream sockets into a connection with a channel each way.
func (n *Network) pair(a, b *Socket) {
	a.peer, b.peer = b, a
	a.Peer, b.Peer = b.Local, a.Local
	a.connected, b.connected = true, true
	a.out = n.newChannel(a, b, b.Node)
	b.out = n.newChannel(b, a, a.Node)
}

func (n *Network) newChannel(from, to *Socket, toNode int) *Channel {
	c := &Channel{ID: len(n.Channels), From: from, To: to, FromNode: from.Node, ToNode: toNode}
	n.Channels = append(n.Channels, c)
	return c
}

// ConnectEnv opens a connection from the environment to the listener on
// port and returns the environment's socket, or ECONNREFUSED.
func (n *Network) ConnectEnv(port uint16) (*Socket, Errno) {
	s := n.NewSocket(EnvNode, Stream)
	if e := n.Connect(s, Addr{IP: Loopback, Port: port}); e != OK {
		return nil, e
	}
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
// with dst (dst nil means the connected peer). It returns the byte count.
func (n *Network) Send(s *Socket, data []byte, dst *Addr) (int, Errno) {
	if s.Kind == Dgram {
		return n.sendDgram(s, data, dst)
	}
	switch {
	case s.reset:
		return 0, EPIPE
	case !s.connected:
		return 0, ENOTCONN
	case s.wrShut:
		return 0, EPIPE
	}
	buf := append([]byte(nil), data...)
	if s.peer.Node == EnvNode {
		if n.OnEnvData != nil && !s.peer.closed {
			n.OnEnvData(s.peer, buf)
		}
		return len(data), OK
	}
	s.out.Msgs = append(s.out.Msgs, Message{Data: buf, Sent: n.Now})
	return len(data), OK
}

func (n *Network) sendDgram(s *Socket, data []byte, dst *Addr) (int, Errno) {
	to := s.Peer
	if dst != nil {
		to = *dst
	} else if !s.connected {
		return 0, EDESTADDRREQ
	}
	if !s.bound {
		n.Bind(s, 0)
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
		c = n.newChannel(s, nil, toNode)
		c.DstPort = to.Port
		s.dgramOut[to.Port] = c
	}
	c.Msgs = append(c.Msgs, Message{Data: append([]byte(nil), data...), From: s.Local, Sent: n.Now})
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
	case s.rdEOF:
		return nil, s.Peer, OK, true
	case !s.connected:
		return nil, Addr{}, ENOTCONN, true
	}
	return nil, Addr{}, OK, false
}

// Shutdown stops further sends (SHUT_WR) by sending a FIN.
func (n *Network) Shutdown(s *Socket, wr bool) Errno {
	if s.Kind == Stream && !s.connected {
		return ENOTCONN
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
	s.out.Msgs = append(s.out.Msgs, Message{FIN: !rst, RST: rst, Sent: n.Now})
}

// Close closes s, as close(2) of its last descriptor. A connected stream
// sends a FIN; with reset (the process crashed) it sends an RST instead.
func (n *Network) Close(s *Socket, reset bool) {
	if s.closed {
		return
	}
	s.closed = true
	if s.listening {
		delete(n.listeners, s.Local.Port)
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
		return len(s.dgrams) > 0
	}
	return len(s.rbuf) > 0 || s.rdEOF || s.reset
}

// Hup reports POLLHUP: the peer has closed and everything has been read, or
// the connection was reset.
func (s *Socket) Hup() bool {
	return s.Kind == Stream && s.connected && ((s.rdEOF && s.wrShut) || s.reset)
}

// Writable reports POLLOUT.
func (s *Socket) Writable() bool {
	return s.Kind == Dgram || (s.connected && !s.wrShut)
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
// receives it any more).
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
	if c.To == nil { // datagram
		r := n.dgramPort[c.DstPort]
		if r == nil || r.closed {
			return m, -1, nil
		}
		r.dgrams = append(r.dgrams, m)
		return m, r.Node, nil
	}
	r := c.To
	if r.closed {
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

// Drop removes a message without delivering it (a lost datagram or segment).
func (n *Network) Drop(d Delivery) {
	c := n.Channels[d.Chan]
	c.Msgs = append(c.Msgs[:d.Index:d.Index], c.Msgs[d.Index+1:]...)
}

// Duplicate inserts a copy of a datagram right after it, as a network
// that duplicates packets does; the copy is marked Copy.
func (n *Network) Duplicate(d Delivery) {
	c := n.Channels[d.Chan]
	m := c.Msgs[d.Index]
	m.Copy = true
	c.Msgs = append(c.Msgs, Message{})
	copy(c.Msgs[d.Index+2:], c.Msgs[d.Index+1:])
	c.Msgs[d.Index+1] = m
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

// Hash writes a canonical encoding of the network state to h: every field
// of every socket, channel and message, the port tables and the next
// ephemeral port, with pointers written as creation indices. Socket and
// channel identities are creation indices, which are deterministic within
// a run, so equal histories hash equally; and since nothing is left out,
// two networks hash equally only if no later operation can tell them
// apart (TestHashIsCanonical checks both directions).
func (n *Network) Hash(h hash.Hash) {
	var b [8]byte
	put := func(v int64) { binary.LittleEndian.PutUint64(b[:], uint64(v)); h.Write(b[:]) }
	putBytes := func(p []byte) { put(int64(len(p))); h.Write(p) }
	flag := func(v bool) {
		if v {
			put(1)
		} else {
			put(0)
		}
	}
	sock := func(s *Socket) {
		if s == nil {
			put(-1)
		} else {
			put(int64(s.ID))
		}
	}
	ch := func(c *Channel) {
		if c == nil {
			put(-1)
		} else {
			put(int64(c.ID))
		}
	}
	addr := func(a Addr) { h.Write(a.IP[:]); put(int64(a.Port)) }
	msg := func(m Message) {
		putBytes(m.Data)
		addr(m.From)
		flag(m.FIN)
		flag(m.RST)
		put(m.Sent)
		flag(m.Copy)
	}
	ports := func(m map[uint16]*Socket) {
		keys := make([]int, 0, len(m))
		for p := range m {
			keys = append(keys, int(p))
		}
		sort.Ints(keys)
		put(int64(len(keys)))
		for _, p := range keys {
			put(int64(p))
			sock(m[uint16(p)])
		}
	}
	put(n.Now)
	put(int64(n.ephemeral))
	put(int64(len(n.Sockets)))
	for _, s := range n.Sockets {
		put(int64(s.ID))
		put(int64(s.Node))
		put(int64(s.Kind))
		addr(s.Local)
		addr(s.Peer)
		flag(s.bound)
		flag(s.listening)
		put(int64(len(s.acceptQ)))
		for _, q := range s.acceptQ {
			sock(q)
		}
		sock(s.peer)
		ch(s.out)
		flag(s.connected)
		putBytes(s.rbuf)
		flag(s.rdEOF)
		flag(s.reset)
		flag(s.wrShut)
		flag(s.closed)
		put(int64(len(s.dgrams)))
		for _, m := range s.dgrams {
			msg(m)
		}
		outs := make([]int, 0, len(s.dgramOut))
		for p := range s.dgramOut {
			outs = append(outs, int(p))
		}
		sort.Ints(outs)
		put(int64(len(outs)))
		for _, p := range outs {
			put(int64(p))
			ch(s.dgramOut[uint16(p)])
		}
	}
	put(int64(len(n.Channels)))
	for _, c := range n.Channels {
		put(int64(c.ID))
		sock(c.From)
		sock(c.To)
		put(int64(c.DstPort))
		put(int64(c.FromNode))
		put(int64(c.ToNode))
		put(int64(len(c.Msgs)))
		for _, m := range c.Msgs {
			msg(m)
		}
	}
	ports(n.listeners)
	ports(n.dgramPort)
}

// ReceiverNode is the node that would receive c's next message now: the
// stream peer, or the node bound to a datagram's destination port (-1 if
// none).
func (n *Network) ReceiverNode(c *Channel) int {
	if c.To != nil {
		return c.To.Node
	}
	if r := n.dgramPort[c.DstPort]; r != nil && !r.closed {
		return r.Node
	}
	return -1
}
