package sched

import (
	"fmt"
	"slices"
	"strings"
)

// Omit removes faults and workload operations from a seeded run
// (shrinking) while every draw is still made, so that the rest of the
// seed's schedule stays where it was.
type Omit struct {
	// Partitions are indexes into Plan.Partitions that do not happen.
	Partitions []int `json:"partitions,omitempty"`
	// Clocks are the nodes whose clock fault (offset, drift, jumps) is
	// removed: their clocks run true.
	Clocks []int `json:"clocks,omitempty"`
	// NoDrops: no datagram is lost or duplicated.
	NoDrops bool `json:"no_drops,omitempty"`
	// Ops, when non-nil, bounds each workload client's operations: client
	// c makes at most Ops[c] (a client beyond the list makes them all).
	Ops []int `json:"ops,omitempty"`
}

// IsZero reports whether o removes nothing.
func (o Omit) IsZero() bool {
	return len(o.Partitions) == 0 && len(o.Clocks) == 0 && !o.NoDrops && o.Ops == nil
}

// String says what o removes, e.g. "partition 0, clock of n2, drops, ops
// c0≤3".
func (o Omit) String() string {
	var parts []string
	for _, p := range o.Partitions {
		parts = append(parts, fmt.Sprintf("partition %d", p))
	}
	for _, n := range o.Clocks {
		parts = append(parts, fmt.Sprintf("clock of n%d", n))
	}
	if o.NoDrops {
		parts = append(parts, "drops")
	}
	for c, k := range o.Ops {
		if k >= 0 {
			parts = append(parts, fmt.Sprintf("ops c%d≤%d", c, k))
		}
	}
	return strings.Join(parts, ", ")
}

// clone returns a deep copy of o.
func (o Omit) clone() Omit {
	return Omit{Partitions: slices.Clone(o.Partitions), Clocks: slices.Clone(o.Clocks), NoDrops: o.NoDrops, Ops: slices.Clone(o.Ops)}
}

// opAllowed reports whether client c may make its k-th operation.
func (o Omit) opAllowed(c, k int) bool {
	return c >= len(o.Ops) || o.Ops[c] < 0 || k < o.Ops[c]
}
