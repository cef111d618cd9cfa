package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

// smallDataset writes a dataset of a few rows in one verdict file and
// returns its directory and the file's path.
func smallDataset(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	m := dataset.Manifest{CampaignID: "c", ModelPath: "m.model", ModelHash: "ab",
		Variants: []dataset.Variant{{Name: "orig"}, {Name: "fix"}}, Seeds: []dataset.SeedRange{{Lo: 0, Hi: 3}},
		Runs: []string{"run1"}, ToolVersion: "test"}
	w, err := dataset.Create(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	for seed := int64(0); seed < 3; seed++ {
		for _, v := range []string{"orig", "fix"} {
			r := dataset.Row{CampaignID: "c", RunID: "run1", ModelHash: "ab", Variant: v, Seed: seed,
				Verdict: dataset.Holds, Steps: 10 + seed, VirtualDuration: time.Millisecond}
			if v == "orig" && seed == 1 {
				step, at := int64(4), 3*time.Millisecond
				r.Verdict, r.ViolatedInvariants = dataset.Violated, []string{"safe"}
				r.FirstViolationStep, r.FirstViolationTime = &step, &at
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(dir, "verdicts-000001.arrow")
}

// TestEveryBitFlipIsAnError flips each bit of a small verdict file in
// turn: weft stats, export, report and merge must each fail with an error
// on stderr, every time (the manifest's checksum catches what the Arrow
// structure checks alone would not).
func TestEveryBitFlipIsAnError(t *testing.T) {
	dir, file := smallDataset(t)
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, args := range commandsOn(dir, tmp) {
		if code := runMain(args, &bytes.Buffer{}, &bytes.Buffer{}); code != exitHolds {
			t.Fatalf("undamaged: weft %v exits %d", args, code)
		}
	}
	t.Logf("%s: %d bytes, %d flips × 4 commands", file, len(orig), 8*len(orig))
	for i := range 8 * len(orig) {
		data := bytes.Clone(orig)
		data[i/8] ^= 1 << (i % 8)
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range commandsOn(dir, tmp) {
			var stdout, stderr bytes.Buffer
			code := runMain(args, &stdout, &stderr)
			if code == exitHolds || !bytes.Contains(stderr.Bytes(), []byte("damaged")) {
				t.Fatalf("bit %d of byte %d flipped: weft %s exits %d, stderr %q", i%8, i/8, args[0], code, stderr.String())
			}
		}
	}
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		t.Fatal(err)
	}
}

// commandsOn lists the four readers' command lines on dir, each writing
// its output under tmp (to a name not used before, as merge requires).
func commandsOn(dir, tmp string) [][]string {
	n := time.Now().UnixNano()
	return [][]string{
		{"stats", "--json", dir},
		{"export", dir, "-o", filepath.Join(tmp, "out.parquet")},
		{"report", dir, "-o", filepath.Join(tmp, "report.html")},
		{"merge", "-o", filepath.Join(tmp, fmt.Sprint("merged-", n)), dir},
	}
}
