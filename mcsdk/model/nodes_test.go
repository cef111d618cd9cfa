package model

import (
	"slices"
	"strings"
	"testing"
)

const rolesModel = `[target]
binary = "/bin/true"
args = ["--port", "{port}"]
env = { LANG = "C", NODE = "{id}" }
base_port = 6400

[[node]]
role = "primary"
args = ["--port", "{port}", "--dir", "{rundir}"]
env = { NODE = "p{id}" }

[[node]]
role = "replica"
binary = "/bin/sh"
count = 2

[environment]
key = "k"

[[state.query]]
role = "primary"
send = "GET {key}\r\n"
parse = '^\$\d+\r\n(?P<val>-?\d+)'
vars = { val = "int" }

[[state.query]]
nodes = [1, 2]
send = "INFO {role}\r\n"
parse = '(?m)^role:(?P<role>\w+)|^slave\d+:ip=[^,]*,port=(?P<ports>\d+)'
vars = { ports = "[]int" }

[invariants]
same = "all i in [1, 2] : node[i].role == \"slave\" and node[0].val >= 0"
`

// TestNodesAndRoles parses a model of roles: per-node binaries,
// arguments, environments and counts, placeholders, and queries by role
// and by node list.
func TestNodesAndRoles(t *testing.T) {
	m, err := Parse("roles.model", []byte(rolesModel))
	if err != nil {
		t.Fatal(err)
	}
	if m.Nodes != 3 {
		t.Fatalf("nodes = %d, want 3 (one primary, count = 2 replicas)", m.Nodes)
	}
	tests := []struct {
		node       int
		role, name string
		binary     string
		args, env  []string
	}{
		{0, "primary", "n0 (primary)", "", []string{"--port", "6400", "--dir", "."}, []string{"LANG=C", "NODE=p0"}},
		{1, "replica", "n1 (replica)", "/bin/sh", []string{"--port", "6401"}, []string{"LANG=C", "NODE=1"}},
		{2, "replica", "n2 (replica)", "/bin/sh", []string{"--port", "6402"}, []string{"LANG=C", "NODE=2"}},
	}
	for _, tt := range tests {
		if got := m.Role(tt.node); got != tt.role {
			t.Errorf("Role(%d) = %q, want %q", tt.node, got, tt.role)
		}
		if got := m.NodeName(tt.node); got != tt.name {
			t.Errorf("NodeName(%d) = %q, want %q", tt.node, got, tt.name)
		}
		if got := m.NodeBinary(tt.node); got != tt.binary {
			t.Errorf("NodeBinary(%d) = %q, want %q", tt.node, got, tt.binary)
		}
		if got := m.NodeArgs(tt.node); !slices.Equal(got, tt.args) {
			t.Errorf("NodeArgs(%d) = %q, want %q", tt.node, got, tt.args)
		}
		if got := m.NodeEnv(tt.node); !slices.Equal(got, tt.env) {
			t.Errorf("NodeEnv(%d) = %q, want %q", tt.node, got, tt.env)
		}
	}
	if !m.UsesRunDir() {
		t.Error("UsesRunDir = false, but node 0's args name {rundir}")
	}
	if got := m.RoleNodes("replica"); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("RoleNodes(replica) = %v", got)
	}
	if len(m.Queries) != 2 {
		t.Fatalf("%d queries, want 2", len(m.Queries))
	}
	q0, q1 := m.Queries[0], m.Queries[1]
	if !slices.Equal(q0.Nodes, []int{0}) || q0.SendTo(m, 0) != "GET k\r\n" || !slices.Equal(q1.Nodes, []int{1, 2}) || q1.SendTo(m, 1) != "INFO replica\r\n" {
		t.Errorf("queries: %+v %q / %+v %q", q0.Nodes, q0.SendTo(m, 0), q1.Nodes, q1.SendTo(m, 1))
	}
	if got := m.StateNames(); !slices.Equal(got, []string{"val", "role", "ports"}) {
		t.Errorf("StateNames = %v, want the query variables in file order", got)
	}
}

// TestStartKeys parses start_after (a role, a node, a list), start_delay,
// the clients' start and {modeldir}.
func TestStartKeys(t *testing.T) {
	src := `[target]
binary = "/bin/true"
[[node]]
role = "seed"
args = ["{modeldir}/conf"]
[[node]]
role = "joiner"
count = 2
start_after = "seed"
start_delay = 3000
[[node]]
start_after = ["n2", "n1", "seed"]
user = "nobody"
[client]
start = "up"
[[client.request]]
send = "x"
`
	m, err := Parse("/m/dir/start.model", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{nil, {0}, {0}, {2, 1, 0}}
	for i, w := range want {
		if got := m.NodeDefs[i].StartAfter; !slices.Equal(got, w) {
			t.Errorf("node %d StartAfter = %v, want %v", i, got, w)
		}
	}
	if m.NodeDefs[1].StartDelayUS != 3000 || m.NodeDefs[3].StartDelayUS != 0 {
		t.Errorf("start delays %d %d, want 3000 0", m.NodeDefs[1].StartDelayUS, m.NodeDefs[3].StartDelayUS)
	}
	if got := m.NodeArgs(0); !slices.Equal(got, []string{"/m/dir/conf"}) {
		t.Errorf("NodeArgs(0) = %q, want {modeldir} = /m/dir", got)
	}
	if u := m.NodeDefs[3].User; u == nil || u.Name != "nobody" || u.UID != 65534 || len(u.Groups) == 0 || m.NodeDefs[0].User != nil {
		t.Errorf("users: node 3 %+v, node 0 %+v; want nobody (65534) and none", u, m.NodeDefs[0].User)
	}
	if !m.Client.Start.Up {
		t.Error("client.start = \"up\" not read")
	}
}

// TestQueryDecode decodes replies: ints, strings, lists over every match,
// a group absent from the match as the zero value, and the errors of a
// reply that does not match or an int that does not parse.
func TestQueryDecode(t *testing.T) {
	m, err := Parse("roles.model", []byte(rolesModel))
	if err != nil {
		t.Fatal(err)
	}
	q0, q1 := m.Queries[0], m.Queries[1]
	tests := []struct {
		q     *Query
		reply string
		want  string // rendered vars, sorted by name, or the error's text
	}{
		{q0, "$1\r\n5\r\n", "val=5"},
		{q0, "$2\r\n-7\r\n", "val=-7"},
		{q0, "$-1\r\n", `does not match`},
		{q1, "# Replication\r\nrole:master\r\nslave0:ip=127.0.0.1,port=6401,state=online\r\nslave1:ip=127.0.0.1,port=6402,state=online\r\n", `ports=[0, 6401, 6402] role="master"`},
		{q1, "role:slave\r\n", `ports=[0] role="slave"`},
	}
	for _, tt := range tests {
		vars, err := tt.q.Decode(1, tt.reply)
		var got string
		if err != nil {
			got = err.Error()
		} else {
			var parts []string
			for _, k := range []string{"ports", "role", "val"} {
				if v, ok := vars[k]; ok {
					parts = append(parts, k+"="+v.String())
				}
			}
			got = strings.Join(parts, " ")
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("Decode(%q) = %s, want %s", tt.reply, got, tt.want)
		}
	}
	bad := *q0
	bad.Parse = q1.Parse
	bad.Vars = []QueryVar{{Name: "role", Type: QueryInt}}
	if _, err := bad.Decode(0, "role:master\r\n"); err == nil || !strings.Contains(err.Error(), `role = "master" is not an integer`) {
		t.Errorf("an int var with text: %v", err)
	}
}

// TestNodesAndQueriesBad checks that every new key's problem is an error
// at its file:line:col.
func TestNodesAndQueriesBad(t *testing.T) {
	head := "[target]\nbinary = \"/bin/true\"\n"
	tests := []struct {
		name, src, want, at string
	}{
		{"node key", head + "[[node]]\nrol = \"x\"\n", "4:1: unknown key rol in [node] (allowed: role, binary, args, env, count, start_after, start_delay, files, templates, ports, user)", "rol"},
		{"node user", head + "[[node]]\nuser = \"no-such-user-weft\"\n", `4:8: node[0].user: no user "no-such-user-weft" on this host`, `"no-such-user-weft"`},
		{"start_after unknown", head + "[[node]]\nrole = \"a\"\n[[node]]\nstart_after = \"b\"\n", `6:15: node[1].start_after: "b" is neither a node (n0..n1) nor a role (roles: a)`, `"b"`},
		{"start_after node", head + "[[node]]\nstart_after = \"n2\"\n", `4:15: node[0].start_after: no node n2 (nodes n0..n0)`, `"n2"`},
		{"start_after self", head + "[[node]]\nrole = \"w\"\ncount = 2\nstart_after = \"w\"\n", `6:15: node[0].start_after: "w" names the node itself (n0)`, `"w"`},
		{"start_after cycle", head + "[[node]]\nstart_after = \"n1\"\n[[node]]\nstart_after = \"n0\"\n", `3:1: start_after makes a cycle: n0 waits for n1 waits for n0`, "[[node]]"},
		{"start_after type", head + "[[node]]\nstart_after = 1\n", `4:15: node[0].start_after must be a node ("n0"), a role or a list of them, not an integer`, "1"},
		{"start_delay", head + "[[node]]\nstart_delay = -1\n", `4:15: node[0].start_delay = -1: want a virtual time in µs`, "-1"},
		{"client start", head + "nodes = 1\n[client]\nstart = \"later\"\n", `5:9: client.start must be a virtual time in µs or "up"`, `"later"`},
		{"node binary", head + "[[node]]\nbinary = \"/no/such\"\n", "4:10: binary /no/such does not exist", `"/no/such"`},
		{"node count", head + "[[node]]\ncount = 0\n", "4:9: node[0].count must be between 1 and 1024, not 0", "0"},
		{"node role", head + "[[node]]\nrole = \"a b\"\n", `4:8: node[0].role "a b" must be an identifier`, `"a b"`},
		{"node args", head + "[[node]]\nargs = [\"{nope}\"]\n", "4:8: node[0].args: unknown placeholder {nope}", "["},
		{"node args type", head + "[[node]]\nargs = [1]\n", "4:9: node[0].args[0] must be a string, not an integer", "1"},
		{"node env", head + "[[node]]\nenv = { A = 1 }\n", "node[0].env.A must be a string, not an integer", ""},
		{"target env", head + "env = \"x\"\n[[node]]\n", "3:7: target.env must be a table of strings", `"x"`},
		{"nodes disagree", "[target]\nnodes = 3\nbinary = \"/bin/true\"\n[[node]]\ncount = 2\n", "2:9: target.nodes = 3, but the [[node]] entries describe 2 nodes", "3"},
		{"query send", head + "nodes = 1\n[state.query]\nparse = '(?P<v>x)'\n", "4:1: state.query.send is required", "[state.query]"},
		{"query parse", head + "nodes = 1\n[state.query]\nsend = \"x\"\nparse = '('\n", "6:9: state.query.parse: error parsing regexp", "'('"},
		{"query no group", head + "nodes = 1\n[state.query]\nsend = \"x\"\nparse = 'x'\n", "6:9: state.query.parse has no named group", "'x'"},
		{"query var type", head + "nodes = 1\n[state.query]\nsend = \"x\"\nparse = '(?P<v>x)'\nvars = { v = \"float\" }\n", `state.query.vars.v = float: want one of string, int, []string, []int`, ""},
		{"query var group", head + "nodes = 1\n[state.query]\nsend = \"x\"\nparse = '(?P<v>x)'\nvars = { w = \"int\" }\n", `state.query.vars.w: the parse expression has no group (?P<w>…)`, ""},
		{"query role", head + "[[node]]\nrole = \"a\"\n[state.query]\nrole = \"b\"\nsend = \"x\"\nparse = '(?P<v>x)'\n", `6:8: state.query.role: no [[node]] has role "b" (roles: a)`, `"b"`},
		{"query nodes", head + "nodes = 2\n[state.query]\nnodes = [0, 2]\nsend = \"x\"\nparse = '(?P<v>x)'\n", "5:13: state.query.nodes[1] = 2: want a distinct node index in 0..1", "2"},
		{"query twice", head + "nodes = 1\n[[state.query]]\nsend = \"x\"\nparse = '(?P<v>x)'\n[[state.query]]\nsend = \"y\"\nparse = '(?P<v>y)'\n", "state.query[1]: node 0's variable v is already defined by state.query[0]", ""},
		{"query placeholder", head + "nodes = 1\n[state.query]\nsend = \"GET {kee}\"\nparse = '(?P<v>x)'\n", "5:14: unknown placeholder {kee}", "kee"},
		{"query key", head + "nodes = 1\n[state.query]\nsend = \"x\"\nparse = '(?P<v>x)'\nwhen = 1\n", "7:1: unknown key when in [state.query] (allowed: role, nodes, send, parse, vars)", "when"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.model", []byte(tt.src))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			found := false
			for _, e := range splitErrors(err) {
				pe, ok := e.(*Error)
				if !ok {
					t.Fatalf("error %T, want *Error: %v", e, e)
				}
				if strings.Contains(e.Error(), tt.want) {
					found = true
					if got := textAt([]byte(tt.src), pe.Pos); !strings.HasPrefix(got, tt.at) {
						t.Errorf("%s points at %q, want %q", pe.Pos, got, tt.at)
					}
				}
			}
			if !found {
				t.Errorf("got %v\nwant an error containing %q", err, tt.want)
			}
		})
	}
}
