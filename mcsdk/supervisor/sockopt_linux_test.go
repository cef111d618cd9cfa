//go:build linux && amd64

package supervisor

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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
		name := optionName(sockopt{uint64(tc.level), uint64(tc.name)})
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

// TestSocketOptionTable checks that every option weft serves or names
// has a name in words under its level.
func TestSocketOptionTable(t *testing.T) {
	for opt, spec := range socketOptions {
		if got := optionName(opt); !strings.Contains(got, " "+spec.name+" (") || strings.HasPrefix(got, "level ") {
			t.Errorf("%v: %q", opt, got)
		}
		if _, named := unmodelledOptionNames[opt]; named {
			t.Errorf("%s is served and listed as not modelled", spec.name)
		}
	}
	for opt, name := range unmodelledOptionNames {
		if got := optionName(opt); !strings.Contains(got, " "+name+" (") || strings.HasPrefix(got, "level ") {
			t.Errorf("%v: %q", opt, got)
		}
	}
}
