package model

import (
	"regexp"
	"strings"

	"github.com/weft-mc/weft/mcsdk/workload"
)

// Workload defaults.
const (
	DefaultWorkloadTimeoutUS = 50_000
	DefaultWorkloadThinkUS   = 10_000
)

// workload parses [workload]: the clients' operations (a register, a
// key-value map or a set), how many clients and operations, which nodes
// each client may contact, the values, and each operation's request and
// reply formats.
func (p *parser) workload() {
	t := p.table("workload")
	if t == nil {
		return
	}
	p.checkKeys("workload", t, "kind", "clients", "ops", "nodes", "use", "values", "keys", "timeout", "think", "request", "reply", "fail", "start", "protocol")
	s := &workload.Spec{Clients: 1, Ops: 1, TimeoutUS: DefaultWorkloadTimeoutUS, ThinkUS: DefaultWorkloadThinkUS}
	kind, ok := p.getString(t, "workload", "kind")
	if !ok && t["kind"] == nil {
		p.errAt(p.loc.keyPos("workload"), "workload.kind is required (register, kv, set)")
		return
	}
	s.Kind = workload.Kind(kind)
	if workload.OpsOf(s.Kind) == nil {
		p.errAt(p.loc.valPos("workload.kind"), "unknown workload.kind %q (register, kv, set)", kind)
		return
	}
	p.positive(t, "clients", &s.Clients, 1)
	p.positive(t, "ops", &s.Ops, 1)
	for _, k := range []struct {
		key string
		dst *int64
	}{{"timeout", &s.TimeoutUS}, {"think", &s.ThinkUS}} {
		if n, ok := p.getInt(t, "workload", k.key); ok {
			if n < 0 || k.key == "timeout" && n == 0 {
				p.errAt(p.loc.valPos("workload."+k.key), "workload.%s must be positive (µs), not %d", k.key, n)
			}
			*k.dst = n
		}
	}
	s.Nodes = p.workloadNodes(t, s.Clients)
	p.m.WorkloadStart = p.start(t, "workload")
	s.Protocol = p.protocol(t, "workload")
	for i, u := range p.stringList(t, "use", workload.OpsOf(s.Kind)) {
		if !contains(workload.OpsOf(s.Kind), u) {
			p.errAt(p.loc.valPos("workload.use"), "workload.use[%d]: %q is not an operation of a %s (%s)", i, u, s.Kind, strings.Join(workload.OpsOf(s.Kind), ", "))
			continue
		}
		s.Use = append(s.Use, u)
	}
	s.Values = p.intList(t, "values", []int64{1, 2})
	if s.Kind == workload.KV {
		s.Keys = p.stringList(t, "keys", []string{"x"})
	} else if _, ok := t["keys"]; ok {
		p.errAt(p.loc.keyPos("workload.keys"), "workload.keys is for kind kv only")
	}
	s.Request = p.formats(t, "request", s.Kind, s.Use, true)
	s.Reply, s.Fail = map[string]*regexp.Regexp{}, map[string]*regexp.Regexp{}
	if op, err := s.CheckRequests(); err != nil {
		p.errAt(p.loc.valPos("workload.request."+op), "workload.request.%s: %v", op, err)
	}
	for op, re := range p.formats(t, "reply", s.Kind, s.Use, true) {
		s.Reply[op] = p.regexp("reply", op, re)
	}
	for op, re := range p.formats(t, "fail", s.Kind, s.Use, false) {
		s.Fail[op] = p.regexp("fail", op, re)
	}
	p.m.Workload = s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) positive(t map[string]any, key string, dst *int, def int) {
	*dst = def
	if n, ok := p.getInt(t, "workload", key); ok {
		if n < 1 || n > 1000 {
			p.errAt(p.loc.valPos("workload."+key), "workload.%s must be in 1..1000, not %d", key, n)
			return
		}
		*dst = int(n)
	}
}

// workloadNodes reads workload.nodes: a list of nodes every client may
// contact, or one such list per client. Default: every node.
func (p *parser) workloadNodes(t map[string]any, clients int) [][]int {
	all := make([]int, p.m.Nodes)
	for i := range all {
		all[i] = i
	}
	v, ok := t["nodes"]
	if !ok {
		return [][]int{all}
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		p.errAt(p.loc.valPos("workload.nodes"), "workload.nodes must be a non-empty list of nodes, or of lists of nodes (one per client)")
		return [][]int{all}
	}
	node := func(x any) (int, bool) {
		n, ok := x.(int64)
		if !ok || n < 0 || n >= int64(p.m.Nodes) {
			p.errAt(p.loc.valPos("workload.nodes"), "workload.nodes: %v is not a node (0..%d)", x, p.m.Nodes-1)
			return 0, false
		}
		return int(n), true
	}
	if _, nested := list[0].([]any); !nested {
		var ns []int
		for _, x := range list {
			if n, ok := node(x); ok {
				ns = append(ns, n)
			}
		}
		return [][]int{ns}
	}
	if len(list) != clients {
		p.errAt(p.loc.valPos("workload.nodes"), "workload.nodes has %d lists for %d clients", len(list), clients)
	}
	var out [][]int
	for _, l := range list {
		inner, ok := l.([]any)
		if !ok || len(inner) == 0 {
			p.errAt(p.loc.valPos("workload.nodes"), "workload.nodes: every entry must be a non-empty list of nodes")
			return [][]int{all}
		}
		var ns []int
		for _, x := range inner {
			if n, ok := node(x); ok {
				ns = append(ns, n)
			}
		}
		out = append(out, ns)
	}
	if len(out) == 0 {
		return [][]int{all}
	}
	return out
}

func (p *parser) stringList(t map[string]any, key string, def []string) []string {
	return listOf(p, t, key, "strings", def)
}

func (p *parser) intList(t map[string]any, key string, def []int64) []int64 {
	return listOf(p, t, key, "integers", def)
}

// listOf reads workload.KEY as a non-empty list of T (what names T in the
// error), or returns def when the key is absent or wrong.
func listOf[T any](p *parser, t map[string]any, key, what string, def []T) []T {
	v, ok := t[key]
	if !ok {
		return def
	}
	list, ok := v.([]any)
	var out []T
	for _, x := range list {
		e, isT := x.(T)
		ok = ok && isT
		out = append(out, e)
	}
	if !ok || len(out) == 0 {
		p.errAt(p.loc.valPos("workload."+key), "workload.%s must be a non-empty list of %s", key, what)
		return def
	}
	return out
}

// formats reads the table workload.SECTION: one string per operation in
// use (all required if required); formats of the kind's other operations
// are allowed and checked but unused (a model can keep them while use
// leaves them out); an operation the kind does not have is an error.
func (p *parser) formats(t map[string]any, section string, kind workload.Kind, use []string, required bool) map[string]string {
	out := map[string]string{}
	path := "workload." + section
	v, ok := t[section]
	if !ok {
		if required {
			p.errAt(p.loc.keyPos("workload"), "%s is required: one entry per operation in use (%s)", path, strings.Join(use, ", "))
		}
		return out
	}
	sub, ok := v.(map[string]any)
	if !ok {
		p.errAt(p.loc.valPos(path), "%s must be a table, not %s", path, tomlType(v))
		return out
	}
	p.checkKeys(path, sub, workload.OpsOf(kind)...)
	for _, op := range workload.OpsOf(kind) {
		s, ok := p.getString(sub, path, op)
		if !ok {
			if required && sub[op] == nil && contains(use, op) {
				p.errAt(p.loc.keyPos(path), "%s.%s is required", path, op)
			}
			continue
		}
		if contains(use, op) || section != "request" {
			out[op] = s
		}
	}
	return out
}

func (p *parser) regexp(section, op, src string) *regexp.Regexp {
	re, err := regexp.Compile(src)
	if err != nil {
		p.errAt(p.loc.valPos("workload."+section+"."+op), "workload.%s.%s: %v", section, op, err)
		return nil
	}
	return re
}

// porcupine binds a "porcupine:KIND" invariant: the clients' history must
// be linearizable for the sequential model KIND, which must be the
// workload's kind.
func (p *parser) porcupine(inv *Invariant, kind string, at func(int) Pos) bool {
	if !contains([]string{string(workload.Register), string(workload.KV), string(workload.Set)}, kind) {
		p.errAt(at(len("porcupine:")), "unknown linearizability model %q (register, kv, set)", kind)
		return false
	}
	if p.m.Workload == nil {
		p.errAt(at(0), "invariant %s checks the clients' history, but the model has no [workload]", inv.Name)
		return false
	}
	if string(p.m.Workload.Kind) != kind {
		p.errAt(at(len("porcupine:")), "invariant %s: model %q does not fit a %s workload", inv.Name, kind, p.m.Workload.Kind)
		return false
	}
	inv.Porcupine = kind
	return true
}
