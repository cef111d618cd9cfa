//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// copyTarget copies the named files of targets/<target> into dir.
func copyTarget(t *testing.T, dir, target string, names ...string) {
	t.Helper()
	for _, f := range names {
		b, err := os.ReadFile(filepath.Join("../../targets", target, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCampaignMovedFolder (issue 36 §5): a model and its program copied
// to two folders at different places and depths give, seed by seed, the
// same verdicts and byte-identical recordings: nothing of where the model,
// its binary or the run directories lie on the host reaches a run.
func TestCampaignMovedFolder(t *testing.T) {
	root := t.TempDir()
	var got []map[string]string
	var recs []map[string][]byte
	for _, dir := range []string{filepath.Join(root, "a", "election"), filepath.Join(root, "elsewhere", "much", "deeper", "copy")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		copyTarget(t, dir, "election", "election.c", "election.model")
		// Run from the folder, as one would after moving it: the
		// recordings' header names the model as given ("election.model").
		cmd := exec.Command(weftBin, "campaign", "election.model", "--seeds", "40", "--record-all", "--out", "out")
		cmd.Dir = dir
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", dir, err, o)
		}
		out := filepath.Join(dir, "out")
		got = append(got, verdicts(t, out))
		recs = append(recs, recordings(t, out))
	}
	if len(got[0]) != 80 || len(recs[0]) == 0 {
		t.Fatalf("%d rows and %d recordings, want 80 rows and recordings", len(got[0]), len(recs[0]))
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Errorf("verdicts differ between the two folders:\n%v\n%v", got[0], got[1])
	}
	for name, b := range recs[0] {
		if string(recs[1][name]) != string(b) {
			t.Errorf("recording %s differs between the two folders", name)
		}
	}
	if len(recs[0]) != len(recs[1]) {
		t.Errorf("%d recordings in one folder, %d in the other", len(recs[0]), len(recs[1]))
	}
}
