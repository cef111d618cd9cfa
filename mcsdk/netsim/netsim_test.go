package netsim

import (
	"crypto/sha256"
	"testing"
)

func addr(port uint16) Addr { return Addr{IP: Loopback, Port: port} }

// pairNodes connects node 0 to a listener of node 1 on port 7000 and
// returns (client, server) sockets.
func pairNodes(t *testing.T, n *Network) (*Socket, *Socket) {
	t.Helper()
	l := n.NewSocket(1, Stream)
	if e := n.Bind(l, 7000); e != OK {
		t.Fatal(e)
	}
	if e := n.Listen(l); e != OK {
		t.Fatal(e)
	}
	c := n.NewSocket(0, Stream)
	if e := n.Connect(c, addr(7000)); e != EINPROGRESS {
		t.Fatal(e)
	}
	if _, to, err := n.Deliver(Delivery{Chan: c.out.ID}); err != nil || to != 1 {
		t.Fatalf("SYN delivered to %d, %v", to, err)
	}
	s, ok := n.Accept(l)
	if !ok {
		t.Fatal("nothing to accept")
	}
	return c, s
}

func TestStreamSemantics(t *testing.T) {
	n := New()
	c, s := pairNodes(t, n)
	n.Send(c, []byte("hello "), nil)
	n.Send(c, []byte("world"), nil)
	if _, _, _, ok := n.Recv(s, 100, false); ok {
		t.Fatal("data arrived before delivery")
	}
	ds := n.Deliverable(true)
	if len(ds) != 1 {
		t.Fatalf("FIFO: %d deliverable, want only the head", len(ds))
	}
	if len(n.Deliverable(false)) != 2 {
		t.Fatal("bag: both messages should be deliverable")
	}
	for range 2 {
		if _, to, err := n.Deliver(n.Deliverable(true)[0]); err != nil || to != 1 {
			t.Fatalf("deliver: to %d err %v", to, err)
		}
	}
	steps := []struct {
		max  int
		want string
	}{{4, "hell"}, {4, "o wo"}, {100, "rld"}}
	for _, st := range steps {
		d, _, e, ok := n.Recv(s, st.max, false)
		if !ok || e != OK || string(d) != st.want {
			t.Fatalf("recv(%d) = %q %v %v, want %q", st.max, d, e, ok, st.want)
		}
	}
	n.Close(c, false)
	if s.Readable() {
		t.Fatal("EOF visible before the FIN was delivered")
	}
	n.Deliver(n.Deliverable(true)[0])
	if !s.Readable() {
		t.Fatal("EOF not visible after the FIN was delivered")
	}
}

func TestEOFAfterFIN(t *testing.T) {
	n := New()
	c, s := pairNodes(t, n)
	n.Send(c, []byte("x"), nil)
	n.Close(c, false)
	for len(n.Deliverable(true)) > 0 {
		n.Deliver(n.Deliverable(true)[0])
	}
	if d, _, _, ok := n.Recv(s, 10, false); !ok || string(d) != "x" {
		t.Fatalf("got %q %v", d, ok)
	}
	d, _, e, ok := n.Recv(s, 10, false)
	if !ok || len(d) != 0 || e != OK {
		t.Fatalf("after FIN: %q %v %v, want EOF", d, e, ok)
	}
	if !s.Readable() {
		t.Error("EOF must poll readable")
	}
}

func TestResetAndRefused(t *testing.T) {
	n := New()
	c, s := pairNodes(t, n)
	n.CloseNode(1, true) // node 1 crashes
	if _, e := n.Send(c, []byte("x"), nil); e != OK {
		t.Fatalf("send before the RST arrives: %v", e)
	}
	for len(n.Deliverable(true)) > 0 {
		n.Deliver(n.Deliverable(true)[0])
	}
	if _, _, e, ok := n.Recv(c, 10, false); !ok || e != ECONNRESET {
		t.Fatalf("recv after RST: %v %v, want ECONNRESET", e, ok)
	}
	if _, e := n.Send(c, []byte("x"), nil); e != EPIPE {
		t.Fatalf("send after RST: %v, want EPIPE", e)
	}
	c2 := n.NewSocket(0, Stream)
	if e := n.Connect(c2, addr(7000)); e != EINPROGRESS {
		t.Fatalf("connect to a dead node: %v, want EINPROGRESS (refused on delivery)", e)
	}
	if _, to, _ := n.Deliver(Delivery{Chan: c2.out.ID}); to != -1 || c2.TakeError() != ECONNREFUSED {
		t.Fatalf("SYN to a dead node: delivered to %d, want refused", to)
	}
	_ = s
}

func TestDatagrams(t *testing.T) {
	n := New()
	r := n.NewSocket(1, Dgram)
	n.Bind(r, 9000)
	s := n.NewSocket(0, Dgram)
	n.Send(s, []byte("abc"), &Addr{IP: Loopback, Port: 9000})
	n.Send(s, []byte("defgh"), &Addr{IP: Loopback, Port: 9000})
	n.Send(s, []byte("lost"), &Addr{IP: Loopback, Port: 9999}) // nobody bound
	for len(n.Deliverable(true)) > 0 {
		n.Deliver(n.Deliverable(true)[0])
	}
	for _, want := range []string{"abc", "defg"} {
		d, from, _, ok := n.Recv(r, 4, false)
		if !ok || string(d) != want || from.Port != s.Local.Port {
			t.Fatalf("recv = %q from %v, want %q", d, from, want)
		}
	}
	if _, _, _, ok := n.Recv(r, 4, false); ok {
		t.Fatal("a datagram to an unbound port was delivered")
	}
}

// TestDatagramSendBuffer checks that a datagram is charged to its sender
// until it arrives (or is dropped): a send whose sender's charge has
// reached SO_SNDBUF is EAGAIN, whatever the receiver does, and POLLOUT
// holds below half of it (sock_writeable), so a node flooding a port
// nobody reads holds at most its send buffer in flight.
func TestDatagramSendBuffer(t *testing.T) {
	to := &Addr{IP: Loopback, Port: 9000}
	for _, tc := range []struct {
		name    string
		sndbuf  int // SetBuf's argument (doubled), 0: the default
		size    int
		queued  int // datagrams queued before EAGAIN
		deliver int // then delivered (or dropped: no reader)
		again   int // sends allowed after that
	}{
		{name: "default, 64 KiB datagrams", size: 65000, queued: 4, deliver: 1, again: 1},
		{name: "default, a large one past the buffer", size: 300000, queued: 1, deliver: 1, again: 1},
		{name: "4608 bytes, 1000-byte datagrams", sndbuf: 1, size: 1000, queued: 5, deliver: 2, again: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := New()
			s := n.NewSocket(0, Dgram)
			if tc.sndbuf > 0 {
				s.SetBuf(true, tc.sndbuf)
			}
			queued := 0
			for ; queued < 1000; queued++ {
				if !s.Writable() && s.Outgoing() < s.SndBuf()/2 {
					t.Fatalf("not writable with %d of %d bytes in flight", s.Outgoing(), s.SndBuf())
				}
				if k, e := n.Send(s, make([]byte, tc.size), to); e == EAGAIN {
					break
				} else if e != OK || k != tc.size {
					t.Fatalf("send %d: %d, %v", queued, k, e)
				}
			}
			if queued != tc.queued || s.Writable() {
				t.Fatalf("queued %d before EAGAIN (writable %v), want %d", queued, s.Writable(), tc.queued)
			}
			for i := 0; i < tc.deliver; i++ {
				if i%2 == 0 {
					n.Deliver(n.Deliverable(true)[0]) // to nobody: dropped there
				} else {
					n.Drop(n.Deliverable(true)[0])
				}
			}
			again := 0
			for ; again < 1000; again++ {
				if _, e := n.Send(s, make([]byte, tc.size), to); e == EAGAIN {
					break
				}
			}
			if again != tc.again {
				t.Fatalf("%d sends after %d left the network, want %d", again, tc.deliver, tc.again)
			}
		})
	}
}

func TestBindErrors(t *testing.T) {
	n := New()
	a, b := n.NewSocket(0, Stream), n.NewSocket(1, Stream)
	n.Bind(a, 7000)
	n.Listen(a)
	if e := n.Bind(b, 7000); e != EADDRINUSE {
		t.Errorf("second bind: %v", e)
	}
	u := n.NewSocket(0, Dgram)
	if e := n.Listen(u); e != EOPNOTSUPP {
		t.Errorf("listen on UDP: %v", e)
	}
	if _, e := n.Send(n.NewSocket(0, Stream), []byte("x"), nil); e != ENOTCONN {
		t.Errorf("send unconnected: %v", e)
	}
}

// TestHashCanonical: equal histories hash equally; a delivered message
// changes the hash.
func TestHashCanonical(t *testing.T) {
	build := func(deliver bool) [32]byte {
		n := New()
		c, _ := pairNodes(t, n)
		n.Send(c, []byte("m"), nil)
		if deliver {
			n.Deliver(n.Deliverable(true)[0])
		}
		h := sha256.New()
		n.Hash(h)
		var out [32]byte
		copy(out[:], h.Sum(nil))
		return out
	}
	if first, again := build(false), build(false); first != again {
		t.Fatal("equal histories hash differently")
	}
	if build(false) == build(true) {
		t.Fatal("delivery did not change the hash")
	}
}

// TestMessageIDs: every message sent (SYN, data, FIN, datagram) and every
// duplicate gets a new identity in send order, delivery and drop keep the
// others', and the identities do not enter the hash.
func TestMessageIDs(t *testing.T) {
	n := New()
	srv, cli := n.NewSocket(0, Stream), n.NewSocket(1, Stream)
	n.Bind(srv, 80)
	n.Listen(srv)
	n.Connect(cli, Addr{IP: Loopback, Port: 80})
	syn := n.Channels[0].Msgs[0]
	if syn.ID != 1 || n.LastID() != 1 {
		t.Fatalf("SYN ID %d, LastID %d, want 1, 1", syn.ID, n.LastID())
	}
	if _, _, err := n.Deliver(Delivery{Chan: 0, Index: 0}); err != nil {
		t.Fatal(err)
	}
	d1, d2 := n.NewSocket(2, Dgram), n.NewSocket(3, Dgram)
	n.Bind(d2, 99)
	for _, b := range []string{"a", "b", "c"} {
		if _, e := n.Send(d1, []byte(b), &Addr{IP: Loopback, Port: 99}); e != OK {
			t.Fatal(e)
		}
	}
	c := n.Channels[len(n.Channels)-1]
	ids := func() (out []uint64) {
		for _, m := range c.Msgs {
			out = append(out, m.ID)
		}
		return out
	}
	before := n.LastID()
	dup := n.Duplicate(Delivery{Chan: c.ID, Index: 1})
	if dup != before+1 || n.LastID() != dup || !c.Msgs[2].Copy || c.Msgs[2].ID != dup {
		t.Fatalf("duplicate ID %d (LastID %d), messages %v", dup, n.LastID(), ids())
	}
	n.Drop(Delivery{Chan: c.ID, Index: 0})
	if got := ids(); len(got) != 3 || got[0] != before-1 || got[1] != dup || got[2] != before {
		t.Fatalf("after the drop: IDs %v", got)
	}
	// A network in the same state with other identities hashes equally.
	m := New()
	a, b := m.NewSocket(0, Dgram), m.NewSocket(1, Dgram)
	m.Bind(b, 99)
	m.Send(a, []byte("x"), &Addr{IP: Loopback, Port: 99})
	h2, h3 := sha256.New(), sha256.New()
	m.Hash(h2)
	m.Channels[0].Msgs[0].ID += 100
	m.lastID += 100
	m.Hash(h3)
	if string(h2.Sum(nil)) != string(h3.Sum(nil)) {
		t.Fatal("the hash depends on message identities")
	}
}
