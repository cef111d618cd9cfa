package vkernel

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// request is one netlink request as a program writes it.
func request(typ, flags uint16, seq uint32, body []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(16+len(body)))
	b = binary.LittleEndian.AppendUint16(b, typ)
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = binary.LittleEndian.AppendUint32(b, seq)
	b = binary.LittleEndian.AppendUint32(b, 0)
	return append(b, body...)
}

// describe renders every queued datagram as the kernel's readers parse
// it (syscall.ParseNetlinkMessage and ParseNetlinkRouteAttr): one line per
// message, "|" between datagrams.
func describe(t *testing.T, s *RouteSocket) string {
	t.Helper()
	var lines []string
	for len(s.Queue) > 0 {
		d, full, _ := s.Recv(1<<16, false)
		if full != len(d) || len(d) > maxDatagram {
			t.Fatalf("datagram of %d bytes (read %d)", full, len(d))
		}
		msgs, err := syscall.ParseNetlinkMessage(d)
		if err != nil {
			t.Fatalf("ParseNetlinkMessage: %v", err)
		}
		if len(lines) > 0 {
			lines = append(lines, "|")
		}
		for _, m := range msgs {
			if m.Header.Pid != s.Port {
				t.Errorf("message to port %d, socket's is %d", m.Header.Pid, s.Port)
			}
			lines = append(lines, fmt.Sprintf("type=%d flags=%#x seq=%d %s", m.Header.Type, m.Header.Flags, m.Header.Seq, payload(t, m)))
		}
	}
	return strings.Join(lines, "\n")
}

// payload renders a message's payload: the fields Go's and glibc's
// readers use.
func payload(t *testing.T, m syscall.NetlinkMessage) string {
	switch m.Header.Type {
	case syscall.NLMSG_DONE:
		return fmt.Sprintf("done %d", int32(binary.LittleEndian.Uint32(m.Data)))
	case syscall.NLMSG_ERROR:
		return fmt.Sprintf("error %d len=%d", int32(binary.LittleEndian.Uint32(m.Data)), len(m.Data))
	case syscall.RTM_NEWLINK, syscall.RTM_NEWADDR:
		attrs, err := syscall.ParseNetlinkRouteAttr(&m)
		if err != nil {
			t.Fatalf("ParseNetlinkRouteAttr: %v", err)
		}
		var out []string
		if m.Header.Type == syscall.RTM_NEWLINK {
			out = append(out, fmt.Sprintf("link type=%d index=%d flags=%#x", binary.LittleEndian.Uint16(m.Data[2:]),
				binary.LittleEndian.Uint32(m.Data[4:]), binary.LittleEndian.Uint32(m.Data[8:])))
		} else {
			out = append(out, fmt.Sprintf("addr family=%d prefix=%d scope=%d index=%d", m.Data[0], m.Data[1], m.Data[3],
				binary.LittleEndian.Uint32(m.Data[4:])))
		}
		for _, a := range attrs {
			out = append(out, fmt.Sprintf("%d=%x", a.Attr.Type, a.Value))
		}
		return strings.Join(out, " ")
	}
	return fmt.Sprintf("%x", m.Data)
}

func TestRouteSocket(t *testing.T) {
	const (
		dump = syscall.NLM_F_REQUEST | syscall.NLM_F_DUMP
		req  = syscall.NLM_F_REQUEST
		ack  = syscall.NLM_F_REQUEST | syscall.NLM_F_ACK
	)
	ifname := func(s string) []byte { return attr(make([]byte, 16), iflaIfname, append([]byte(s), 0)) }
	link := func(index uint32) []byte { return binary.LittleEndian.AppendUint32(make([]byte, 4), index) }
	lo := "type=16 flags=0x2 seq=1 link type=772 index=1 flags=0x10049 3=6c6f00 13=e8030000 16=00 17=00 4=00000100 1=000000000000 2=000000000000"
	eth := "type=16 flags=0x2 seq=1 link type=1 index=2 flags=0x11043 3=6574683000 13=e8030000 16=06 17=00 4=dc050000 1=027766000004 2=ffffffffffff"
	lo4 := "type=20 flags=0x2 seq=7 addr family=2 prefix=8 scope=254 index=1 1=7f000001 2=7f000001 3=6c6f00 8=80000000 6=ffffffffffffffff0000000000000000"
	eth4 := "type=20 flags=0x2 seq=7 addr family=2 prefix=32 scope=0 index=2 1=7f000001 2=7f000001 3=6574683000 8=80000000 6=ffffffffffffffff0000000000000000"
	lo6 := "type=20 flags=0x2 seq=7 addr family=10 prefix=128 scope=254 index=1 1=00000000000000000000000000000001 8=80000000 6=ffffffffffffffff0000000000000000"
	tests := []struct {
		name    string
		send    []byte
		want    string
		refused string
	}{
		{"link dump (Go's rtgenmsg)", request(syscall.RTM_GETLINK, dump, 1, []byte{0}),
			lo + "\n" + eth + "\ntype=3 flags=0x2 seq=1 done 0", ""},
		{"address dump, every family", request(syscall.RTM_GETADDR, dump, 7, []byte{0}),
			lo4 + "\n" + eth4 + "\n" + lo6 + "\ntype=3 flags=0x2 seq=7 done 0", ""},
		{"address dump, IPv4 (glibc's ifaddrmsg)", request(syscall.RTM_GETADDR, dump, 7, []byte{2, 0, 0, 0, 0, 0, 0, 0}),
			lo4 + "\n" + eth4 + "\ntype=3 flags=0x2 seq=7 done 0", ""},
		{"address dump, IPv6", request(syscall.RTM_GETADDR, dump, 7, []byte{10, 0, 0, 0}),
			lo6 + "\ntype=3 flags=0x2 seq=7 done 0", ""},
		{"one link by index", request(syscall.RTM_GETLINK, req, 1, link(2)), strings.Replace(eth, "flags=0x2", "flags=0x0", 1), ""},
		{"one link by name, acknowledged", request(syscall.RTM_GETLINK, ack, 1, ifname("lo")),
			strings.Replace(lo, "flags=0x2", "flags=0x0", 1) + "\n|\ntype=2 flags=0x100 seq=1 error 0 len=20", ""},
		{"no such link", request(syscall.RTM_GETLINK, req, 4, link(9)), "type=2 flags=0x0 seq=4 error -19 len=28", ""},
		{"route dump not served", request(syscall.RTM_GETROUTE, dump, 5, []byte{0}), "type=2 flags=0x0 seq=5 error -95 len=21", ""},
		{"neighbour dump not served", request(syscall.RTM_GETNEIGH, dump, 5, []byte{0}), "type=2 flags=0x0 seq=5 error -95 len=21", ""},
		{"adding an address refused", request(syscall.RTM_NEWADDR, ack, 9, make([]byte, 8)),
			"type=2 flags=0x0 seq=9 error -1 len=28", "RTM_NEWADDR EPERM"},
		{"setting a link refused", request(syscall.RTM_SETLINK, req, 9, make([]byte, 16)),
			"type=2 flags=0x0 seq=9 error -1 len=36", "RTM_SETLINK EPERM"},
		{"adding a route refused", request(syscall.RTM_NEWROUTE, ack, 9, make([]byte, 12)),
			"type=2 flags=0x0 seq=9 error -1 len=32", "RTM_NEWROUTE EPERM"},
		{"a reply, not a request, ignored", request(syscall.RTM_GETLINK, syscall.NLM_F_DUMP, 1, []byte{0}), "", ""},
		{"truncated message ignored", request(syscall.RTM_GETLINK, dump, 1, []byte{0})[:12], "", ""},
		{"length beyond the bytes ignored", append(binary.LittleEndian.AppendUint32(nil, 99), request(syscall.RTM_GETLINK, dump, 1, nil)[4:]...), "", ""},
		{"NOOP acknowledged", request(syscall.NLMSG_NOOP, ack, 3, nil), "type=2 flags=0x100 seq=3 error 0 len=20", ""},
		{"two requests in one send", append(pad4(request(syscall.RTM_GETADDR, dump, 7, []byte{10})), request(syscall.RTM_NEWLINK, req, 8, make([]byte, 16))...),
			lo6 + "\ntype=3 flags=0x2 seq=7 done 0\n|\ntype=2 flags=0x0 seq=8 error -1 len=36", "RTM_NEWLINK EPERM"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &RouteSocket{Ifaces: NodeInterfaces(3, [4]byte{127, 0, 0, 1}), Port: 4242}
			var refused []string
			for _, r := range s.Send(tc.send) {
				refused = append(refused, r.Name+" "+r.Errno.Error())
			}
			if got := describe(t, s); got != tc.want {
				t.Errorf("replies:\n%s\nwant:\n%s", got, tc.want)
			}
			if got := strings.Join(refused, ", "); got != tc.refused {
				t.Errorf("refused %q, want %q", got, tc.refused)
			}
		})
	}
}

// TestRouteSocketCapAck checks NETLINK_CAP_ACK: an error carries the
// request's header only.
func TestRouteSocketCapAck(t *testing.T) {
	s := &RouteSocket{Ifaces: NodeInterfaces(0, [4]byte{127, 0, 0, 1}), Port: 1, CapAck: true}
	s.Send(request(syscall.RTM_NEWADDR, syscall.NLM_F_REQUEST, 2, make([]byte, 8)))
	if got, want := describe(t, s), "type=2 flags=0x100 seq=2 error -1 len=20"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestRouteSocketRecv checks datagram reads: MSG_PEEK keeps the datagram,
// a short read returns the full length (MSG_TRUNC) and drops the rest.
func TestRouteSocketRecv(t *testing.T) {
	s := &RouteSocket{Ifaces: NodeInterfaces(0, [4]byte{127, 0, 0, 1}), Port: 1}
	if _, _, ok := s.Recv(100, false); ok {
		t.Fatal("read from an empty socket")
	}
	s.Send(request(syscall.RTM_GETLINK, syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP, 1, []byte{0}))
	s.Send(request(syscall.RTM_GETADDR, syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP, 2, []byte{0}))
	whole := s.Queued()
	steps := []struct {
		n          int
		peek       bool
		wantLen    int
		wantQueued int
	}{
		{0, true, 0, 2},
		{16, true, 16, 2},
		{16, false, 16, 1},
		{-1, false, 0, 0},
	}
	for i, st := range steps {
		d, full, ok := s.Recv(st.n, st.peek)
		if !ok || len(d) != st.wantLen || len(s.Queue) != st.wantQueued {
			t.Fatalf("step %d: read %d of %d (ok %v), %d queued; want %d read, %d queued", i, len(d), full, ok, len(s.Queue), st.wantLen, st.wantQueued)
		}
		if i < 3 && full != whole {
			t.Errorf("step %d: full length %d, want %d", i, full, whole)
		}
	}
}

// TestNodeInterfacesDistinct checks that nodes differ only in their MAC,
// and that the MAC is locally administered and unicast.
func TestNodeInterfacesDistinct(t *testing.T) {
	a, b := NodeInterfaces(0, [4]byte{127, 0, 0, 1}), NodeInterfaces(1, [4]byte{127, 0, 0, 1})
	if a[1].MAC == b[1].MAC {
		t.Errorf("nodes 0 and 1 share the MAC %x", a[1].MAC)
	}
	if a[1].MAC[0]&3 != 2 {
		t.Errorf("MAC %x is not locally administered unicast", a[1].MAC)
	}
	a[1].MAC, b[1].MAC = [6]byte{}, [6]byte{}
	if fmt.Sprint(a) != fmt.Sprint(b) || !bytes.Equal(a[1].Addrs[0].IP, []byte{127, 0, 0, 1}) {
		t.Errorf("nodes differ beyond their MAC: %v vs %v", a, b)
	}
}

// TestNetlinkFamily checks the names used in refusal notes.
func TestNetlinkFamily(t *testing.T) {
	for proto, want := range map[uint64]string{0: "NETLINK_ROUTE", 9: "NETLINK_AUDIT", 16: "NETLINK_GENERIC", 99: "netlink protocol 99"} {
		if got := NetlinkFamily(proto); got != want {
			t.Errorf("NetlinkFamily(%d) = %q, want %q", proto, got, want)
		}
	}
}
