//go:build linux

package mcsdk_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk"
)

// TestGoServers runs Debian's unmodified Go servers, which list their
// interfaces over NETLINK_ROUTE as they start, under weft: one
// nats-server delivers a client's message back to its subscriber; a
// 3-node nats routes cluster delivers a message published on node 1 to
// subscribers on node 1 and, through the route, on node 0; a 3-node etcd
// cluster elects a leader, takes a put on node 0 (v3 JSON gateway) and
// returns the value from node 2. The servers say they are ready, no call
// is refused, and two runs of a seed record the same bytes. It fails when
// nats-server or etcd is missing (scripts/setup.sh installs them).
func TestGoServers(t *testing.T) {
	tests := []struct {
		model   string
		replies []string // in the ghost log
		output  []string // in the nodes' output
	}{
		{"nats/nats.model", []string{`line: "MSG k 1 2"`}, []string{"Server is ready"}},
		{"nats/cluster.model", []string{`line: "MSG k 1 2"`, `line: "MSG k 2 2"`},
			[]string{"Listening for route connections on 127.0.0.1:6222", "Route connection created"}},
		{"etcd/cluster.model", []string{`status: 200`, `rev: 2`, `val: "djU="`},
			[]string{"elected leader", "ready to serve client requests"}},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			m := loadTarget(t, tc.model)
			for _, seed := range []uint64{1, 2} {
				var recs [2][]byte
				for k := range recs {
					var out bytes.Buffer
					// etcd fsyncs its log (a passthrough call, state D while the
					// disk is busy): a loaded machine can hold a node there
					// longer than the default 10 s watchdog.
					r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed, Watchdog: 2 * time.Minute, OnOutput: func(_ int, b []byte) { out.Write(b) }})
					if err != nil {
						t.Fatal(err)
					}
					if r.Verdict != mcsdk.Holds {
						t.Fatalf("seed %d: %s %s\n%s", seed, r.Verdict, r.Detail, out.String())
					}
					var lines []string
					for _, v := range r.Final.Logs["replies"] {
						lines = append(lines, v.String())
					}
					log := strings.Join(lines, "\n")
					for _, want := range tc.replies {
						if !strings.Contains(log, want) {
							t.Errorf("seed %d: replies lack %s:\n%s\nnode output:\n%s", seed, want, log, out.String())
						}
					}
					for _, want := range tc.output {
						if !strings.Contains(out.String(), want) {
							t.Errorf("seed %d: the nodes' output lacks %q:\n%s", seed, want, out.String())
						}
					}
					if len(r.Refusals) > 0 {
						t.Errorf("seed %d: refused %v", seed, r.Refusals)
					}
					if recs[k], err = r.Recording(m).Bytes(); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(recs[0], recs[1]) {
					t.Errorf("seed %d: two runs recorded different bytes", seed)
				}
			}
		})
	}
}
