package vkernel

import (
	"encoding/binary"
	"fmt"
)

// A node's NETLINK_ROUTE sockets (netlink(7), rtnetlink(7)), served from
// the node's virtual interfaces: a dump of links (RTM_GETLINK) or of
// addresses (RTM_GETADDR) answers with the interfaces NodeInterfaces
// describes, formatted as Linux formats them (linux/netlink.h,
// rtnetlink.h, if_link.h, if_addr.h), so that Go's net.Interfaces, glibc's
// getifaddrs and iproute-style code read a fixed, host-free picture. A
// request to change the network (RTM_NEW*, RTM_DEL*, RTM_SET*) is refused
// with EPERM, as for an unprivileged process, and named in Refusals; any
// other query is answered EOPNOTSUPP. Only NETLINK_ROUTE is modelled.

// Netlink message types, flags and sizes (linux/netlink.h, rtnetlink.h).
const (
	nlmsgHdrLen = 16
	nlmsgError  = 2
	nlmsgDone   = 3
	nlmsgMinTyp = 0x10 // below it, control messages

	nlmFRequest = 0x1
	nlmFMulti   = 0x2
	nlmFAck     = 0x4
	nlmFDump    = 0x300 // NLM_F_ROOT | NLM_F_MATCH
	nlmFCapped  = 0x100 // in an NLMSG_ERROR: the request's payload left out

	RTMNewLink  = 16
	RTMGetLink  = 18
	RTMNewAddr  = 20
	RTMGetAddr  = 22
	RTMGetRoute = 26

	afUnspec = 0
	afInet   = 2
	afInet6  = 10

	// maxDatagram bounds one datagram of dump replies, as the kernel's
	// first dump buffer (NLMSG_GOODSIZE on 4 KiB pages) does.
	maxDatagram = 3776
)

// Errors a netlink request is answered with (in an NLMSG_ERROR, negated).
const (
	ENODEV     Errno = 19
	EOPNOTSUPP Errno = 95
)

// Netlink protocols (linux/netlink.h), by number, for refusal notes.
var netlinkFamilies = map[uint64]string{
	0: "NETLINK_ROUTE", 2: "NETLINK_USERSOCK", 4: "NETLINK_SOCK_DIAG", 5: "NETLINK_NFLOG", 6: "NETLINK_XFRM",
	7: "NETLINK_SELINUX", 8: "NETLINK_ISCSI", 9: "NETLINK_AUDIT", 10: "NETLINK_FIB_LOOKUP", 11: "NETLINK_CONNECTOR",
	12: "NETLINK_NETFILTER", 13: "NETLINK_IP6_FW", 14: "NETLINK_DNRTMSG", 15: "NETLINK_KOBJECT_UEVENT",
	16: "NETLINK_GENERIC", 18: "NETLINK_SCSITRANSPORT", 19: "NETLINK_ECRYPTFS", 20: "NETLINK_RDMA",
	21: "NETLINK_CRYPTO", 22: "NETLINK_SMC",
}

// NetlinkFamily names netlink protocol proto (NETLINK_AUDIT), or gives its
// number.
func NetlinkFamily(proto uint64) string {
	if s, ok := netlinkFamilies[proto]; ok {
		return s
	}
	return fmt.Sprintf("netlink protocol %d", proto)
}

// Interface flags (linux/if.h) and link types (linux/if_arp.h).
const (
	iffUp        = 0x1
	iffBroadcast = 0x2
	iffLoopback  = 0x8
	iffRunning   = 0x40
	iffMulticast = 0x1000
	iffLowerUp   = 0x10000

	arphrdEther    = 1
	arphrdLoopback = 772

	scopeUniverse = 0
	scopeHost     = 254
	ifaFPermanent = 0x80
	operUnknown   = 0
	operUp        = 6
)

// NetIface is one virtual network interface of a node.
type NetIface struct {
	Index     int32
	Name      string
	Type      uint16 // ARPHRD_ETHER, ARPHRD_LOOPBACK
	Flags     uint32 // IFF_*
	MTU       uint32
	TxQueue   uint32
	OperState uint8
	MAC       [6]byte
	Broadcast [6]byte
	Addrs     []NetAddr
}

// NetAddr is one address of an interface: 4 bytes (IPv4) or 16 (IPv6).
type NetAddr struct {
	IP     []byte
	Prefix uint8
	Scope  uint8
}

// NodeInterfaces are the interfaces of node i whose IPv4 address is addr
// (weft's network gives every node the loopback address, each at its own
// ports): lo (index 1: 127.0.0.1/8 and ::1/128) and eth0 (index 2: addr/32,
// MTU 1500, the locally administered MAC 02:77:66:xx:xx:xx, xx the node's
// index plus one). Nothing in them comes from the host.
func NodeInterfaces(i int, addr [4]byte) []NetIface {
	k := uint32(i + 1)
	lo := NetIface{Index: 1, Name: "lo", Type: arphrdLoopback, Flags: iffUp | iffLoopback | iffRunning | iffLowerUp,
		MTU: 65536, TxQueue: 1000, OperState: operUnknown,
		Addrs: []NetAddr{
			{IP: []byte{127, 0, 0, 1}, Prefix: 8, Scope: scopeHost},
			{IP: append(make([]byte, 15), 1), Prefix: 128, Scope: scopeHost},
		}}
	eth := NetIface{Index: 2, Name: "eth0", Type: arphrdEther,
		Flags: iffUp | iffBroadcast | iffRunning | iffMulticast | iffLowerUp,
		MTU:   1500, TxQueue: 1000, OperState: operUp,
		MAC:       [6]byte{0x02, 0x77, 0x66, byte(k >> 16), byte(k >> 8), byte(k)},
		Broadcast: [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		Addrs:     []NetAddr{{IP: addr[:], Prefix: 32, Scope: scopeUniverse}}}
	return []NetIface{lo, eth}
}

// RouteSocket is one NETLINK_ROUTE socket's state: its port id (nl_pid,
// 0 until bound), the datagrams of replies not yet read, and its options.
type RouteSocket struct {
	Ifaces []NetIface
	Port   uint32
	Queue  [][]byte
	CapAck bool // NETLINK_CAP_ACK: errors carry only the request's header
}

// NetlinkRefusal is a request a RouteSocket refused: its message type and why.
type NetlinkRefusal struct {
	Type  uint16
	Name  string
	Errno Errno
	Why   string
}

// Send takes the bytes of one sendmsg to the kernel (one or more netlink
// messages) and queues the replies; it returns the requests refused for
// changing the network. As in Linux, a truncated message ends the batch
// silently, and messages without NLM_F_REQUEST are ignored.
func (s *RouteSocket) Send(b []byte) []NetlinkRefusal {
	var out []NetlinkRefusal
	for len(b) >= nlmsgHdrLen {
		n := int(binary.LittleEndian.Uint32(b))
		if n < nlmsgHdrLen || n > len(b) {
			break
		}
		if r, ok := s.request(b[:n]); ok {
			out = append(out, r)
		}
		b = b[min(align4(n), len(b)):]
	}
	return out
}

// request answers one message m; ok reports a refusal to note.
func (s *RouteSocket) request(m []byte) (NetlinkRefusal, bool) {
	typ := binary.LittleEndian.Uint16(m[4:])
	flags := binary.LittleEndian.Uint16(m[6:])
	seq := binary.LittleEndian.Uint32(m[8:])
	if flags&nlmFRequest == 0 {
		return NetlinkRefusal{}, false
	}
	if typ < nlmsgMinTyp {
		if flags&nlmFAck != 0 {
			s.ack(m, 0)
		}
		return NetlinkRefusal{}, false
	}
	body := m[nlmsgHdrLen:]
	family := uint8(afUnspec)
	if len(body) > 0 {
		family = body[0]
	}
	switch {
	case typ == RTMGetLink && flags&nlmFDump == nlmFDump:
		s.dump(seq, s.links())
	case typ == RTMGetAddr && flags&nlmFDump == nlmFDump:
		s.dump(seq, s.addrs(family))
	case typ == RTMGetLink:
		s.getLink(m, seq, flags)
	case (typ-RTMNewLink)%4 == 2: // a query weft does not serve
		s.ack(m, EOPNOTSUPP)
	default:
		s.ack(m, EPERM)
		return NetlinkRefusal{Type: typ, Name: rtmName(typ), Errno: EPERM,
			Why: "a node cannot change its virtual network (interfaces, addresses and routes are weft's)"}, true
	}
	return NetlinkRefusal{}, false
}

// rtmName names the rtnetlink message types weft refuses most.
func rtmName(typ uint16) string {
	names := map[uint16]string{16: "RTM_NEWLINK", 17: "RTM_DELLINK", 19: "RTM_SETLINK", 20: "RTM_NEWADDR",
		21: "RTM_DELADDR", 24: "RTM_NEWROUTE", 25: "RTM_DELROUTE", 28: "RTM_NEWNEIGH", 29: "RTM_DELNEIGH",
		32: "RTM_NEWRULE", 33: "RTM_DELRULE"}
	if s, ok := names[typ]; ok {
		return s
	}
	return fmt.Sprintf("rtnetlink type %d", typ)
}

// getLink answers RTM_GETLINK for one interface, named by ifi_index or
// IFLA_IFNAME: its RTM_NEWLINK, or ENODEV.
func (s *RouteSocket) getLink(m []byte, seq uint32, flags uint16) {
	body := m[nlmsgHdrLen:]
	var index int32
	if len(body) >= 8 {
		index = int32(binary.LittleEndian.Uint32(body[4:]))
	}
	name := ""
	if len(body) > 16 {
		name = attrString(body[16:], iflaIfname)
	}
	for _, f := range s.Ifaces {
		if (index != 0 && f.Index == index) || (index == 0 && name != "" && f.Name == name) {
			s.Queue = append(s.Queue, s.message(RTMNewLink, 0, seq, linkBody(f)))
			if flags&nlmFAck != 0 {
				s.ack(m, 0)
			}
			return
		}
	}
	s.ack(m, ENODEV)
}

// attrString is the string value of attribute typ among attrs, or "".
func attrString(attrs []byte, typ uint16) string {
	for len(attrs) >= 4 {
		n := int(binary.LittleEndian.Uint16(attrs))
		if n < 4 || n > len(attrs) {
			return ""
		}
		if binary.LittleEndian.Uint16(attrs[2:]) == typ {
			v := attrs[4:n]
			for i, c := range v {
				if c == 0 {
					return string(v[:i])
				}
			}
			return string(v)
		}
		attrs = attrs[min(align4(n), len(attrs)):]
	}
	return ""
}

// dump queues the bodies as one multipart reply of type typ (each body
// carries its type), NLMSG_DONE last, packed into datagrams of at most
// maxDatagram bytes.
func (s *RouteSocket) dump(seq uint32, parts []typedBody) {
	var dgram []byte
	for _, p := range parts {
		msg := s.message(p.typ, nlmFMulti, seq, p.body)
		if len(dgram) > 0 && len(dgram)+len(msg) > maxDatagram {
			s.Queue = append(s.Queue, dgram)
			dgram = nil
		}
		dgram = append(dgram, msg...)
	}
	done := s.message(nlmsgDone, nlmFMulti, seq, make([]byte, 4))
	if len(dgram) > 0 && len(dgram)+len(done) > maxDatagram {
		s.Queue = append(s.Queue, dgram)
		dgram = nil
	}
	s.Queue = append(s.Queue, append(dgram, done...))
}

// typedBody is one message's type and payload.
type typedBody struct {
	typ  uint16
	body []byte
}

// ack queues an NLMSG_ERROR for request m: e 0 is an acknowledgement.
func (s *RouteSocket) ack(m []byte, e Errno) {
	body := binary.LittleEndian.AppendUint32(nil, uint32(-int32(e)))
	flags := uint16(0)
	if s.CapAck || e == 0 {
		body = append(body, m[:nlmsgHdrLen]...)
		flags = nlmFCapped
	} else {
		body = append(body, m...)
	}
	seq := binary.LittleEndian.Uint32(m[8:])
	s.Queue = append(s.Queue, s.message(nlmsgError, flags, seq, body))
}

// message is one netlink message to this socket, padded to 4 bytes.
func (s *RouteSocket) message(typ, flags uint16, seq uint32, body []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(nlmsgHdrLen+len(body)))
	b = binary.LittleEndian.AppendUint16(b, typ)
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = binary.LittleEndian.AppendUint32(b, seq)
	b = binary.LittleEndian.AppendUint32(b, s.Port)
	b = append(b, body...)
	return pad4(b)
}

// Recv takes the next datagram (MSG_PEEK: copies it): at most n bytes of
// it, and its full length; ok is false when none is queued.
func (s *RouteSocket) Recv(n int, peek bool) (data []byte, full int, ok bool) {
	if len(s.Queue) == 0 {
		return nil, 0, false
	}
	d := s.Queue[0]
	if !peek {
		s.Queue = s.Queue[1:]
	}
	return d[:min(max(0, n), len(d))], len(d), true
}

// Queued is the length of the next datagram (FIONREAD), 0 if none.
func (s *RouteSocket) Queued() int {
	if len(s.Queue) == 0 {
		return 0
	}
	return len(s.Queue[0])
}

// Link attributes (linux/if_link.h) and address attributes (if_addr.h).
const (
	iflaAddress   = 1
	iflaBroadcast = 2
	iflaIfname    = 3
	iflaMTU       = 4
	iflaTxqlen    = 13
	iflaOperstate = 16
	iflaLinkmode  = 17

	ifaAddress   = 1
	ifaLocal     = 2
	ifaLabel     = 3
	ifaCacheinfo = 6
	ifaFlags     = 8
)

func (s *RouteSocket) links() []typedBody {
	out := make([]typedBody, 0, len(s.Ifaces))
	for _, f := range s.Ifaces {
		out = append(out, typedBody{RTMNewLink, linkBody(f)})
	}
	return out
}

// linkBody is f's ifinfomsg and attributes.
func linkBody(f NetIface) []byte {
	b := []byte{afUnspec, 0}
	b = binary.LittleEndian.AppendUint16(b, f.Type)
	b = binary.LittleEndian.AppendUint32(b, uint32(f.Index))
	b = binary.LittleEndian.AppendUint32(b, f.Flags)
	b = binary.LittleEndian.AppendUint32(b, 0) // ifi_change
	b = attr(b, iflaIfname, append([]byte(f.Name), 0))
	b = attr(b, iflaTxqlen, u32(f.TxQueue))
	b = attr(b, iflaOperstate, []byte{f.OperState})
	b = attr(b, iflaLinkmode, []byte{0})
	b = attr(b, iflaMTU, u32(f.MTU))
	b = attr(b, iflaAddress, f.MAC[:])
	b = attr(b, iflaBroadcast, f.Broadcast[:])
	return b
}

// addrs are the RTM_NEWADDR bodies of family (AF_UNSPEC: all), IPv4
// first, as Linux dumps them.
func (s *RouteSocket) addrs(family uint8) []typedBody {
	var out []typedBody
	for _, want := range []uint8{afInet, afInet6} {
		if family != afUnspec && family != want {
			continue
		}
		for _, f := range s.Ifaces {
			for _, a := range f.Addrs {
				if addrFamily(a) == want {
					out = append(out, typedBody{RTMNewAddr, addrBody(f, a)})
				}
			}
		}
	}
	return out
}

func addrFamily(a NetAddr) uint8 {
	if len(a.IP) == 4 {
		return afInet
	}
	return afInet6
}

// addrBody is a's ifaddrmsg and attributes on interface f.
func addrBody(f NetIface, a NetAddr) []byte {
	fam := addrFamily(a)
	b := []byte{fam, a.Prefix, ifaFPermanent, a.Scope}
	b = binary.LittleEndian.AppendUint32(b, uint32(f.Index))
	b = attr(b, ifaAddress, a.IP)
	if fam == afInet {
		b = attr(b, ifaLocal, a.IP)
		b = attr(b, ifaLabel, append([]byte(f.Name), 0))
	}
	b = attr(b, ifaFlags, u32(ifaFPermanent))
	cache := append(u32(0xffffffff), u32(0xffffffff)...) // preferred and valid lifetimes: forever
	cache = append(cache, make([]byte, 8)...)            // created and updated at virtual time 0
	return attr(b, ifaCacheinfo, cache)
}

// attr appends one rtattr, padded to 4 bytes.
func attr(b []byte, typ uint16, v []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(4+len(v)))
	b = binary.LittleEndian.AppendUint16(b, typ)
	return pad4(append(b, v...))
}

func u32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func align4(n int) int { return (n + 3) &^ 3 }

func pad4(b []byte) []byte { return append(b, make([]byte, align4(len(b))-len(b))...) }
