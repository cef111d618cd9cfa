//go:build linux

package chordcheck_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

// TestChordCampaignUnderWeft runs the experiment's own path, small: a few
// seeds of every variant under the real supervisor, twice, and checks that
// every run finished with a verdict, that the verdicts are identical seed
// for seed, and that failing runs have recordings. The full 3 × 500
// campaign is scripts/chord-experiment.sh.
func TestChordCampaignUnderWeft(t *testing.T) {
	m, err := model.Load("../chord.model")
	if err != nil {
		t.Fatal(err)
	}
	pre := map[string]mcsdk.FaultPrecondition{"CrashPrecondition": chordcheck.CrashPrecondition}
	var got []map[dataset.Key]string
	for i := 0; i < 2; i++ {
		dir := filepath.Join(t.TempDir(), "chord")
		sum, err := mcsdk.Campaign(context.Background(), m, mcsdk.CampaignOptions{Seeds: 8, Out: dir, Jobs: 2,
			Registry: chordcheck.Registry(), Preconditions: pre})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Runs != 24 || len(sum.Variants) != 3 {
			t.Fatalf("summary %+v", sum)
		}
		rows, err := dataset.ReadRows(dir)
		if err != nil {
			t.Fatal(err)
		}
		v := map[dataset.Key]string{}
		for _, r := range rows {
			if r.Verdict == dataset.Error {
				t.Errorf("%s seed %d: error %s", r.Variant, r.Seed, r.Detail)
			}
			if (r.Verdict == dataset.Violated || r.Verdict == dataset.Invalid) && r.RecordingPath == "" {
				t.Errorf("%s seed %d: %s without a recording", r.Variant, r.Seed, r.Verdict)
			}
			if r.RecordingPath != "" {
				// Issue 7's goal: 50 KB or less per Chord-sized run.
				st, err := os.Stat(filepath.Join(dir, r.RecordingPath))
				if err != nil || st.Size() > 50<<10 {
					t.Errorf("%s seed %d: recording %v bytes (%v), want at most 50 KiB", r.Variant, r.Seed, sizeOf(st), err)
				}
			}
			if r.Steps < 100 {
				t.Errorf("%s seed %d: only %d steps", r.Variant, r.Seed, r.Steps)
			}
			v[dataset.Key{Variant: r.Variant, Seed: r.Seed, Run: r.RunID}] = r.Verdict + fmtList(r.ViolatedInvariants)
		}
		got = append(got, v)
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Fatalf("two campaigns of the same seeds differ:\n%v\n%v", got[0], got[1])
	}
}

func sizeOf(st os.FileInfo) int64 {
	if st == nil {
		return -1
	}
	return st.Size()
}

func fmtList(s []string) string {
	out := ""
	for _, x := range s {
		out += " " + x
	}
	return out
}
