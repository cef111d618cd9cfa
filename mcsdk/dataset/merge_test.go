package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// shard writes a dataset of rows with recordings for the rows that name
// one; edit may change the manifest.
func shard(t *testing.T, rows []Row, edit func(m *Manifest)) string {
	t.Helper()
	m := testManifest(0)
	m.Seeds = nil
	if edit != nil {
		edit(&m)
	}
	dir := writeDataset(t, m, rows, FlushEvery(17))
	for _, r := range rows {
		if r.RecordingPath != "" {
			must(t, os.WriteFile(filepath.Join(dir, r.RecordingPath), []byte("rec "+r.Key().String()), 0o644))
		}
	}
	return dir
}

func seeds(lo, hi int64) func(m *Manifest) {
	return func(m *Manifest) { m.Seeds = []SeedRange{{Lo: lo, Hi: hi}} }
}

func TestMerge(t *testing.T) {
	rows := sampleRows(100, "run1")
	a := shard(t, rows[:50], seeds(0, 50))
	b := shard(t, rows[50:], seeds(50, 100))
	overlap := shard(t, rows[40:60], seeds(40, 60))
	out := filepath.Join(t.TempDir(), "merged")
	res, err := Merge(out, a, b, overlap)
	must(t, err)
	if res.Rows != 100 || res.Duplicates != 20 {
		t.Errorf("Merge = %+v, want 100 rows and 20 duplicates", res)
	}
	got, err := ReadRows(out)
	must(t, err)
	if !reflect.DeepEqual(sortRows(got), sortRows(rows)) {
		t.Fatalf("merged %d rows, want the %d distinct rows", len(got), len(rows))
	}
	m, err := ReadManifest(out)
	must(t, err)
	if !reflect.DeepEqual(m.Seeds, []SeedRange{{0, 100}}) || len(m.MergedFrom) != 3 || m.ModelHash != testModelHash {
		t.Errorf("merged manifest: %+v", m)
	}
	var work time.Duration
	for _, dir := range []string{a, b, overlap} {
		in, err := ReadManifest(dir)
		must(t, err)
		work += in.ComputeTime()
	}
	if len(m.Sessions) != 3 || m.ComputeTime() != work {
		t.Errorf("merged compute time %v in %d sessions, want the inputs' %v in 3", m.ComputeTime(), len(m.Sessions), work)
	}
	recs := 0
	for _, r := range got {
		if r.RecordingPath == "" {
			continue
		}
		recs++
		data, err := os.ReadFile(filepath.Join(out, r.RecordingPath))
		if err != nil || string(data) != "rec "+r.Key().String() {
			t.Errorf("recording %s: %q, %v", r.RecordingPath, data, err)
		}
	}
	if recs == 0 || res.Recordings != recs {
		t.Errorf("copied %d recordings, rows reference %d", res.Recordings, recs)
	}
}

func TestMergeRefuses(t *testing.T) {
	rows := sampleRows(20, "run1")
	changed := append([]Row(nil), rows[5:10]...)
	changed[2].Steps++
	otherModel := append([]Row(nil), rows[10:]...)
	for i := range otherModel {
		otherModel[i].ModelHash = "0123"
	}
	otherBin := append([]Row(nil), rows[10:]...)
	for i := range otherBin {
		if otherBin[i].Variant == "bug" {
			otherBin[i].BinaryHash = "cafe"
		}
	}
	base := shard(t, rows[:10], nil)
	tests := []struct {
		name  string
		other string
		want  []string // substrings of the error
	}{
		{"model hash", shard(t, otherModel, func(m *Manifest) { m.ModelHash = "0123" }),
			[]string{"model hashes differ", testModelHash, "0123"}},
		{"binary hash", shard(t, otherBin, func(m *Manifest) { m.Variants[1].BinaryHash = "cafe" }),
			[]string{`variant "bug"`, binBug, "cafe"}},
		{"conflicting duplicate", shard(t, changed, nil),
			[]string{changed[2].Key().String(), "differs between inputs", "not deterministic"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			_, err := Merge(out, base, tc.other)
			if err == nil {
				t.Fatal("Merge succeeded")
			}
			for _, w := range append(tc.want, base, tc.other) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("failed merge left %s behind", out)
			}
		})
	}
	t.Run("non-empty output", func(t *testing.T) {
		if _, err := Merge(base, base); err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("Merge into an existing dataset = %v", err)
		}
	})
}
