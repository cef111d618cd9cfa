//go:build linux && amd64

package supervisor

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRequestTablesWellFormed checks every row of the ioctl and fcntl
// allow-lists: a name and a reason, and either kinds it runs for or an
// errno it is refused with, never both.
func TestRequestTablesWellFormed(t *testing.T) {
	rows := map[string]requestRule{}
	for req, r := range ioctlTable {
		rows[fmt.Sprintf("ioctl %#x", req)] = r
	}
	for cmd, r := range fcntlTable {
		rows[fmt.Sprintf("fcntl %d", cmd)] = r.requestRule
		if r.serve != nil && r.kinds == 0 {
			t.Errorf("fcntl %d (%s): a handler for a refused command", cmd, r.name)
		}
	}
	for key, r := range rows {
		switch {
		case r.name == "" || r.why == "":
			t.Errorf("%s: name %q, why %q", key, r.name, r.why)
		case (r.kinds == 0) == (r.errno == 0):
			t.Errorf("%s (%s): kinds %v and errno %v: want exactly one", key, r.name, r.kinds, r.errno)
		}
	}
}

// reqKinds are the descriptor kinds testdata/reqs.c opens, and what weft
// classifies them as.
var reqKinds = []struct {
	arg  string
	kind fdKind
}{
	{"file", kindFile}, {"dir", kindDir}, {"null", kindChar}, {"pipe", kindInNode}, {"inet", kindVSocket}, {"eventfd", kindInNode},
}

// TestRequestTablesUnderSeccomp issues every request of both allow-lists,
// and one request on neither, on each kind of descriptor, one node per
// kind, under real seccomp: a refused request answers its errno, a
// request not allowed for the kind ENOTTY (ioctl) or EINVAL (fcntl), and
// exactly the refused ones leave a note naming the syscall, request,
// node and thread.
func TestRequestTablesUnderSeccomp(t *testing.T) {
	bin := buildProbe(t, "reqs", "-O1", "-Wall")
	args := []string{"i0x7777", "f7777"} // on neither list
	for _, req := range sortedKeys(ioctlTable) {
		args = append(args, fmt.Sprintf("i%#x", req))
	}
	for _, cmd := range sortedKeys(fcntlTable) {
		args = append(args, fmt.Sprintf("f%d", cmd))
	}
	var nodes []NodeSpec
	for _, k := range reqKinds {
		nodes = append(nodes, NodeSpec{Path: bin, Args: append([]string{k.arg}, args...)})
	}
	w, _ := runThreads(t, Config{Nodes: nodes}, first)
	if f := w.Failure(); f != nil {
		t.Fatalf("failure: %v", f)
	}
	noted := map[string]bool{}
	for _, n := range w.Notes() {
		if n.Thread != fmt.Sprintf("n%d/t0", n.Node) {
			t.Errorf("note names thread %q for node %d", n.Thread, n.Node)
		}
		noted[fmt.Sprintf("%d %s %#x", n.Node, n.Syscall, n.Request)] = true
	}
	for i, k := range reqKinds {
		lines := strings.Split(strings.TrimSpace(string(w.Output(i))), "\n")
		if len(lines) != len(args) {
			t.Fatalf("%s: %d lines for %d requests:\n%s", k.arg, len(lines), len(args), w.Output(i))
		}
		for _, line := range lines {
			var sys string
			var req uint64
			var got string
			fmt.Sscanf(line, "%s %v %s", &sys, &req, &got)
			rule, refused, want := expectRequest(sys, req, k.kind)
			name := map[string]string{"i": "ioctl", "f": "fcntl"}[sys]
			key := fmt.Sprintf("%d %s %#x", i, name, req)
			if got == "EOPNOTSUPP" {
				got = "ENOTSUP" // the same number; glibc and x/sys/unix name it differently
			}
			if refused && got != want {
				t.Errorf("%s on kind %s (%s): %s, want %s", name, k.kind, rule.name, got, want)
			}
			if refused != noted[key] {
				t.Errorf("%s %#x (%s) on kind %s: refused %v but noted %v", name, req, rule.name, k.kind, refused, noted[key])
			}
		}
	}
}

// expectRequest says whether the table refuses request req of syscall
// "i" (ioctl) or "f" (fcntl) on a descriptor of kind k, and with which
// errno.
func expectRequest(sys string, req uint64, k fdKind) (requestRule, bool, string) {
	var rule requestRule
	var ok bool
	notAllowed := unix.EINVAL
	if sys == "i" {
		rule, ok = ioctlTable[req]
		notAllowed = unix.ENOTTY
	} else {
		var fr fcntlRule
		fr, ok = fcntlTable[req]
		rule = fr.requestRule
	}
	switch {
	case !ok:
		return rule, true, unix.ErrnoName(notAllowed)
	case rule.kinds == 0:
		return rule, true, unix.ErrnoName(rule.errno)
	case !rule.kinds.has(k):
		return rule, true, unix.ErrnoName(notAllowed)
	}
	return rule, false, ""
}

func sortedKeys[V any](m map[uint64]V) []uint64 {
	var ks []uint64
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
