//go:build linux

package mcsdk_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// setupModel is Debian's redis-server behind a password, with a kv
// workload whose operations do not authenticate: they succeed only after
// the set-up request (AUTH, then CONFIG SET requirepass "") has been
// answered. The request formats include append, which use leaves out.
const setupModel = `[target]
base_port = 8340
[[node]]
binary = "/usr/bin/redis-server"
args   = ["--port", "{port}", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--logfile", "", "--requirepass", "secret"]
%s
[workload]
kind     = "kv"
clients  = 2
ops      = 3
keys     = ["x"]
values   = [1, 2]
use      = ["get", "put"]
timeout  = 20000
think    = 2000
protocol = "resp"
start    = "up"
[workload.request]
get    = "GET {key}\r\n"
put    = "SET {key} {value}\r\n"
append = "APPEND {key} {value}\r\n"
[workload.reply]
get = '^(?P<value>\d*)$'
put = '^OK$'
[campaign]
duration = 150000
[invariants]
linearizable = "porcupine:kv"
`

// setupRequest authenticates and removes the password, as RESP arrays.
const setupRequest = `[client]
protocol = "resp"
reply    = '^OK$'
start    = "up"
[[client.request]]
node = 0
send = "*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$11\r\nrequirepass\r\n$0\r\n\r\n"
at   = 0
`

// TestWorkloadAfterSetup combines a [workload] with a fixed
// [[client.request]]: the workload starts once the set-up request is
// answered, so every operation completes; without the set-up request
// every operation meets redis's NOAUTH and ends indeterminate. Each seed
// records the same bytes twice.
func TestWorkloadAfterSetup(t *testing.T) {
	tests := []struct {
		name          string
		setup         string
		indeterminate int
	}{
		{"with set-up", setupRequest, 0},
		{"without", "", 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "setup.model")
			if err := os.WriteFile(path, []byte(strings.Replace(setupModel, "%s", tc.setup, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := model.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			res, _ := runTwice(t, m, 3)
			if res.Verdict != mcsdk.Holds || res.Ops != 6 || res.OpsIndeterminate != tc.indeterminate {
				t.Fatalf("verdict %s (%s), %d ops, %d indeterminate; want holds, 6 ops, %d indeterminate; params %v",
					res.Verdict, res.Detail, res.Ops, res.OpsIndeterminate, tc.indeterminate, res.Params)
			}
			if tc.setup == "" {
				return
			}
			setupAt, firstInvoke := -1, -1
			for _, e := range res.Events {
				switch {
				case e.Kind == "up" && strings.Contains(e.Value, "workload"):
					setupAt = e.Step
				case e.Kind == "invoke" && firstInvoke < 0:
					firstInvoke = e.Step
				}
			}
			if setupAt < 0 || firstInvoke <= setupAt {
				t.Errorf("the workload started at step %d, its first operation at step %d: want it after the set-up reply", setupAt, firstInvoke)
			}
		})
	}
}
