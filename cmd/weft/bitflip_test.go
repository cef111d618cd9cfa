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

// TestEveryBitFlipIsAnError flips bits of a small verdict file in turn:
// weft stats, export, report and merge must each fail with an error on
// stderr, every time (the manifest's checksum catches what the Arrow
// structure checks alone would not). Every byte has one bit flipped, the
// bit's position turning with the byte's offset (flippedBits), so every
// byte of every part of the file (header, schema, buffers, footer) and
// every bit position is damaged once; a reader that trusted the Arrow
// checks alone would pass a flip in a value buffer and fail the test.
// WEFT_FULL=1 flips all eight bits of every byte.
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
	flips := flippedBits(len(orig), os.Getenv("WEFT_FULL") == "1")
	t.Logf("%s: %d bytes, %d flips × 4 commands", file, len(orig), len(flips))
	for _, i := range flips {
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

// flippedBits lists the bits TestEveryBitFlipIsAnError flips in a file of
// n bytes, as byte×8+bit: bit byte%8 of every byte, or, with all, every
// bit of every byte.
func flippedBits(n int, all bool) []int {
	var out []int
	for b := range n {
		if all {
			for bit := range 8 {
				out = append(out, 8*b+bit)
			}
			continue
		}
		out = append(out, 8*b+b%8)
	}
	return out
}
