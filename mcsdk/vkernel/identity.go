package vkernel

import (
	"fmt"
	"strings"
)

// Identity returns the host-identifying files of node i of a world whose
// nodes are named names, as virtual files: every value is the model's,
// none the host's. The /proc/self files are served by the /proc table
// (procfs.go) from here.
func Identity(i int, names []string) map[string][]byte {
	var hosts strings.Builder
	hosts.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
	for _, n := range names {
		fmt.Fprintf(&hosts, "127.0.0.1\t%s\n", n) // every node listens on the loopback, at its own port
	}
	return map[string][]byte{
		"/etc/hostname":        []byte(names[i] + "\n"),
		"/etc/machine-id":      fmt.Appendf(nil, "%032x\n", 0x77656674_00000000+uint64(i)), // "weft" and the node's index
		"/etc/resolv.conf":     []byte("# weft: the virtual network has no DNS; /etc/hosts names the nodes\nnameserver 127.0.0.1\noptions attempts:1 timeout:1\n"),
		"/etc/hosts":           []byte(hosts.String()),
		"/proc/self/cgroup":    []byte("0::/\n"),
		"/proc/self/mountinfo": []byte("1 0 0:1 / / rw,noatime - weft weft rw\n"),
	}
}

// NodeNames are the names of n nodes, as uname and /etc/hostname give
// them: node0, node1, ….
func NodeNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("node%d", i)
	}
	return out
}
