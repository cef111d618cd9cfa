//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// TestNetlinkC runs testdata/netlink.c under real seccomp, twice for each
// of two orders of choices: glibc's getifaddrs lists the node's virtual
// lo and eth0 (no host interface, MAC or address), and a raw
// NETLINK_ROUTE socket binds, names itself, answers an address dump
// (MSG_PEEK|MSG_TRUNC sizes it, a short peek is truncated) and refuses a
// new address with EPERM, which the run's notes name; a blocking recv
// waits its SO_RCVTIMEO, kept in ticks of the virtual HZ, in node time,
// and fails at once under a timeout of zero.
func TestNetlinkC(t *testing.T) {
	bin := buildProbe(t, "netlink", "-O1", "-Wall")
	want := `ifaddr lo family 17 flags 0x10049 addr 00:00:00:00:00:00
ifaddr eth0 family 17 flags 0x11043 addr 02:77:66:00:00:01
ifaddr lo family 2 flags 0x10049 addr 127.0.0.1
ifaddr eth0 family 2 flags 0x11043 addr 127.0.0.1
ifaddr lo family 10 flags 0x10049 addr ::1
bind 0
getsockname len 12 family 16 pid>0 1
SO_DOMAIN 16
SO_RCVBUF set 0
NETLINK_EXT_ACK set 0
empty recv -1 Resource temporarily unavailable
send 24
peek>0 1
short peek 1 trunc 1 name pid 0
  addr index 1 prefix 8 seq 5
  addr index 2 prefix 32 seq 5
dump: 3 messages, done 1
send newaddr 24
newaddr answered: error -1 seq 6
SO_RCVTIMEO {0,1234} reads {0,4000}: recv -1 Resource temporarily unavailable after 4000000 ns
SO_RCVTIMEO {-1,0} reads {0,0}: recv -1 Resource temporarily unavailable after 0 ns
`
	for _, pick := range []func([]sched.Action, int) sched.Action{first, last} {
		out := runTwiceHashed(t, "netlink", Config{Nodes: []NodeSpec{{Path: bin}}}, HashMemory, pick, func(w *World) {
			notes := fmt.Sprint(w.Notes())
			if !strings.Contains(notes, "sendto request RTM_NEWADDR (0x14) refused (EPERM)") {
				t.Errorf("notes lack the refused RTM_NEWADDR: %s", notes)
			}
		})
		if out != want {
			t.Errorf("output\n%s\nwant\n%s", out, want)
		}
	}
}

// TestNetlinkAuditRefused checks that a netlink family other than
// NETLINK_ROUTE ends the run with a failure that names it.
func TestNetlinkAuditRefused(t *testing.T) {
	bin := buildProbe(t, "netlink", "-O1", "-Wall")
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"audit"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for step := 0; step < 10000 && w.Failure() == nil; step++ {
		acts := w.Enabled()
		if len(acts) == 0 || w.Apply(acts[0]) != nil {
			break
		}
	}
	f := w.Failure()
	if f == nil || !strings.Contains(f.Error(), "netlink family NETLINK_AUDIT is not modelled") {
		t.Errorf("failure %v, want NETLINK_AUDIT refused; output %q", f, w.Output(0))
	}
	if strings.Contains(string(w.Output(0)), "audit socket") {
		t.Errorf("the socket call returned: %q", w.Output(0))
	}
}

// TestNetlinkGo runs testdata/gonetlink under real seccomp, twice for
// each of two orders of choices: Go's net.Interfaces, Interface.Addrs,
// InterfaceAddrs, InterfaceByName and InterfaceByIndex read the node's
// virtual interfaces over NETLINK_ROUTE.
func TestNetlinkGo(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "gonetlink")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/gonetlink").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	want := `if 1 lo mtu 65536 mac "" flags up|loopback|running
  addr 127.0.0.1/8
  addr ::1/128
if 2 eth0 mtu 1500 mac "02:77:66:00:00:01" flags up|broadcast|multicast|running
  addr 127.0.0.1/32
all: [127.0.0.1/8 127.0.0.1/32 ::1/128]
eth0 by name: 2 <nil>
index 7: route ip+net: no such network interface
`
	for _, pick := range []func([]sched.Action, int) sched.Action{first, last} {
		out := runTwiceHashed(t, "gonetlink", Config{Nodes: []NodeSpec{{Path: bin}}}, HashGlobals, pick, nil)
		if out != want {
			t.Errorf("output\n%s\nwant\n%s", out, want)
		}
	}
}

// TestNetlinkStateHash changes one piece of a NETLINK_ROUTE socket's state
// at a time and requires the world hash to change: its port id, groups,
// flags, type, queued replies, wake-up counts and timeouts are all covered, and
// building the same state twice hashes the same.
func TestNetlinkStateHash(t *testing.T) {
	build := func() *node {
		n := &node{fds: newFDTable()}
		s := &netlinkSock{typ: unix.SOCK_RAW, route: vkernel.RouteSocket{Ifaces: vkernel.NodeInterfaces(0, [4]byte{127, 0, 0, 1}), Port: 1000}}
		s.route.Send([]byte{20, 0, 0, 0, 18, 0, 1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}) // RTM_GETLINK dump
		n.fds.Record(3, &vfd{obj: s, ours: -1}, false)
		return n
	}
	sock := func(n *node) *netlinkSock { return n.fds.At(3).obj.(*netlinkSock) }
	mutations := []struct {
		name string
		f    func(*node)
	}{
		{"port", func(n *node) { sock(n).route.Port++ }},
		{"groups", func(n *node) { sock(n).groups = 1 }},
		{"CAP_ACK", func(n *node) { sock(n).opts[netlinkCapAck] = 1 }},
		{"type", func(n *node) { sock(n).typ = unix.SOCK_DGRAM }},
		{"reply byte", func(n *node) { sock(n).route.Queue[0][20] ^= 1 }},
		{"reply read", func(n *node) { sock(n).route.Queue = sock(n).route.Queue[1:] }},
		{"wake-ups", func(n *node) { sock(n).genIn++ }},
		{"reads", func(n *node) { sock(n).genOut++ }},
		{"receive timeout", func(n *node) { sock(n).SetTimeout(false, 1) }},
		{"send timeout", func(n *node) { sock(n).SetTimeout(true, 1) }},
		{"zero receive timeout", func(n *node) { sock(n).SetTimeout(false, -1) }},
	}
	base := fileHash(build())
	if fileHash(build()) != base {
		t.Fatal("the same state hashes differently")
	}
	if len(sock(build()).route.Queue) == 0 {
		t.Fatal("the dump queued nothing")
	}
	for _, m := range mutations {
		n := build()
		m.f(n)
		if fileHash(n) == base {
			t.Errorf("%s: the hash did not change", m.name)
		}
	}
}
