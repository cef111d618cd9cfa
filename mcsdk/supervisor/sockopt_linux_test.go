//go:build linux && amd64

package supervisor

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// TestSocketOptionsUnderWeft sets one option at a time from a probe under
// real seccomp: the options real servers set are served (the call
// returns), and an option weft does not model ends the run with a
// failure naming the call, the option's level and name in words, the
// node and the thread.
func TestSocketOptionsUnderWeft(t *testing.T) {
	bin := buildProbe(t, "sockopt", "-O1", "-Wall")
	cases := []struct {
		level, name int
		family      string
		get         bool
		fail        string // "" : served
	}{
		{level: unix.IPPROTO_TCP, name: unix.TCP_FASTOPEN},
		{level: unix.IPPROTO_TCP, name: unix.TCP_CORK},
		{level: unix.IPPROTO_TCP, name: unix.TCP_DEFER_ACCEPT},
		{level: unix.IPPROTO_TCP, name: unix.TCP_MAXSEG, get: true},
		{level: unix.SOL_SOCKET, name: unix.SO_PRIORITY},
		{level: unix.SOL_SOCKET, name: unix.SO_OOBINLINE},
		{level: unix.SOL_SOCKET, name: unix.SO_INCOMING_NAPI_ID, get: true}, // the JVM's NIO asks at start-up
		{level: unix.IPPROTO_IP, name: unix.IP_TOS},
		{level: unix.IPPROTO_IP, name: unix.IP_RECVERR},
		{level: unix.IPPROTO_IPV6, name: unix.IPV6_TCLASS, family: "6"},
		{level: unix.IPPROTO_IPV6, name: unix.IPV6_RECVERR, family: "6"},
		{level: unix.IPPROTO_IP, name: unix.IP_RECVTOS, get: true}, // Erlang's inet driver reads these on accept
		{level: unix.IPPROTO_IP, name: unix.IP_RECVTTL, get: true},
		{level: unix.IPPROTO_IPV6, name: unix.IPV6_RECVTCLASS, family: "6", get: true},
		{level: unix.IPPROTO_TCP, name: unix.TCP_CONGESTION,
			fail: "node 0: unsupported or failed syscall setsockopt: n0/t0: setsockopt SOL_TCP TCP_CONGESTION (13) is not modelled"},
		{level: unix.IPPROTO_TCP, name: unix.TCP_INFO, get: true,
			fail: "node 0: unsupported or failed syscall getsockopt: n0/t0: getsockopt SOL_TCP TCP_INFO (11) is not modelled"},
		{level: unix.SOL_SOCKET, name: unix.SO_BINDTODEVICE,
			fail: "setsockopt SOL_SOCKET SO_BINDTODEVICE (25) is not modelled"},
		{level: unix.IPPROTO_IP, name: unix.IP_FREEBIND, fail: "setsockopt SOL_IP IP_FREEBIND (15) is not modelled"},
		{level: 99, name: 7, fail: "setsockopt level 99 option (7) is not modelled"},
	}
	for _, tc := range cases {
		name := vkernel.OptionName(vkernel.SockOpt{Level: uint64(tc.level), Name: uint64(tc.name)})
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			family := "4"
			if tc.family != "" {
				family = tc.family
			}
			args := []string{strconv.Itoa(tc.level), strconv.Itoa(tc.name), family}
			if tc.get {
				args = append(args, "get")
			}
			w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: args}}}, first)
			f := w.Failure()
			out := string(w.Output(0))
			switch {
			case tc.fail == "" && f != nil:
				t.Fatalf("%s ends the run: %v", name, f)
			case tc.fail == "" && !strings.Contains(out, ": 0\n"):
				t.Fatalf("%s: %q, want 0", name, out)
			case tc.fail != "" && (f == nil || !strings.Contains(f.Error(), tc.fail)):
				t.Fatalf("failure %v, want %q", f, tc.fail)
			}
		})
	}
}

// TestSocketOptionNumbers checks vkernel's option numbers against
// Linux's headers (x/sys/unix): every option vkernel serves or names
// is the option its name says.
func TestSocketOptionNumbers(t *testing.T) {
	linux := map[string][2]int{}
	for _, o := range []struct {
		name         string
		level, name2 int
	}{
		{"SO_REUSEADDR", unix.SOL_SOCKET, unix.SO_REUSEADDR}, {"SO_REUSEPORT", unix.SOL_SOCKET, unix.SO_REUSEPORT},
		{"SO_KEEPALIVE", unix.SOL_SOCKET, unix.SO_KEEPALIVE}, {"SO_BROADCAST", unix.SOL_SOCKET, unix.SO_BROADCAST},
		{"SO_RCVBUF", unix.SOL_SOCKET, unix.SO_RCVBUF}, {"SO_SNDBUF", unix.SOL_SOCKET, unix.SO_SNDBUF},
		{"SO_LINGER", unix.SOL_SOCKET, unix.SO_LINGER}, {"SO_RCVTIMEO", unix.SOL_SOCKET, unix.SO_RCVTIMEO},
		{"SO_SNDTIMEO", unix.SOL_SOCKET, unix.SO_SNDTIMEO}, {"SO_OOBINLINE", unix.SOL_SOCKET, unix.SO_OOBINLINE},
		{"SO_PRIORITY", unix.SOL_SOCKET, unix.SO_PRIORITY}, {"SO_ERROR", unix.SOL_SOCKET, unix.SO_ERROR},
		{"SO_TYPE", unix.SOL_SOCKET, unix.SO_TYPE}, {"SO_DOMAIN", unix.SOL_SOCKET, unix.SO_DOMAIN},
		{"SO_PROTOCOL", unix.SOL_SOCKET, unix.SO_PROTOCOL}, {"SO_ACCEPTCONN", unix.SOL_SOCKET, unix.SO_ACCEPTCONN},
		{"SO_INCOMING_NAPI_ID", unix.SOL_SOCKET, unix.SO_INCOMING_NAPI_ID},
		{"SO_BINDTODEVICE", unix.SOL_SOCKET, unix.SO_BINDTODEVICE}, {"SO_MARK", unix.SOL_SOCKET, unix.SO_MARK},
		{"SO_RCVLOWAT", unix.SOL_SOCKET, unix.SO_RCVLOWAT}, {"SO_SNDLOWAT", unix.SOL_SOCKET, unix.SO_SNDLOWAT},
		{"SO_TIMESTAMP", unix.SOL_SOCKET, unix.SO_TIMESTAMP}, {"SO_TIMESTAMPNS", unix.SOL_SOCKET, unix.SO_TIMESTAMPNS},
		{"SO_ZEROCOPY", unix.SOL_SOCKET, unix.SO_ZEROCOPY}, {"SO_INCOMING_CPU", unix.SOL_SOCKET, unix.SO_INCOMING_CPU},
		{"SO_BUSY_POLL", unix.SOL_SOCKET, unix.SO_BUSY_POLL}, {"SO_ATTACH_FILTER", unix.SOL_SOCKET, unix.SO_ATTACH_FILTER},
		{"SO_PEERCRED", unix.SOL_SOCKET, unix.SO_PEERCRED}, {"SO_PASSCRED", unix.SOL_SOCKET, unix.SO_PASSCRED},
		{"SO_DONTROUTE", unix.SOL_SOCKET, unix.SO_DONTROUTE}, {"SO_MAX_PACING_RATE", unix.SOL_SOCKET, unix.SO_MAX_PACING_RATE},
		{"TCP_NODELAY", unix.IPPROTO_TCP, unix.TCP_NODELAY}, {"TCP_QUICKACK", unix.IPPROTO_TCP, unix.TCP_QUICKACK},
		{"TCP_KEEPIDLE", unix.IPPROTO_TCP, unix.TCP_KEEPIDLE}, {"TCP_KEEPINTVL", unix.IPPROTO_TCP, unix.TCP_KEEPINTVL},
		{"TCP_KEEPCNT", unix.IPPROTO_TCP, unix.TCP_KEEPCNT}, {"TCP_USER_TIMEOUT", unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT},
		{"TCP_CORK", unix.IPPROTO_TCP, unix.TCP_CORK}, {"TCP_DEFER_ACCEPT", unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT},
		{"TCP_FASTOPEN", unix.IPPROTO_TCP, unix.TCP_FASTOPEN}, {"TCP_MAXSEG", unix.IPPROTO_TCP, unix.TCP_MAXSEG},
		{"TCP_INFO", unix.IPPROTO_TCP, unix.TCP_INFO}, {"TCP_CONGESTION", unix.IPPROTO_TCP, unix.TCP_CONGESTION},
		{"TCP_NOTSENT_LOWAT", unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT}, {"TCP_WINDOW_CLAMP", unix.IPPROTO_TCP, unix.TCP_WINDOW_CLAMP},
		{"TCP_SYNCNT", unix.IPPROTO_TCP, unix.TCP_SYNCNT}, {"TCP_LINGER2", unix.IPPROTO_TCP, unix.TCP_LINGER2},
		{"TCP_MD5SIG", unix.IPPROTO_TCP, unix.TCP_MD5SIG}, {"TCP_ULP", unix.IPPROTO_TCP, unix.TCP_ULP},
		{"TCP_REPAIR", unix.IPPROTO_TCP, unix.TCP_REPAIR}, {"TCP_FASTOPEN_CONNECT", unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT},
		{"IP_TOS", unix.IPPROTO_IP, unix.IP_TOS}, {"IP_TTL", unix.IPPROTO_IP, unix.IP_TTL},
		{"IP_RECVERR", unix.IPPROTO_IP, unix.IP_RECVERR}, {"IP_MTU_DISCOVER", unix.IPPROTO_IP, unix.IP_MTU_DISCOVER},
		{"IP_RECVTOS", unix.IPPROTO_IP, unix.IP_RECVTOS}, {"IP_RECVTTL", unix.IPPROTO_IP, unix.IP_RECVTTL},
		{"IP_PKTINFO", unix.IPPROTO_IP, unix.IP_PKTINFO}, {"IP_FREEBIND", unix.IPPROTO_IP, unix.IP_FREEBIND},
		{"IP_TRANSPARENT", unix.IPPROTO_IP, unix.IP_TRANSPARENT}, {"IP_MULTICAST_IF", unix.IPPROTO_IP, unix.IP_MULTICAST_IF},
		{"IP_MULTICAST_TTL", unix.IPPROTO_IP, unix.IP_MULTICAST_TTL}, {"IP_MULTICAST_LOOP", unix.IPPROTO_IP, unix.IP_MULTICAST_LOOP},
		{"IP_ADD_MEMBERSHIP", unix.IPPROTO_IP, unix.IP_ADD_MEMBERSHIP}, {"IP_BIND_ADDRESS_NO_PORT", unix.IPPROTO_IP, unix.IP_BIND_ADDRESS_NO_PORT},
		{"IPV6_V6ONLY", unix.IPPROTO_IPV6, unix.IPV6_V6ONLY}, {"IPV6_TCLASS", unix.IPPROTO_IPV6, unix.IPV6_TCLASS},
		{"IPV6_UNICAST_HOPS", unix.IPPROTO_IPV6, unix.IPV6_UNICAST_HOPS}, {"IPV6_RECVERR", unix.IPPROTO_IPV6, unix.IPV6_RECVERR},
		{"IPV6_RECVTCLASS", unix.IPPROTO_IPV6, unix.IPV6_RECVTCLASS}, {"IPV6_RECVPKTINFO", unix.IPPROTO_IPV6, unix.IPV6_RECVPKTINFO},
		{"IPV6_MULTICAST_IF", unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_IF}, {"IPV6_MULTICAST_HOPS", unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_HOPS},
		{"IPV6_MULTICAST_LOOP", unix.IPPROTO_IPV6, unix.IPV6_MULTICAST_LOOP}, {"IPV6_JOIN_GROUP", unix.IPPROTO_IPV6, unix.IPV6_JOIN_GROUP},
	} {
		linux[o.name] = [2]int{o.level, o.name2}
	}
	check := func(opt vkernel.SockOpt, name string) {
		want, ok := linux[name]
		if !ok {
			t.Errorf("%s: not in this test's list of Linux's options", name)
			return
		}
		if got := [2]int{int(opt.Level), int(opt.Name)}; got != want {
			t.Errorf("%s: vkernel has level %d name %d, Linux %d %d", name, got[0], got[1], want[0], want[1])
		}
	}
	for opt, spec := range vkernel.InetOptions() {
		check(opt, spec.Name)
	}
	for opt, name := range vkernel.UnmodelledOptionNames() {
		check(opt, name)
	}
	for _, ro := range []struct {
		opt  uint64
		name string
	}{{vkernel.SoError, "SO_ERROR"}, {vkernel.SoType, "SO_TYPE"}, {vkernel.SoDomain, "SO_DOMAIN"}, {vkernel.SoProtocol, "SO_PROTOCOL"}, {vkernel.SoAcceptconn, "SO_ACCEPTCONN"}, {vkernel.SoNapiID, "SO_INCOMING_NAPI_ID"}} {
		check(vkernel.SockOpt{Level: vkernel.SolSocket, Name: ro.opt}, ro.name)
	}
	for _, c := range [][2]int{{vkernel.AfInet, unix.AF_INET}, {vkernel.AfInet6, unix.AF_INET6}, {vkernel.IPProtoTCP, unix.IPPROTO_TCP}, {vkernel.IPProtoUDP, unix.IPPROTO_UDP},
		{int(vkernel.ENOPROTOOPT), int(unix.ENOPROTOOPT)}, {vkernel.SolUDP, unix.IPPROTO_UDP}, {vkernel.SolRaw, unix.SOL_RAW}, {vkernel.SolPacket, unix.SOL_PACKET}, {vkernel.SolTLS, unix.SOL_TLS}, {vkernel.SolMPTCP, unix.IPPROTO_MPTCP}} {
		if c[0] != c[1] {
			t.Errorf("constant %d, Linux %d", c[0], c[1])
		}
	}
}
