package dataset

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

const (
	testModelHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	binCorrect    = "aaaa000000000000000000000000000000000000000000000000000000000001"
	binBug        = "bbbb000000000000000000000000000000000000000000000000000000000002"
)

// testManifest describes a two-variant campaign over seeds [0, seeds).
func testManifest(seeds int64) Manifest {
	return Manifest{
		CampaignID: "c1", ModelPath: "targets/repl/repl.model", ModelHash: testModelHash,
		Variants:    []Variant{{Name: "correct", BinaryHash: binCorrect}, {Name: "bug", BinaryHash: binBug}},
		Seeds:       []SeedRange{{Lo: 0, Hi: seeds}},
		Runs:        []string{"run1"},
		ToolVersion: "test",
		Start:       time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC),
	}
}

// sampleRow builds a row exercising every column: nulls, empty and
// multi-element lists, every verdict, unicode, microsecond durations.
func sampleRow(variant string, seed int64, run string) Row {
	bin := binCorrect
	if variant == "bug" {
		bin = binBug
	}
	r := Row{
		CampaignID: "c1", RunID: run, ModelHash: testModelHash, BinaryHash: bin,
		Variant: variant, Seed: seed, Verdict: Verdicts()[seed%4],
		Steps: seed * 3, DistinctStates: seed * 2,
		VirtualDuration: time.Duration(seed) * time.Millisecond,
		WallTime:        time.Duration(seed*7+1) * time.Microsecond,
		Detail:          fmt.Sprintf("latency=uniform:1000-60000 drawn=%d", seed),
	}
	if seed%5 != 4 {
		r.Latency, r.Order = "uniform:1000-60000", "fifo"
		sent, delivered := 10+seed, 9+seed
		r.MessagesSent, r.MessagesDelivered = &sent, &delivered
		refused := seed % 3
		r.RefusedWrites = &refused
		if seed%2 == 0 {
			ops, indet := 5+seed, seed%4
			r.Ops, r.OpsIndeterminate = &ops, &indet
		}
		r.Faults = []Fault{
			{Kind: "crash", Node: int(seed % 3), Peer: -1, At: time.Duration(seed*1000+7) * time.Microsecond, Applied: true},
			{Kind: "notice", Node: 1, Peer: int(seed % 3), At: time.Duration(seed*1000+90) * time.Microsecond, Applied: seed%2 == 0},
		}
		if seed%3 == 1 {
			r.Faults = append(r.Faults, Fault{Kind: "partition", Node: -1, Peer: -1, At: 5 * time.Millisecond,
				Until: 9 * time.Millisecond, Sides: [][]int32{{0, 1}, {2}}})
		}
	}
	switch r.Verdict {
	case Violated:
		step, at := seed+1, time.Duration(seed)*time.Microsecond
		r.FirstViolationStep, r.FirstViolationTime = &step, &at
		r.ViolatedInvariants = []string{"agree_on_ack"}
		if seed%3 == 0 {
			r.ViolatedInvariants = append(r.ViolatedInvariants, "ring_ok", "ünïcode, \"quoted\"")
		}
		if seed%5 != 4 {
			for k, inv := range r.ViolatedInvariants {
				fv := InvariantViolation{Invariant: inv}
				if k == 0 {
					fv.Step, fv.At = &step, &at
				}
				r.FirstViolations = append(r.FirstViolations, fv)
			}
		}
		r.RecordingPath = fmt.Sprintf("recordings/%s-%d-%s.weftrec", variant, seed, run)
	case Error:
		r.Detail = "exec: fork failed,\nsecond line"
	}
	return r
}

// sampleRows returns n rows alternating between the two variants.
func sampleRows(n int, run string) []Row {
	rows := make([]Row, n)
	for i := range rows {
		v := "correct"
		if i%2 == 1 {
			v = "bug"
		}
		rows[i] = sampleRow(v, int64(i), run)
	}
	return rows
}

// writeDataset creates a dataset in a new directory under t.TempDir.
func writeDataset(t testing.TB, m Manifest, rows []Row, opts ...Option) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := Create(dir, m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}
