package model

import (
	"fmt"
	"os/user"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// NodeDef is how one node is started, from a [[node]] entry of the model:
// its role, and the binary, arguments and environment that replace or add
// to [target]'s. A model without [[node]] entries starts every node alike.
//
//	[[node]]
//	role   = "primary"
//	binary = "/usr/bin/redis-server"     # default: the target's binary or built source
//	args   = ["--port", "{port}", "--dir", "{rundir}"]   # default: target.args
//	env    = { LC_ALL = "C" }            # added to target.env and weft's own
//	count  = 1                           # this many consecutive nodes (default 1)
//	start_after = "primary"              # a role or "n0" (or a list): start once they accept connections
//	start_delay = 5000                   # virtual µs after that (or after the run's start)
//	files  = ["ca.pem"]                  # copied from beside the model into the run directory
//	user   = "postgres"                  # run as this host user (its uid, gid, groups); its run directory is its own
//	templates = ["node.conf"]            # the same, {placeholders} filled for the node
type NodeDef struct {
	Role   string
	Binary string   // absolute path, or "" for the target's
	Args   []string // with {placeholders}; nil means target.args
	Env    []EnvVar // sorted by name; with {placeholders}
	// StartAfter are the nodes that must accept connections on their
	// ports before this one starts (start_after), in order; StartDelayUS
	// the virtual time it starts after that, or after the run's start
	// (start_delay).
	StartAfter   []int
	StartDelayUS int64
	// Files are put into the node's run directory before it starts
	// (files, templates).
	Files []NodeFile
	// Ports are the entry's named ports (ports = { peer = 7100 }): the
	// k-th node of the entry has port NAME = Ports[NAME]+k; they add to,
	// or replace, target.ports.
	Ports map[string]int
	// User is the host user the node runs as (user = "postgres"),
	// looked up when the model loads; nil: as weft runs.
	User  *NodeUser
	first int // the index of the entry's first node
	Pos   Pos // the entry's header
	after []string
}

// EnvVar is one environment variable of a node, NAME=Value.
type EnvVar struct {
	Name, Value string
}

// nodeKeys are the keys a [[node]] entry takes.
var nodeKeys = []string{"role", "binary", "args", "env", "count", "start_after", "start_delay", "files", "templates", "ports", "user"}

// NodeUser is a host user a node runs as: its name and ids.
type NodeUser struct {
	Name     string
	UID, GID uint32
	Groups   []uint32 // its groups, the primary one included
}

// RunDir is what {rundir} stands for: the node's working directory, which
// is its private run directory (created for every run, removed after it,
// kept across the node's restarts). It is relative so that the node's
// memory holds the same bytes in every run, as state hashing needs; an
// absolute temporary path would differ between runs.
const RunDir = "."

// Role returns node i's role ("" if the model gives none).
func (m *Model) Role(i int) string {
	if i >= 0 && i < len(m.NodeDefs) {
		return m.NodeDefs[i].Role
	}
	return ""
}

// NodeName names node i for people: "n1", or "n1 (replica)" with a role.
func (m *Model) NodeName(i int) string {
	if r := m.Role(i); r != "" {
		return fmt.Sprintf("n%d (%s)", i, r)
	}
	return fmt.Sprintf("n%d", i)
}

// RoleNodes returns the nodes that have role, in order.
func (m *Model) RoleNodes(role string) []int {
	var out []int
	for i, d := range m.NodeDefs {
		if d.Role == role {
			out = append(out, i)
		}
	}
	return out
}

// NodeBinary returns the executable node i runs, or "" for the target's
// (the built source or target.binary).
func (m *Model) NodeBinary(i int) string {
	if i >= 0 && i < len(m.NodeDefs) {
		return m.NodeDefs[i].Binary
	}
	return ""
}

// nodeArgs returns node i's unsubstituted arguments.
func (m *Model) nodeArgs(i int) []string {
	if i >= 0 && i < len(m.NodeDefs) && m.NodeDefs[i].Args != nil {
		return m.NodeDefs[i].Args
	}
	return m.Args
}

// HasArgs reports whether node i has arguments from the model (its own
// or target.args); without any, weft passes ID NODES BASE_PORT.
func (m *Model) HasArgs(i int) bool {
	return i >= 0 && i < len(m.NodeDefs) && m.NodeDefs[i].Args != nil || len(m.Args) > 0
}

// NodeEnv returns node i's environment additions, NAME=value with
// placeholders substituted: target.env, then the node's own (which win),
// sorted by name.
func (m *Model) NodeEnv(i int) []string {
	merged := map[string]string{}
	for _, e := range m.TargetEnv {
		merged[e.Name] = e.Value
	}
	if i >= 0 && i < len(m.NodeDefs) {
		for _, e := range m.NodeDefs[i].Env {
			merged[e.Name] = e.Value
		}
	}
	names := make([]string, 0, len(merged))
	for k := range merged {
		names = append(names, k)
	}
	sort.Strings(names)
	vals := m.placeholders(i)
	out := make([]string, len(names))
	for k, name := range names {
		v, _ := substitute(merged[name], vals)
		out[k] = name + "=" + v
	}
	return out
}

// UsesRunDir reports whether some node's arguments or environment name
// {rundir}. (Every node has a private run directory, its working
// directory, either way.)
func (m *Model) UsesRunDir() bool {
	has := func(s string) bool { return strings.Contains(s, "{rundir}") }
	if slices.ContainsFunc(m.Args, has) || slices.ContainsFunc(m.TargetEnv, func(e EnvVar) bool { return has(e.Value) }) {
		return true
	}
	for _, d := range m.NodeDefs {
		if slices.ContainsFunc(d.Args, has) || slices.ContainsFunc(d.Env, func(e EnvVar) bool { return has(e.Value) }) {
			return true
		}
	}
	return false
}

// nodes reads the [[node]] entries.
func (p *parser) nodes() {
	v, ok := p.m.top["node"]
	if !ok {
		return
	}
	list, ok := v.([]map[string]any)
	if !ok {
		p.errAt(p.loc.keyPos("node"), "node must be an array of tables ([[node]]), not %s", tomlType(v))
		return
	}
	var defs []NodeDef
	for i, t := range list {
		path := fmt.Sprintf("node#%d", i)
		p.checkKeys(path, t, nodeKeys...)
		d := NodeDef{Pos: p.loc.keyPos(path)}
		if r, ok := p.getString(t, path, "role"); ok {
			if !isIdent(r) {
				p.errAt(p.loc.valPos(path+".role"), "node[%d].role %q must be an identifier (letters, digits, _)", i, r)
			}
			d.Role = r
		}
		if b, ok := p.getString(t, path, "binary"); ok {
			d.Binary = p.existing(b, path+".binary", "binary")
		}
		if _, ok := t["args"]; ok {
			d.Args = p.stringsAt(t, path, "args")
			if d.Args == nil {
				d.Args = []string{}
			}
		}
		d.Env = p.envTable(t, path)
		p.startKeys(t, path, &d)
		d.Files = p.nodeFiles(t, path)
		d.Ports = p.portTable(t, path)
		if name, ok := p.getString(t, path, "user"); ok {
			d.User = p.nodeUser(name, path+".user", i)
		}
		d.first = len(defs)
		count := int64(1)
		if c, ok := p.getInt(t, path, "count"); ok {
			if c < 1 || c > 1024 {
				p.errAt(p.loc.valPos(path+".count"), "node[%d].count must be between 1 and 1024, not %d", i, c)
			} else {
				count = c
			}
		}
		for range count {
			defs = append(defs, d)
		}
	}
	p.m.NodeDefs = defs
	p.startOrder(list)
	t := p.table("target")
	switch _, given := t["nodes"]; {
	case !given:
		if len(defs) > 1024 {
			p.errAt(p.loc.keyPos("node"), "%d nodes from [[node]] entries: at most 1024", len(defs))
		}
		p.m.Nodes = len(defs)
	case p.m.Nodes != 0 && p.m.Nodes != len(defs):
		p.errAt(p.loc.valPos("target.nodes"), "target.nodes = %d, but the [[node]] entries describe %d nodes (counts included); drop target.nodes or make them agree",
			p.m.Nodes, len(defs))
	}
}

// allNodesHaveBinaries reports whether [[node]] entries give every node
// its own binary, so that the target needs neither source nor binary.
func (p *parser) allNodesHaveBinaries() bool {
	list, ok := p.m.top["node"].([]map[string]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, t := range list {
		if _, ok := t["binary"].(string); !ok {
			return false
		}
	}
	return true
}

// stringsAt reads t[key] as an array of strings.
func (p *parser) stringsAt(t map[string]any, path, key string) []string {
	v := t[key]
	list, ok := v.([]any)
	if !ok {
		p.errAt(p.loc.valPos(path+"."+key), "%s.%s must be an array of strings, not %s", displayPath(path), key, tomlType(v))
		return nil
	}
	var out []string
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			p.errAt(p.m.ValuePos(path+"."+key, i), "%s.%s[%d] must be a string, not %s", displayPath(path), key, i, tomlType(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

// envTable reads t.env, a table of strings (environment variables).
func (p *parser) envTable(t map[string]any, path string) []EnvVar {
	v, ok := t["env"]
	if !ok {
		return nil
	}
	tab, ok := v.(map[string]any)
	if !ok {
		p.errAt(p.loc.valPos(path+".env"), "%s.env must be a table of strings (env = { NAME = \"value\" }), not %s", displayPath(path), tomlType(v))
		return nil
	}
	var out []EnvVar
	for name, val := range tab {
		s, ok := val.(string)
		if !ok {
			p.errAt(p.loc.valPos(path+".env."+name), "%s.env.%s must be a string, not %s", displayPath(path), name, tomlType(val))
			continue
		}
		if name == "" || strings.ContainsAny(name, "=\x00") {
			p.errAt(p.loc.keyPos(path+".env."+name), "%s.env: %q is not an environment variable name", displayPath(path), name)
			continue
		}
		out = append(out, EnvVar{Name: name, Value: s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// checkNodePlaceholders validates the placeholders of every node's
// arguments and environment once the environment is known.
func (p *parser) checkNodePlaceholders() {
	vals := p.m.placeholders(0)
	check := func(path, s string) {
		if _, bad := substitute(s, vals); bad >= 0 {
			name := s[bad:]
			name = name[:strings.IndexByte(name, '}')]
			p.errAt(p.loc.valPos(path), "%s: unknown placeholder {%s} (known: %s)", displayPath(path), name, placeholderNames)
		}
	}
	for _, e := range p.m.TargetEnv {
		check("target.env."+e.Name, e.Value)
	}
	list, _ := p.m.top["node"].([]map[string]any)
	for i := range list {
		path := fmt.Sprintf("node#%d", i)
		d := p.defAt(i)
		if d == nil {
			continue
		}
		for _, a := range d.Args {
			check(path+".args", a)
		}
		for _, e := range d.Env {
			check(path+".env."+e.Name, e.Value)
		}
	}
}

// defAt returns the NodeDef of the k-th [[node]] entry (counts expanded).
func (p *parser) defAt(k int) *NodeDef {
	list, _ := p.m.top["node"].([]map[string]any)
	i := 0
	for j, t := range list {
		if j == k {
			if i < len(p.m.NodeDefs) {
				return &p.m.NodeDefs[i]
			}
			return nil
		}
		c, _ := t["count"].(int64)
		i += int(max(c, 1))
	}
	return nil
}

// placeholderNames lists the placeholders of arguments, environments and
// queries, for messages.
const placeholderNames = "id, nodes, base_port, port, port.NAME, rundir, modeldir, role and environment names"

// portTable reads t.ports: named ports' base numbers.
func (p *parser) portTable(t map[string]any, path string) map[string]int {
	v, ok := t["ports"]
	if !ok {
		return nil
	}
	tab, ok := v.(map[string]any)
	if !ok {
		p.errAt(p.loc.valPos(path+".ports"), "%s.ports must be a table of port numbers (ports = { client = 2379, peer = 2380 }), not %s", displayPath(path), tomlType(v))
		return nil
	}
	out := map[string]int{}
	for name, val := range tab {
		n, ok := val.(int64)
		switch {
		case !isIdent(name):
			p.errAt(p.loc.keyPos(path+".ports."+name), "%s.ports: %q is not an identifier", displayPath(path), name)
		case !ok || n < 1 || n > 65535-1024:
			p.errAt(p.loc.valPos(path+".ports."+name), "%s.ports.%s must be a port number in 1..64511 (node i adds i), not %v", displayPath(path), name, val)
		default:
			out[name] = int(n)
		}
	}
	return out
}

// PortNames lists every named port of the model, sorted.
func (m *Model) PortNames() []string {
	seen := map[string]bool{}
	for k := range m.Ports {
		seen[k] = true
	}
	for _, d := range m.NodeDefs {
		for k := range d.Ports {
			seen[k] = true
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// NodePort returns node i's port named name: from its [[node]] entry's
// ports (the entry's base number plus the node's place in the entry),
// else target.ports plus i.
func (m *Model) NodePort(i int, name string) (int, bool) {
	if i >= 0 && i < len(m.NodeDefs) {
		if b, ok := m.NodeDefs[i].Ports[name]; ok {
			return b + i - m.NodeDefs[i].first, true
		}
	}
	if b, ok := m.Ports[name]; ok {
		return b + i, true
	}
	return 0, false
}

// nodeUser looks up the host user name (user = "..."), an error at key
// if there is none.
func (p *parser) nodeUser(name, key string, i int) *NodeUser {
	u, err := user.Lookup(name)
	if err != nil {
		p.errAt(p.loc.valPos(key), "node[%d].user: no user %q on this host", i, name)
		return nil
	}
	nu := &NodeUser{Name: name}
	ids := []string{u.Uid, u.Gid}
	groups, err := u.GroupIds()
	if err == nil {
		ids = append(ids, groups...)
	}
	for k, s := range ids {
		v, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			p.errAt(p.loc.valPos(key), "node[%d].user %q: id %q is not a number", i, name, s)
			return nil
		}
		switch k {
		case 0:
			nu.UID = uint32(v)
		case 1:
			nu.GID = uint32(v)
		default:
			nu.Groups = append(nu.Groups, uint32(v))
		}
	}
	if len(nu.Groups) == 0 {
		nu.Groups = []uint32{nu.GID}
	}
	return nu
}
