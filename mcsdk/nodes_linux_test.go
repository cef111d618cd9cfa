//go:build linux

package mcsdk_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// kvModel is a primary and a replica of supervisor/testdata/kv.c, which
// does not replicate: after the client's SET 5 the replica's value, read
// by the state query, differs from the primary's.
const kvModel = `[target]
source = %q
env = { KV_NAME = "{role}-{id}" }

[[node]]
role = "primary"
args = ["{port}", "{rundir}"]

[[node]]
role = "replica"
args = ["{port}"]

[[client.request]]
node = 0
send = "SET 5\n"
at = 1000

[[state.query]]
send = "GET\n"
parse = '^VAL (?P<val>-?\d+)\n$'
vars = { val = "int" }

[invariants]
bounded  = "all i in nodes : node[i].val == 0 or node[i].val == 5"
replicas = "node[1].val == node[0].val"
`

func writeKVModel(t *testing.T) *model.Model {
	t.Helper()
	src, err := filepath.Abs("supervisor/testdata/kv.c")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kv.model")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(kvModel, src)), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRolesAndStateQueries runs a model of roles, per-node arguments and
// environments, {rundir} and a state query: the query variables reach the
// invariants (the replica's value differs after the write), the trace
// records their changes, roles reach the recording, {rundir} is a private
// directory the node may write in, and two runs are identical.
func TestRolesAndStateQueries(t *testing.T) {
	m := writeKVModel(t)
	var runs []*mcsdk.RunResult
	outputs := make([]map[int]string, 2)
	for k := range 2 {
		outputs[k] = map[int]string{}
		out := outputs[k]
		res, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: 1, OnOutput: func(n int, b []byte) { out[n] += string(b) }})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, res)
	}
	res := runs[0]
	if res.Verdict != mcsdk.Violated || !slices.Equal(res.Violated, []string{"replicas"}) {
		t.Fatalf("verdict %s %v (%s), want violated [replicas]", res.Verdict, res.Violated, res.Detail)
	}
	if v := res.FirstViolation; v == nil || !strings.Contains(v.Why, "5") {
		t.Errorf("first violation %+v should show the primary's 5", v)
	}
	if got := res.FirstViolation.State.Nodes[0].Vars["val"]; got.String() != "5" {
		t.Errorf("primary's val at the violation = %s, want 5", got)
	}
	if got := res.FirstViolation.State.Nodes[1].Vars["val"]; got.String() != "0" {
		t.Errorf("replica's val at the violation = %s, want 0", got)
	}
	var changes []string
	for _, e := range res.Events {
		if e.Kind == "state" {
			changes = append(changes, fmt.Sprintf("n%d.%s=%s", e.Node, e.Var, e.Value))
		}
	}
	if want := []string{"n0.val=0", "n1.val=0", "n0.val=5"}; !slices.Equal(changes, want) {
		t.Errorf("state events %v, want %v", changes, want)
	}
	if want := "name primary-0\nmark in .: created\n"; outputs[0][0] != want {
		t.Errorf("primary's output %q, want %q", outputs[0][0], want)
	}
	if want := "name replica-1\n"; outputs[0][1] != want {
		t.Errorf("replica's output %q, want %q", outputs[0][1], want)
	}
	rec := res.Recording(m)
	if !slices.Equal(rec.Header.Roles, []string{"primary", "replica"}) || !slices.Equal(rec.Header.State, []string{"val"}) {
		t.Errorf("recording header roles %v state %v", rec.Header.Roles, rec.Header.State)
	}
	a, b := *runs[0], *runs[1]
	a.Wall, b.Wall, a.FirstReplyWall, b.FirstReplyWall = 0, 0, 0, 0
	if !reflect.DeepEqual(a.Events, b.Events) || !reflect.DeepEqual(a.Choices, b.Choices) || !reflect.DeepEqual(outputs[0], outputs[1]) {
		t.Error("two runs of the same seed differ")
	}
}

// TestStateQueryCheck explores the kv model exhaustively: the queries are
// part of every transition, so replayed prefixes reach the same states
// and the explorer finds the replica's divergence.
func TestStateQueryCheck(t *testing.T) {
	m := writeKVModel(t)
	r, err := mcsdk.Check(m, mcsdk.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != mcsdk.Violated || r.Violation.Invariant != "replicas" {
		t.Fatalf("verdict %s %+v, want replicas violated", r.Verdict, r.Violation)
	}
}

// TestStateQueryBadReply: a reply the parse expression does not match
// ends the run with verdict error naming the node and the reply.
func TestStateQueryBadReply(t *testing.T) {
	m := writeKVModel(t)
	src := strings.Replace(string(mustRead(t, m.Path)), `^VAL (?P<val>-?\d+)\n$`, `^VALUE (?P<val>\d+)`, 1)
	if err := os.WriteFile(m.Path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != mcsdk.Error || !strings.Contains(res.Detail, `node 0's reply to state query "GET\n" does not match`) || !strings.Contains(res.Detail, `"VAL 0\n"`) {
		t.Errorf("verdict %s %q, want error naming node 0 and its reply", res.Verdict, res.Detail)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
