//go:build linux

package mcsdk_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// TestWhatServersNeed runs a node whose binary is a shell script (#!
// handled as the kernel does), on a named port ({port.web}), with a file
// copied and a template filled into its run directory before it starts;
// the script writes into its working directory, which is its run
// directory although no argument names {rundir}; the client's requests go
// to the named port. busybox httpd serves the three files back, so the
// replies show each piece worked. Each seed records the same bytes twice.
func TestWhatServersNeed(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("serve.sh", "#!/bin/sh -e\nprintf written > www/w.txt\nexec busybox httpd -f -p 127.0.0.1:$1 -h www\n", 0o755)
	write("www/index.html", "node {id} ({role}) on port {port.web}", 0o644)
	write("www/static.txt", "kept {as} is", 0o644)
	write("servers.model", `[target]
base_port = 8390
ports = { web = 8400 }

[[node]]
role      = "web"
binary    = "serve.sh"
args      = ["{port.web}"]
files     = ["www/static.txt"]
templates = ["www/index.html"]

[client]
protocol = "http"
reply    = '^HTTP/1.. 200'
[[client.request]]
node = 0
port = "web"
send = "GET /index.html HTTP/1.0\r\n\r\n"
at   = 1000
[[client.request]]
node = 0
port = "web"
send = "GET /static.txt HTTP/1.0\r\n\r\n"
at   = 2000
[[client.request]]
node = 0
port = "web"
send = "GET /w.txt HTTP/1.0\r\n\r\n"
at   = 3000

[campaign]
duration = 10000
check    = "final"

[invariants]
served = "len(replies) == 3 and replies[0].body == \"node 0 (web) on port 8400\" and replies[1].body == \"kept {as} is\" and replies[2].body == \"written\""
`, 0o644)
	m, err := model.Load(filepath.Join(dir, "servers.model"))
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 2} {
		res, out := runTwice(t, m, seed)
		if res.Verdict != mcsdk.Holds {
			t.Fatalf("seed %d: verdict %s %v (%s); params %v; output %v", seed, res.Verdict, res.Violated, res.Detail, res.Params, out)
		}
	}
}
