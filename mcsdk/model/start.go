package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Start is when a model's clients begin ([client] start, [workload]
// start): at a virtual time, or once the nodes they talk to are up
// (started, and accepting connections on their ports).
//
//	start = 20000    # virtual µs since the run's start
//	start = "up"     # once every node the clients contact accepts connections
//
// The zero Start is the run's start. Times the clients use (a request's
// at, the window of drawn times, a workload's think time) count from it.
type Start struct {
	AtUS int64
	Up   bool
}

// maxStartUS bounds start times and delays (as [campaign] times): 10^15 µs.
const maxStartUS = 1_000_000_000_000_000

// startKeys reads a [[node]] entry's start_after and start_delay; the
// names of start_after are resolved by startOrder once every node is
// known.
func (p *parser) startKeys(t map[string]any, path string, d *NodeDef) {
	if v, ok := t["start_after"]; ok {
		switch v := v.(type) {
		case string:
			d.after = []string{v}
		case []any:
			d.after = p.stringsAt(t, path, "start_after")
		default:
			p.errAt(p.loc.valPos(path+".start_after"), "%s.start_after must be a node (\"n0\"), a role or a list of them, not %s", displayPath(path), tomlType(v))
		}
	}
	if n, ok := p.getInt(t, path, "start_delay"); ok {
		if n < 0 || n > maxStartUS {
			p.errAt(p.loc.valPos(path+".start_delay"), "%s.start_delay = %d: want a virtual time in µs between 0 and 10^15", displayPath(path), n)
		} else {
			d.StartDelayUS = n
		}
	}
}

// startOrder resolves every node's start_after into node indices and
// reports unknown names, a node that waits for itself and cycles.
func (p *parser) startOrder(list []map[string]any) {
	defs := p.m.NodeDefs
	first := 0
	for k, t := range list {
		path := fmt.Sprintf("node#%d", k)
		c, _ := t["count"].(int64)
		c = max(c, 1)
		if first >= len(defs) {
			break
		}
		d := defs[first]
		var after []int
		for _, name := range d.after {
			ns, err := p.nodesNamed(name)
			if err != "" {
				p.errAt(p.loc.valPos(path+".start_after"), "%s.start_after: %s", displayPath(path), err)
				continue
			}
			for _, n := range ns {
				if n >= first && n < first+int(c) {
					p.errAt(p.loc.valPos(path+".start_after"), "%s.start_after: %q names the node itself (n%d)", displayPath(path), name, n)
					continue
				}
				if !slices.Contains(after, n) {
					after = append(after, n)
				}
			}
		}
		for i := first; i < first+int(c) && i < len(defs); i++ {
			defs[i].StartAfter, defs[i].after = after, nil
		}
		first += int(c)
	}
	if cyc := startCycle(defs); cyc != nil {
		names := make([]string, len(cyc))
		for i, n := range cyc {
			names[i] = p.m.NodeName(n)
		}
		p.errAt(defs[cyc[0]].Pos, "start_after makes a cycle: %s: no node of it would ever start", strings.Join(names, " waits for "))
	}
}

// nodesNamed resolves a node name of start_after: "nK" or a role.
func (p *parser) nodesNamed(name string) ([]int, string) {
	if rest, ok := strings.CutPrefix(name, "n"); ok {
		if k, err := strconv.Atoi(rest); err == nil {
			if k < 0 || k >= len(p.m.NodeDefs) {
				return nil, fmt.Sprintf("no node %s (nodes n0..n%d)", name, len(p.m.NodeDefs)-1)
			}
			return []int{k}, ""
		}
	}
	if ns := p.m.RoleNodes(name); len(ns) > 0 {
		return ns, ""
	}
	return nil, fmt.Sprintf("%q is neither a node (n0..n%d) nor a role%s", name, len(p.m.NodeDefs)-1, p.roles())
}

// startCycle returns a cycle of the start_after relation, or nil.
func startCycle(defs []NodeDef) []int {
	state := make([]int, len(defs)) // 0 unseen, 1 on the path, 2 done
	var path []int
	var visit func(i int) []int
	visit = func(i int) []int {
		state[i] = 1
		path = append(path, i)
		for _, j := range defs[i].StartAfter {
			switch state[j] {
			case 1:
				k := slices.Index(path, j)
				return append(slices.Clone(path[k:]), j)
			case 0:
				if c := visit(j); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = 2
		return nil
	}
	for i := range defs {
		if state[i] == 0 {
			if c := visit(i); c != nil {
				return c
			}
		}
	}
	return nil
}

// start reads SECTION.start: a virtual time in µs or "up".
func (p *parser) start(t map[string]any, section string) Start {
	v, ok := t["start"]
	if !ok {
		return Start{}
	}
	path := section + ".start"
	switch v := v.(type) {
	case int64:
		if v < 0 || v > maxStartUS {
			p.errAt(p.loc.valPos(path), "%s = %d: want a virtual time in µs between 0 and 10^15, or \"up\"", path, v)
			return Start{}
		}
		return Start{AtUS: v}
	case string:
		if v == "up" {
			return Start{Up: true}
		}
	}
	p.errAt(p.loc.valPos(path), "%s must be a virtual time in µs or \"up\" (once the nodes accept connections), not %v", path, v)
	return Start{}
}
