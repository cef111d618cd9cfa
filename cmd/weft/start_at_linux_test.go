//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkloadStartsAtAVirtualTime: a [workload] with start = 60000 (µs
// of virtual time) invokes its first operation no earlier, where the same
// model without it invokes within its first think time (20 ms), on real
// runs of targets/quorum's register workload; the run still completes
// its operations.
func TestWorkloadStartsAtAVirtualTime(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../targets/quorum/register.model")
	if err != nil {
		t.Fatal(err)
	}
	c, err := os.ReadFile("../../targets/quorum/quorum.c")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "quorum.c"), c, 0o644); err != nil {
		t.Fatal(err)
	}
	const think = "think   = 20000\n"
	if !strings.Contains(string(src), think) {
		t.Fatalf("register.model has no %q line to start the workload after", think)
	}
	tests := []struct {
		name          string
		extra         string
		earliest, due int64 // µs: the first invoke's time must be in [earliest, due]
	}{
		{"at once", "", 0, 20000},
		{"at 60 ms", "start   = 60000\n", 60000, 80000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mod := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".model")
			if err := os.WriteFile(mod, []byte(strings.Replace(string(src), think, think+tc.extra, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := weft(t, "run", mod, "--variant", "fixed", "--seed", "2", "--json", "--quiet")
			var res struct {
				Ops     int
				History []struct{ CallT int64 } // ns of virtual time
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || len(res.History) == 0 {
				t.Fatalf("exit %d, %v, %d operations\n%s", code, err, len(res.History), errOut)
			}
			first := res.History[0].CallT / 1000
			for _, op := range res.History {
				first = min(first, op.CallT/1000)
			}
			if first < tc.earliest || first > tc.due || res.Ops != 3 {
				t.Errorf("first operation at %d µs, %d operations; want it in [%d, %d] µs, and 3", first, res.Ops, tc.earliest, tc.due)
			}
		})
	}
}

// TestClientStartsAtAVirtualTime: [client] start = N delays the fixed
// [[client.request]]s at run time, not only in the model: in the recording
// of a real run of targets/repl (weft trace --kinds client), the first
// request is sent at virtual time N + at, or, with its time drawn, no
// earlier than N; without start it is sent at its at.
func TestClientStartsAtAVirtualTime(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../targets/repl/repl.model")
	if err != nil {
		t.Fatal(err)
	}
	c, err := os.ReadFile("../../targets/repl/repl.c")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "repl.c"), c, 0o644); err != nil {
		t.Fatal(err)
	}
	const log, send = "log   = \"replies\"\n", "send = \"WRITE {client_val}\\n\"\n"
	if !strings.Contains(string(src), log) || !strings.Contains(string(src), send) {
		t.Fatalf("repl.model has no %q or %q line", log, send)
	}
	tests := []struct {
		name, start, at string
		earliest, due   int64 // µs: the first request's time must be in [earliest, due]
	}{
		{"no start", "", "at = 1000\n", 1000, 1000},
		{"start 50 ms", "start = 50000\n", "at = 1000\n", 51000, 51000},
		{"start 200 ms, at drawn", "start = 200000\n", "", 200000, 1 << 62},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.NewReplacer(" ", "_", ",", "").Replace(tc.name)
			text := strings.Replace(strings.Replace(string(src), log, log+tc.start, 1), send, send+tc.at, 1) + "\n[campaign]\nduration = 300000\n"
			mod := filepath.Join(dir, name+".model")
			if err := os.WriteFile(mod, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			ds := filepath.Join(dir, name)
			if out, errOut, code := weft(t, "campaign", mod, "--variants", "correct", "--seeds", "1", "--record", "all", "-o", ds); code != 0 {
				t.Fatalf("campaign: exit %d\n%s%s", code, out, errOut)
			}
			out, errOut, code := weft(t, "trace", filepath.Join(ds, "recordings", "correct-0.weftlog"), "--kinds", "client", "--json")
			if code != 0 {
				t.Fatalf("trace: exit %d\n%s", code, errOut)
			}
			first := int64(-1)
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var ev struct {
					T    int64 // µs of virtual time
					Kind string
				}
				if err := json.Unmarshal([]byte(line), &ev); err != nil {
					t.Fatalf("trace --json line %q: %v", line, err)
				}
				if ev.Kind == "client" && first < 0 {
					first = ev.T
				}
			}
			if first < tc.earliest || first > tc.due {
				t.Errorf("first client request sent at %d µs, want it in [%d, %d]\n%s", first, tc.earliest, tc.due, out)
			}
		})
	}
}
