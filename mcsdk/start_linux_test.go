//go:build linux

package mcsdk_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// startServer is a node that serves {modeldir}/www with busybox httpd
// only after 10 ms of virtual time (a server that takes a while to come
// up, like a leader being elected), so that anything reaching it earlier
// is refused.
const startServer = `[target]
base_port = 8300

[[node]]
role   = "server"
binary = "/usr/bin/busybox"
args   = ["sh", "-c", "sleep 0.01; exec busybox httpd -f -p 127.0.0.1:{port} -h {modeldir}/www"]
`

// startJoiner is a node that fetches the server's page once, when it
// starts, and exits with status 1 if the connection is refused.
const startJoiner = `
[[node]]
role   = "joiner"
binary = "/usr/bin/busybox"
args   = ["wget", "-q", "-O", "-", "http://127.0.0.1:{base_port}/index.html"]
`

// writeModelDir writes a model and a www/index.html beside it, and loads
// the model.
func writeModelDir(t *testing.T, text string) *model.Model {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "www"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "www", "index.html"), []byte("hello from the server\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "start.model")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runTwice runs a seed twice, requires byte-identical recordings and
// returns the first run and the nodes' output.
func runTwice(t *testing.T, m *model.Model, seed uint64) (*mcsdk.RunResult, map[int]string) {
	t.Helper()
	var recs [2][]byte
	var res *mcsdk.RunResult
	var outs [2]map[int]string
	for k := range recs {
		out := map[int]string{}
		r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed, OnOutput: func(n int, b []byte) { out[n] += string(b) }})
		if err != nil {
			t.Fatal(err)
		}
		if recs[k], err = r.Recording(m).Bytes(); err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			res = r
		}
		outs[k] = out
	}
	if !bytes.Equal(recs[0], recs[1]) {
		t.Errorf("seed %d: two runs recorded different bytes", seed)
	}
	return res, outs[0]
}

// TestStartOrder starts nodes and clients in order without a shell:
// a node that joins the server fails when started with it (the server
// listens only after 10 ms) and succeeds with start_after = "server" (or
// "n0"), or with a start_delay past the server's start; a client request
// sent at 0 is refused unless [client] start = "up" holds it until the
// server accepts connections. Each seed records the same bytes twice.
func TestStartOrder(t *testing.T) {
	const fetched = "hello from the server\n"
	const oneReply = `
[client]
reply = '^(?P<line>HTTP/1\.[01] \d+ [^\r]*)'
%s
[[client.request]]
node = 0
send = "GET /index.html HTTP/1.0\r\n\r\n"
at = 0

[campaign]
check = "final"

[invariants]
answered = "len(replies) == 1"
`
	tests := []struct {
		name, model string
		verdict     mcsdk.Verdict
		violated    string
		joiner      string // node 1's output
		startAtUS   int64  // the time of node 1's "start" event, or -1 for none
	}{
		{"together", startServer + startJoiner + "[invariants]\nok = \"true\"\n", mcsdk.Violated, "no_node_crash",
			"wget: can't connect to remote host (127.0.0.1): Connection refused\n", -1},
		{"after role", startServer + startJoiner + "start_after = \"server\"\n[invariants]\nok = \"true\"\n", mcsdk.Holds, "", fetched, -1},
		{"after n0", startServer + startJoiner + "start_after = [\"n0\"]\n[invariants]\nok = \"true\"\n", mcsdk.Holds, "", fetched, -1},
		{"delay", startServer + startJoiner + "start_delay = 20000\n[invariants]\nok = \"true\"\n", mcsdk.Holds, "", fetched, 20000},
		{"after and delay", startServer + startJoiner + "start_after = \"n0\"\nstart_delay = 5000\n[invariants]\nok = \"true\"\n", mcsdk.Holds, "", fetched, -2},
		{"client at 0", startServer + strings.Replace(oneReply, "%s", "", 1), mcsdk.Violated, "answered", "", -1},
		{"client when up", startServer + strings.Replace(oneReply, "%s", `start = "up"`, 1), mcsdk.Holds, "", "", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := writeModelDir(t, tc.model)
			res, out := runTwice(t, m, 1)
			if res.Verdict != tc.verdict || tc.violated != "" && (len(res.Violated) != 1 || res.Violated[0] != tc.violated) {
				t.Fatalf("verdict %s %v (%s), want %s %s; output %v", res.Verdict, res.Violated, res.Detail, tc.verdict, tc.violated, out)
			}
			if out[1] != tc.joiner {
				t.Errorf("node 1's output %q, want %q", out[1], tc.joiner)
			}
			var starts []int64
			for _, e := range res.Events {
				if e.Kind == "start" {
					starts = append(starts, e.T)
				}
			}
			switch {
			case tc.startAtUS == -1 && len(starts) != 0:
				t.Errorf("start events at %v µs, want none (no delay)", starts)
			case tc.startAtUS >= 0 && (len(starts) != 1 || starts[0] != tc.startAtUS):
				t.Errorf("start events at %v µs, want one at %d", starts, tc.startAtUS)
			case tc.startAtUS == -2 && (len(starts) != 1 || starts[0] < 15000):
				// the server listens at 10 ms and more (the shell's sleep and exec)
				t.Errorf("start events at %v µs, want one 5 ms after the server listens", starts)
			}
		})
	}
}

// checkServer and checkJoiner are startServer and startJoiner for
// exhaustive search, with busybox nc: httpd's per-connection alarm would
// let the search fire its SIGALRM before the request arrives (a timer may
// fire at any point of a schedule), a crash unrelated to start order.
const checkServer = `[target]
base_port = 8310

[[node]]
role   = "server"
binary = "/usr/bin/busybox"
args   = ["sh", "-c", "sleep 0.01; echo hello | exec busybox nc -l -p {port}"]
`

const checkJoiner = `
[[node]]
role   = "joiner"
binary = "/usr/bin/busybox"
args   = ["nc", "127.0.0.1", "{base_port}"]
`

// TestStartOrderCheck is TestStartOrder's joiner under exhaustive search:
// started with the server, some schedule has its connection refused (the
// server listens only after 10 ms), so the check finds the crash; with
// start_after = "server" no schedule does, over the whole state space
// (it ends before the bound), so it holds. Threads are scheduled
// round-robin: busybox is single-threaded, so no interleaving is lost.
func TestStartOrderCheck(t *testing.T) {
	tests := []struct {
		name, extra string
		verdict     mcsdk.Verdict
	}{
		{"together", "", mcsdk.Violated},
		{"after role", "start_after = \"server\"\n", mcsdk.Holds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := writeModelDir(t, checkServer+checkJoiner+tc.extra+"[invariants]\nok = \"true\"\n")
			res, err := mcsdk.Check(m, mcsdk.CheckOptions{Depth: 10, FirstFound: true, Threads: "fixed"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tc.verdict {
				t.Fatalf("verdict %s (%v %s) after %d states, want %s", res.Verdict, res.Violation, res.Failure, res.States, tc.verdict)
			}
			if tc.verdict == mcsdk.Holds && len(res.ByDepth) >= 10 {
				t.Errorf("states reached at every depth up to the bound (%v): the space is not complete, so holds says little", res.ByDepth)
			}
			if v := res.Violation; v != nil && (v.Invariant != "no_node_crash" || !strings.Contains(v.Why, "node 1")) {
				t.Errorf("violation %s: %s, want node 1 (the joiner) down", v.Invariant, v.Why)
			}
			t.Logf("%s: %d states, %d executions, by depth %v", res.Verdict, res.States, res.Executions, res.ByDepth)
		})
	}
}
