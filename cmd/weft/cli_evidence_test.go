package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/weftlog"
	"github.com/weft-mc/weft/report"
)

func TestSuggestsCommand(t *testing.T) {
	tests := []struct{ typed, want string }{
		{"campain", `did you mean "campaign"`},
		{"reprot", `did you mean "report"`},
		{"exprot", `did you mean "export"`},
		{"frobnicate", `unknown command "frobnicate" (run`},
	}
	for _, tc := range tests {
		var stderr bytes.Buffer
		if code := runMain([]string{tc.typed}, &bytes.Buffer{}, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("weft %s: exit %d, stderr %q; want %q", tc.typed, code, stderr.String(), tc.want)
		}
	}
}

// TestOutAndVariantsAliases: -o and --out, --variant and --variants mean
// the same wherever they apply.
func TestOutAndVariantsAliases(t *testing.T) {
	dir, _ := smallDataset(t)
	tmp := t.TempDir()
	files := map[string][]byte{}
	for _, args := range [][]string{
		{"export", dir, "-o", filepath.Join(tmp, "a.csv"), "--variant", "orig"},
		{"export", dir, "--out", filepath.Join(tmp, "b.csv"), "--variants", "orig"},
	} {
		if code := runMain(args, &bytes.Buffer{}, &bytes.Buffer{}); code != exitHolds {
			t.Fatalf("weft %v: exit %d", args, code)
		}
	}
	for _, n := range []string{"a.csv", "b.csv"} {
		b, err := os.ReadFile(filepath.Join(tmp, n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	if !bytes.Equal(files["a.csv"], files["b.csv"]) || bytes.Contains(files["a.csv"], []byte(",fix,")) {
		t.Errorf("-o/--variant and --out/--variants exports differ or hold other variants")
	}
	for _, args := range [][]string{
		{"merge", "--out", filepath.Join(tmp, "merged"), dir},
		{"report", dir, "--out", filepath.Join(tmp, "r.html")},
	} {
		var stderr bytes.Buffer
		if code := runMain(args, &bytes.Buffer{}, &stderr); code != exitHolds {
			t.Errorf("weft %v: exit %d: %s", args, code, stderr.String())
		}
	}
}

// TestTraceSVG: weft trace --svg writes the diagram the report embeds.
func TestTraceSVG(t *testing.T) {
	const rec = "../../report/testdata/election-bug-15.weftlog"
	out := filepath.Join(t.TempDir(), "d.svg")
	var stderr bytes.Buffer
	if code := runMain([]string{"trace", rec, "--svg", out}, &bytes.Buffer{}, &stderr); code != exitHolds {
		t.Fatalf("weft trace --svg: exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r, err := weftlog.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	want, err := report.SequenceSVG(r, report.DefaultSequenceSteps)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || !bytes.HasPrefix(got, []byte("<svg ")) {
		t.Errorf("weft trace --svg wrote %d bytes, not the report's diagram (%d bytes)", len(got), len(want))
	}
	if code := runMain([]string{"trace", rec, "--svg", out, "--steps", "-1"}, &bytes.Buffer{}, &bytes.Buffer{}); code != exitUsage {
		t.Errorf("--steps -1: exit %d, want %d", code, exitUsage)
	}
}
