package vkernel

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// fakeInet is an inet socket as the network would keep it.
type fakeInet struct {
	stream, v6, bound, listening, v6only bool
	snd, rcv                             int
	err                                  Errno
}

func (s *fakeInet) Stream() bool      { return s.stream }
func (s *fakeInet) V6() bool          { return s.v6 }
func (s *fakeInet) Bound() bool       { return s.bound }
func (s *fakeInet) Listening() bool   { return s.listening }
func (s *fakeInet) V6Only() bool      { return s.v6only }
func (s *fakeInet) SetV6Only(on bool) { s.v6only = on }
func (s *fakeInet) Buf(snd bool) int {
	if snd {
		return s.snd
	}
	return s.rcv
}
func (s *fakeInet) SetBuf(snd bool, n int) {
	if snd {
		s.snd = n
	} else {
		s.rcv = n
	}
}
func (s *fakeInet) TakeError() Errno { e := s.err; s.err = 0; return e }

func i32(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

var (
	tcp4 = fakeInet{stream: true}
	tcp6 = fakeInet{stream: true, v6: true}
	udp4 = fakeInet{}
)

// TestSetsockoptLen checks setsockopt's answers before the value is read.
func TestSetsockoptLen(t *testing.T) {
	cases := []struct {
		rule     string
		sock     fakeInet
		opt      SockOpt
		optlen   uint64
		n        int
		e        Errno
		modelled bool
	}{
		{"socket(7): SO_REUSEADDR takes an int", tcp4, SockOpt{SolSocket, 2}, 4, 4, 0, true},
		{"socket(7): a longer optlen reads the int only", tcp4, SockOpt{SolSocket, 2}, 8, 4, 0, true},
		{"socket(7): optlen shorter than an int is EINVAL", tcp4, SockOpt{SolSocket, 2}, 3, 0, EINVAL, true},
		{"socket(7): SO_RCVTIMEO reads a struct timeval", tcp4, SockOpt{SolSocket, SoRcvtimeo}, 16, 16, 0, true},
		{"socket(7): SO_LINGER reads a struct linger", tcp4, SockOpt{SolSocket, 13}, 8, 8, 0, true},
		{"socket(7): a short timeval is read as given (Set refuses it)", tcp4, SockOpt{SolSocket, SoSndtimeo}, 8, 8, 0, true},
		{"socket(7): SO_TYPE is read-only: ENOPROTOOPT", tcp4, SockOpt{SolSocket, SoType}, 4, 0, ENOPROTOOPT, true},
		{"socket(7): SO_ERROR is read-only: ENOPROTOOPT", tcp4, SockOpt{SolSocket, SoError}, 4, 0, ENOPROTOOPT, true},
		{"tcp(7): TCP_NODELAY on a UDP socket is ENOPROTOOPT", udp4, SockOpt{SolTCP, 1}, 4, 0, ENOPROTOOPT, true},
		{"tcp(7): TCP_NODELAY on a TCP socket", tcp4, SockOpt{SolTCP, 1}, 4, 4, 0, true},
		{"ipv6(7): IPV6_V6ONLY on an IPv4 socket is ENOPROTOOPT", tcp4, SockOpt{SolIPv6, IPv6V6Only}, 4, 0, ENOPROTOOPT, true},
		{"ipv6(7): IPV6_TCLASS on an IPv4 socket is ENOPROTOOPT", udp4, SockOpt{SolIPv6, 67}, 4, 0, ENOPROTOOPT, true},
		{"ipv6(7): IPV6_TCLASS on an IPv6 socket", tcp6, SockOpt{SolIPv6, 67}, 4, 4, 0, true},
		{"ip(7): IP_TOS on a UDP socket", udp4, SockOpt{SolIP, 1}, 4, 4, 0, true},
		{"tcp(7): TCP_INFO is not modelled", tcp4, SockOpt{SolTCP, 11}, 4, 0, 0, false},
		{"an unknown level is not modelled", tcp4, SockOpt{99, 7}, 4, 0, 0, false},
	}
	for _, c := range cases {
		s := c.sock
		n, e, modelled := SetsockoptLen(&s, c.opt, c.optlen)
		if n != c.n || e != c.e || modelled != c.modelled {
			t.Errorf("%s: (%d, %v, %v), want (%d, %v, %v)", c.rule, n, e, modelled, c.n, c.e, c.modelled)
		}
	}
}

// TestSetGetOption sets one option and reads one back: the value kept,
// the errno, and what the socket's own state became.
func TestSetGetOption(t *testing.T) {
	tv := append(binary.LittleEndian.AppendUint64(nil, 2), binary.LittleEndian.AppendUint64(nil, 500000)...)
	cases := []struct {
		rule    string
		sock    fakeInet
		opt     SockOpt
		val     []byte
		setErr  Errno
		get     []byte // read back after the set
		getErr  Errno
		checked func(*fakeInet) bool
	}{
		{"socket(7): a boolean is kept as 1", tcp4, SockOpt{SolSocket, 2}, i32(7), 0, i32(1), 0, nil},
		{"socket(7): a boolean is kept as 0", tcp4, SockOpt{SolSocket, 9}, i32(0), 0, i32(0), 0, nil},
		{"tcp(7): TCP_KEEPIDLE within 1..32767 is kept", tcp4, SockOpt{SolTCP, 4}, i32(60), 0, i32(60), 0, nil},
		{"tcp(7): TCP_KEEPIDLE 0 is EINVAL", tcp4, SockOpt{SolTCP, 4}, i32(0), EINVAL, i32(7200), 0, nil},
		{"tcp(7): TCP_KEEPCNT above 127 is EINVAL", tcp4, SockOpt{SolTCP, 6}, i32(128), EINVAL, i32(9), 0, nil},
		{"tcp(7): TCP_MAXSEG below 88 is EINVAL", tcp4, SockOpt{SolTCP, 2}, i32(80), EINVAL, i32(536), 0, nil},
		{"ip(7): IP_TTL 0 is EINVAL", udp4, SockOpt{SolIP, 2}, i32(0), EINVAL, i32(64), 0, nil},
		{"ip(7): IP_TOS 255 is kept on UDP", udp4, SockOpt{SolIP, 1}, i32(255), 0, i32(255), 0, nil},
		{"ip(7): IP_TOS keeps its low byte (300 is 44)", udp4, SockOpt{SolIP, 1}, i32(300), 0, i32(44), 0, nil},
		{"ip(7): IP_TOS -1 is 255 on UDP", udp4, SockOpt{SolIP, 1}, i32(-1), 0, i32(255), 0, nil},
		{"ip(7), tcp(7): IP_TOS on TCP keeps the kernel's ECN bits (255 is 252)", tcp4, SockOpt{SolIP, 1}, i32(255), 0, i32(252), 0, nil},
		{"ip(7): IP_TOS 17 on TCP is 16", tcp4, SockOpt{SolIP, 1}, i32(17), 0, i32(16), 0, nil},
		{"ip(7): IP_TTL -1 asks for the default, 64", udp4, SockOpt{SolIP, 2}, i32(-1), 0, i32(64), 0, nil},
		{"ip(7): IP_TTL -2 is EINVAL", udp4, SockOpt{SolIP, 2}, i32(-2), EINVAL, i32(64), 0, nil},
		{"ip(7): IP_TTL 256 is EINVAL", udp4, SockOpt{SolIP, 2}, i32(256), EINVAL, i32(64), 0, nil},
		{"ipv6(7): IPV6_UNICAST_HOPS 0 is kept", tcp6, SockOpt{SolIPv6, 16}, i32(0), 0, i32(0), 0, nil},
		{"ipv6(7): IPV6_UNICAST_HOPS -2 is EINVAL", tcp6, SockOpt{SolIPv6, 16}, i32(-2), EINVAL, i32(64), 0, nil},
		{"ipv6(7): IPV6_TCLASS -1 asks for the default, 0", tcp6, SockOpt{SolIPv6, 67}, i32(-1), 0, i32(0), 0, nil},
		{"ipv6(7): IPV6_TCLASS 256 is EINVAL", tcp6, SockOpt{SolIPv6, 67}, i32(256), EINVAL, i32(0), 0, nil},
		{"ipv6(7): IPV6_UNICAST_HOPS -1 asks for the route's default, 64", tcp6, SockOpt{SolIPv6, 16}, i32(-1), 0, i32(64), 0, nil},
		{"ip(7): IP_RECVTOS on is EINVAL (weft carries no ancillary data)", tcp4, SockOpt{SolIP, 13}, i32(1), EINVAL, i32(0), 0, nil},
		{"ip(7): IP_RECVTOS off is kept", tcp4, SockOpt{SolIP, 13}, i32(0), 0, i32(0), 0, nil},
		{"socket(7): SO_RCVTIMEO is kept as set", tcp4, SockOpt{SolSocket, SoRcvtimeo}, tv, 0, tv, 0, nil},
		{"socket(7): a timeval shorter than its struct is EINVAL", tcp4, SockOpt{SolSocket, SoRcvtimeo}, tv[:8], EINVAL, make([]byte, 16), 0, nil},
		{"socket(7): SO_LINGER is kept as set", tcp4, SockOpt{SolSocket, 13}, []byte{1, 0, 0, 0, 5, 0, 0, 0}, 0, []byte{1, 0, 0, 0, 5, 0, 0, 0}, 0, nil},
		{"socket(7): SO_SNDBUF sizes the socket's buffer", tcp4, SockOpt{SolSocket, SoSndbuf}, i32(4096), 0, i32(4096), 0,
			func(s *fakeInet) bool { return s.snd == 4096 && s.rcv == 0 }},
		{"socket(7): SO_RCVBUF sizes the socket's buffer", tcp4, SockOpt{SolSocket, SoRcvbuf}, i32(8192), 0, i32(8192), 0,
			func(s *fakeInet) bool { return s.rcv == 8192 && s.snd == 0 }},
		{"ipv6(7): IPV6_V6ONLY before bind", tcp6, SockOpt{SolIPv6, IPv6V6Only}, i32(1), 0, i32(1), 0,
			func(s *fakeInet) bool { return s.v6only }},
		{"ipv6(7): IPV6_V6ONLY after bind is EINVAL", fakeInet{stream: true, v6: true, bound: true}, SockOpt{SolIPv6, IPv6V6Only}, i32(1), EINVAL, i32(0), 0,
			func(s *fakeInet) bool { return !s.v6only }},
		{"tcp(7): TCP_NODELAY read on a UDP socket is ENOPROTOOPT", udp4, SockOpt{SolTCP, 1}, i32(1), 0, nil, ENOPROTOOPT, nil},
	}
	for _, c := range cases {
		s := c.sock
		var o InetOptValues
		if e := o.Set(3, &s, c.opt, c.val, nil); e != c.setErr {
			t.Errorf("%s: set %v, want %v", c.rule, e, c.setErr)
		}
		got, ge := o.Get(3, &s, c.opt)
		if !bytes.Equal(got, c.get) || ge != c.getErr {
			t.Errorf("%s: get (%v, %v), want (%v, %v)", c.rule, got, ge, c.get, c.getErr)
		}
		if c.checked != nil && !c.checked(&s) {
			t.Errorf("%s: socket became %+v", c.rule, s)
		}
		if c.checked != nil || c.getErr != 0 {
			continue // the value is the socket's own, or unreadable
		}
		if other, _ := o.Get(4, &s, c.opt); !bytes.Equal(other, mustDefault(t, c.opt)) {
			t.Errorf("%s: another socket reads %v, want the default", c.rule, other)
		}
	}
}

// TestPriorityPrivilege checks SO_PRIORITY outside 0..6: kept for a
// caller with CAP_NET_ADMIN or CAP_NET_RAW, EPERM (not EINVAL) for one
// without (socket(7)); within 0..6 the privilege is not asked.
func TestPriorityPrivilege(t *testing.T) {
	prio := SockOpt{SolSocket, 12}
	yes, no := func() bool { return true }, func() bool { return false }
	asked := func() bool { t.Error("privilege asked for SO_PRIORITY 6"); return false }
	cases := []struct {
		rule string
		val  int32
		priv func() bool
		e    Errno
		get  int32
	}{
		{"7 with the capability is kept", 7, yes, 0, 7},
		{"-1 with the capability is kept", -1, yes, 0, -1},
		{"7 without is EPERM", 7, no, EPERM, 0},
		{"-1 without is EPERM", -1, no, EPERM, 0},
		{"7 with no credentials known is EPERM", 7, nil, EPERM, 0},
		{"6 needs no capability", 6, asked, 0, 6},
	}
	for _, c := range cases {
		s := tcp4
		var o InetOptValues
		if e := o.Set(1, &s, prio, i32(c.val), c.priv); e != c.e {
			t.Errorf("%s: %v, want %v", c.rule, e, c.e)
		}
		if got, _ := o.Get(1, &s, prio); !bytes.Equal(got, i32(c.get)) {
			t.Errorf("%s: reads %v, want %d", c.rule, got, c.get)
		}
	}
}

// mustDefault is the option's value before any set.
func mustDefault(t *testing.T, opt SockOpt) []byte {
	spec, ok := InetOption(opt)
	if !ok {
		t.Fatalf("%v: no spec", opt)
	}
	if spec.size() > 4 {
		return make([]byte, spec.size())
	}
	return i32(int32(spec.Def))
}

// TestGetReadOnly checks the options getsockopt reports from the socket's
// own state (socket(7)).
func TestGetReadOnly(t *testing.T) {
	cases := []struct {
		rule string
		sock fakeInet
		opt  uint64
		want int32
	}{
		{"SO_TYPE of a TCP socket is SOCK_STREAM", tcp4, SoType, SockStream},
		{"SO_TYPE of a UDP socket is SOCK_DGRAM", udp4, SoType, SockDgram},
		{"SO_DOMAIN of an IPv4 socket is AF_INET", tcp4, SoDomain, AfInet},
		{"SO_DOMAIN of an IPv6 socket is AF_INET6", tcp6, SoDomain, AfInet6},
		{"SO_PROTOCOL of a TCP socket is IPPROTO_TCP", tcp4, SoProtocol, IPProtoTCP},
		{"SO_PROTOCOL of a UDP socket is IPPROTO_UDP", udp4, SoProtocol, IPProtoUDP},
		{"SO_ACCEPTCONN of a listener is 1", fakeInet{stream: true, listening: true}, SoAcceptconn, 1},
		{"SO_ACCEPTCONN of another socket is 0", tcp4, SoAcceptconn, 0},
		{"SO_INCOMING_NAPI_ID is 0 (loopback)", tcp4, SoNapiID, 0},
		{"SO_SNDBUF is the socket's", fakeInet{stream: true, snd: 2304}, SoSndbuf, 2304},
		{"SO_RCVBUF is the socket's", fakeInet{stream: true, rcv: 131072}, SoRcvbuf, 131072},
		{"SO_ERROR reports the pending error", fakeInet{stream: true, err: ECONNREFUSED}, SoError, int32(ECONNREFUSED)},
	}
	var o InetOptValues
	for _, c := range cases {
		s := c.sock
		got, e := o.Get(1, &s, SockOpt{SolSocket, c.opt})
		if e != 0 || !bytes.Equal(got, i32(c.want)) {
			t.Errorf("%s: (%v, %v), want %d", c.rule, got, e, c.want)
		}
	}
	// socket(7): SO_ERROR clears the error it reports.
	s := fakeInet{stream: true, err: ECONNREFUSED}
	o.Get(1, &s, SockOpt{SolSocket, SoError})
	if got, _ := o.Get(1, &s, SockOpt{SolSocket, SoError}); !bytes.Equal(got, i32(0)) {
		t.Errorf("SO_ERROR read twice: %v, want 0", got)
	}
	// An option weft does not model reads as nil, no errno.
	if got, e := o.Get(1, &s, SockOpt{SolTCP, 11}); got != nil || e != 0 {
		t.Errorf("TCP_INFO: (%v, %v), want nil", got, e)
	}
}

// TestTimeout checks SO_RCVTIMEO and SO_SNDTIMEO in nanoseconds, each
// socket's its own: {1, 250000} is 312.5 ticks of HZ 250, rounded up.
func TestTimeout(t *testing.T) {
	var o InetOptValues
	s := tcp4
	if e := o.Set(5, &s, SockOpt{SolSocket, SoSndtimeo}, tv(1, 250000), nil); e != 0 {
		t.Fatal(e)
	}
	if got := o.Timeout(5, true); got != 1_252_000_000 {
		t.Errorf("SO_SNDTIMEO %d ns", got)
	}
	if got := o.Timeout(5, false); got != 0 {
		t.Errorf("SO_RCVTIMEO %d ns, want 0 (unset)", got)
	}
	if got := o.Timeout(6, true); got != 0 {
		t.Errorf("another socket's SO_SNDTIMEO %d ns, want 0", got)
	}
}

// TestTimevalRules checks sock_set_timeout's rules: tv_usec outside
// 0..999999 is EDOM and changes nothing; a negative tv_sec is a timeout
// of zero (Timeout negative), which getsockopt reads as {0, 0}.
func TestTimevalRules(t *testing.T) {
	for _, tc := range []struct {
		sec, usec int64
		e         Errno
		timeout   int64 // Timeout after the call (2 s set before it)
		read      []byte
	}{
		{1, 1000000, EDOM, 2e9, tv(2, 0)},
		{1, -1, EDOM, 2e9, tv(2, 0)},
		{-1, -1, EDOM, 2e9, tv(2, 0)},
		{0, 999999, 0, 1e9, tv(1, 0)}, // 249.99975 ticks, rounded up to 250

		{-5, 0, 0, -1, tv(0, 0)},
		{-1, 999999, 0, -1, tv(0, 0)},
		{0, 0, 0, 0, tv(0, 0)},
	} {
		for _, name := range []uint64{SoRcvtimeo, SoSndtimeo} {
			var o InetOptValues
			s := udp4
			opt := SockOpt{SolSocket, name}
			if e := o.Set(1, &s, opt, tv(2, 0), nil); e != 0 {
				t.Fatal(e)
			}
			if e := o.Set(1, &s, opt, tv(tc.sec, tc.usec), nil); e != tc.e {
				t.Errorf("option %d {%d,%d}: %v, want %v", name, tc.sec, tc.usec, e, tc.e)
			}
			if got := o.Timeout(1, name == SoSndtimeo); got != tc.timeout {
				t.Errorf("option %d {%d,%d}: Timeout %d, want %d", name, tc.sec, tc.usec, got, tc.timeout)
			}
			if got, e := o.Get(1, &s, opt); e != 0 || !bytes.Equal(got, tc.read) {
				t.Errorf("option %d {%d,%d}: getsockopt %v %v, want %v", name, tc.sec, tc.usec, got, e, tc.read)
			}
		}
	}
}

// TestGetsockoptLen checks getsockopt's cut of the value to *optlen.
func TestGetsockoptLen(t *testing.T) {
	cases := []struct {
		have uint32
		n, k int
		e    Errno
	}{{4, 4, 4, 0}, {2, 4, 2, 0}, {100, 16, 16, 0}, {0, 4, 0, 0}, {0xffffffff, 4, 0, EINVAL}}
	for _, c := range cases {
		if k, e := GetsockoptLen(c.have, c.n); k != c.k || e != c.e {
			t.Errorf("optlen %d, value %d: (%d, %v), want (%d, %v)", c.have, c.n, k, e, c.k, c.e)
		}
	}
}

// TestOptionNames checks that every option served or named has a name in
// words under its level, and that none is both.
func TestOptionNames(t *testing.T) {
	for opt, spec := range inetOptions {
		if got := OptionName(opt); !strings.Contains(got, " "+spec.Name+" (") || strings.HasPrefix(got, "level ") {
			t.Errorf("%v: %q", opt, got)
		}
		if _, named := unmodelledOptionNames[opt]; named {
			t.Errorf("%s is served and listed as not modelled", spec.Name)
		}
	}
	for opt, name := range unmodelledOptionNames {
		if got := OptionName(opt); !strings.Contains(got, " "+name+" (") || strings.HasPrefix(got, "level ") {
			t.Errorf("%v: %q", opt, got)
		}
	}
	for _, c := range []struct {
		opt  SockOpt
		want string
	}{
		{SockOpt{SolTCP, 11}, "SOL_TCP TCP_INFO (11)"},
		{SockOpt{SolSocket, SoError}, "SOL_SOCKET SO_ERROR (4)"},
		{SockOpt{99, 7}, "level 99 option (7)"},
		{SockOpt{SolIP, 99}, "SOL_IP option (99)"},
	} {
		if got := OptionName(c.opt); got != c.want {
			t.Errorf("%v: %q, want %q", c.opt, got, c.want)
		}
	}
}

// TestInherit checks which option values a connection takes from its
// listener (Linux's clone at the handshake, testdata/diff/acceptopts.c
// in mcsdk/supervisor shows each natively): all it has set, but
// SO_PRIORITY, TCP_DEFER_ACCEPT, TCP_FASTOPEN and TCP_QUICKACK; values
// set on the listener later are not the connection's.
func TestInherit(t *testing.T) {
	const l, a, other = 3, 4, 5
	var o InetOptValues
	s := tcp4
	set := func(id int, opt SockOpt, v int32) {
		t.Helper()
		if e := o.Set(id, &s, opt, i32(v), nil); e != 0 {
			t.Fatalf("set %s: %v", OptionName(opt), e)
		}
	}
	cases := []struct {
		opt       SockOpt
		val       int32
		inherited bool
	}{
		{SockOpt{SolSocket, 2}, 1, true},   // SO_REUSEADDR
		{SockOpt{SolSocket, 9}, 1, true},   // SO_KEEPALIVE
		{SockOpt{SolTCP, 1}, 1, true},      // TCP_NODELAY
		{SockOpt{SolTCP, 4}, 100, true},    // TCP_KEEPIDLE
		{SockOpt{SolTCP, 18}, 5000, true},  // TCP_USER_TIMEOUT
		{SockOpt{SolIP, 1}, 0x10, true},    // IP_TOS
		{SockOpt{SolIP, 2}, 33, true},      // IP_TTL
		{SockOpt{SolSocket, 12}, 5, false}, // SO_PRIORITY
		{SockOpt{SolTCP, 9}, 5, false},     // TCP_DEFER_ACCEPT
		{SockOpt{SolTCP, 23}, 5, false},    // TCP_FASTOPEN
		{SockOpt{SolTCP, 12}, 0, false},    // TCP_QUICKACK
	}
	for _, tc := range cases {
		set(l, tc.opt, tc.val)
	}
	set(other, SockOpt{SolTCP, 2}, 1000) // another socket's TCP_MAXSEG
	o.Inherit(l, a)
	set(l, SockOpt{SolTCP, 5}, 10) // TCP_KEEPINTVL, after the handshake
	for _, tc := range cases {
		got, _ := o.Get(a, &s, tc.opt)
		want := i32(tc.val)
		if !tc.inherited {
			want, _ = o.Get(99, &s, tc.opt) // a fresh socket's
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %v, want %v", OptionName(tc.opt), got, want)
		}
	}
	for _, opt := range []SockOpt{{SolTCP, 5}, {SolTCP, 2}} {
		if _, ok := o[InetOptKey{a, opt}]; ok {
			t.Errorf("%s: taken from a socket or a moment not the listener's at the handshake", OptionName(opt))
		}
	}
	var none InetOptValues
	none.Inherit(l, a) // a node whose sockets set no option
	if none != nil {
		t.Errorf("inheriting nothing made %v", none)
	}
}

// TestHashQueued checks that a listener's queued connections' options
// enter the hash, each after a word naming its place, and that a queue
// whose sockets have none writes nothing.
func TestHashQueued(t *testing.T) {
	var o InetOptValues
	s := tcp4
	words := func(ids ...int) []uint64 {
		var w []uint64
		o.HashQueued(ids, func(v uint64) { w = append(w, v) })
		return w
	}
	if w := words(1, 2); len(w) != 0 {
		t.Errorf("no options: wrote %x", w)
	}
	o.Set(2, &s, SockOpt{SolTCP, 1}, i32(1), nil)
	w := words(1, 2)
	if len(w) == 0 || w[0] != 3<<62|1 {
		t.Fatalf("one queued socket with TCP_NODELAY: wrote %x", w)
	}
	if x := words(2, 1); len(x) == 0 || x[0] != 3<<62 {
		t.Errorf("its place in the queue is not written: %x", x)
	}
	var own []uint64
	o.HashSocket(2, func(v uint64) { own = append(own, v) })
	if len(w) != 1+len(own) || w[1]>>63 != 1 || w[1]>>62&1 != 0 {
		t.Errorf("wrote %x after the place word; the socket's own options hash as %x", w, own)
	}
}

// tv is a struct timeval as setsockopt takes it.
func tv(sec, usec int64) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, uint64(sec)), binary.LittleEndian.AppendUint64(nil, uint64(usec))...)
}

// sockTimeouts are SO_RCVTIMEO/SO_SNDTIMEO values with what Linux makes
// of them at HZ 250 (net/core/sock.c: sock_set_timeout takes tv_sec·HZ +
// DIV_ROUND_UP(tv_usec, USEC_PER_SEC/HZ) ticks, {0, 0} or a tv_sec of
// MAX_SCHEDULE_TIMEOUT/HZ-1 or more none, a negative tv_sec a timeout of
// zero; sock_get_timeout reads ticks/HZ seconds and
// (ticks%HZ)·USEC_PER_SEC/HZ microseconds). The expected values are those
// formulas worked by hand for HZ 250 (4000 µs a tick); the lines up to
// {7, 500001} are also what a Debian host of CONFIG_HZ=250 answered
// natively (testdata/diff/sotimeo.c in mcsdk/supervisor).
var sockTimeouts = []struct {
	name      string
	sec, usec int64
	ticks     SockTimeout
	read      []byte
	wait      int64 // ns; 0 none, -1 zero
	err       Errno
}{
	{"1 µs, below a tick: one tick", 0, 1, 1, tv(0, 4000), 4e6, 0},
	{"1234 µs: one tick", 0, 1234, 1, tv(0, 4000), 4e6, 0},
	{"exactly one tick", 0, 4000, 1, tv(0, 4000), 4e6, 0},
	{"one tick and 1 µs: two", 0, 4001, 2, tv(0, 8000), 8e6, 0},
	{"exactly 249 ticks", 0, 996000, 249, tv(0, 996000), 996e6, 0},
	{"999999 µs: a second", 2, 999999, 750, tv(3, 0), 3e9, 0},
	{"7 s and 500001 µs", 7, 500001, 1876, tv(7, 504000), 7_504_000_000, 0},
	{"one second", 1, 0, 250, tv(1, 0), 1e9, 0},
	{"a day", 86400, 0, 86400 * 250, tv(86400, 0), 86400e9, 0},
	{"2^40 s: past the clock's range", 1 << 40, 0, 250 << 40, tv(1<<40, 0), KtimeMax, 0},
	{"MAX_SCHEDULE_TIMEOUT/HZ-2 s", math.MaxInt64/250 - 2, 0, (math.MaxInt64/250 - 2) * 250, tv(math.MaxInt64/250-2, 0), KtimeMax, 0},
	{"MAX_SCHEDULE_TIMEOUT/HZ-1 s: none", math.MaxInt64/250 - 1, 0, 0, tv(0, 0), 0, 0},
	{"{0, 0}: none", 0, 0, 0, tv(0, 0), 0, 0},
	{"negative tv_sec: zero", -3, 0, -1, tv(0, 0), -1, 0},
	{"{-1, 999999}: zero", -1, 999999, -1, tv(0, 0), -1, 0},
	{"tv_usec 1000000: EDOM", 1, 1000000, 0, nil, 0, EDOM},
	{"tv_usec -1: EDOM", 0, -1, 0, nil, 0, EDOM},
	{"negative tv_sec, bad tv_usec: EDOM first", -1, -1, 0, nil, 0, EDOM},
}

// TestSockTimeout checks that a timeout is kept in ticks of the virtual
// HZ, read back and waited so (sockTimeouts), whatever the host's tick.
func TestSockTimeout(t *testing.T) {
	if HZ != 250 {
		t.Fatalf("HZ %d: the table is worked for 250", HZ)
	}
	for _, tc := range sockTimeouts {
		t.Run(tc.name, func(t *testing.T) {
			got, e := ParseSockTimeout(tv(tc.sec, tc.usec))
			if e != tc.err || got != tc.ticks {
				t.Fatalf("ParseSockTimeout {%d, %d} = %d ticks, %v; want %d, %v", tc.sec, tc.usec, got, e, tc.ticks, tc.err)
			}
			if e != 0 {
				return
			}
			if r := got.Timeval(); !bytes.Equal(r, tc.read) {
				t.Errorf("Timeval %v, want %v", r, tc.read)
			}
			if n := got.Nanos(); n != tc.wait {
				t.Errorf("Nanos %d, want %d", n, tc.wait)
			}
		})
	}
}

// TestInetTimeout checks the inet options' SO_RCVTIMEO and SO_SNDTIMEO
// against sockTimeouts: setsockopt's answer, getsockopt's read-back and
// the wait a blocking call takes (InetOptValues.Timeout).
func TestInetTimeout(t *testing.T) {
	for _, tc := range sockTimeouts {
		for _, name := range []uint64{SoRcvtimeo, SoSndtimeo} {
			var o InetOptValues
			s := udp4
			opt := SockOpt{SolSocket, name}
			if e := o.Set(1, &s, opt, tv(tc.sec, tc.usec), nil); e != tc.err {
				t.Errorf("%s, option %d: setsockopt %v, want %v", tc.name, name, e, tc.err)
				continue
			}
			if tc.err != 0 {
				if _, ok := o[InetOptKey{1, opt}]; ok {
					t.Errorf("%s: a refused value was kept", tc.name)
				}
				continue
			}
			if got, e := o.Get(1, &s, opt); e != 0 || !bytes.Equal(got, tc.read) {
				t.Errorf("%s, option %d: getsockopt %v %v, want %v", tc.name, name, got, e, tc.read)
			}
			if got := o.Timeout(1, name == SoSndtimeo); got != tc.wait {
				t.Errorf("%s, option %d: Timeout %d, want %d", tc.name, name, got, tc.wait)
			}
			if got := o.Timeout(1, name != SoSndtimeo); got != 0 {
				t.Errorf("%s, option %d: the other option's Timeout %d, want 0", tc.name, name, got)
			}
		}
	}
}
