//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
)

// sockopt identifies an option by level and name.
type sockopt struct{ level, name uint64 }

// optKind is how an option's value is read, stored and reported.
type optKind int

const (
	optBool    optKind = iota // an int, reported as 0 or 1
	optInt                    // an int kept as set (within lo..hi)
	optTimeval                // struct timeval (SO_RCVTIMEO, SO_SNDTIMEO)
	optLinger                 // struct linger
	optBuf                    // SO_SNDBUF/SO_RCVBUF: sizes the virtual buffers
	optV6Only                 // IPV6_V6ONLY: which clients a v6 listener takes
)

// optSpec is one option weft accepts: its name, how its value looks, the
// value getsockopt reports before any setsockopt (Linux's default), the
// valid range of an optInt, and the socket kind it applies to (-1 any).
type optSpec struct {
	name   string
	kind   optKind
	def    int
	lo, hi int
	only   netsim.Kind
}

const anyKind netsim.Kind = -1

// socketOptions are the options a program may set and read back. Only
// the buffer sizes, IPV6_V6ONLY, SO_RCVTIMEO and SO_SNDTIMEO change what
// weft models;
// the others (Nagle, keep-alive probes, address reuse, linger) concern
// timing or host resources weft does not model, so they are kept and
// reported, as tcp(7) and socket(7) define them, and change nothing.
var socketOptions = map[sockopt]optSpec{
	{unix.SOL_SOCKET, unix.SO_REUSEADDR}:      {"SO_REUSEADDR", optBool, 0, 0, 0, anyKind},
	{unix.SOL_SOCKET, unix.SO_REUSEPORT}:      {"SO_REUSEPORT", optBool, 0, 0, 0, anyKind},
	{unix.SOL_SOCKET, unix.SO_KEEPALIVE}:      {"SO_KEEPALIVE", optBool, 0, 0, 0, anyKind},
	{unix.SOL_SOCKET, unix.SO_BROADCAST}:      {"SO_BROADCAST", optBool, 0, 0, 0, anyKind},
	{unix.SOL_SOCKET, unix.SO_RCVBUF}:         {"SO_RCVBUF", optBuf, 0, 0, 0, anyKind},
	{unix.SOL_SOCKET, unix.SO_SNDBUF}:         {"SO_SNDBUF", optBuf, 0, 0, 0, anyKind},
	{unix.SOL_SOCKET, unix.SO_LINGER}:         {"SO_LINGER", optLinger, 0, 0, 0, anyKind},
	{unix.SOL_SOCKET, unix.SO_RCVTIMEO}:       {"SO_RCVTIMEO", optTimeval, 0, 0, 0, anyKind},
	{unix.SOL_SOCKET, unix.SO_SNDTIMEO}:       {"SO_SNDTIMEO", optTimeval, 0, 0, 0, anyKind},
	{unix.IPPROTO_TCP, unix.TCP_NODELAY}:      {"TCP_NODELAY", optBool, 0, 0, 0, netsim.Stream},
	{unix.IPPROTO_TCP, unix.TCP_QUICKACK}:     {"TCP_QUICKACK", optBool, 1, 0, 0, netsim.Stream},
	{unix.IPPROTO_TCP, unix.TCP_KEEPIDLE}:     {"TCP_KEEPIDLE", optInt, 7200, 1, 32767, netsim.Stream},
	{unix.IPPROTO_TCP, unix.TCP_KEEPINTVL}:    {"TCP_KEEPINTVL", optInt, 75, 1, 32767, netsim.Stream},
	{unix.IPPROTO_TCP, unix.TCP_KEEPCNT}:      {"TCP_KEEPCNT", optInt, 9, 1, 127, netsim.Stream},
	{unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT}: {"TCP_USER_TIMEOUT", optInt, 0, 0, 1<<31 - 1, netsim.Stream},
	{unix.IPPROTO_IPV6, unix.IPV6_V6ONLY}:     {"IPV6_V6ONLY", optV6Only, 0, 0, 0, anyKind},
	// Set by real servers (nginx, haproxy, redis, busybox, Go, CPython) and
	// meaningless on weft's network: no segments, queues, priorities,
	// routes or ICMP errors to change. TCP_CORK and TCP_DEFER_ACCEPT only
	// delay what weft's latency already makes arbitrary.
	{unix.SOL_SOCKET, unix.SO_OOBINLINE}:        {"SO_OOBINLINE", optBool, 0, 0, 0, anyKind},
	{unix.SOL_SOCKET, unix.SO_PRIORITY}:         {"SO_PRIORITY", optInt, 0, 0, 6, anyKind},
	{unix.IPPROTO_TCP, unix.TCP_CORK}:           {"TCP_CORK", optBool, 0, 0, 0, netsim.Stream},
	{unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT}:   {"TCP_DEFER_ACCEPT", optInt, 0, 0, 1<<31 - 1, netsim.Stream},
	{unix.IPPROTO_TCP, unix.TCP_FASTOPEN}:       {"TCP_FASTOPEN", optInt, 0, 0, 1<<31 - 1, netsim.Stream},
	{unix.IPPROTO_TCP, unix.TCP_MAXSEG}:         {"TCP_MAXSEG", optInt, 536, 88, 32767, netsim.Stream},
	{unix.IPPROTO_IP, unix.IP_TOS}:              {"IP_TOS", optInt, 0, 0, 255, anyKind},
	{unix.IPPROTO_IP, unix.IP_TTL}:              {"IP_TTL", optInt, 64, 1, 255, anyKind},
	{unix.IPPROTO_IP, unix.IP_RECVERR}:          {"IP_RECVERR", optBool, 0, 0, 0, anyKind},
	{unix.IPPROTO_IP, unix.IP_MTU_DISCOVER}:     {"IP_MTU_DISCOVER", optInt, 1, 0, 5, anyKind},
	{unix.IPPROTO_IPV6, unix.IPV6_TCLASS}:       {"IPV6_TCLASS", optInt, 0, -1, 255, anyKind},
	{unix.IPPROTO_IPV6, unix.IPV6_UNICAST_HOPS}: {"IPV6_UNICAST_HOPS", optInt, 64, -1, 255, anyKind},
	{unix.IPPROTO_IPV6, unix.IPV6_RECVERR}:      {"IPV6_RECVERR", optBool, 0, 0, 0, anyKind},
	// Ancillary data recvmsg would carry (the TOS, TTL or traffic class of
	// a received packet): off, as Linux starts them, is reported and may be
	// set again; weft delivers no such data, so turning one on is refused
	// (EINVAL). Erlang's inet driver reads them on every accepted socket.
	{unix.IPPROTO_IP, unix.IP_RECVTOS}:        {"IP_RECVTOS", optInt, 0, 0, 0, anyKind},
	{unix.IPPROTO_IP, unix.IP_RECVTTL}:        {"IP_RECVTTL", optInt, 0, 0, 0, anyKind},
	{unix.IPPROTO_IPV6, unix.IPV6_RECVTCLASS}: {"IPV6_RECVTCLASS", optInt, 0, 0, 0, anyKind},
}

// readOnlyOptions are reported by getsockopt and refused by setsockopt
// (ENOPROTOOPT, as Linux does for SO_TYPE and friends).
var readOnlyOptions = map[sockopt]string{
	{unix.SOL_SOCKET, unix.SO_ERROR}:      "SO_ERROR",
	{unix.SOL_SOCKET, unix.SO_TYPE}:       "SO_TYPE",
	{unix.SOL_SOCKET, unix.SO_DOMAIN}:     "SO_DOMAIN",
	{unix.SOL_SOCKET, unix.SO_PROTOCOL}:   "SO_PROTOCOL",
	{unix.SOL_SOCKET, unix.SO_ACCEPTCONN}: "SO_ACCEPTCONN",
	// The NAPI id of the device queue a socket last received from: 0,
	// none, as Linux reports for loopback (the JVM asks, as it starts,
	// whether the option is supported).
	{unix.SOL_SOCKET, unix.SO_INCOMING_NAPI_ID}: "SO_INCOMING_NAPI_ID",
}

// inetSetsockopt implements setsockopt(2) for socketOptions; any other option
// ends the run naming it.
func inetSetsockopt(c *call, v *vfd) result {
	opt := sockopt{c.arg(1), c.arg(2)}
	if _, ok := readOnlyOptions[opt]; ok {
		return errno(unix.ENOPROTOOPT)
	}
	spec, ok := socketOptions[opt]
	if !ok {
		return c.unmodelledOption("setsockopt", opt)
	}
	if e := spec.applies(v.sock()); e != 0 {
		return errno(e)
	}
	size := spec.size()
	if c.arg(4) < uint64(min(size, 4)) {
		return errno(unix.EINVAL)
	}
	val, err := c.read(c.arg(3), int(min(c.arg(4), uint64(size))))
	if err != nil {
		return errno(unix.EFAULT)
	}
	return errno(c.setOption(v.sock(), opt, spec, val))
}

// applies refuses an option on the wrong kind or family of socket (an
// IPV6_ option on an IPv4 socket)
// (ENOPROTOOPT, as Linux answers).
func (o optSpec) applies(s *netsim.Socket) unix.Errno {
	if o.only != anyKind && o.only != s.Kind || (o.kind == optV6Only || strings.HasPrefix(o.name, "IPV6_")) && !s.V6 {
		return unix.ENOPROTOOPT
	}
	return 0
}

// size is the length of the option's value.
func (o optSpec) size() int {
	switch o.kind {
	case optTimeval:
		return 16
	case optLinger:
		return 8
	}
	return 4
}

// setOption validates and stores val (already read from the node).
func (c *call) setOption(s *netsim.Socket, opt sockopt, spec optSpec, val []byte) unix.Errno {
	var i int
	if len(val) >= 4 {
		i = int(int32(binary.LittleEndian.Uint32(val)))
	}
	switch spec.kind {
	case optBool:
		val = boolOpt(i != 0)
	case optInt:
		if i < spec.lo || i > spec.hi {
			return unix.EINVAL
		}
	case optBuf:
		s.SetBuf(opt.name == unix.SO_SNDBUF, i)
		return 0
	case optV6Only:
		if s.Local.Port != 0 { // Linux: only before bind
			return unix.EINVAL
		}
		s.V6Only = i != 0
		return 0
	case optTimeval, optLinger:
		if len(val) < spec.size() {
			return unix.EINVAL
		}
	}
	if c.n.opts == nil {
		c.n.opts = map[optKey][]byte{}
	}
	c.n.opts[optKey{s.ID, opt}] = val
	return 0
}

func boolOpt(on bool) []byte {
	if on {
		return []byte{1, 0, 0, 0}
	}
	return []byte{0, 0, 0, 0}
}

func intOpt(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

type optKey struct {
	sock int
	opt  sockopt
}

// rcvTimeout is SO_RCVTIMEO in nanoseconds (0 = none).
func (n *node) rcvTimeout(v *vfd) int64 { return n.timeout(v, unix.SO_RCVTIMEO) }

// sndTimeout is SO_SNDTIMEO in nanoseconds (0 = none): it bounds blocking
// sends and connects (socket(7)).
func (n *node) sndTimeout(v *vfd) int64 { return n.timeout(v, unix.SO_SNDTIMEO) }

// sockDeadline is the world deadline of a blocking socket call whose
// SO_RCVTIMEO or SO_SNDTIMEO is t ns of the node's time (-1, none, when
// t is not positive).
func (c *call) sockDeadline(t int64) int64 {
	if t <= 0 {
		return -1
	}
	return c.after(t)
}

func (n *node) timeout(v *vfd, name uint64) int64 {
	b := n.opts[optKey{v.sock().ID, sockopt{unix.SOL_SOCKET, name}}]
	if len(b) < 16 {
		return 0
	}
	sec := int64(binary.LittleEndian.Uint64(b))
	usec := int64(binary.LittleEndian.Uint64(b[8:]))
	return sec*1e9 + usec*1e3
}

// inetGetsockopt implements getsockopt(2): SO_ERROR (a refused connect's
// ECONNREFUSED, once), SO_TYPE, SO_DOMAIN, SO_PROTOCOL, SO_ACCEPTCONN,
// SO_INCOMING_NAPI_ID (0), and
// the options of socketOptions (their Linux default until set).
func inetGetsockopt(c *call, v *vfd) result {
	opt := sockopt{c.arg(1), c.arg(2)}
	val, e := c.optionValue(v.sock(), opt)
	if e != 0 {
		return errno(e)
	}
	if val == nil {
		return c.unmodelledOption("getsockopt", opt)
	}
	return c.putOption(val)
}

// putOption answers a getsockopt(fd, level, name, optval, optlen) with
// val, cut to the caller's *optlen, which it sets.
func (c *call) putOption(val []byte) result {
	have, err := c.readU32(c.arg(4))
	if err != nil {
		return errno(unix.EFAULT)
	}
	if int32(have) < 0 {
		return errno(unix.EINVAL)
	}
	k := min(int(have), len(val))
	if err := c.write(c.arg(3), val[:k]); err != nil {
		return errno(unix.EFAULT)
	}
	return errno(errnoOf(c.writeU32(c.arg(4), uint32(k))))
}

// optionValue is what getsockopt reports for opt on s; nil if weft does
// not model the option.
func (c *call) optionValue(s *netsim.Socket, opt sockopt) ([]byte, unix.Errno) {
	switch opt {
	case sockopt{unix.SOL_SOCKET, unix.SO_ERROR}:
		return intOpt(int(sysErrno(s.TakeError()))), 0
	case sockopt{unix.SOL_SOCKET, unix.SO_TYPE}:
		return intOpt(map[netsim.Kind]int{netsim.Stream: unix.SOCK_STREAM, netsim.Dgram: unix.SOCK_DGRAM}[s.Kind]), 0
	case sockopt{unix.SOL_SOCKET, unix.SO_DOMAIN}:
		return intOpt(map[bool]int{false: unix.AF_INET, true: unix.AF_INET6}[s.V6]), 0
	case sockopt{unix.SOL_SOCKET, unix.SO_PROTOCOL}:
		return intOpt(map[netsim.Kind]int{netsim.Stream: unix.IPPROTO_TCP, netsim.Dgram: unix.IPPROTO_UDP}[s.Kind]), 0
	case sockopt{unix.SOL_SOCKET, unix.SO_ACCEPTCONN}:
		return boolOpt(s.Listening()), 0
	case sockopt{unix.SOL_SOCKET, unix.SO_INCOMING_NAPI_ID}:
		return intOpt(0), 0
	case sockopt{unix.SOL_SOCKET, unix.SO_SNDBUF}:
		return intOpt(s.SndBuf()), 0
	case sockopt{unix.SOL_SOCKET, unix.SO_RCVBUF}:
		return intOpt(s.RcvBuf()), 0
	}
	spec, ok := socketOptions[opt]
	if !ok {
		return nil, 0
	}
	if e := spec.applies(s); e != 0 {
		return nil, e
	}
	if spec.kind == optV6Only {
		return boolOpt(s.V6Only), 0
	}
	if val := c.n.opts[optKey{s.ID, opt}]; val != nil {
		return val, 0
	}
	if spec.size() > 4 {
		return make([]byte, spec.size()), 0
	}
	return intOpt(spec.def), 0
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(unix.Errno); ok {
		return e
	}
	return unix.EIO
}
