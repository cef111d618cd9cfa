package supervisor

import (
	"fmt"
	"slices"
)

// decision is weft's answer to one intercepted syscall.
type decision int

const (
	// serve: weft answers the call (possibly by letting the kernel run it
	// for descriptors that are not virtual, e.g. a write to a file).
	serve decision = iota
	// unsupported: the call is in a family weft intercepts but does not
	// model; it ends the run with verdict error naming the syscall and node,
	// rather than hanging or passing through silently.
	unsupported
)

// entry is one row of the syscall table.
type entry struct {
	name     string
	decision decision
	handler  handler // nil when unsupported
	note     string  // why a call is unsupported, or a partial-support caveat
}

func served(name string, h handler) entry { return entry{name: name, decision: serve, handler: h} }
func servedPartly(name string, h handler, note string) entry {
	return entry{name: name, decision: serve, handler: h, note: note}
}
func notModelled(name, note string) entry {
	return entry{name: name, decision: unsupported, note: note}
}

// sysName names syscall nr for messages.
func sysName(nr int) string {
	if e, ok := syscallTable[nr]; ok {
		return e.name
	}
	return fmt.Sprintf("syscall %d", nr)
}

// interceptedNumbers lists every syscall the seccomp filter notifies,
// in ascending order (the table is the single source of truth).
func interceptedNumbers() []int {
	nrs := make([]int, 0, len(syscallTable))
	for nr := range syscallTable {
		nrs = append(nrs, nr)
	}
	slices.Sort(nrs)
	return nrs
}
