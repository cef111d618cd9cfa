package vkernel

import "fmt"

// InetReadiness is what the poll mask of a socket of the virtual network
// (mcsdk/netsim, which holds the socket's state) depends on.
type InetReadiness struct {
	Readable bool // data, a pending connection or EOF to take
	Writable bool // a send would not block
	Hup      bool // both directions are shut
	Err      bool // an error is pending (SO_ERROR)
	RdHup    bool // the peer has shut its sending side
}

// Events is the socket's poll mask, as tcp_poll and udp_poll report it:
// POLLHUP always comes with POLLRDHUP.
func (r InetReadiness) Events() uint32 {
	var ev uint32
	if r.Readable {
		ev |= PollIn | PollRdNorm
	}
	if r.Writable {
		ev |= PollOut | PollWrNorm
	}
	if r.Hup {
		ev |= PollHup | PollRdHup
	}
	if r.Err {
		ev |= PollErr
	}
	if r.RdHup {
		ev |= PollRdHup
	}
	return ev
}

// RandomEvents is the poll mask of /dev/random and /dev/urandom: always
// readable and writable (reads come from the run's seeded stream).
const RandomEvents = PollIn | PollRdNorm | PollOut | PollWrNorm

// The rules of inet socket calls (socket(2), accept(2), connect(2),
// send(2), recv(2), shutdown(2), getpeername(2), tcp(7), udp(7)) that
// do not depend on the virtual network's state: the network
// (mcsdk/netsim) keeps each socket's binding, ports, connection, pending
// error and the messages in flight, and answers bind, listen, connect,
// send and receive itself; the supervisor moves addresses and bytes to
// and from the node's memory.

// socket(2) flags and the errors the inet rules answer.
const (
	SockNonblock    = 0o4000
	SockCloexec     = 0o2000000
	EPROTONOSUPPORT = Errno(93)
	EINPROGRESS     = Errno(115)
)

// Shutdown's how (shutdown(2)).
const (
	ShutRd   = 0
	ShutWr   = 1
	ShutRdwr = 2
)

// socket(2)'s limits (linux/net.h, linux/socket.h): the type's low
// bits are the type, the others its flags; families and types at or
// above these are invalid.
const (
	sockTypeMask = 0xf
	sockMax      = 11 // SOCK_MAX
	nProto       = 46 // NPROTO (AF_MAX)
	EAFNOSUPPORT = Errno(97)
)

// SocketArgs are socket(2)'s arguments as Linux reads them, C ints (the
// low 32 bits of each register), with the checks every family shares
// made first: a flag in typ other than SOCK_NONBLOCK and SOCK_CLOEXEC is
// EINVAL, a family outside 0..AF_MAX-1 is EAFNOSUPPORT, a type at or
// above SOCK_MAX is EINVAL (__sys_socket_create, __sock_create). typ
// keeps its flags.
func SocketArgs(domain, typ, proto uint64) (d, t, p uint64, e Errno) {
	d, t, p = uint64(uint32(domain)), uint64(uint32(typ)), uint64(uint32(proto))
	switch {
	case SocketTypeFlags(typ) != 0:
		return d, t, p, EINVAL
	case d >= nProto: // a negative int too
		return d, t, p, EAFNOSUPPORT
	case t&sockTypeMask >= sockMax:
		return d, t, p, EINVAL
	}
	return d, t, p, 0
}

// SocketTypeFlags is the first check of socket(2) and socketpair(2): a
// flag in the type (a C int) other than SOCK_NONBLOCK and SOCK_CLOEXEC
// is EINVAL.
func SocketTypeFlags(typ uint64) Errno {
	if uint32(typ)&^sockTypeMask&^(SockNonblock|SockCloexec) != 0 {
		return EINVAL
	}
	return 0
}

// InetType is what socket(2) makes for an AF_INET or AF_INET6 socket:
// SOCK_STREAM with protocol 0 or IPPROTO_TCP is TCP, SOCK_DGRAM with 0
// or IPPROTO_UDP is UDP, another protocol is EPROTONOSUPPORT (ip(7)).
// SOCK_NONBLOCK and SOCK_CLOEXEC in typ are the descriptor's. The
// arguments are read as Linux does (SocketArgs), whose errnos come
// first. A domain or type weft does not model is unmodelled (the
// supervisor ends the run with it), not an errno.
func InetType(domain, typ, proto uint64) (stream, v6 bool, e Errno, unmodelled string) {
	domain, typ, proto, e = SocketArgs(domain, typ, proto)
	if e != 0 {
		return false, false, e, ""
	}
	if domain != AfInet && domain != AfInet6 {
		return false, false, 0, fmt.Sprintf("socket domain %d is not modelled (only AF_INET, AF_INET6, AF_UNIX, AF_NETLINK)", domain)
	}
	v6 = domain == AfInet6
	switch typ &^ (SockNonblock | SockCloexec) {
	case SockStream:
		if proto != 0 && proto != IPProtoTCP {
			return false, false, EPROTONOSUPPORT, ""
		}
		return true, v6, 0, ""
	case SockDgram:
		if proto != 0 && proto != IPProtoUDP {
			return false, false, EPROTONOSUPPORT, ""
		}
		return false, v6, 0, ""
	}
	return false, false, 0, fmt.Sprintf("socket type %d is not modelled (only SOCK_STREAM, SOCK_DGRAM)", typ&sockTypeMask)
}

// Accept4Flags is accept4(2)'s check of its flags (a C int: the low 32
// bits), made before the descriptor's: only SOCK_NONBLOCK and
// SOCK_CLOEXEC, else EINVAL.
func Accept4Flags(flags uint64) Errno {
	if uint32(flags)&^uint32(SockNonblock|SockCloexec) != 0 {
		return EINVAL
	}
	return 0
}

// InetAccept is accept(2)'s answer before a connection is taken: EINVAL
// on a socket that is not listening, EAGAIN when none is pending and
// the call is non-blocking, ErrBlock (park) when it blocks; nil: take
// the pending connection.
func InetAccept(listening, pending, nonblocking bool) error {
	switch {
	case !listening:
		return EINVAL
	case pending:
		return nil
	case nonblocking:
		return EAGAIN
	}
	return ErrBlock
}

// InetConnectStarted is a stream connect(2)'s answer once its SYN is on
// its way: EINPROGRESS for a non-blocking socket (it polls writable when
// the SYN has arrived; SO_ERROR tells the outcome, tcp(7)), ErrBlock
// for a blocking one.
func InetConnectStarted(nonblocking bool) error {
	if nonblocking {
		return EINPROGRESS
	}
	return ErrBlock
}

// InetConnectWait answers a parked blocking connect: the network's
// outcome (result; nil when connected) once done; EINPROGRESS when
// SO_SNDTIMEO ended the wait first (the connect goes on, socket(7));
// ErrBlock otherwise.
func InetConnectWait(done bool, result Errno, timedOut bool) error {
	switch {
	case done && result == 0:
		return nil
	case done:
		return result
	case timedOut:
		return EINPROGRESS
	}
	return ErrBlock
}

// InetBlock answers a receive, or a send, with nothing to do now: EAGAIN
// when non-blocking (O_NONBLOCK or MSG_DONTWAIT) or when SO_RCVTIMEO or
// SO_SNDTIMEO has passed (socket(7)), ErrBlock otherwise.
func InetBlock(nonblocking, timedOut bool) error {
	if nonblocking || timedOut {
		return EAGAIN
	}
	return ErrBlock
}

// StreamSend is a stream send's answer after the network took what it
// had room for: e is the network's answer to this attempt (0, EAGAIN
// when its buffers are full, or an error such as EPIPE), sent what the
// call has queued in all (over its retries), total its length. A
// non-blocking send (or one whose SO_SNDTIMEO passed) returns what it
// queued, EAGAIN if nothing; a blocking one parks (ErrBlock) until all
// is queued; an error is returned only when nothing was sent (tcp(7),
// send(2)).
func StreamSend(e Errno, nonblocking bool, sent, total int) (int, error) {
	switch {
	case e == EAGAIN && nonblocking && sent == 0:
		return 0, EAGAIN
	case e != 0 && e != EAGAIN && sent == 0:
		return 0, e
	case e == 0 && sent < total && !nonblocking, e == EAGAIN && !nonblocking:
		return sent, ErrBlock
	}
	return sent, nil
}

// WaitAll tells whether a stream recv with MSG_WAITALL (and without
// MSG_PEEK) waits for more before taking anything: when fewer than max
// bytes are pending on a connection whose peer may still send and
// SO_RCVTIMEO has not passed (recv(2)).
func WaitAll(pending, max int, hup, connected, timedOut bool) bool {
	return pending < max && !hup && connected && !timedOut
}

// InetShutdown decodes shutdown(2)'s how (a C int: the low 32 bits):
// which directions it shuts; EINVAL for another value.
func InetShutdown(how uint64) (rd, wr bool, e Errno) {
	how = uint64(uint32(how))
	if how > ShutRdwr {
		return false, false, EINVAL
	}
	return how != ShutWr, how != ShutRd, 0
}

// InetPeername is getpeername(2)'s check: ENOTCONN on a socket that is
// not connected.
func InetPeername(connected bool) Errno {
	if !connected {
		return ENOTCONN
	}
	return 0
}
