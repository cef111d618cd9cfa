//go:build linux

package mcsdk_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// probeModel writes a model for testdata/probe.c in MODE into a temporary
// directory and loads it.
func probeModel(t *testing.T, mode, extra string) *model.Model {
	t.Helper()
	m, err := loadProbeModel(t, mode, extra)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadProbeModel is probeModel with the error of loading it.
func loadProbeModel(t *testing.T, mode, extra string) (*model.Model, error) {
	t.Helper()
	src, err := filepath.Abs("testdata/probe.c")
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`[target]
nodes = 2
source = %q
args = ["{id}", "{base_port}", %q]
base_port = 7300

[state]
chunks = "int32[8]"
nchunks = "int32"
total = "int32"
eof = "int32"
src_port = "int32"

[environment]
depth = 8
%s`, src, mode, extra)
	path := filepath.Join(t.TempDir(), mode+".model")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return model.Load(path)
}

func intVar(t *testing.T, st model.State, node int, name string) int64 {
	t.Helper()
	v, ok := st.Nodes[node].Vars[name].AsInt()
	if !ok {
		t.Fatalf("node[%d].%s is not an integer: %v", node, name, st.Nodes[node].Vars[name])
	}
	return v
}

func listVar(st model.State, node int, name string) string {
	return st.Nodes[node].Vars[name].String()
}

// TestSupervisorBehaviours runs real processes under the real supervisor:
// each case is a probe mode whose effect is observed through declared
// globals, or a misbehaviour that must end in a precise verdict.
func TestSupervisorBehaviours(t *testing.T) {
	tests := []struct {
		mode      string
		inv       string
		verdict   mcsdk.Verdict
		invariant string // violated invariant
		check     func(t *testing.T, r *mcsdk.CheckResult)
	}{
		{
			// One 12-byte message read 5 bytes at a time: partial reads,
			// then EOF after the FIN is delivered.
			mode: "stream", inv: `[invariants]
not_done = "node[1].eof == 0"`, verdict: mcsdk.Violated, invariant: "not_done",
			check: func(t *testing.T, r *mcsdk.CheckResult) {
				st := r.Violation.State
				if got := listVar(st, 1, "chunks"); got != "[5, 5, 2, 0, 0, 0, 0, 0]" {
					t.Errorf("chunks = %s, want [5, 5, 2, 0, …]", got)
				}
				if got := intVar(t, st, 1, "total"); got != 12 {
					t.Errorf("total = %d, want 12", got)
				}
				// The connection's SYN, data, then FIN: three deliveries on
				// one FIFO channel.
				if len(r.Violation.Path) != 3 {
					t.Errorf("path = %v, want 3 deliveries", r.Violation.Steps)
				}
			},
		},
		{
			// Datagram boundaries survive; a 5-byte datagram read into 4
			// bytes is truncated; recvfrom reports the sender's port.
			mode: "udp", inv: `[invariants]
not_done = "node[1].eof == 0"`, verdict: mcsdk.Violated, invariant: "not_done",
			check: func(t *testing.T, r *mcsdk.CheckResult) {
				st := r.Violation.State
				if got := listVar(st, 1, "chunks"); got != "[3, 4, 0, 0, 0, 0, 0, 0]" {
					t.Errorf("chunks = %s, want [3, 4, 0, …]", got)
				}
				if got := intVar(t, st, 1, "src_port"); got != 7300 {
					t.Errorf("src_port = %d, want 7300", got)
				}
			},
		},
		{
			// Both datagrams are in flight on one channel: FIFO by default,
			// so a single order and the same states whatever the order of
			// exploration.
			mode: "udp", inv: `[invariants]
fine = "node[1].nchunks <= 2"`, verdict: mcsdk.Holds,
			check: func(t *testing.T, r *mcsdk.CheckResult) {
				if r.States != 3 {
					t.Errorf("states = %d, want 3 (initial, one datagram, two)", r.States)
				}
			},
		},
		{
			// An intercepted family weft does not model: verdict error
			// naming the syscall and the node, never a hang.
			mode: "iouring", verdict: mcsdk.Error,
			check: func(t *testing.T, r *mcsdk.CheckResult) {
				if !strings.Contains(r.Failure, "io_uring_setup") || !strings.Contains(r.Failure, "node 1") {
					t.Errorf("failure = %q, want it to name io_uring_setup and node 1", r.Failure)
				}
			},
		},
		{
			mode: "spin", verdict: mcsdk.Error,
			check: func(t *testing.T, r *mcsdk.CheckResult) {
				if !strings.Contains(r.Failure, "watchdog") || !strings.Contains(r.Failure, "node 1") {
					t.Errorf("failure = %q, want a watchdog report for node 1", r.Failure)
				}
			},
		},
		{
			mode: "segv", verdict: mcsdk.Violated, invariant: "no_node_crash",
			check: func(t *testing.T, r *mcsdk.CheckResult) {
				if !strings.Contains(r.Violation.Why, "node 1 was killed by SIGSEGV") {
					t.Errorf("why = %q", r.Violation.Why)
				}
			},
		},
		{
			mode: "exit3", verdict: mcsdk.Violated, invariant: "no_node_crash",
			check: func(t *testing.T, r *mcsdk.CheckResult) {
				if !strings.Contains(r.Violation.Why, "node 1 exited with status 3") {
					t.Errorf("why = %q", r.Violation.Why)
				}
			},
		},
		{
			// Ten minutes of nanosleep pass in one timer action; time(2)
			// then reads the virtual clock: 2026-01-01T00:10:00Z.
			mode: "sleep", inv: `[invariants]
asleep = "node[0].total == 0"`, verdict: mcsdk.Violated, invariant: "asleep",
			check: func(t *testing.T, r *mcsdk.CheckResult) {
				if got := intVar(t, r.Violation.State, 0, "total"); got != 1767225600+600 {
					t.Errorf("time after sleeping = %d, want %d", got, 1767225600+600)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.mode+"/"+string(tc.verdict), func(t *testing.T) {
			m := probeModel(t, tc.mode, tc.inv)
			start := time.Now()
			r, err := mcsdk.Check(m, mcsdk.CheckOptions{Watchdog: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tc.verdict {
				t.Fatalf("verdict = %s (%s %v), want %s", r.Verdict, r.Failure, r.Violation, tc.verdict)
			}
			if tc.invariant != "" && r.Violation.Invariant != tc.invariant {
				t.Fatalf("violated %s, want %s", r.Violation.Invariant, tc.invariant)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
			t.Logf("%s: %d states in %v", tc.mode, r.States, time.Since(start))
		})
	}
}

// TestNoRealNetwork: a real listener on the host's loopback, at the very
// port a node connects to, is never reached; the node sees ECONNREFUSED
// because no virtual node listens there.
func TestNoRealNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:7350")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	m := probeModel(t, "escape", "[invariants]\nnever = \"node[0].eof == 0\"\n")
	r, err := mcsdk.Check(m, mcsdk.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != mcsdk.Violated {
		t.Fatalf("verdict %s: the connect never completed", r.Verdict)
	}
	if got := intVar(t, r.Violation.State, 0, "eof"); got != 111 {
		t.Errorf("connect result %d, want ECONNREFUSED (111)", got)
	}
	select {
	case <-accepted:
		t.Fatal("a target reached a real socket on the host")
	case <-time.After(200 * time.Millisecond):
	}
}
