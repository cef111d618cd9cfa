package vkernel

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Socket options of inet sockets (socket(7), tcp(7), udp(7), ip(7),
// ipv6(7)): which options weft serves, the values they keep, their
// defaults and ranges, and every errno getsockopt and setsockopt
// answer. The socket's connection state, buffers and pending error are
// the virtual network's (mcsdk/netsim), reached through InetSocket; the
// supervisor reads and writes the values in the node's memory.

// Option levels (the level argument of setsockopt(2)).
const (
	SolIP     = 0
	SolSocket = 1
	SolTCP    = 6
	SolUDP    = 17
	SolIPv6   = 41
	SolRaw    = 255
	SolMPTCP  = 262
	SolPacket = 263
	SolTLS    = 282
)

// Options whose values change what weft models or that the rules name.
const (
	SoError      = 4
	SoType       = 3
	SoSndbuf     = 7
	SoRcvbuf     = 8
	SoRcvtimeo   = 20
	SoSndtimeo   = 21
	SoAcceptconn = 30
	SoProtocol   = 38
	SoDomain     = 39
	SoNapiID     = 56
	IPv6V6Only   = 26
)

// Address families and protocols (socket(2), ip(7)).
const (
	AfInet      = 2
	AfInet6     = 10
	IPProtoTCP  = 6
	IPProtoUDP  = 17
	ENOPROTOOPT = Errno(92)
)

// SockOpt names an option by level and name.
type SockOpt struct{ Level, Name uint64 }

// OptKind is how an option's value is read, stored and reported.
type OptKind int

// Option kinds.
const (
	OptBool    OptKind = iota // an int, reported as 0 or 1
	OptInt                    // an int kept as set (within Lo..Hi)
	OptTimeval                // struct timeval (SO_RCVTIMEO, SO_SNDTIMEO)
	OptLinger                 // struct linger
	OptBuf                    // SO_SNDBUF/SO_RCVBUF: sizes the virtual buffers
	OptV6Only                 // IPV6_V6ONLY: which clients a v6 listener takes
)

// OptSpec is one option weft accepts: its name, how its value looks, the
// value getsockopt reports before any setsockopt (Linux's default), the
// valid range of an OptInt, and whether only stream sockets have it.
type OptSpec struct {
	Name       string
	Kind       OptKind
	Def        int
	Lo, Hi     int
	StreamOnly bool
}

// inetOptions are the options a program may set and read back. Only
// the buffer sizes, IPV6_V6ONLY, SO_RCVTIMEO and SO_SNDTIMEO change what
// weft models; the others (Nagle, keep-alive probes, address reuse,
// linger) concern timing or host resources weft does not model, so they
// are kept and reported, as tcp(7) and socket(7) define them, and change
// nothing.
var inetOptions = map[SockOpt]OptSpec{
	{SolSocket, 2}:          {"SO_REUSEADDR", OptBool, 0, 0, 0, false},
	{SolSocket, 15}:         {"SO_REUSEPORT", OptBool, 0, 0, 0, false},
	{SolSocket, 9}:          {"SO_KEEPALIVE", OptBool, 0, 0, 0, false},
	{SolSocket, 6}:          {"SO_BROADCAST", OptBool, 0, 0, 0, false},
	{SolSocket, SoRcvbuf}:   {"SO_RCVBUF", OptBuf, 0, 0, 0, false},
	{SolSocket, SoSndbuf}:   {"SO_SNDBUF", OptBuf, 0, 0, 0, false},
	{SolSocket, 13}:         {"SO_LINGER", OptLinger, 0, 0, 0, false},
	{SolSocket, SoRcvtimeo}: {"SO_RCVTIMEO", OptTimeval, 0, 0, 0, false},
	{SolSocket, SoSndtimeo}: {"SO_SNDTIMEO", OptTimeval, 0, 0, 0, false},
	{SolTCP, 1}:             {"TCP_NODELAY", OptBool, 0, 0, 0, true},
	{SolTCP, 12}:            {"TCP_QUICKACK", OptBool, 1, 0, 0, true},
	{SolTCP, 4}:             {"TCP_KEEPIDLE", OptInt, 7200, 1, 32767, true},
	{SolTCP, 5}:             {"TCP_KEEPINTVL", OptInt, 75, 1, 32767, true},
	{SolTCP, 6}:             {"TCP_KEEPCNT", OptInt, 9, 1, 127, true},
	{SolTCP, 18}:            {"TCP_USER_TIMEOUT", OptInt, 0, 0, 1<<31 - 1, true},
	{SolIPv6, IPv6V6Only}:   {"IPV6_V6ONLY", OptV6Only, 0, 0, 0, false},
	// Set by real servers (nginx, haproxy, redis, busybox, Go, CPython) and
	// meaningless on weft's network: no segments, queues, priorities,
	// routes or ICMP errors to change. TCP_CORK and TCP_DEFER_ACCEPT only
	// delay what weft's latency already makes arbitrary.
	{SolSocket, 10}: {"SO_OOBINLINE", OptBool, 0, 0, 0, false},
	{SolSocket, 12}: {"SO_PRIORITY", OptInt, 0, 0, 6, false}, // beyond: privRange
	{SolTCP, 3}:     {"TCP_CORK", OptBool, 0, 0, 0, true},
	{SolTCP, 9}:     {"TCP_DEFER_ACCEPT", OptInt, 0, 0, 1<<31 - 1, true},
	{SolTCP, 23}:    {"TCP_FASTOPEN", OptInt, 0, 0, 1<<31 - 1, true},
	{SolTCP, 2}:     {"TCP_MAXSEG", OptInt, 536, 88, 32767, true},
	{SolIP, 1}:      {"IP_TOS", OptInt, 0, 0, 255, false},
	{SolIP, 2}:      {"IP_TTL", OptInt, 64, 1, 255, false},
	{SolIP, 11}:     {"IP_RECVERR", OptBool, 0, 0, 0, false},
	{SolIP, 10}:     {"IP_MTU_DISCOVER", OptInt, 1, 0, 5, false},
	{SolIPv6, 67}:   {"IPV6_TCLASS", OptInt, 0, -1, 255, false},
	{SolIPv6, 16}:   {"IPV6_UNICAST_HOPS", OptInt, 64, -1, 255, false},
	{SolIPv6, 25}:   {"IPV6_RECVERR", OptBool, 0, 0, 0, false},
	// Ancillary data recvmsg would carry (the TOS, TTL or traffic class of
	// a received packet): off, as Linux starts them, is reported and may be
	// set again; weft delivers no such data, so turning one on is refused
	// (EINVAL). Erlang's inet driver reads them on every accepted socket.
	{SolIP, 13}:   {"IP_RECVTOS", OptInt, 0, 0, 0, false},
	{SolIP, 12}:   {"IP_RECVTTL", OptInt, 0, 0, 0, false},
	{SolIPv6, 66}: {"IPV6_RECVTCLASS", OptInt, 0, 0, 0, false},
}

// minusOneDefault are the options for which -1 asks for the default:
// ip(7)'s IP_TTL (then the route's, 64), ipv6(7)'s IPV6_UNICAST_HOPS
// (64) and IPV6_TCLASS (0); getsockopt then reports the default.
var minusOneDefault = map[SockOpt]bool{{SolIP, 2}: true, {SolIPv6, 16}: true, {SolIPv6, 67}: true}

// privRange are the options whose value outside Lo..Hi needs
// CAP_NET_ADMIN or CAP_NET_RAW (EPERM without, not EINVAL): SO_PRIORITY
// above 6 or negative (socket(7); sk_set_prio_allowed).
var privRange = map[SockOpt]bool{{SolSocket, 12}: true}

// ipTOS is IP_TOS: ip(7) keeps the low byte of the value set; on a TCP
// socket its two ECN bits stay the kernel's (0 here: weft marks no
// congestion).
var ipTOS = SockOpt{SolIP, 1}

// inetReadOnly are reported by getsockopt and refused by setsockopt
// (ENOPROTOOPT, as Linux does for SO_TYPE and friends).
var inetReadOnly = map[SockOpt]string{
	{SolSocket, SoError}:      "SO_ERROR",
	{SolSocket, SoType}:       "SO_TYPE",
	{SolSocket, SoDomain}:     "SO_DOMAIN",
	{SolSocket, SoProtocol}:   "SO_PROTOCOL",
	{SolSocket, SoAcceptconn}: "SO_ACCEPTCONN",
	// The NAPI id of the device queue a socket last received from: 0,
	// none, as Linux reports for loopback (the JVM asks, as it starts,
	// whether the option is supported).
	{SolSocket, SoNapiID}: "SO_INCOMING_NAPI_ID",
}

// InetOption is the spec of a served option (ok false: weft serves no
// such option, or it is read-only).
func InetOption(opt SockOpt) (OptSpec, bool) {
	s, ok := inetOptions[opt]
	return s, ok
}

// InetOptions lists the options weft serves, with their specs (a copy).
func InetOptions() map[SockOpt]OptSpec {
	m := make(map[SockOpt]OptSpec, len(inetOptions))
	for k, v := range inetOptions {
		m[k] = v
	}
	return m
}

// InetSocket is what the option rules read and change of a socket of the
// virtual network: its kind and family, its binding, its buffers and its
// pending error are the network's.
type InetSocket interface {
	Stream() bool // SOCK_STREAM (TCP); otherwise SOCK_DGRAM (UDP)
	V6() bool     // AF_INET6
	Bound() bool  // it has a local port
	Listening() bool
	V6Only() bool
	SetV6Only(bool)
	Buf(snd bool) int
	SetBuf(snd bool, n int)
	// TakeError returns the pending error (SO_ERROR) and clears it.
	TakeError() Errno
}

// size is the length of the option's value.
func (o OptSpec) size() int {
	switch o.Kind {
	case OptTimeval:
		return 16
	case OptLinger:
		return 8
	}
	return 4
}

// applies refuses an option on the wrong kind of socket (a TCP_ option
// on a UDP socket) or family (an IPV6_ option on an IPv4 socket) with
// ENOPROTOOPT, as Linux answers.
func (o OptSpec) applies(s InetSocket) Errno {
	if o.StreamOnly && !s.Stream() || (o.Kind == OptV6Only || strings.HasPrefix(o.Name, "IPV6_")) && !s.V6() {
		return ENOPROTOOPT
	}
	return 0
}

// SetsockoptLen is setsockopt(2)'s decision before its value is read:
// how many bytes of the value to read (the option's size, or optlen if
// shorter), or the errno: ENOPROTOOPT for a read-only option or one of
// another kind or family, EINVAL for optlen shorter than an int.
// modelled is false for an option weft does not serve (the supervisor
// ends the run naming it).
func SetsockoptLen(s InetSocket, opt SockOpt, optlen uint64) (n int, e Errno, modelled bool) {
	if _, ok := inetReadOnly[opt]; ok {
		return 0, ENOPROTOOPT, true
	}
	spec, ok := inetOptions[opt]
	if !ok {
		return 0, 0, false
	}
	if e := spec.applies(s); e != 0 {
		return 0, e, true
	}
	size := spec.size()
	if optlen < uint64(min(size, 4)) {
		return 0, EINVAL, true
	}
	return int(min(optlen, uint64(size))), 0, true
}

// InetOptKey names one option of one socket (netsim's socket number).
type InetOptKey struct {
	Sock int
	Opt  SockOpt
}

// InetOptValues are the option values a node's inet sockets keep: what
// setsockopt stored and getsockopt reports (nil: none set yet).
type InetOptValues map[InetOptKey][]byte

// Set validates and applies val, the option's value as SetsockoptLen
// had it read, for socket id: a boolean is kept as 0 or 1, an int
// outside its range is EINVAL (socket(7), tcp(7), ip(7)) except -1 where
// it asks for the default, IP_TOS keeps its low byte, the buffer
// sizes and IPV6_V6ONLY go to the socket (IPV6_V6ONLY only before bind,
// EINVAL after, ipv6(7)), a timeval or linger shorter than its struct is
// EINVAL, a timeval's tv_usec outside 0..999999 EDOM and a valid one
// kept in ticks of HZ (ParseSockTimeout). privileged reports whether the
// caller has CAP_NET_ADMIN or CAP_NET_RAW, which SO_PRIORITY outside 0..6
// needs (EPERM without); it is asked only then, and nil is neither.
func (o *InetOptValues) Set(id int, s InetSocket, opt SockOpt, val []byte, privileged func() bool) Errno {
	spec, ok := inetOptions[opt]
	if !ok {
		return ENOPROTOOPT
	}
	var i int
	if len(val) >= 4 {
		i = int(int32(binary.LittleEndian.Uint32(val)))
	}
	switch spec.Kind {
	case OptBool:
		val = boolOpt(i != 0)
	case OptInt:
		switch {
		case opt == ipTOS:
			i &= 0xff
			if s.Stream() {
				i &^= 3
			}
			val = intOpt(i)
		case i == -1 && minusOneDefault[opt]:
			val = intOpt(spec.Def)
		case (i < spec.Lo || i > spec.Hi) && privRange[opt]:
			if privileged == nil || !privileged() {
				return EPERM
			}
		case i < spec.Lo || i > spec.Hi:
			return EINVAL
		}
	case OptBuf:
		s.SetBuf(opt.Name == SoSndbuf, i)
		return 0
	case OptV6Only:
		if s.Bound() {
			return EINVAL
		}
		s.SetV6Only(i != 0)
		return 0
	case OptTimeval, OptLinger:
		if len(val) < spec.size() {
			return EINVAL
		}
		if spec.Kind == OptTimeval {
			t, e := ParseSockTimeout(val)
			if e != 0 {
				return e
			}
			val = t.stored()
		}
	}
	if *o == nil {
		*o = InetOptValues{}
	}
	(*o)[InetOptKey{id, opt}] = append([]byte(nil), val...)
	return 0
}

// Get is what getsockopt(2) reports for opt on socket id: SO_ERROR (the
// pending error, once: socket(7)), SO_TYPE, SO_DOMAIN, SO_PROTOCOL,
// SO_ACCEPTCONN, SO_INCOMING_NAPI_ID (0), the buffer sizes, and the
// options weft serves (their Linux default until set). ENOPROTOOPT for
// an option of another kind or family; nil and 0 for an option weft
// does not model.
func (o InetOptValues) Get(id int, s InetSocket, opt SockOpt) ([]byte, Errno) {
	if opt.Level == SolSocket {
		switch opt.Name {
		case SoError:
			return intOpt(int(s.TakeError())), 0
		case SoType:
			return intOpt(map[bool]int{true: SockStream, false: SockDgram}[s.Stream()]), 0
		case SoDomain:
			return intOpt(map[bool]int{false: AfInet, true: AfInet6}[s.V6()]), 0
		case SoProtocol:
			return intOpt(map[bool]int{true: IPProtoTCP, false: IPProtoUDP}[s.Stream()]), 0
		case SoAcceptconn:
			return boolOpt(s.Listening()), 0
		case SoNapiID:
			return intOpt(0), 0
		case SoSndbuf:
			return intOpt(s.Buf(true)), 0
		case SoRcvbuf:
			return intOpt(s.Buf(false)), 0
		}
	}
	spec, ok := inetOptions[opt]
	if !ok {
		return nil, 0
	}
	if e := spec.applies(s); e != 0 {
		return nil, e
	}
	if spec.Kind == OptV6Only {
		return boolOpt(s.V6Only()), 0
	}
	if val := o[InetOptKey{id, opt}]; val != nil {
		if spec.Kind == OptTimeval && int64(binary.LittleEndian.Uint64(val)) < 0 {
			return make([]byte, spec.size()), 0 // a timeout of zero reads as none (sock_get_timeout)
		}
		return val, 0
	}
	if spec.size() > 4 {
		return make([]byte, spec.size()), 0
	}
	return intOpt(spec.Def), 0
}

// notInherited are the served options an accepted socket does not take
// from its listener, which Linux clones at the handshake (sk_clone_lock,
// inet_csk_clone_lock, tcp_create_openreq_child): sk_clone_lock zeroes
// SO_PRIORITY; TCP_DEFER_ACCEPT and TCP_FASTOPEN belong to the
// listener's accept queue; TCP_QUICKACK is the new connection's ack
// state. The probe testdata/diff/acceptopts.c shows each. The buffer
// sizes and IPV6_V6ONLY, which the network keeps, it copies itself.
var notInherited = map[SockOpt]bool{
	{SolSocket, 12}: true, // SO_PRIORITY
	{SolTCP, 9}:     true, // TCP_DEFER_ACCEPT
	{SolTCP, 23}:    true, // TCP_FASTOPEN
	{SolTCP, 12}:    true, // TCP_QUICKACK
}

// Inherit gives socket id, a connection the listener l has just
// established, the option values of l that Linux's clone keeps: those
// set on l until then, but the ones in notInherited. Options l takes
// later reach no connection already made.
func (o InetOptValues) Inherit(l, id int) {
	for k, val := range o {
		if k.Sock == l && !notInherited[k.Opt] {
			o[InetOptKey{id, k.Opt}] = append([]byte(nil), val...)
		}
	}
}

// HZ is the virtual kernel's tick rate (CONFIG_HZ): Linux keeps a
// socket's SO_RCVTIMEO and SO_SNDTIMEO in ticks, so what getsockopt reads
// back, and how long a blocking call waits, show the kernel's HZ. weft
// rounds every socket timeout to this rate, never the host's, so that a
// node cannot learn the host's CONFIG_HZ from a read-back and a seed
// gives the same waits on every machine. 250 is Debian's default
// (CONFIG_HZ_250 in its amd64 and arm64 kernels), the kernel weft's
// virtual machine reports and its set-up targets; it also divides a
// second exactly (4 ms a tick), so every tick is a whole number of
// microseconds and nanoseconds.
const HZ = 250

// SockTimeout is an SO_RCVTIMEO or SO_SNDTIMEO as Linux's sock_set_timeout
// keeps it: a number of ticks of HZ; 0 is none (Linux's
// MAX_SCHEDULE_TIMEOUT) and a negative value a timeout of zero, under
// which a call that would block fails at once as a non-blocking one does.
type SockTimeout int64

// ParseSockTimeout takes an SO_RCVTIMEO or SO_SNDTIMEO struct timeval
// (16 bytes, tv_sec then tv_usec) as Linux's sock_set_timeout does:
// tv_usec outside 0..999999 is EDOM; a negative tv_sec is a timeout of
// zero (every negative value acts alike); {0, 0}, or a tv_sec of
// MAX_SCHEDULE_TIMEOUT/HZ-1 or more, is none; otherwise tv_sec·HZ ticks
// plus tv_usec rounded up to a tick.
func ParseSockTimeout(tv []byte) (SockTimeout, Errno) {
	sec := int64(binary.LittleEndian.Uint64(tv))
	usec := int64(binary.LittleEndian.Uint64(tv[8:]))
	switch {
	case usec < 0 || usec >= 1e6:
		return 0, EDOM
	case sec < 0:
		return -1, 0
	case sec == 0 && usec == 0, sec >= math.MaxInt64/HZ-1:
		return 0, 0
	}
	const per = 1_000_000 / HZ // µs a tick
	return SockTimeout(sec*HZ + (usec+per-1)/per), 0
}

// Timeval is what getsockopt reports (sock_get_timeout): the ticks as
// seconds and microseconds, rounded down; none and a timeout of zero
// both read {0, 0}.
func (t SockTimeout) Timeval() []byte {
	t = max(t, 0)
	tv := binary.LittleEndian.AppendUint64(nil, uint64(t/HZ))
	return binary.LittleEndian.AppendUint64(tv, uint64(t%HZ*1_000_000/HZ))
}

// stored is the value InetOptValues keeps: the read-back (Timeval), but
// {-1, 0} for a timeout of zero, which Get reads as {0, 0}.
func (t SockTimeout) stored() []byte {
	if t < 0 {
		return append(binary.LittleEndian.AppendUint64(nil, ^uint64(0)), make([]byte, 8)...)
	}
	return t.Timeval()
}

// SockTimeouts are a socket's SO_RCVTIMEO and SO_SNDTIMEO as weft keeps
// them itself, in ticks of the virtual HZ (AF_UNIX and netlink sockets;
// an inet socket's are InetOptValues'): weft, not the host kernel of a
// placeholder, keeps them, so getsockopt reads back the virtual tick's
// rounding (SockTimeout.Timeval) and a blocking call waits them in
// virtual time (SockTimeout.Nanos). A socket starts with none, an
// accepted AF_UNIX one too (unix_stream_connect makes the server's end
// afresh).
type SockTimeouts [2]SockTimeout

// Timeout is SO_RCVTIMEO (snd false) or SO_SNDTIMEO.
func (t *SockTimeouts) Timeout(snd bool) SockTimeout { return t[boolIndex(snd)] }

// SetTimeout keeps SO_RCVTIMEO (snd false) or SO_SNDTIMEO.
func (t *SockTimeouts) SetTimeout(snd bool, v SockTimeout) { t[boolIndex(snd)] = v }

// Nanos is the timeout in nanoseconds of virtual time, as the blocking
// call waits it: 0 for none, negative for a timeout of zero, KtimeMax
// past the clock's range (a wait without end: After).
func (t SockTimeout) Nanos() int64 {
	const per = 1_000_000_000 / HZ // ns a tick
	switch {
	case t < 0:
		return -1
	case int64(t) > KtimeMax/per:
		return KtimeMax
	}
	return int64(t) * per
}

// Timeout is SO_RCVTIMEO (snd false) or SO_SNDTIMEO of socket id in
// nanoseconds, 0 for none, negative for a timeout of zero (a negative
// tv_sec: the call does not wait, as if non-blocking): they bound
// blocking receives, and sends and connects (socket(7)).
func (o InetOptValues) Timeout(id int, snd bool) int64 {
	name := uint64(SoRcvtimeo)
	if snd {
		name = SoSndtimeo
	}
	b := o[InetOptKey{id, SockOpt{SolSocket, name}}]
	if len(b) < 16 {
		return 0
	}
	sec := int64(binary.LittleEndian.Uint64(b))
	if sec < 0 {
		return -1
	}
	t, _ := ParseSockTimeout(b) // as Set kept it: whole ticks, valid
	return t.Nanos()
}

// HashSocket writes socket id's option values for the world hash, in
// level and name order: SO_RCVTIMEO, SO_SNDTIMEO and the values
// getsockopt reports differ later, so two states that differ only in
// them must not merge. Each option opens with a word whose top bit is
// set, so a socket with none writes nothing and the options' end is
// plain to whatever the caller writes next (a word below 2^63).
func (o InetOptValues) HashSocket(id int, put func(uint64)) {
	var opts []SockOpt
	for k := range o {
		if k.Sock == id {
			opts = append(opts, k.Opt)
		}
	}
	slices.SortFunc(opts, func(a, b SockOpt) int {
		if a.Level != b.Level {
			return cmp.Compare(a.Level, b.Level)
		}
		return cmp.Compare(a.Name, b.Name)
	})
	for _, opt := range opts {
		val := o[InetOptKey{id, opt}]
		put(1<<63 | opt.Level<<32 | opt.Name&(1<<32-1))
		put(uint64(len(val)))
		for i := 0; i < len(val); i += 8 {
			var w [8]byte
			copy(w[:], val[i:])
			put(binary.LittleEndian.Uint64(w[:]))
		}
	}
}

// HashQueued writes the option values of the connections a listener
// has established and no accept has taken yet (ids, in queue order):
// they were the listener's when each came (Inherit), and may differ from
// its values now. A queued socket with options opens with the word
// 3<<62 | its place in the queue, which no option's opening word
// (HashSocket's, whose level is below 2^30) equals, then its options;
// a queue whose sockets have none writes nothing.
func (o InetOptValues) HashQueued(ids []int, put func(uint64)) {
	if len(o) == 0 {
		return
	}
	for i, id := range ids {
		if o.has(id) {
			put(3<<62 | uint64(i))
			o.HashSocket(id, put)
		}
	}
}

// has reports whether socket id has any option value set.
func (o InetOptValues) has(id int) bool {
	for k := range o {
		if k.Sock == id {
			return true
		}
	}
	return false
}

// GetsockoptLen is how much of a value of n bytes getsockopt(2) writes
// for a caller whose *optlen is have (the value is cut to it); a
// negative *optlen is EINVAL.
func GetsockoptLen(have uint32, n int) (int, Errno) {
	if int32(have) < 0 {
		return 0, EINVAL
	}
	return min(int(have), n), 0
}

func boolOpt(on bool) []byte {
	if on {
		return []byte{1, 0, 0, 0}
	}
	return []byte{0, 0, 0, 0}
}

func intOpt(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

// An option weft does not model ends the run (verdict error): no call
// runs unexamined, and a program that depends on an option weft ignores
// would be checked against the wrong network. The failure names the
// option in words, so the gap is plain.

// optLevelNames are the option levels by number, as Linux's headers
// name them (SOL_IP is IPPROTO_IP, SOL_TCP IPPROTO_TCP…).
var optLevelNames = map[uint64]string{
	SolSocket: "SOL_SOCKET", SolIP: "SOL_IP", SolTCP: "SOL_TCP", SolUDP: "SOL_UDP", SolIPv6: "SOL_IPV6",
	SolRaw: "SOL_RAW", SolPacket: "SOL_PACKET", SolTLS: "SOL_TLS", SolMPTCP: "SOL_MPTCP",
}

// unmodelledOptionNames name the options real programs try that weft
// does not model (the modelled ones are named in inetOptions and
// inetReadOnly).
var unmodelledOptionNames = map[SockOpt]string{
	{SolSocket, 25}: "SO_BINDTODEVICE",
	{SolSocket, 36}: "SO_MARK",
	{SolSocket, 18}: "SO_RCVLOWAT",
	{SolSocket, 19}: "SO_SNDLOWAT",
	{SolSocket, 29}: "SO_TIMESTAMP",
	{SolSocket, 35}: "SO_TIMESTAMPNS",
	{SolSocket, 60}: "SO_ZEROCOPY",
	{SolSocket, 49}: "SO_INCOMING_CPU",
	{SolSocket, 46}: "SO_BUSY_POLL",
	{SolSocket, 26}: "SO_ATTACH_FILTER",
	{SolSocket, 17}: "SO_PEERCRED",
	{SolSocket, 16}: "SO_PASSCRED",
	{SolSocket, 5}:  "SO_DONTROUTE",
	{SolSocket, 47}: "SO_MAX_PACING_RATE",
	{SolTCP, 11}:    "TCP_INFO",
	{SolTCP, 13}:    "TCP_CONGESTION",
	{SolTCP, 25}:    "TCP_NOTSENT_LOWAT",
	{SolTCP, 10}:    "TCP_WINDOW_CLAMP",
	{SolTCP, 7}:     "TCP_SYNCNT",
	{SolTCP, 8}:     "TCP_LINGER2",
	{SolTCP, 14}:    "TCP_MD5SIG",
	{SolTCP, 31}:    "TCP_ULP",
	{SolTCP, 19}:    "TCP_REPAIR",
	{SolTCP, 30}:    "TCP_FASTOPEN_CONNECT",
	{SolIP, 8}:      "IP_PKTINFO",
	{SolIP, 15}:     "IP_FREEBIND",
	{SolIP, 19}:     "IP_TRANSPARENT",
	{SolIP, 32}:     "IP_MULTICAST_IF",
	{SolIP, 33}:     "IP_MULTICAST_TTL",
	{SolIP, 34}:     "IP_MULTICAST_LOOP",
	{SolIP, 35}:     "IP_ADD_MEMBERSHIP",
	{SolIP, 24}:     "IP_BIND_ADDRESS_NO_PORT",
	{SolIPv6, 49}:   "IPV6_RECVPKTINFO",
	{SolIPv6, 17}:   "IPV6_MULTICAST_IF",
	{SolIPv6, 18}:   "IPV6_MULTICAST_HOPS",
	{SolIPv6, 19}:   "IPV6_MULTICAST_LOOP",
	{SolIPv6, 20}:   "IPV6_JOIN_GROUP",
}

// UnmodelledOptionNames lists the options named although weft does not
// serve them (a copy).
func UnmodelledOptionNames() map[SockOpt]string {
	m := make(map[SockOpt]string, len(unmodelledOptionNames))
	for k, v := range unmodelledOptionNames {
		m[k] = v
	}
	return m
}

// OptionName names opt in words: its level and option names as Linux's
// headers spell them, with the number ("SOL_TCP TCP_INFO (11)").
func OptionName(opt SockOpt) string {
	level, ok := optLevelNames[opt.Level]
	if !ok {
		level = fmt.Sprintf("level %d", opt.Level)
	}
	name := unmodelledOptionNames[opt]
	if spec, ok := inetOptions[opt]; ok {
		name = spec.Name
	} else if ro, ok := inetReadOnly[opt]; ok {
		name = ro
	}
	if name == "" {
		name = "option"
	}
	return fmt.Sprintf("%s %s (%d)", level, name, opt.Name)
}
