package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

// writeDataset writes a dataset of the zab model over 4 seeds per variant:
// the bug violates prefix on seeds 0 and 1, every run had a crash, a
// restart and a partition, and clock faults in its parameters.
func writeDataset(t *testing.T, dir, run string) {
	t.Helper()
	m := dataset.Manifest{CampaignID: "c", ModelPath: "../../zab/zab.model", ModelHash: "h", ModelText: "[faults]\nlose_unsynced = true\n",
		Seeds: []dataset.SeedRange{{Lo: 0, Hi: 4}}, Variants: []dataset.Variant{{Name: "correct", BinaryHash: "b"}, {Name: "bug", BinaryHash: "b"}}}
	w, err := dataset.Create(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	ops, ind := int64(9), int64(1)
	for _, v := range []string{"correct", "bug"} {
		for s := int64(0); s < 4; s++ {
			r := dataset.Row{CampaignID: "c", RunID: run, ModelHash: "h", BinaryHash: "b", Variant: v, Seed: s, Verdict: dataset.Holds,
				Detail: "latency=uniform:1-2; clock=n0 offset -12.500ms rate +150ppm; clock=n1 offset +3.000ms rate -20ppm; clock jump=n1 +1.000ms at 5.000ms",
				Faults: []dataset.Fault{{Kind: "crash", Node: 2, Peer: -1, At: time.Millisecond, Applied: true},
					{Kind: "restart", Node: 2, Peer: -1, At: 2 * time.Millisecond, Applied: true},
					{Kind: "partition", Node: -1, Peer: -1, At: time.Millisecond, Until: 3 * time.Millisecond, Sides: [][]int32{{0}, {1, 2}}, Applied: s != 3}},
				Ops: &ops, OpsIndeterminate: &ind}
			if v == "bug" && s < 2 {
				r.Verdict, r.ViolatedInvariants = dataset.Violated, []string{"prefix"}
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSection: the section counts each variant's runs and faults (clock
// faults read from the runs' parameters), gives rates with intervals and
// the claims, compares the second run seed by seed, and traces the
// target's shrunk recording to its first violation.
func TestSection(t *testing.T) {
	root := t.TempDir()
	one, two := filepath.Join(root, "zab-4-run1"), filepath.Join(root, "zab-4-run2")
	writeDataset(t, one, "run1")
	writeDataset(t, two, "run2")
	var out, errs bytes.Buffer
	if err := run([]string{one, "--trace-rows", "10"}, &out, &errs); err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	page := out.String()
	for _, want := range []string{
		"<tr><td>correct</td><td>4</td><td>4</td><td>0</td><td>0.00% [0.00%, 48.99%]</td><td></td><td>4</td><td>4</td><td>3</td><td>4</td><td>4 (12.500 ms, 150 ppm)</td><td>4</td><td>36 (4)</td></tr>",
		"<tr><td>bug</td><td>4</td><td>4</td><td>2</td><td>50.00% [15.00%, 85.00%]</td><td>prefix=2</td>",
		"rate(bug) &gt; 0", "rate(correct) &lt;= 0.01",
		"8 seed×variant pairs give the same verdict and violated invariants, 0 differ",
		"Variant bug, seed 1: violated prefix at step 163",
		"# clock n0 offset -14.822ms rate +135ppm",
		"n0.delivered = [132097, …]   ← first violation",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("section lacks %q:\n%s", want, page)
		}
	}
	if err := run(nil, &out, &errs); err == nil || !strings.Contains(err.Error(), "at least one dataset") {
		t.Errorf("no arguments: %v", err)
	}
	if err := run([]string{filepath.Join(root, "nosuch")}, &out, &errs); err == nil {
		t.Error("a missing dataset is accepted")
	}
}
