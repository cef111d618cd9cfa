package netsim

import "testing"

// deliverAll delivers every message in flight, heads first.
func deliverAll(n *Network) {
	for ds := n.Deliverable(true); len(ds) > 0; ds = n.Deliverable(true) {
		n.Deliver(ds[0])
	}
}

// TestConnectTakesADelivery: a connect is established or refused only
// when its SYN is delivered, whatever happened to the listener meanwhile.
func TestConnectTakesADelivery(t *testing.T) {
	cases := []struct {
		name    string
		listen  bool // node 1 listens before the connect
		between func(n *Network, l, c *Socket)
		want    Errno // the connect's result after delivery
		accepts bool
	}{
		{"listener", true, nil, OK, true},
		{"nobody listens", false, nil, ECONNREFUSED, false},
		{"listener crashes before the SYN arrives", true, func(n *Network, l, c *Socket) { n.CloseNode(1, true) }, ECONNREFUSED, false},
		{"listener starts before the SYN arrives", false, func(n *Network, l, c *Socket) { n.Bind(l, 7000); n.Listen(l) }, OK, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := New()
			l := n.NewSocket(1, Stream)
			if tc.listen {
				n.Bind(l, 7000)
				n.Listen(l)
			}
			c := n.NewSocket(0, Stream)
			if e := n.Connect(c, addr(7000)); e != EINPROGRESS {
				t.Fatalf("connect: %v, want EINPROGRESS", e)
			}
			if c.Writable() || c.Connected() || !c.Connecting() {
				t.Fatal("connected before the SYN was delivered")
			}
			if e := n.Connect(c, addr(7000)); e != EALREADY {
				t.Fatalf("second connect: %v, want EALREADY", e)
			}
			if tc.between != nil {
				tc.between(n, l, c)
			}
			deliverAll(n)
			if !c.Writable() {
				t.Error("not writable after the SYN arrived")
			}
			if e, done := c.ConnectResult(); !done || e != tc.want {
				t.Errorf("result %v (done %v), want %v", e, done, tc.want)
			}
			if _, ok := n.Accept(l); ok != tc.accepts {
				t.Errorf("accept: %v, want %v", ok, tc.accepts)
			}
		})
	}
}

// TestOnAccept: a connection joins the listener's queue, and OnAccept
// hears of it, when its SYN is delivered, before any Accept; Queued lists
// it until an Accept takes it. The environment's connections likewise.
func TestOnAccept(t *testing.T) {
	n := New()
	var heard [][2]int
	n.OnAccept = func(l, s *Socket) { heard = append(heard, [2]int{l.ID, s.ID}) }
	l := n.NewSocket(1, Stream)
	n.Bind(l, 7000)
	n.Listen(l)
	c := n.NewSocket(0, Stream)
	n.Connect(c, addr(7000))
	if len(heard) != 0 || len(l.Queued()) != 0 {
		t.Fatalf("a connection before its SYN arrived: heard %v, queued %v", heard, l.Queued())
	}
	deliverAll(n)
	env, e := n.ConnectEnv(7000)
	if e != OK {
		t.Fatal(e)
	}
	q := l.Queued()
	if len(q) != 2 || len(heard) != 2 || heard[0] != [2]int{l.ID, q[0]} || heard[1] != [2]int{l.ID, q[1]} {
		t.Fatalf("heard %v, queued %v", heard, q)
	}
	s, _ := n.Accept(l)
	if s.ID != q[0] || s.peer != c || len(l.Queued()) != 1 || l.Queued()[0] != env.peer.ID {
		t.Errorf("accepted socket %d (peer %v), queue now %v", s.ID, s.peer == c, l.Queued())
	}
}

// TestAbandonedSYN: a connector that closes before its SYN arrives leaves
// nothing on the listener.
func TestAbandonedSYN(t *testing.T) {
	n := New()
	l := n.NewSocket(1, Stream)
	n.Bind(l, 7000)
	n.Listen(l)
	c := n.NewSocket(0, Stream)
	n.Connect(c, addr(7000))
	n.Close(c, false)
	deliverAll(n)
	if l.Readable() {
		t.Fatal("an abandoned SYN queued a connection")
	}
}

// TestBoundedBuffers: sends stop at SO_SNDBUF + the peer's SO_RCVBUF,
// counting bytes in flight and unread; reading makes room again.
func TestBoundedBuffers(t *testing.T) {
	n := New()
	c, s := pairNodes(t, n)
	c.SetBuf(true, 3000) // 6000
	s.SetBuf(false, 500) // 2304, Linux's minimum
	capacity := 6000 + 2304
	cases := []struct {
		send, want int
		e          Errno
	}{{5000, 5000, OK}, {5000, capacity - 5000, OK}, {10, 0, EAGAIN}}
	for _, tc := range cases {
		k, e := n.Send(c, make([]byte, tc.send), nil)
		if k != tc.want || e != tc.e {
			t.Fatalf("send %d: %d %v, want %d %v", tc.send, k, e, tc.want, tc.e)
		}
	}
	if c.Writable() {
		t.Fatal("a full connection polls writable")
	}
	deliverAll(n) // in flight → unread: still full
	if c.Writable() {
		t.Fatal("unread bytes do not count")
	}
	n.Recv(s, 100, false)
	if n.Room(c) != 100 || !c.Writable() {
		t.Fatalf("room after reading 100: %d", n.Room(c))
	}
}

// TestShutdownRead: SHUT_RD returns the buffered data, then EOF.
func TestShutdownRead(t *testing.T) {
	n := New()
	c, s := pairNodes(t, n)
	n.Send(c, []byte("ab"), nil)
	deliverAll(n)
	n.Shutdown(s, true, false)
	for _, want := range []string{"ab", ""} {
		d, _, e, ok := n.Recv(s, 10, false)
		if !ok || e != OK || string(d) != want {
			t.Fatalf("recv: %q %v %v, want %q", d, e, ok, want)
		}
	}
}

// TestIPv6Listeners is the table of which listener takes which client
// (ipv6(7)) and the addresses each side sees.
func TestIPv6Listeners(t *testing.T) {
	any6 := Addr{Six: Any6, Port: 7000}
	loop6 := Addr{Six: Loop6, Port: 7000}
	mapped := Addr{Six: Mapped, IP: Loopback, Port: 7000}
	v4 := Addr{IP: Loopback, Port: 7000}
	cases := []struct {
		name       string
		bind       Addr
		v6only     bool
		client6    bool
		dst        Addr
		ok         bool
		peerSix    Six // the accepted socket's view of the client
		clientSide Six // the client's local address
	}{
		{"v4 client, [::] listener", any6, false, false, v4, true, Mapped, V4},
		{"v4 client, V6ONLY listener", any6, true, false, v4, false, 0, 0},
		{"::1 client, [::] listener", any6, false, true, loop6, true, Loop6, Loop6},
		{"::1 client, V6ONLY listener", any6, true, true, loop6, true, Loop6, Loop6},
		{"mapped client, [::] listener", any6, false, true, mapped, true, Mapped, Mapped},
		{"::1 client, [::1] listener", loop6, false, true, loop6, true, Loop6, Loop6},
		{"v4 client, [::1] listener", loop6, false, false, v4, false, 0, 0},
		{"::1 client, v4 listener", Addr{Port: 7000}, false, true, loop6, false, 0, 0},
		{"mapped client, v4 listener", Addr{Port: 7000}, false, true, mapped, true, V4, Mapped},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := New()
			l := n.NewSocketIn(1, Stream, tc.bind.V6())
			l.V6Only = tc.v6only
			if e := n.BindAddr(l, tc.bind); e != OK {
				t.Fatal(e)
			}
			n.Listen(l)
			c := n.NewSocketIn(0, Stream, tc.client6)
			if e := n.Connect(c, tc.dst); e != EINPROGRESS {
				t.Fatal(e)
			}
			deliverAll(n)
			s, ok := n.Accept(l)
			if ok != tc.ok {
				t.Fatalf("accepted %v, want %v", ok, tc.ok)
			}
			if !ok {
				if e, _ := c.ConnectResult(); e != ECONNREFUSED {
					t.Errorf("refused client: %v", e)
				}
				return
			}
			if s.Peer.Six != tc.peerSix || c.Local.Six != tc.clientSide || s.Peer.Port != c.Local.Port {
				t.Errorf("server sees %v, client is %v", s.Peer, c.Local)
			}
			if s.V6Only != tc.v6only {
				t.Errorf("accepted socket's IPV6_V6ONLY %v, the listener's %v", s.V6Only, tc.v6only)
			}
		})
	}
}

// TestBindAddresses: only this host's addresses, of the socket's family.
func TestBindAddresses(t *testing.T) {
	cases := []struct {
		v6   bool
		a    Addr
		want Errno
	}{
		{false, Addr{IP: [4]byte{127, 0, 0, 2}, Port: 1}, OK},
		{false, Addr{IP: [4]byte{10, 0, 0, 1}, Port: 1}, EADDRNOTAVAIL},
		{false, Addr{Six: Loop6, Port: 1}, EAFNOSUPPORT},
		{true, Addr{IP: Loopback, Port: 1}, EAFNOSUPPORT},
		{true, Addr{Six: Mapped, IP: [4]byte{10, 0, 0, 1}, Port: 1}, EADDRNOTAVAIL},
		{true, Addr{Six: Loop6, Port: 1}, OK},
	}
	for _, tc := range cases {
		n := New()
		if e := n.BindAddr(n.NewSocketIn(0, Stream, tc.v6), tc.a); e != tc.want {
			t.Errorf("bind %v (v6 %v): %v, want %v", tc.a, tc.v6, e, tc.want)
		}
	}
}

// TestFullDatagramBufferDrops: udp(7) drops what a full buffer cannot take.
func TestFullDatagramBufferDrops(t *testing.T) {
	n := New()
	r := n.NewSocket(1, Dgram)
	n.Bind(r, 9000)
	r.SetBuf(false, 0) // 2304 bytes
	s := n.NewSocket(0, Dgram)
	for range 3 {
		n.Send(s, make([]byte, 1000), &Addr{IP: Loopback, Port: 9000})
	}
	deliverAll(n)
	if len(r.dgrams) != 2 {
		t.Fatalf("%d datagrams queued, want 2 (the third did not fit)", len(r.dgrams))
	}
}

// TestEnvReachesEveryListener: the environment's client connects at once,
// to IPv4, dual-stack and IPv6-only listeners alike.
func TestEnvReachesEveryListener(t *testing.T) {
	for _, tc := range []struct {
		v6, v6only bool
		bind       Addr
	}{{false, false, Addr{Port: 7000}}, {true, false, Addr{Six: Any6, Port: 7000}}, {true, true, Addr{Six: Any6, Port: 7000}}, {true, false, Addr{Six: Loop6, Port: 7000}}} {
		n := New()
		l := n.NewSocketIn(0, Stream, tc.v6)
		l.V6Only = tc.v6only
		n.BindAddr(l, tc.bind)
		n.Listen(l)
		env, e := n.ConnectEnv(7000)
		if e != OK {
			t.Fatalf("%+v: %v", tc, e)
		}
		n.InjectEnv(env, []byte("x"))
		s, ok := n.Accept(l)
		if !ok || s.Pending() != 1 {
			t.Fatalf("%+v: accepted %v", tc, ok)
		}
	}
}

// TestDualListeners: an IPv4 listener and an IPv6-only one share a port,
// as epmd binds 0.0.0.0 and [::] with IPV6_V6ONLY; each takes its own
// family's clients. A dual-stack [::] listener overlaps the IPv4 one
// (EADDRINUSE), and so does a third listener; closing the first leaves
// the second serving.
func TestDualListeners(t *testing.T) {
	n := New()
	l4 := n.NewSocketIn(1, Stream, false)
	if e := n.BindAddr(l4, Addr{Port: 4369}); e != OK {
		t.Fatal(e)
	}
	n.Listen(l4)
	dual := n.NewSocketIn(1, Stream, true)
	if e := n.BindAddr(dual, Addr{Six: Any6, Port: 4369}); e != EADDRINUSE {
		t.Errorf("dual-stack [::] beside 0.0.0.0: %v, want EADDRINUSE", e)
	}
	l6 := n.NewSocketIn(1, Stream, true)
	l6.V6Only = true
	if e := n.BindAddr(l6, Addr{Six: Any6, Port: 4369}); e != OK {
		t.Fatalf("[::] V6ONLY beside 0.0.0.0: %v", e)
	}
	if e := n.Listen(l6); e != OK {
		t.Fatalf("listen: %v", e)
	}
	third := n.NewSocketIn(1, Stream, true)
	third.V6Only = true
	if e := n.BindAddr(third, Addr{Six: Loop6, Port: 4369}); e != EADDRINUSE {
		t.Errorf("a third listener: %v, want EADDRINUSE", e)
	}
	connect := func(v6 bool, dst Addr) *Socket {
		c := n.NewSocketIn(0, Stream, v6)
		if e := n.Connect(c, dst); e != EINPROGRESS {
			t.Fatal(e)
		}
		deliverAll(n)
		return c
	}
	connect(false, Addr{IP: Loopback, Port: 4369})
	connect(true, Addr{Six: Loop6, Port: 4369})
	if _, ok := n.Accept(l4); !ok {
		t.Error("the IPv4 listener took no IPv4 client")
	}
	if _, ok := n.Accept(l6); !ok {
		t.Error("the IPv6-only listener took no IPv6 client")
	}
	n.Close(l4, false)
	if !n.HasListener(4369) {
		t.Fatal("closing the IPv4 listener closed the port")
	}
	c := connect(false, Addr{IP: Loopback, Port: 4369})
	if e, _ := c.ConnectResult(); e != ECONNREFUSED {
		t.Errorf("IPv4 client after the IPv4 listener closed: %v, want ECONNREFUSED", e)
	}
	connect(true, Addr{Six: Loop6, Port: 4369})
	if _, ok := n.Accept(l6); !ok {
		t.Error("the IPv6-only listener took no client after the other closed")
	}
}
