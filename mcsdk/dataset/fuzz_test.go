package dataset

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-v1")

const goldenDir = "testdata/golden-v1"

// TestGoldenV1 reads a dataset written by format version 1 and committed
// to testdata: later versions of the package must keep reading it.
// Regenerate with go test -run TestGoldenV1 -update.
func TestGoldenV1(t *testing.T) {
	want := sampleRows(12, "run1")
	if *update {
		t.Fatal("testdata/golden-v1 is format 1; this package writes format 2: keep the committed files")
		must(t, os.RemoveAll(goldenDir))
		w, err := Create(goldenDir, testManifest(12))
		must(t, err)
		for _, r := range want {
			must(t, w.Write(r))
			if r.RecordingPath != "" {
				must(t, os.WriteFile(filepath.Join(goldenDir, r.RecordingPath), []byte("rec "+r.Key().String()), 0o644))
			}
		}
		must(t, w.Close())
	}
	for _, r := range want {
		if _, err := os.Stat(filepath.Join(goldenDir, r.RecordingPath)); r.RecordingPath != "" && err != nil {
			t.Errorf("golden recording: %v", err)
		}
	}
	for i := range want {
		want[i] = v1Only(want[i])
	}
	got, err := ReadRows(goldenDir)
	must(t, err)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("golden rows differ:\n got %+v\nwant %+v", got, want)
	}
}

// FuzzReadIPC feeds arbitrary bytes to the verdict file reader: it must
// return rows or an error, never panic, and never return rows from a file
// it also calls bad.
func FuzzReadIPC(f *testing.F) {
	valid, err := os.ReadFile(filepath.Join(goldenDir, fileName(1)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)-10])
	f.Add(valid[:len(valid)/2])
	f.Add(valid[len(valid)/3:])
	f.Add([]byte{})
	f.Add([]byte("ARROW1\x00\x00ARROW1"))
	f.Add([]byte("not arrow at all"))
	flipped := bytes.Clone(valid)
	for i := 64; i < len(flipped); i += 97 {
		flipped[i] ^= 0xff
	}
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := readIPC("fuzz.arrow", bytes.NewReader(data), []string{"correct", "bug"})
		if err != nil && rows != nil {
			t.Fatalf("error %v together with %d rows", err, len(rows))
		}
		for i := range rows {
			if verdictIndex(rows[i].Verdict) < 0 || (rows[i].Variant != "correct" && rows[i].Variant != "bug") {
				t.Fatalf("row %d has verdict %q variant %q", i, rows[i].Verdict, rows[i].Variant)
			}
		}
	})
}

// v1Only returns r without the columns format 1 lacks.
func v1Only(r Row) Row {
	r.Faults, r.Latency, r.Order, r.FirstViolations = nil, "", "", nil
	r.MessagesSent, r.MessagesDelivered, r.MessagesDropped, r.MessagesDuplicated, r.MessagesHeld = nil, nil, nil, nil, nil
	r.RefusedWrites, r.Ops, r.OpsIndeterminate = nil, nil, nil
	return r
}

// TestResumeUpgradesV1 resumes a copy of the format 1 golden dataset:
// its files are listed with checksums, the manifest becomes format 2 and
// every old row still reads beside the new ones.
func TestResumeUpgradesV1(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v1")
	must(t, os.CopyFS(dir, os.DirFS(goldenDir)))
	w, err := OpenAppend(dir)
	must(t, err)
	must(t, w.Extend([]SeedRange{{Lo: 12, Hi: 14}}, nil, nil))
	extra := sampleRows(14, "run1")[12:]
	for _, r := range extra {
		must(t, w.Write(r))
	}
	must(t, w.Close())
	m, err := ReadManifest(dir)
	must(t, err)
	if m.FormatVersion != Version || len(m.Files) != 2 || m.Files[0].SHA256 == "" {
		t.Fatalf("upgraded manifest: version %d, files %+v", m.FormatVersion, m.Files)
	}
	if got := SeedsText(m.Seeds); got != "0–13" {
		t.Errorf("seeds %q, want 0–13", got)
	}
	got, err := ReadRows(dir)
	must(t, err)
	if len(got) != 14 {
		t.Fatalf("%d rows after resuming a format 1 dataset, want 14", len(got))
	}
}
