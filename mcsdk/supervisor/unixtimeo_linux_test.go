//go:build linux && amd64

package supervisor

import (
	"fmt"
	"strings"
	"testing"
)

// TestUnixTimeoutVirtual runs testdata/unixtimeo.c, whose blocking
// AF_UNIX calls nothing answers, each under an SO_RCVTIMEO or SO_SNDTIMEO
// that is not a whole number of ticks: each reads back as weft's virtual
// HZ (250: 4 ms a tick, vkernel.HZ) rounds it, and ends with EAGAIN when
// the node's monotonic clock has run exactly that rounded timeout, not
// the host kernel's (the placeholder's) nor any real time. The same lines
// come from a second run of the seed and from a copy restored from a
// checkpoint taken while the first call waits (the probe sets every
// timeout before it: the copy carries the other sockets' values), run on
// beside the original.
func TestUnixTimeoutVirtual(t *testing.T) {
	bin := buildC(t, "testdata/unixtimeo.c")
	want := []string{
		"stream recv: {1,234567} reads {1,236000}; -1 EAGAIN; clock %d -> %d, waited 1236000000 ns",
		"dgram recv: {0,1} reads {0,4000}; -1 EAGAIN; clock %d -> %d, waited 4000000 ns",
		"dgram send to a full queue: {0,30001} reads {0,32000}; -1 EAGAIN; clock %d -> %d, waited 32000000 ns",
		"accept: {2,999999} reads {3,0}; -1 EAGAIN; clock %d -> %d, waited 3000000000 ns",
	}
	cfg := Config{Nodes: []NodeSpec{{Path: bin, Env: []string{"PATH=/usr/bin:/bin"}}}, BasePort: 7400}
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if c := w.nodes[0].tasks[0].call; c == nil || c.deadline < 0 {
		t.Fatal("the node is not parked in its first recv with a deadline")
	}
	cp, err := w.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	r, err := cp.Restore()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	again, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	outs := map[string]string{}
	for _, x := range []struct {
		name string
		w    *World
	}{{"original", w}, {"restored", r}, {"second run", again}} {
		for acts := x.w.Enabled(); len(acts) > 0; acts = x.w.Enabled() {
			if err := x.w.Apply(acts[0]); err != nil {
				t.Fatal(err)
			}
		}
		if f := x.w.Failure(); f != nil {
			t.Fatalf("%s: %v", x.name, f)
		}
		outs[x.name] = string(x.w.Output(0))
	}
	lines := strings.Split(strings.TrimSuffix(outs["original"], "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("printed %d lines, want %d:\n%s", len(lines), len(want), outs["original"])
	}
	for i, l := range lines {
		var before, after int64
		if _, err := fmt.Sscanf(l, want[i], &before, &after); err != nil || fmt.Sprintf(want[i], before, after) != l {
			t.Errorf("line %d: %q, want %q", i, l, want[i])
		}
	}
	for _, name := range []string{"restored", "second run"} {
		if outs[name] != outs["original"] {
			t.Errorf("the %s printed\n%s\nthe original\n%s", name, outs[name], outs["original"])
		}
	}
}
