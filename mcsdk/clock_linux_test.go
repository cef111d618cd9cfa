//go:build linux

package mcsdk_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// clockedModel writes a two-node model of testdata/clocked.c with the
// given [faults] lines.
func clockedModel(t *testing.T, faults string) *model.Model {
	t.Helper()
	src, err := filepath.Abs("testdata/clocked.c")
	if err != nil {
		t.Fatal(err)
	}
	text := `[target]
nodes = 2
source = "` + src + `"
args = ["{id}"]
[state]
skew_us = "int32"
ticks = "int32"
[campaign]
duration = 1500000
tail = 1000000
[faults]
from = 100000
until = 1500000
` + faults + `
[invariants]
trivial = "true"
`
	path := filepath.Join(t.TempDir(), "clocked.model")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func paramValues(res *mcsdk.RunResult, name string) []string {
	var out []string
	for _, p := range res.Params {
		if p.Name == name {
			out = append(out, p.Value)
		}
	}
	return out
}

// TestClockFaultsSeeded: a seeded run draws each node's offset and rate
// and the jumps from the seed and records them (params and "clock"
// events); the node's readings show exactly the drawn offset plus the
// jumps passed; two runs give identical recordings; the replay of the
// recording reproduces it; another seed draws other clocks; and a model
// without clock faults draws none.
func TestClockFaultsSeeded(t *testing.T) {
	m := clockedModel(t, "clock_offset = \"uniform:-50000-50000\"\nclock_drift_ppm = \"uniform:-500-500\"\nclock_jumps = 2\nclock_jump = \"uniform:-2000000-2000000\"\n")
	run := func(seed uint64) *mcsdk.RunResult {
		r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != mcsdk.Holds {
			t.Fatalf("seed %d: %s %s", seed, r.Verdict, r.Detail)
		}
		return r
	}
	r := run(1)
	clocks, jumps := paramValues(r, "clock"), paramValues(r, "clock jump")
	if len(clocks) != 2 || len(jumps) != 2 {
		t.Fatalf("params: clocks %q jumps %q, want 2 and 2", clocks, jumps)
	}
	var jumpEvents int
	for _, e := range r.Events {
		if e.Kind == "clock" {
			jumpEvents++
		}
	}
	if jumpEvents != 2 {
		t.Errorf("%d clock events, want 2 (one per jump)", jumpEvents)
	}
	// The last skew each node recorded is its offset plus its jumps, in ms.
	for i := 0; i < 2; i++ {
		got := r.Final.Nodes[i].Vars["skew_us"].String()
		want := expectedSkew(t, clocks[i], jumps, i)
		if got != want {
			t.Errorf("node %d: final skew_us %s, want %s (clock %q, jumps %q)", i, got, want, clocks[i], jumps)
		}
	}
	a, _ := r.Recording(m).Bytes()
	b, _ := run(1).Recording(m).Bytes()
	if !bytes.Equal(a, b) {
		t.Fatal("two runs of seed 1 gave different recordings")
	}
	rec, err := weftlog.Decode(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, div, err := mcsdk.Replay(m, rec, mcsdk.RunOptions{}); err != nil || div != nil {
		t.Fatalf("replay: %v %v", err, div)
	}
	if other := paramValues(run(2), "clock"); strings.Join(other, ";") == strings.Join(clocks, ";") {
		t.Errorf("seeds 1 and 2 drew the same clocks %q", clocks)
	}
	plain := clockedModel(t, "")
	p, err := mcsdk.Run(plain, mcsdk.RunOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c := paramValues(p, "clock"); len(c) != 0 {
		t.Errorf("a model without clock faults drew %q", c)
	}
	if got := p.Final.Nodes[0].Vars["skew_us"].String(); got != "0" {
		t.Errorf("perfect clock: skew_us %s, want 0", got)
	}
}

// expectedSkew is the node's offset plus its jumps, in µs, from the run's
// parameters (which show them in ms to the µs).
func expectedSkew(t *testing.T, clock string, jumps []string, node int) string {
	t.Helper()
	var n int
	var off float64
	var ppm int
	if _, err := fmt.Sscanf(clock, "n%d offset %fms rate %dppm", &n, &off, &ppm); err != nil {
		t.Fatalf("clock param %q: %v", clock, err)
	}
	total := off
	for _, j := range jumps {
		var jn int
		var d, at float64
		if _, err := fmt.Sscanf(j, "n%d %fms at %fms", &jn, &d, &at); err != nil {
			t.Fatalf("jump param %q: %v", j, err)
		}
		if jn == node {
			total += d
		}
	}
	return fmt.Sprint(int64(math.Round(total * 1000)))
}

// TestClockFaultsCheckPerfect: an exhaustive check keeps perfect clocks
// and says so (PerfectClocks, printed by weft check as "clocks: perfect")
// for a model with clock faults, and not for one without.
func TestClockFaultsCheckPerfect(t *testing.T) {
	for _, tc := range []struct {
		faults string
		want   bool
	}{
		{"clock_drift_ppm = \"uniform:-500-500\"\nclock_jumps = 1\n", true},
		{"", false},
	} {
		r, err := mcsdk.Check(clockedModel(t, tc.faults), mcsdk.CheckOptions{Depth: 3})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != mcsdk.Holds || r.PerfectClocks != tc.want {
			t.Errorf("faults %q: %s, PerfectClocks %v, want holds and %v", tc.faults, r.Verdict, r.PerfectClocks, tc.want)
		}
	}
}
