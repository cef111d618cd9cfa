package main

import (
	"bytes"
	"path/filepath"
	"slices"
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

// writeVariantDataset writes a dataset of Raft's per-variant model
// raft-VARIANT.model (its only variant is "default") over seeds 1-3;
// violated lists the seeds that violate lost_committed.
func writeVariantDataset(t *testing.T, dir, variant, run string, violated ...int64) {
	t.Helper()
	m := dataset.Manifest{CampaignID: "c-" + variant, ModelPath: "../../raft/kv/raft-" + variant + ".model", ModelHash: "h", ModelText: "[faults]\nlose_unsynced = true\n",
		Seeds: []dataset.SeedRange{{Lo: 1, Hi: 4}}, Variants: []dataset.Variant{{Name: "default", BinaryHash: "b"}}}
	w, err := dataset.Create(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	ops, ind := int64(30), int64(5)
	for s := int64(1); s < 4; s++ {
		r := dataset.Row{CampaignID: m.CampaignID, RunID: run, ModelHash: "h", BinaryHash: "b", Variant: "default", Seed: s, Verdict: dataset.Holds,
			Detail: "latency=uniform:500-1500; clock=n0 offset -1.000ms rate -90000ppm; clock=n2 offset +2.000ms rate +80000ppm",
			Faults: []dataset.Fault{{Kind: "partition", Node: -1, Peer: -1, At: time.Millisecond, Until: 3 * time.Millisecond, Sides: [][]int32{{0}, {1, 2}}, Applied: true},
				{Kind: "crash", Node: 1, Peer: -1, At: 4 * time.Millisecond, Applied: true}},
			Ops: &ops, OpsIndeterminate: &ind}
		if slices.Contains(violated, s) {
			r.Verdict, r.ViolatedInvariants = dataset.Violated, []string{"lost_committed"}
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSectionPerVariantModels: Raft's datasets, one per variant model,
// form one table with each run counted under the variant its model's name
// gives, one claim per bug variant, each dataset compared with its second
// run, and the shrunk recording of each bug variant traced to its first
// violation (for a linearizability violation with porcupine's explanation).
func TestSectionPerVariantModels(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for _, v := range []struct {
		name     string
		violated []int64
		run2     []int64
	}{{"correct", nil, nil}, {"persist-late", []int64{2}, []int64{2}}, {"lease-unsafe", nil, []int64{3}}} {
		one, two := filepath.Join(root, "raft-"+v.name+"-3-run1"), filepath.Join(root, "raft-"+v.name+"-3-run2")
		writeVariantDataset(t, one, v.name, "run1", v.violated...)
		writeVariantDataset(t, two, v.name, "run2", v.run2...)
		dirs = append(dirs, one)
	}
	var out, errs bytes.Buffer
	if err := run(append(dirs, "--trace-rows", "30"), &out, &errs); err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	page := out.String()
	for _, want := range []string{
		"<h3>raft</h3>",
		"<tr><td>correct</td><td>3</td><td>3</td><td>0</td><td>0.00% [0.00%, 56.15%]</td><td></td><td>3</td><td>0</td><td>3</td><td>3</td><td>3 (2.000 ms, 90000 ppm)</td><td>0</td><td>90 (15)</td></tr>",
		"<tr><td>persist-late</td><td>3</td><td>3</td><td>1</td><td>33.33% [6.15%, 79.23%]</td><td>lost_committed=1</td>",
		"<tr><td>lease-unsafe</td><td>3</td><td>3</td><td>0</td>",
		"rate(persist-late) &gt; 0", "rate(lease-unsafe) &gt; 0", "rate(correct) &lt;= 0.01",
		"raft-persist-late-3-run2</code>): 3 seed×variant pairs give the same verdict and violated invariants, 0 differ",
		"raft-lease-unsafe-3-run2</code>): 2 seed×variant pairs give the same verdict and violated invariants, 1 differ",
		"persist-late, traced and shrunk",
		"Variant default, seed 42: violated lost_committed at step 2007",
		"earlier events",
		"CRASH n1", "RESTART n1",
		"n1.raft_term = 2   ← first violation",
		"lease-unsafe, traced and shrunk",
		"Variant default, seed 21: violated linearizable at step 30955",
		"cannot be ordered after it",
		"return c0 get 21 → 1 at n0   ← first violation",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("section lacks %q:\n%s", want, page)
		}
	}
	if n := strings.Count(page, "<tr><th>variant</th>"); n != 1 {
		t.Errorf("%d tables, want one for the three per-variant datasets", n)
	}
	for _, unwanted := range []string{"log_hash", "applied_hash", "raft_stable", "<td>default</td>"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("section shows %q", unwanted)
		}
	}
}
