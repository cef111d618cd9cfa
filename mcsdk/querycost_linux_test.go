//go:build linux

package mcsdk_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// TestStateQueryCost runs a Go HTTP server (testdata/gohttp) that a
// client request sets to 5, with and without a [[state.query]] reading
// the value: the query observes the 5, yet costs the run no more than
// twice its steps without the query (it is asked only when the server got
// or sent something, not at every wake-up of the Go runtime, which a
// query itself causes). Each seed records the same bytes twice.
func TestStateQueryCost(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "gohttp")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/gohttp").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const base = `[target]
binary = %q
nodes = 1
args = ["{port}"]
base_port = 8360
[client]
protocol = "http"
reply = '^HTTP/1.1 200'
[[client.request]]
node = 0
send = "GET /set?v=5 HTTP/1.0\r\n\r\n"
at = 1000
[campaign]
duration = 20000
[invariants]
answered = "len(replies) <= 1"
`
	const query = `[[state.query]]
send = "GET /val HTTP/1.0\r\n\r\n"
parse = 'VAL (?P<val>\d+)'
vars = { val = "int" }
`
	load := func(name, text string) *model.Model {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := model.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	plain := load("plain.model", fmt.Sprintf(base, bin))
	queried := load("query.model", fmt.Sprintf(base, bin)+"known = \"node[0].val == 0 or node[0].val == 5\"\n"+query)
	for _, seed := range []uint64{1, 2} {
		without, _ := runTwice(t, plain, seed)
		with, _ := runTwice(t, queried, seed)
		if without.Verdict != mcsdk.Holds || with.Verdict != mcsdk.Holds {
			t.Fatalf("seed %d: verdicts %s (%s) and %s (%s), want holds", seed, without.Verdict, without.Detail, with.Verdict, with.Detail)
		}
		if got := with.Final.Nodes[0].Vars["val"]; got.String() != "5" {
			t.Errorf("seed %d: the query read val = %s at the end, want 5", seed, got)
		}
		if with.Steps > 2*without.Steps {
			t.Errorf("seed %d: %d steps with the state query, %d without: want at most twice", seed, with.Steps, without.Steps)
		}
		t.Logf("seed %d: %d steps with the state query, %d without", seed, with.Steps, without.Steps)
	}
}
