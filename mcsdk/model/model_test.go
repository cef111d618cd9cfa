package model

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/weft-mc/weft/mcsdk/workload"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustLoad(t *testing.T, path string) *Model {
	t.Helper()
	m, err := Load(path)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return m
}

func abs(t *testing.T, path string) string {
	t.Helper()
	a, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestParseSeed: the seed's repl.model (process-mode M4, verbatim) parses
// unchanged, with the defaults the seed's repl.c relies on.
func TestParseSeed(t *testing.T) {
	const path = "testdata/repl.model"
	m := mustLoad(t, path)
	src, _ := os.ReadFile(path)
	sum := sha256.Sum256(src)
	checks := []struct {
		name      string
		got, want any
	}{
		{"Path", m.Path, path},
		{"Dir", m.Dir, "testdata"},
		{"Hash", m.Hash, hex.EncodeToString(sum[:])},
		{"Nodes", m.Nodes, 2},
		{"Source", m.Source, abs(t, "testdata/repl.c")},
		{"Binary", m.Binary, ""},
		{"Args", m.Args, []string(nil)},
		{"BasePort", m.BasePort, 7000},
		{"Variants", m.Variants, []Variant{{Name: "default"}}},
		{"State", m.State, []StateVar(nil)},
		{"Env", m.Env, map[string]int64{"client_val": 5, "depth": 6}},
		{"EnvStr", m.EnvStr, map[string]string{}},
		{"Depth", m.Depth, 6},
		{"Client.Log", m.Client.Log, "replies"},
		{"Client.Reply", m.Client.Reply.String(), `ACK (?P<val>-?\d+)`},
		{"Client.Requests", m.Client.Requests, []Request{{Node: 0, Send: "WRITE 5\n", At: -1}}},
		{"len(Invariants)", len(m.Invariants), 1},
		{"Invariant.Name", m.Invariants[0].Name, "agree_on_ack"},
		{"Invariant.Src", m.Invariants[0].Src, "all r in replies : r.val in node[1]"},
		{"Invariant.Pos", m.Invariants[0].Pos.String(), "testdata/repl.model:7:17"},
		{"Invariant.Go", m.Invariants[0].Go, ""},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

// TestParseFull checks every field of the full form.
func TestParseFull(t *testing.T) {
	m := mustLoad(t, "testdata/full.model")
	invPos := func(i int) string { return m.Invariants[i].Pos.String() }
	checks := []struct {
		name      string
		got, want any
	}{
		{"Nodes", m.Nodes, 3},
		{"Source", m.Source, abs(t, "testdata/repl.c")},
		{"Args", m.Args, []string{"{id}", "{nodes}", "{base_port}", "--port={port}", "--mode={mode}"}},
		{"NodeArgs(2)", m.NodeArgs(2), []string{"2", "3", "7100", "--port=7102", "--mode=fast"}},
		{"CFlags", m.CFlags, "-O1"},
		{"BasePort", m.BasePort, 7100},
		{"Variants (file order)", m.Variants, []Variant{{"correct", ""}, {"bug", "-DBUG"}, {"alpha", "-DALPHA -DBUG"}}},
		{"State", m.State, []StateVar{
			{Name: "stored", Type: Type{Kind: Int32}, Pos: Pos{"testdata/full.model", 15, 1}},
			{Name: "log", Type: Type{Kind: Uint8, Len: 4}, Pos: Pos{"testdata/full.model", 16, 1}},
		}},
		{"Env", m.Env, map[string]int64{"client_val": 5, "depth": 6}},
		{"EnvStr", m.EnvStr, map[string]string{"mode": "fast"}},
		{"Depth", m.Depth, 6},
		{"Client.Log", m.Client.Log, "acks"},
		{"Client.Reply", m.Client.Reply.String(), `ACK (?P<val>-?\d+) (?P<who>\w+)`},
		{"Client.Requests", m.Client.Requests, []Request{{Node: 0, Send: "WRITE 5\n", At: -1}, {Node: 2, Send: "READ fast\n", At: -1}}},
		{"invariant names", invNames(m), []string{"agree_on_ack", "escaped", "literal", "multi", "ring"}},
		{"escaped Src", m.Invariants[1].Src, `node[0].stored != "q" or true`},
		{"multi Src", m.Invariants[3].Src, "some r in acks :\n    r.who == mode"},
		{"agree_on_ack Pos", invPos(0), "testdata/full.model:36:17"},
		{"escaped Pos", invPos(1), "testdata/full.model:37:12"},
		{"literal Pos", invPos(2), "testdata/full.model:38:12"},
		{"multi Pos (after the opening newline)", invPos(3), "testdata/full.model:40:1"},
		{"ring Go", m.Invariants[4].Go, "ring"},
		{"ring Expr", m.Invariants[4].Expr() == nil, true},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func invNames(m *Model) []string {
	var out []string
	for _, inv := range m.Invariants {
		out = append(out, inv.Name)
	}
	return out
}

func TestParseBinary(t *testing.T) {
	src := "[target]\nnodes = 1\nbinary = \"repl.c\"\n"
	m, err := Parse("testdata/bin.model", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m.Binary != abs(t, "testdata/repl.c") || m.Source != "" || m.Client != nil || m.Depth != DefaultDepth {
		t.Errorf("Binary %q Source %q Client %v Depth %d", m.Binary, m.Source, m.Client, m.Depth)
	}
}

// TestBadModels asserts the exact message of every malformed model,
// including file:line:col, and that each position points at the named token
// in the file.
func TestBadModels(t *testing.T) {
	tests := []struct {
		file string
		want []string // one per error, in order
		at   []string // the text each error's position must point at
	}{
		{"syntax", []string{"4:13: expected '.' or ']' to end table name, but got '\\n' instead"}, []string{"\n"}},
		{"unknown_key", []string{"4:1: unknown key node in [target] (allowed: nodes, source, binary, args, env, cflags, base_port, checks, ports, cpus)"}, []string{"node ="}},
		{"wrong_type", []string{"2:9: target.nodes must be an integer, not a string"}, []string{`"2"`}},
		{"bad_syntax", []string{`5:27: expected ":" after the domain of all, found "r"`}, []string{"r.val"}},
		{"bad_token", []string{"5:10: unexpected '=' (use == to compare)"}, []string{"= 1\""}},
		{"unknown_env", []string{`9:25: unknown name "client_vall" (in scope: client_val, replies)`}, []string{"client_vall"}},
		{"unknown_field", []string{`7:16: unknown state field "stord" (declared: stored)`}, []string{"stord"}},
		{"unknown_log", []string{`7:17: unknown log "replys" (logs: replies)`}, []string{"replys"}},
		{"escaped", []string{`7:36: unknown name "bogus" (no environment names, logs or bound variables in scope)`}, []string{"bogus"}},
		{"literal_string", []string{`7:38: unknown name "bogus" (no environment names, logs or bound variables in scope)`}, []string{"bogus"}},
		{"multiline", []string{`9:19: unknown name "bogus" (in scope: client_val, r, replies)`}, []string{"bogus"}},
		{"unknown_record_field", []string{`10:28: unknown field "vall" of r (fields: src, val)`}, []string{"vall"}},
		{"dotted_key", []string{"6:1: unknown key limits in [target] (allowed: nodes, source, binary, args, env, cflags, base_port, checks, ports, cpus)"}, []string{"[target.limits]"}},
		{"node_range", []string{"7:13: node index 2 out of range 0..1"}, []string{"2]"}},
		{"bad_state", []string{`5:10: state.stored: unknown type "int33" (want int8, int16, int32, int64, uint8, uint16, uint32, uint64, optionally with [N])`}, []string{`"int33"`}},
		{"state_int", []string{"8:5: state.s must be a string, not an integer"}, []string{"3"}},
		{"nodes0", []string{"2:9: target.nodes must be between 1 and 1024, not 0"}, []string{"0"}},
		{"no_source", []string{"1:1: missing source: set target.source or target.binary (default testdata/bad/no_source.c does not exist)"}, []string{"[target]"}},
		{"missing_file", []string{"3:10: source file testdata/bad/nope.c does not exist"}, []string{`"nope.c"`}},
		{"source_and_binary", []string{"4:1: target.source and target.binary are exclusive"}, []string{"binary"}},
		{"unknown_section", []string{"4:1: unknown section [invariant] (known: target, node, variants, state, environment, client, workload, invariants, bounds, campaign, faults, network)"}, []string{"[invariant]"}},
		{"placeholder", []string{"8:16: unknown placeholder {valu} (known: environment names, id, nodes, base_port, port, port.NAME)"}, []string{"valu}"}},
		{"bad_regexp", []string{"5:9: client.reply: error parsing regexp: missing closing ): `ACK (?P<val>\\d+`"}, []string{`"ACK`}},
		{"depth0", []string{"5:9: environment.depth must be at least 1, not 0"}, []string{"0"}},
		{"args_placeholder", []string{"4:8: target.args: unknown placeholder {idd} (known: id, nodes, base_port, port, port.NAME, rundir, modeldir, role and environment names)"}, []string{`["{id}"`}},
		{"request_node", []string{"5:8: client.request[0].node 2 out of range 0..1"}, []string{"2"}},
		{"bounds_size", []string{`6:10: bounds.memory: "2 gigs" is not a size (a count of bytes, or N with a unit: KiB, MiB, GiB, TiB or K, M, G, T)`}, []string{`"2 gigs"`}},
		{"bounds_range", []string{"5:15: bounds.descriptors must be between 16 and 1048576, not 8"}, []string{"8"}},
		{"bounds_key", []string{"5:1: unknown key files in [bounds] (allowed: tasks, descriptors, memory)"}, []string{"files"}},
		{"bounds_type", []string{"5:9: bounds.tasks must be an integer, not a string"}, []string{`"many"`}},
		{"cpus_range", []string{"4:8: target.cpus must be between 1 and 64, not 0"}, []string{"0"}},
		{"bounds_memtype", []string{`5:10: bounds.memory must be an integer or a size such as "2GiB", not a float`}, []string{"1.5"}},
		{"workload_kind", []string{`5:8: unknown workload.kind "queue" (register, kv, set)`}, []string{`"queue"`}},
		{"workload_bad", []string{
			"6:11: workload.clients must be in 1..1000, not 0",
			"7:9: workload.nodes: 3 is not a node (0..1)",
			`8:7: workload.use[1]: "put" is not an operation of a register (read, write, cas)`,
			"11:1: unknown key put in [workload.request] (allowed: read, write, cas)",
			"13:8: workload.reply.read: error parsing regexp: missing closing ): `VAL (?P<value>\\d+`",
			`15:18: invariant lin: model "kv" does not fit a register workload`,
		}, []string{"0", "[0, 3]", `["read"`, "put =", `'VAL`, "kv\""}},
		{"zk_request", []string{
			`8:8: client.request[0].send: zk request line 1: unknown operation "getdata" (create, delete, exists, getData, setData, sync)`,
			`15:9: workload.request.write: zk request line 1: "setData /r": want setData PATH DATA`,
		}, []string{`"getdata`, `"setData /r"`}},
		{"env_type", []string{"5:8: environment.rate must be an integer or a string, not a float"}, []string{"0.5"}},
		{"client_unknown_key", []string{
			"7:1: client.request[1].send is required",
			"9:1: unknown key sned in [client.request] (allowed: node, send, at, port)",
		}, []string{"[[client.request]]\nnode = 1", "sned"}},
		{"campaign_bad", []string{
			`8:9: campaign.check "eventually": want always or final`,
			`9:19: campaign.required: no invariant "safe" (the model's invariants: ok)`,
			"10:13: campaign.max_steps = -5: want 1 or more (0: the default, 1000000)",
		}, []string{`"eventually"`, `"safe"`, "-5"}},
		{"campaign_type", []string{"5:9: campaign.seeds: incompatible types: TOML value has type string; destination has type integer"}, []string{`"many"`}},
		{"campaign_key", []string{"6:1: unknown key tics in [campaign]"}, []string{"tics"}},
		{"faults_bad", []string{
			`5:11: network.latency: "uniform:20-10": upper bound below lower bound`,
			"6:8: network.drop = 1.5: a probability is between 0 and 1",
			"9:13: faults.nodes: no node 2 (the model has nodes 0..1)",
			`10:17: faults.restart_after: "gauss:5": unknown distribution "gauss"`,
		}, []string{`"uniform:20-10"`, "1.5", "2]", `"gauss:5"`}},
		{"faults_precondition", []string{`8:25: unknown state field "rol" (declared: role)`}, []string{"rol "}},
		{"several", []string{
			"2:9: target.nodes must be between 1 and 1024, not 0",
			"4:1: unknown key extra in [target] (allowed: nodes, source, binary, args, env, cflags, base_port, checks, ports, cpus)",
			`6:5: state.x: unknown type "float" (want int8, int16, int32, int64, uint8, uint16, uint32, uint64, optionally with [N])`,
			"8:9: expected an operand, found end of expression",
			`9:9: invalid Go invariant name ""`,
		}, []string{"0", "extra", `"float"`, `"` + "\n", `"` + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := "testdata/bad/" + tt.file + ".model"
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Load(path)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			errs := splitErrors(err)
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(errs), len(tt.want), err)
			}
			for i, e := range errs {
				var pe *Error
				if !errors.As(e, &pe) {
					t.Fatalf("error %d is %T, want *Error: %v", i, e, e)
				}
				if got, want := e.Error(), path+":"+tt.want[i]; got != want {
					t.Errorf("error %d:\n got %s\nwant %s", i, got, want)
				}
				if got := textAt(src, pe.Pos); !strings.HasPrefix(got, tt.at[i]) {
					t.Errorf("error %d position %s points at %q, want %q", i, pe.Pos, got, tt.at[i])
				}
			}
		})
	}
}

// splitErrors undoes errors.Join.
func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// textAt returns the source text from pos to the end of the file.
func textAt(src []byte, pos Pos) string {
	lines := strings.SplitAfter(string(src), "\n")
	if pos.Line < 1 || pos.Line > len(lines) {
		return ""
	}
	rest := strings.Join(lines[pos.Line-1:], "")
	if pos.Col-1 > len(rest) {
		return ""
	}
	return rest[pos.Col-1:]
}

func TestRawAndDecode(t *testing.T) {
	m := mustLoad(t, "testdata/full.model")
	net, ok := m.Raw("network")
	want := map[string]any{"latency": "uniform:1000-60000", "order": "bag", "drop": 0.01}
	if !ok || !reflect.DeepEqual(net, want) {
		t.Errorf("Raw(network) = %v, %v; want %v", net, ok, want)
	}
	if _, ok := m.Raw("workload"); ok {
		t.Error("Raw(workload) reports a section the file does not have")
	}
	var camp struct{ Seeds, Tail int }
	if err := m.Decode("campaign", &camp); err != nil || camp.Seeds != 100 || camp.Tail != 5000 {
		t.Errorf("Decode(campaign) = %+v, %v", camp, err)
	}
	var partial struct{ Seeds int }
	err := m.Decode("campaign", &partial)
	if got, want := errString(err), "testdata/full.model:51:1: unknown key tail in [campaign]"; got != want {
		t.Errorf("Decode with a missing field: %s, want %s", got, want)
	}
	var wrong struct{ Order int }
	err = m.Decode("network", &wrong)
	wantErr := "testdata/full.model:46:9: network.order: incompatible types: TOML value has type string; destination has type integer"
	if got := errString(err); got != wantErr {
		t.Errorf("Decode with a wrong type:\n got %s\nwant %s", got, wantErr)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestVariant(t *testing.T) {
	m := mustLoad(t, "testdata/full.model")
	tests := []struct {
		name, want, err string
	}{
		{"", "correct", ""},
		{"bug", "bug", ""},
		{"alpha", "alpha", ""},
		{"nope", "", `model testdata/full.model has no variant "nope" (variants: correct, bug, alpha)`},
	}
	for _, tt := range tests {
		v, err := m.Variant(tt.name)
		if v.Name != tt.want || (err != nil || tt.err != "") && errString(err) != tt.err {
			t.Errorf("Variant(%q) = %v, %v; want %s, %s", tt.name, v, err, tt.want, tt.err)
		}
	}
}

func TestParseReply(t *testing.T) {
	m := mustLoad(t, "testdata/full.model")
	tests := []struct {
		src  int
		line string
		want string // "" = no match
	}{
		{1, "ACK 5 bob", `{src: 1, val: 5, who: "bob"}`},
		{0, "ACK -12 x", `{src: 0, val: -12, who: "x"}`},
		{0, "NAK 5 bob", ""},
	}
	for _, tt := range tests {
		v, ok := m.Client.ParseReply(tt.src, tt.line)
		if got := v.String(); ok != (tt.want != "") || ok && got != tt.want {
			t.Errorf("ParseReply(%d, %q) = %s, %v; want %q", tt.src, tt.line, got, ok, tt.want)
		}
	}
}

func TestBind(t *testing.T) {
	m := mustLoad(t, "testdata/bad/go_unbound.model")
	inv := m.Invariants[0]
	s := State{Nodes: []NodeState{{Alive: true}, {Alive: false}}}
	if _, _, err := inv.Check(s); errString(err) != `testdata/bad/go_unbound.model:5:9: invariant ring: Go invariant "ring" is not bound (call Model.Bind)` {
		t.Errorf("Check before Bind: %v", err)
	}
	err := m.Bind(Registry{"other": nil})
	if want := `testdata/bad/go_unbound.model:5:9: invariant ring: no Go invariant registered as "ring" (registered: other)`; errString(err) != want {
		t.Errorf("Bind without ring: %v, want %s", err, want)
	}
	ring := func(s State) (bool, string) {
		if !s.Nodes[1].Alive {
			return false, "node[1] is not in the ring"
		}
		return true, ""
	}
	if err := m.Bind(Registry{"ring": ring}); err != nil {
		t.Fatal(err)
	}
	ok, why, err := inv.Check(s)
	if ok || why != "node[1] is not in the ring" || err != nil {
		t.Errorf("Check = %v, %q, %v", ok, why, err)
	}
}

func TestNodeArgsSubstitution(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{id}", "1"},
		{"x{id}y{nodes}", "x1y3"},
		{"{port}", "7101"},
		{"{ id }", "{ id }"},      // not a placeholder: left alone
		{"{", "{"},                // unterminated brace
		{"{{id}}", "{1}"},         // inner placeholder
		{"{mode}-{id}", "fast-1"}, // environment string
		{"{client_val}", "5"},     // environment integer
	}
	m := mustLoad(t, "testdata/full.model")
	for _, tt := range tests {
		got, bad := substitute(tt.in, m.placeholders(1))
		if got != tt.want || bad >= 0 {
			t.Errorf("substitute(%q) = %q, %d; want %q", tt.in, got, bad, tt.want)
		}
	}
}

func TestExprAt(t *testing.T) {
	m := mustLoad(t, "testdata/full.model")
	e, err := m.ExprAt("faults", "precondition")
	if err != nil {
		t.Fatal(err)
	}
	s := State{Nodes: []NodeState{{Alive: true}, {Alive: false}, {Alive: true}}}
	if v, err := e.Eval(s, nil); err != nil || v.String() != "true" {
		t.Errorf("quorum = %v, %v", v, err)
	}
	s.Nodes[2].Alive = false
	if v, err := e.Eval(s, nil); err != nil || v.String() != "false" {
		t.Errorf("quorum with one node = %v, %v", v, err)
	}
	if _, err := m.ExprAt("faults", "missing"); errString(err) != "testdata/full.model:53:1: [faults] has no key missing" {
		t.Errorf("ExprAt missing key: %v", err)
	}
	if _, err := m.ExprAt("network", "drop"); errString(err) != "testdata/full.model:47:8: network.drop must be a string expression, not a float" {
		t.Errorf("ExprAt float: %v", err)
	}
}

// TestValuePos: positions of values, array elements (nested, multi-line,
// commented) and keys of inline tables in the raw sections.
func TestValuePos(t *testing.T) {
	src := []byte(`[target]
nodes = 3
source = "repl.c"
[faults]
crashes = 2
nodes = [0,2, 1]
partition = [{groups = [[0], [1, 2]], from = 5}, {groups = [[0], [2]], until = 9}]
[campaign]
required = [
  "a", # first
  'b',
]
[invariants]
a = "true"
b = "true"
`)
	m, err := Parse("testdata/pos.model", src)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path  string
		index []int
		at    string // the source text the position starts
	}{
		{"faults.crashes", nil, "2\n"},
		{"faults.nodes", nil, "[0,2, 1]"},
		{"faults.nodes", []int{1}, "2, 1]"},
		{"faults.nodes", []int{2}, "1]"},
		{"faults.nodes", []int{3}, "[0,2, 1]"}, // no such element: the array
		{"faults.partition#0.groups", []int{1, 1}, "2]]"},
		{"faults.partition#0.from", nil, "5}"},
		{"faults.partition#1.until", nil, "9}"},
		{"campaign.required", []int{1}, "'b'"},
		{"campaign.missing", nil, "[campaign]"},
		{"campaign.required", []int{0}, `"a"`},
	}
	for _, tt := range tests {
		if got := textAt(src, m.ValuePos(tt.path, tt.index...)); !strings.HasPrefix(got, tt.at) {
			t.Errorf("ValuePos(%s, %v) points at %.12q, want %q", tt.path, tt.index, got, tt.at)
		}
	}
	if got := textAt(src, m.KeyPos("faults.crashes")); !strings.HasPrefix(got, "crashes") {
		t.Errorf("KeyPos(faults.crashes) points at %.12q", got)
	}
}

// TestMalformedModels: wrong types in every section, truncated files and
// huge numbers are errors at a position inside the file (the one given),
// never a panic or an accepted model.
func TestMalformedModels(t *testing.T) {
	const head = "[target]\nnodes = 2\nsource = \"repl.c\"\n" // lines 1-3
	const inv = "[invariants]\nok = \"true\"\n"
	tests := []struct {
		name, src string
		at        string // "line:col" of the (first) error
	}{
		{"nodes string", "[target]\nnodes = \"two\"\nsource = \"repl.c\"\n" + inv, "2:9"},
		{"nodes huge", "[target]\nnodes = 9223372036854775807\nsource = \"repl.c\"\n" + inv, "2:9"},
		{"nodes overflow", "[target]\nnodes = 99999999999999999999\nsource = \"repl.c\"\n" + inv, "2:9"},
		{"nodes negative", "[target]\nnodes = -1\nsource = \"repl.c\"\n" + inv, "2:9"},
		{"args not a list", head + "args = \"{id}\"\n" + inv, "4:8"},
		{"args of integers", head + "args = [1, 2]\n" + inv, "4:8"},
		{"base_port huge", head + "base_port = 99999999999\n" + inv, "4:13"},
		{"target a string", "target = \"x\"\n" + inv, "1:1"},
		{"variant integer", head + "[variants]\nfast = 3\n" + inv, "5:8"},
		{"variants a list", head + "variants = [1]\n" + inv, "4:1"},
		{"state integer", head + "[state]\nx = 4\n" + inv, "5:5"},
		{"state huge array", head + "[state]\nx = \"int32[99999999999999999999]\"\n" + inv, "5:5"},
		{"environment table", head + "[environment]\nx = {a = 1}\n" + inv, "5:5"},
		{"depth huge", head + "[environment]\ndepth = 99999999999999999999\n" + inv, "5:9"},
		{"depth string", head + "[environment]\ndepth = \"deep\"\n" + inv, "5:9"},
		{"client log integer", head + "[client]\nlog = 1\n" + inv, "5:7"},
		{"request node string", head + "[client]\n[[client.request]]\nnode = \"zero\"\nsend = \"x\"\n" + inv, "6:8"},
		{"request node huge", head + "[client]\n[[client.request]]\nnode = 9223372036854775807\nsend = \"x\"\n" + inv, "6:8"},
		{"invariant integer", head + "[invariants]\nok = 1\n", "5:6"},
		{"invariant huge literal", head + "[invariants]\nok = \"node[0].x == 99999999999999999999\"\n", "5:20"},
		{"invariants a list", head + "invariants = [\"true\"]\n", "4:1"},
		{"truncated string", head + inv + "[environment]\nname = \"ab", "7:10"},
		{"truncated table", head + "[environ", "4:8"},
		{"truncated array", head + inv + "[faults]\nnodes = [0, 1", "7:13"},
		{"truncated key", head + "[target", "4:7"},
		{"duplicate key", head + "nodes = 3\n" + inv, "4:1"},
		{"binary junk", head + "\x00\x01\x02\n" + inv, "4:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("testdata/bad.model", []byte(tt.src))
			if err == nil {
				t.Fatalf("accepted:\n%s", tt.src)
			}
			first := splitErrors(err)[0]
			var pe *Error
			if !errors.As(first, &pe) {
				t.Fatalf("error %T is not an *Error: %v", first, first)
			}
			if got := fmt.Sprintf("%d:%d", pe.Pos.Line, pe.Pos.Col); got != tt.at {
				t.Errorf("error at %s, want %s: %v", got, tt.at, err)
			}
			if strings.Contains(pe.Msg, `\x00`) && !strings.Contains(tt.src, "\x00") {
				t.Errorf("the end of the file shown as NUL: %v", err)
			}
		})
	}
}

func TestWorkload(t *testing.T) {
	m, err := Load("testdata/workload.model")
	if err != nil {
		t.Fatal(err)
	}
	w := m.Workload
	if w == nil || w.Kind != "kv" || w.Clients != 2 || w.Ops != 3 || w.TimeoutUS != 20000 || len(w.Nodes) != 2 || len(w.Nodes[1]) != 2 {
		t.Fatalf("workload %+v", w)
	}
	if got := string(w.RequestOf(workload.Call{Op: "put", Key: "a", Value: 5})); got != "PUT a 5\n" {
		t.Errorf("request %q", got)
	}
	if out, vals, ok := w.Parse(workload.Call{Op: "get"}, "VAL 4,5"); !ok || out != workload.Ok || len(vals) != 2 {
		t.Errorf("parse: %v %v %v", out, vals, ok)
	}
	if inv := m.Invariants[0]; inv.Porcupine != "kv" {
		t.Errorf("invariant %+v", inv)
	}
	// 2 keys × (get + 2 puts) × 1 node for client 0; × 2 nodes for client 1.
	tab := workload.NewTable(w)
	if lo, hi := tab.Slot(0, 0); hi-lo != 6 {
		t.Errorf("client 0 slot: %d calls", hi-lo)
	}
	if lo, hi := tab.Slot(1, 2); hi-lo != 12 || hi != len(tab.Calls) {
		t.Errorf("client 1 last slot: [%d, %d) of %d", lo, hi, len(tab.Calls))
	}
}

// TestBounds: [bounds] is decoded once at load, a memory size with or
// without a unit; a model without it leaves every bound at weft's default.
func TestBounds(t *testing.T) {
	tests := []struct {
		table string
		want  Bounds
	}{
		{"", Bounds{}},
		{"[bounds]\ntasks = 64\n", Bounds{Tasks: 64}},
		{"[bounds]\ntasks = 512\ndescriptors = 4096\nmemory = \"2GiB\"\n", Bounds{Tasks: 512, Descriptors: 4096, Memory: 2 << 30}},
		{"[bounds]\nmemory = \"64 MiB\"\n", Bounds{Memory: 64 << 20}},
		{"[bounds]\nmemory = 33554432\n", Bounds{Memory: 32 << 20}},
	}
	for _, tt := range tests {
		src := "[target]\nnodes = 2\nsource = \"repl.c\"\n" + tt.table
		m, err := Parse("testdata/bounds.model", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", tt.table, err)
		}
		if m.Bounds != tt.want {
			t.Errorf("%q: bounds %+v, want %+v", tt.table, m.Bounds, tt.want)
		}
	}
}
