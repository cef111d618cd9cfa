//go:build linux && amd64

package supervisor

import (
	"fmt"
	"slices"
)

// decision is weft's answer to one syscall number.
type decision int

const (
	// serve: the filter notifies weft and a handler answers the call
	// (possibly by letting the kernel run it, e.g. a write to a file).
	serve decision = iota
	// passthrough: the call is deterministic and cannot show a node
	// anything of the host; the filter allows it itself, at no round-trip
	// cost. The entry's note says why.
	passthrough
	// refuse: weft answers every such call with the entry's errno; the
	// note says why.
	refuse
	// unsupported: the call is in a family weft does not model; it ends
	// the run with verdict error naming the syscall and node, rather than
	// hanging or running unseen.
	unsupported
)

var decisionNames = [...]string{"served", "passthrough", "refused", "unsupported"}

func (d decision) String() string { return decisionNames[d] }

// entry is one row of the syscall table.
type entry struct {
	name     string
	decision decision
	handler  handler      // serve only
	errno    uintptrErrno // refuse only
	note     string       // why: the reason for a passthrough, refusal or lack of support, or a caveat
}

func served(name string, h handler) entry { return entry{name: name, decision: serve, handler: h} }
func servedPartly(name string, h handler, note string) entry {
	return entry{name: name, decision: serve, handler: h, note: note}
}
func passed(name, why string) entry { return entry{name: name, decision: passthrough, note: why} }
func refused(name string, e uintptrErrno, why string) entry {
	return entry{name: name, decision: refuse, errno: e, note: why}
}
func notModelled(name, note string) entry {
	return entry{name: name, decision: unsupported, note: note}
}

// lookup returns the decision for syscall nr: its table row, or, for a
// number the table does not name (x86-64's unassigned range, numbers newer
// than the table, x32 numbers), ENOSYS as the kernel itself answers for a
// number it does not know.
func lookup(nr int) entry {
	if e, ok := syscallTable[nr]; ok {
		return e
	}
	return entry{name: fmt.Sprintf("syscall %d", nr), decision: refuse, errno: enosys,
		note: "not a syscall weft knows on this architecture"}
}

// sysName names syscall nr for messages.
func sysName(nr int) string { return lookup(nr).name }

// passedNumbers lists, in ascending order, the syscalls the seccomp filter
// allows without notifying weft (the table is the single source of truth;
// everything else notifies).
func passedNumbers() []int {
	var nrs []int
	for nr, e := range syscallTable {
		if e.decision == passthrough {
			nrs = append(nrs, nr)
		}
	}
	slices.Sort(nrs)
	return nrs
}
