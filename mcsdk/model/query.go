package model

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Query reads node state through the node's own protocol: the environment
// sends Send to each of Nodes on a fresh connection to its port, at the
// quiescent point after a transition in which the node started, got
// something or sent something (not after its own timers alone), and
// Parse's named groups, matched against the whole reply, become node
// variables that invariants read like declared globals (node[i].NAME).
//
//	[[state.query]]                       # or [state.query] for one
//	role  = "replica"                     # or nodes = [1, 2]; default every node
//	send  = "GET k\r\n"                   # {placeholders} as in args
//	parse = '^\$\d+\r\n(?P<val>-?\d+)\r\n'
//	vars  = { val = "int" }               # int, string, []int, []string; default string
//
// A scalar takes its group's text in the first match (an int must parse
// as a decimal integer); a list collects it from every match, in order. A
// group that did not take part in the match is the zero value (0 or "").
// Until a node first answers (it does not listen yet, or is busy: a node
// whose threads wait for a scheduling choice is not queried), its
// variables are zero (0, "", []); afterwards a node that sends nothing
// back keeps its last answer. A reply Parse does not match, or an int that
// does not parse, is an error that ends the run, naming the node and the
// reply.
type Query struct {
	Nodes []int
	Send  string // unsubstituted; see SendTo
	Parse *regexp.Regexp
	Vars  []QueryVar // every named group of Parse, in group order
	Pos   Pos        // the entry's header
}

// QueryVar is one variable a query defines.
type QueryVar struct {
	Name string
	Type QueryType
	Pos  Pos
}

// QueryType is a query variable's type.
type QueryType int

// Query variable types.
const (
	QueryString QueryType = iota
	QueryInt
	QueryStrings // []string
	QueryInts    // []int
)

var queryTypeNames = [...]string{"string", "int", "[]string", "[]int"}

func (t QueryType) String() string { return queryTypeNames[t] }

func (t QueryType) list() bool { return t == QueryStrings || t == QueryInts }

// queryKeys are the keys a [state.query] entry takes.
var queryKeys = []string{"role", "nodes", "send", "parse", "vars"}

// SendTo returns the query's request for node i, placeholders
// substituted.
func (q *Query) SendTo(m *Model, i int) string {
	s, _ := substitute(q.Send, m.placeholders(i))
	return s
}

// Decode parses node's reply into its variables.
func (q *Query) Decode(node int, reply string) (map[string]Value, error) {
	all := q.Parse.FindAllStringSubmatchIndex(reply, -1)
	if all == nil {
		return nil, fmt.Errorf("%s: node %d's reply to state query %q does not match %q: %q",
			q.Pos, node, q.Send, q.Parse, excerpt(reply))
	}
	out := map[string]Value{}
	for _, v := range q.Vars {
		g := q.Parse.SubexpIndex(v.Name)
		var elems []Value
		for _, m := range all {
			text := ""
			if m[2*g] >= 0 {
				text = reply[m[2*g]:m[2*g+1]]
			}
			val, err := v.decode(text, m[2*g] >= 0)
			if err != nil {
				return nil, fmt.Errorf("%s: node %d's reply to state query %q: %v in %q", v.Pos, node, q.Send, err, excerpt(reply))
			}
			elems = append(elems, val)
			if !v.Type.list() {
				break
			}
		}
		if v.Type.list() {
			out[v.Name] = List(elems...)
		} else {
			out[v.Name] = elems[0]
		}
	}
	return out, nil
}

// Zero returns the query's variables before a node's first answer: 0,
// "" or the empty list.
func (q *Query) Zero() map[string]Value {
	out := map[string]Value{}
	for _, v := range q.Vars {
		switch v.Type {
		case QueryInt:
			out[v.Name] = Int(0)
		case QueryString:
			out[v.Name] = Str("")
		default:
			out[v.Name] = List()
		}
	}
	return out
}

func (v QueryVar) decode(text string, matched bool) (Value, error) {
	switch v.Type {
	case QueryInt, QueryInts:
		if !matched {
			return Int(0), nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("%s = %q is not an integer", v.Name, text)
		}
		return Int(n), nil
	}
	return Str(text), nil
}

func excerpt(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// IsQueryVar reports whether name is a variable of a state query.
func (m *Model) IsQueryVar(name string) bool {
	for _, q := range m.Queries {
		if slices.ContainsFunc(q.Vars, func(v QueryVar) bool { return v.Name == name }) {
			return true
		}
	}
	return false
}

// StateNames lists every node variable invariants may read: the declared
// globals, then the query variables, in file order.
func (m *Model) StateNames() []string { return m.order }

// queries reads [state.query] (one table) or [[state.query]] (several).
func (p *parser) queries() {
	v, ok := p.table("state")["query"]
	if !ok {
		return
	}
	var list []map[string]any
	var paths []string
	switch t := v.(type) {
	case map[string]any:
		list, paths = []map[string]any{t}, []string{"state.query"}
	case []map[string]any:
		list = t
		for i := range t {
			paths = append(paths, fmt.Sprintf("state.query#%d", i))
		}
	default:
		p.errAt(p.loc.keyPos("state.query"), "state.query must be a table ([state.query]) or an array of tables ([[state.query]]), not %s", tomlType(v))
		return
	}
	owner := map[[2]any]string{} // (node, var) → the query path that defines it
	for i, t := range list {
		if q := p.query(t, paths[i]); q != nil {
			p.claimVars(q, paths[i], owner)
			p.m.Queries = append(p.m.Queries, q)
		}
	}
}

func (p *parser) query(t map[string]any, path string) *Query {
	p.checkKeys(path, t, queryKeys...)
	q := &Query{Pos: p.loc.keyPos(path)}
	q.Nodes = p.queryNodes(t, path)
	send, ok := p.getString(t, path, "send")
	if !ok && t["send"] == nil {
		p.errAt(q.Pos, "%s.send is required: the request the environment sends", displayPath(path))
	}
	if _, bad := substitute(send, p.m.placeholders(0)); bad >= 0 {
		name := send[bad : strings.IndexByte(send[bad:], '}')+bad]
		p.errAt(p.stringAt(path+".send")(bad), "unknown placeholder {%s} (known: %s)", name, placeholderNames)
	}
	q.Send = send
	src, ok := p.getString(t, path, "parse")
	if !ok {
		if t["parse"] == nil {
			p.errAt(q.Pos, "%s.parse is required: a regular expression whose named groups become node variables", displayPath(path))
		}
		return nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		p.errAt(p.loc.valPos(path+".parse"), "%s.parse: %v", displayPath(path), err)
		return nil
	}
	q.Parse = re
	types := p.queryTypes(t, path)
	for _, name := range re.SubexpNames() {
		if name == "" {
			continue
		}
		pos := p.loc.valPos(path + ".parse")
		if !isIdent(name) || isKeyword(name) {
			p.errAt(pos, "%s.parse: group name %q must be an identifier that is not a keyword", displayPath(path), name)
			continue
		}
		qv := QueryVar{Name: name, Pos: pos}
		if tv, ok := types[name]; ok {
			qv.Type, qv.Pos = tv.typ, tv.pos
			delete(types, name)
		}
		q.Vars = append(q.Vars, qv)
	}
	for name, tv := range types {
		p.errAt(tv.pos, "%s.vars.%s: the parse expression has no group (?P<%s>…)", displayPath(path), name, name)
	}
	if len(q.Vars) == 0 {
		p.errAt(p.loc.valPos(path+".parse"), "%s.parse has no named group (?P<name>…): the query would define no variable", displayPath(path))
		return nil
	}
	return q
}

// queryNodes reads the nodes a query goes to: role, nodes, or every node.
func (p *parser) queryNodes(t map[string]any, path string) []int {
	_, hasRole := t["role"]
	_, hasNodes := t["nodes"]
	switch {
	case hasRole && hasNodes:
		p.errAt(p.loc.keyPos(path+".nodes"), "%s: give role or nodes, not both", displayPath(path))
		return nil
	case hasRole:
		r, ok := p.getString(t, path, "role")
		if !ok {
			return nil
		}
		ns := p.m.RoleNodes(r)
		if len(ns) == 0 {
			p.errAt(p.loc.valPos(path+".role"), "%s.role: no [[node]] has role %q%s", displayPath(path), r, p.roles())
		}
		return ns
	case hasNodes:
		list, ok := t["nodes"].([]any)
		if !ok {
			p.errAt(p.loc.valPos(path+".nodes"), "%s.nodes must be an array of node indices, not %s", displayPath(path), tomlType(t["nodes"]))
			return nil
		}
		var ns []int
		for i, e := range list {
			n, ok := e.(int64)
			if !ok || n < 0 || n >= int64(p.m.Nodes) || slices.Contains(ns, int(n)) {
				p.errAt(p.m.ValuePos(path+".nodes", i), "%s.nodes[%d] = %v: want a distinct node index in 0..%d", displayPath(path), i, e, p.m.Nodes-1)
				continue
			}
			ns = append(ns, int(n))
		}
		return ns
	}
	ns := make([]int, p.m.Nodes)
	for i := range ns {
		ns[i] = i
	}
	return ns
}

func (p *parser) roles() string {
	var rs []string
	for _, d := range p.m.NodeDefs {
		if d.Role != "" && !slices.Contains(rs, d.Role) {
			rs = append(rs, d.Role)
		}
	}
	if len(rs) == 0 {
		return " (no node has a role)"
	}
	return " (roles: " + strings.Join(rs, ", ") + ")"
}

type typedAt struct {
	typ QueryType
	pos Pos
}

// queryTypes reads a query's vars table: group name → type.
func (p *parser) queryTypes(t map[string]any, path string) map[string]typedAt {
	out := map[string]typedAt{}
	v, ok := t["vars"]
	if !ok {
		return out
	}
	tab, ok := v.(map[string]any)
	if !ok {
		p.errAt(p.loc.valPos(path+".vars"), "%s.vars must be a table of types (vars = { val = \"int\" }), not %s", displayPath(path), tomlType(v))
		return out
	}
	for name, tv := range tab {
		pos := p.loc.valPos(path + ".vars." + name)
		s, _ := tv.(string)
		i := slices.Index(queryTypeNames[:], s)
		if i < 0 {
			p.errAt(pos, "%s.vars.%s = %v: want one of %s", displayPath(path), name, tv, strings.Join(queryTypeNames[:], ", "))
			continue
		}
		out[name] = typedAt{QueryType(i), pos}
	}
	return out
}

// claimVars records which query defines each variable of each node and
// reports a variable defined twice for one node, or named like a global.
func (p *parser) claimVars(q *Query, path string, owner map[[2]any]string) {
	for _, v := range q.Vars {
		if p.m.stateVar(v.Name) != nil {
			p.errAt(v.Pos, "%s: variable %s is also a declared global in [state]", displayPath(path), v.Name)
			continue
		}
		for _, n := range q.Nodes {
			k := [2]any{n, v.Name}
			if prev, ok := owner[k]; ok && prev != path {
				p.errAt(v.Pos, "%s: node %d's variable %s is already defined by %s", displayPath(path), n, v.Name, displayPath(prev))
				break
			}
			owner[k] = path
		}
		if !slices.Contains(p.m.order, v.Name) {
			p.m.order = append(p.m.order, v.Name)
		}
	}
}
