package netsim

import "fmt"

// Six says how an address is written as an IPv6 address (AF_INET6); the
// zero value is a plain IPv4 address (AF_INET). weft's nodes all live on
// one loopback host, so the IPv6 addresses a program can use are the
// wildcard ::, the loopback ::1 and IPv4-mapped addresses ::ffff:a.b.c.d
// (ipv6(7)).
type Six uint8

// Ways an address is written.
const (
	V4     Six = iota // a.b.c.d in a sockaddr_in
	Mapped            // ::ffff:a.b.c.d in a sockaddr_in6: IP holds a.b.c.d
	Any6              // :: (in6addr_any)
	Loop6             // ::1 (in6addr_loopback)
)

// Addr is a socket address: an IPv4 address or one of the IPv6 addresses
// Six names, and a port.
type Addr struct {
	IP   [4]byte // the IPv4 address (for Mapped, the mapped one; unused for Any6 and Loop6)
	Port uint16
	Six  Six
}

func (a Addr) String() string {
	ip := fmt.Sprintf("%d.%d.%d.%d", a.IP[0], a.IP[1], a.IP[2], a.IP[3])
	switch a.Six {
	case Mapped:
		return fmt.Sprintf("[::ffff:%s]:%d", ip, a.Port)
	case Any6:
		return fmt.Sprintf("[::]:%d", a.Port)
	case Loop6:
		return fmt.Sprintf("[::1]:%d", a.Port)
	}
	return fmt.Sprintf("%s:%d", ip, a.Port)
}

// V6 reports whether a is written as an IPv6 address (AF_INET6).
func (a Addr) V6() bool { return a.Six != V4 }

// native6 reports whether a is an IPv6 address that maps no IPv4 one: only
// an IPv6 socket can reach it.
func (a Addr) native6() bool { return a.Six == Any6 || a.Six == Loop6 }

// Loopback is the address every node appears to have.
var Loopback = [4]byte{127, 0, 0, 1}

// local reports whether ip is one of this host's IPv4 addresses as weft
// models them: 127.0.0.0/8, or the wildcard 0.0.0.0.
func local(ip [4]byte) bool { return ip[0] == 127 || ip == [4]byte{} }

// bindable reports whether a socket of family v6 may bind a: its own family
// (an IPv6 socket may bind a mapped address), on this host.
func bindable(v6 bool, a Addr) Errno {
	switch {
	case !v6 && a.V6(), v6 && !a.V6():
		return EAFNOSUPPORT
	case a.native6():
		return OK
	case !local(a.IP):
		return EADDRNOTAVAIL
	}
	return OK
}

// accepts reports whether listener (or bound datagram socket) l takes a
// connection or datagram addressed to dst, as Linux's lookup does: an
// IPv4 socket takes IPv4 (and mapped) traffic; an IPv6 socket bound to ::
// takes IPv6 traffic, and IPv4 traffic too unless IPV6_V6ONLY; one bound
// to ::1 only IPv6, one bound to a mapped address only IPv4.
func (l *Socket) accepts(dst Addr) bool {
	if !l.V6 {
		return !dst.native6()
	}
	switch l.Local.Six {
	case Any6:
		return dst.native6() || !l.V6Only
	case Loop6:
		return dst.native6()
	default:
		return !dst.native6()
	}
}

// as writes a for a socket of family v6: an IPv6 socket sees IPv4 peers as
// mapped addresses.
func as(v6 bool, a Addr) Addr {
	if v6 && a.Six == V4 {
		a.Six = Mapped
	}
	if !v6 && a.Six == Mapped {
		a.Six = V4
	}
	return a
}

// resolve is where a connect or send to dst goes: the wildcard means this
// host (as Linux treats a connect to 0.0.0.0 or ::).
func resolve(dst Addr) Addr {
	switch {
	case dst.Six == Any6:
		dst.Six = Loop6
	case !dst.native6() && dst.IP == [4]byte{}:
		dst.IP = Loopback
	}
	return dst
}
