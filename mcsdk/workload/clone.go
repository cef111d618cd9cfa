package workload

import (
	"maps"
	"slices"
)

// Clone returns an independent copy of the clients and their history
// (the spec and the table, which do not change, are shared).
func (c *Clients) Clone() *Clients {
	out := &Clients{spec: c.spec, table: c.table, next: slices.Clone(c.next), pending: slices.Clone(c.pending),
		byReq: maps.Clone(c.byReq), consumed: c.consumed, order: slices.Clone(c.order), Ops: slices.Clone(c.Ops)}
	for i := range out.Ops {
		out.Ops[i].Values = slices.Clone(out.Ops[i].Values)
	}
	return out
}
