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

// TestRepliesAsStreams matches replies over the bytes a client
// connection receives, with real servers: busybox httpd's page has no
// trailing newline, so the line protocol never sees it (and the run says
// which bytes arrived), while http and a stream expression match it;
// redis answers two pipelined commands, framed by resp, in order; and
// python3's http.server answers two pipelined HTTP/1.1 requests on one
// connection (keep-alive). Each seed records the same bytes twice.
func TestRepliesAsStreams(t *testing.T) {
	const httpd = `[target]
base_port = 8310
[[node]]
binary = "/usr/bin/busybox"
args   = ["httpd", "-f", "-p", "127.0.0.1:{port}", "-h", "{modeldir}/www"]
[client]
%s
[[client.request]]
node = 0
send = "GET /page HTTP/1.0\r\n\r\n"
at = 1000
[campaign]
check = "final"
`
	const redis = `[target]
base_port = 8320
[[node]]
binary = "/usr/bin/redis-server"
args   = ["--port", "{port}", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--logfile", "", "--protected-mode", "no"]
[client]
protocol = "resp"
reply = '(?s)^(?P<v>.*)$'
[[client.request]]
node = 0
send = "SET k 5\r\nGET k\r\n"
at = 50000
[campaign]
check = "final"
duration = 100000
[invariants]
pipelined = "len(replies) == 2 and replies[0].v == \"OK\" and replies[0].type == \"simple\" and replies[1].v == 5 and replies[1].type == \"bulk\""
`
	const python = `[target]
base_port = 8330
[[node]]
binary = "/usr/bin/python3"
args   = ["-m", "http.server", "--protocol", "HTTP/1.1", "--bind", "127.0.0.1", "--directory", "{modeldir}/www", "{port}"]
[client]
protocol = "http"
reply = '^HTTP/1\.[01] (?P<code>\d+)'
start = "up"
[[client.request]]
node = 0
send = "GET /page HTTP/1.1\r\nHost: x\r\n\r\nGET /missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
at = 0
[campaign]
check = "final"
duration = 100000
[invariants]
keep_alive = "len(replies) == 2 and replies[0].status == 200 and replies[0].body == \"hello, no newline\" and replies[1].code == 404"
`
	const page = "[invariants]\nfetched = \"len(replies) == 1 and replies[0].body == \\\"hello, no newline\\\"\"\n"
	tests := []struct {
		name, model string
		verdict     mcsdk.Verdict
		unmatched   string // a part of the "unmatched" parameter, or ""
	}{
		{"line", strings.Replace(httpd, "%s", `reply = '^(?P<body>hello.*)$'`, 1) + page, mcsdk.Violated,
			`client request 0 to n0: no reply matched client.reply "^(?P<body>hello.*)$" (protocol line) in the `},
		{"stream", strings.Replace(httpd, "%s", "protocol = \"stream\"\nreply = '(?s)\\r\\n\\r\\n(?P<body>hello[a-z, ]*)'", 1) + page, mcsdk.Holds, ""},
		{"http", strings.Replace(httpd, "%s", "protocol = \"http\"\nreply = '^HTTP/1.. 200'", 1) + page + "ok = \"all r in replies : r.status == 200\"\n", mcsdk.Holds, ""},
		{"resp pipelined", redis, mcsdk.Holds, ""},
		{"http keep-alive", python, mcsdk.Holds, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := writePageModel(t, tc.model)
			res, out := runTwice(t, m, 1)
			if res.Verdict != tc.verdict {
				t.Fatalf("verdict %s %v (%s), want %s; params %v; output %v", res.Verdict, res.Violated, res.Detail, tc.verdict, res.Params, out)
			}
			var unmatched []string
			for _, p := range res.Params {
				if p.Name == "unmatched" {
					unmatched = append(unmatched, p.Value)
				}
			}
			got := strings.Join(unmatched, "\n")
			switch {
			case tc.unmatched == "" && got != "":
				t.Errorf("unmatched %q, want none", got)
			case tc.unmatched != "" && (!strings.Contains(got, tc.unmatched) || !strings.Contains(got, `hello, no newline"`)):
				t.Errorf("unmatched %q, want %q and the bytes received", got, tc.unmatched)
			}
		})
	}
}

// writePageModel writes a model beside www/page, a page without a
// trailing newline, and loads it.
func writePageModel(t *testing.T, text string) *model.Model {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "www"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "www", "page"), []byte("hello, no newline"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "replies.model")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
