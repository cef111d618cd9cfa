package vkernel

import "testing"

// TestInetEvents checks the poll mask of a virtual network socket in each
// state poll(2) and epoll(7) tell apart.
func TestInetEvents(t *testing.T) {
	cases := []struct {
		name string
		r    InetReadiness
		want uint32
	}{
		{"new socket", InetReadiness{}, 0},
		{"connected, idle", InetReadiness{Writable: true}, PollOut | PollWrNorm},
		{"data to read", InetReadiness{Readable: true, Writable: true}, PollIn | PollRdNorm | PollOut | PollWrNorm},
		{"peer shut its side", InetReadiness{Readable: true, Writable: true, RdHup: true}, PollIn | PollRdNorm | PollOut | PollWrNorm | PollRdHup},
		{"both sides shut", InetReadiness{Readable: true, Hup: true}, PollIn | PollRdNorm | PollHup | PollRdHup},
		{"refused connect", InetReadiness{Readable: true, Writable: true, Hup: true, Err: true}, PollIn | PollRdNorm | PollOut | PollWrNorm | PollHup | PollRdHup | PollErr},
		{"error only", InetReadiness{Err: true}, PollErr},
	}
	for _, c := range cases {
		if got := c.r.Events(); got != c.want {
			t.Errorf("%s: events %#x, want %#x", c.name, got, c.want)
		}
	}
}

// TestInetType checks socket(2)'s choice of TCP or UDP for AF_INET and
// AF_INET6 (ip(7), tcp(7), udp(7)).
func TestInetType(t *testing.T) {
	cases := []struct {
		rule               string
		domain, typ, proto uint64
		stream, v6         bool
		e                  Errno
		unmodelled         string
	}{
		{"ip(7): SOCK_STREAM, protocol 0 is TCP", AfInet, SockStream, 0, true, false, 0, ""},
		{"ip(7): SOCK_STREAM, IPPROTO_TCP", AfInet, SockStream, IPProtoTCP, true, false, 0, ""},
		{"ipv6(7): AF_INET6 SOCK_DGRAM is UDP over IPv6", AfInet6, SockDgram, 0, false, true, 0, ""},
		{"ip(7): SOCK_DGRAM, IPPROTO_UDP", AfInet, SockDgram, IPProtoUDP, false, false, 0, ""},
		{"socket(2): SOCK_NONBLOCK|SOCK_CLOEXEC are the descriptor's", AfInet6, SockStream | SockNonblock | SockCloexec, 0, true, true, 0, ""},
		{"ip(7): SOCK_STREAM with IPPROTO_UDP is EPROTONOSUPPORT", AfInet, SockStream, IPProtoUDP, false, false, EPROTONOSUPPORT, ""},
		{"ip(7): SOCK_DGRAM with IPPROTO_TCP is EPROTONOSUPPORT", AfInet, SockDgram, IPProtoTCP, false, false, EPROTONOSUPPORT, ""},
		{"SOCK_RAW is not modelled", AfInet, 3, 0, false, false, 0, "socket type 3 is not modelled (only SOCK_STREAM, SOCK_DGRAM)"},
		{"AF_PACKET is not modelled", 17, SockDgram, 0, false, false, 0, "socket domain 17 is not modelled (only AF_INET, AF_INET6, AF_UNIX, AF_NETLINK)"},
		{"socket(2): the arguments are ints (bits above 32 ignored)", 1<<32 | AfInet, 1<<32 | SockStream, 1<<32 | IPProtoTCP, true, false, 0, ""},
		{"socket(2): an unknown flag in type is EINVAL", AfInet, SockStream | 0x1000, 0, false, false, EINVAL, ""},
		{"socket(2): a type at or above SOCK_MAX is EINVAL", AfInet, 12, 0, false, false, EINVAL, ""},
		{"socket(2): a family at or above AF_MAX is EAFNOSUPPORT", 99, SockStream, 0, false, false, EAFNOSUPPORT, ""},
		{"socket(2): a negative family is EAFNOSUPPORT", 0xffffffff, SockStream, 0, false, false, EAFNOSUPPORT, ""},
		{"socket(2): the flags are checked before the family", 99, SockStream | 0x1000, 0, false, false, EINVAL, ""},
	}
	for _, c := range cases {
		stream, v6, e, un := InetType(c.domain, c.typ, c.proto)
		if stream != c.stream || v6 != c.v6 || e != c.e || un != c.unmodelled {
			t.Errorf("%s: (%v, %v, %v, %q), want (%v, %v, %v, %q)", c.rule, stream, v6, e, un, c.stream, c.v6, c.e, c.unmodelled)
		}
	}
}

// TestInetCallRules checks the answers of accept, connect, the blocking
// rule of send and recv, shutdown's how and getpeername, each against
// its manual page.
func TestInetCallRules(t *testing.T) {
	cases := []struct {
		rule string
		got  error
		want error
	}{
		{"accept4(2): flags other than SOCK_NONBLOCK|SOCK_CLOEXEC are EINVAL", errOf(Accept4Flags(1)), EINVAL},
		{"accept4(2): SOCK_NONBLOCK|SOCK_CLOEXEC", errOf(Accept4Flags(SockNonblock | SockCloexec)), nil},
		{"accept4(2): flags are an int (bits above 32 ignored)", errOf(Accept4Flags(1<<32 | SockCloexec)), nil},
		{"accept(2): a socket not listening is EINVAL", InetAccept(false, true, false), EINVAL},
		{"accept(2): a pending connection is taken", InetAccept(true, true, true), nil},
		{"accept(2): none pending, non-blocking: EAGAIN", InetAccept(true, false, true), EAGAIN},
		{"accept(2): none pending, blocking: waits", InetAccept(true, false, false), ErrBlock},
		{"connect(2): a non-blocking stream connect is EINPROGRESS", InetConnectStarted(true), EINPROGRESS},
		{"connect(2): a blocking one waits for the SYN", InetConnectStarted(false), ErrBlock},
		{"connect(2): the SYN arrived: connected", InetConnectWait(true, 0, false), nil},
		{"connect(2): the SYN was refused: ECONNREFUSED", InetConnectWait(true, ECONNREFUSED, true), ECONNREFUSED},
		{"socket(7): SO_SNDTIMEO passed before the SYN arrived: EINPROGRESS", InetConnectWait(false, 0, true), EINPROGRESS},
		{"connect(2): still on its way: waits", InetConnectWait(false, 0, false), ErrBlock},
		{"recv(2): nothing, non-blocking: EAGAIN", InetBlock(true, false), EAGAIN},
		{"socket(7): nothing when SO_RCVTIMEO passed: EAGAIN", InetBlock(false, true), EAGAIN},
		{"recv(2): nothing, blocking: waits", InetBlock(false, false), ErrBlock},
		{"getpeername(2): not connected is ENOTCONN", errOf(InetPeername(false)), ENOTCONN},
		{"getpeername(2): connected", errOf(InetPeername(true)), nil},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.rule, c.got, c.want)
		}
	}
}

// errOf is an errno as an error, nil for 0.
func errOf(e Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// TestStreamSend checks a stream send's answer after each attempt
// (send(2), tcp(7)).
func TestStreamSend(t *testing.T) {
	cases := []struct {
		rule        string
		e           Errno
		nonblocking bool
		sent, total int
		n           int
		err         error
	}{
		{"all queued: the count", 0, false, 10, 10, 10, nil},
		{"part queued, non-blocking: the count", EAGAIN, true, 4, 10, 4, nil},
		{"part queued, non-blocking, room left: the count", 0, true, 4, 10, 4, nil},
		{"nothing queued, non-blocking: EAGAIN", EAGAIN, true, 0, 10, 0, EAGAIN},
		{"part queued, blocking: waits for room", 0, false, 4, 10, 4, ErrBlock},
		{"buffers full, blocking: waits", EAGAIN, false, 0, 10, 0, ErrBlock},
		{"peer gone, nothing sent: EPIPE", EPIPE, false, 0, 10, 0, EPIPE},
		{"reset, nothing sent: ECONNRESET", ECONNRESET, true, 0, 10, 0, ECONNRESET},
		{"an error after some was sent: the count", EPIPE, false, 6, 10, 6, nil},
	}
	for _, c := range cases {
		n, err := StreamSend(c.e, c.nonblocking, c.sent, c.total)
		if n != c.n || err != c.err {
			t.Errorf("%s: (%d, %v), want (%d, %v)", c.rule, n, err, c.n, c.err)
		}
	}
}

// TestWaitAll checks when MSG_WAITALL waits for more (recv(2)).
func TestWaitAll(t *testing.T) {
	cases := []struct {
		rule                     string
		pending, max             int
		hup, connected, timedOut bool
		want                     bool
	}{
		{"fewer bytes than asked on a live connection: wait", 3, 10, false, true, false, true},
		{"all asked are there: take them", 10, 10, false, true, false, false},
		{"the peer has shut: take what there is", 3, 10, true, true, false, false},
		{"not connected: take what there is", 3, 10, false, false, false, false},
		{"SO_RCVTIMEO passed: take what there is", 3, 10, false, true, true, false},
	}
	for _, c := range cases {
		if got := WaitAll(c.pending, c.max, c.hup, c.connected, c.timedOut); got != c.want {
			t.Errorf("%s: %v", c.rule, got)
		}
	}
}

// TestInetShutdown checks shutdown(2)'s how.
func TestInetShutdown(t *testing.T) {
	cases := []struct {
		how    uint64
		rd, wr bool
		e      Errno
	}{{ShutRd, true, false, 0}, {ShutWr, false, true, 0}, {ShutRdwr, true, true, 0}, {3, false, false, EINVAL},
		{1<<32 | ShutWr, false, true, 0}, {0xffffffff, false, false, EINVAL}} // how is an int
	for _, c := range cases {
		if rd, wr, e := InetShutdown(c.how); rd != c.rd || wr != c.wr || e != c.e {
			t.Errorf("how %d: (%v, %v, %v), want (%v, %v, %v)", c.how, rd, wr, e, c.rd, c.wr, c.e)
		}
	}
}
