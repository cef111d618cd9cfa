//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNetlinkC runs testdata/netlink.c under real seccomp, twice for each
// of two orders of choices: glibc's getifaddrs lists the node's virtual
// lo and eth0 (no host interface, MAC or address), and a raw
// NETLINK_ROUTE socket binds, names itself, answers an address dump
// (MSG_PEEK|MSG_TRUNC sizes it, a short peek is truncated) and refuses a
// new address with EPERM, which the run's notes name.
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
`
	for _, pick := range []func([]Action, int) Action{first, last} {
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
	for _, pick := range []func([]Action, int) Action{first, last} {
		out := runTwiceHashed(t, "gonetlink", Config{Nodes: []NodeSpec{{Path: bin}}}, HashGlobals, pick, nil)
		if out != want {
			t.Errorf("output\n%s\nwant\n%s", out, want)
		}
	}
}
