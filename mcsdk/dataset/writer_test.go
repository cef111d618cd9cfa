package dataset

import (
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
)

func TestWriteRefuses(t *testing.T) {
	ok := sampleRow("bug", 1, "run1")
	tests := []struct {
		name string
		edit func(r *Row)
		want string
	}{
		{"unknown variant", func(r *Row) { r.Variant = "other" }, "not in the manifest"},
		{"no variant", func(r *Row) { r.Variant = "" }, "no variant"},
		{"no run", func(r *Row) { r.RunID = "" }, "no run id"},
		{"bad verdict", func(r *Row) { r.Verdict = "maybe" }, `verdict "maybe"`},
		{"binary hash", func(r *Row) { r.BinaryHash = binCorrect }, "binary hash " + binCorrect + " differs"},
		{"model hash", func(r *Row) { r.ModelHash = "ff" }, "model hash ff differs"},
		{"duplicate", func(r *Row) {}, "already in"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Create(filepath.Join(t.TempDir(), "ds"), testManifest(10))
			must(t, err)
			defer w.Close()
			must(t, w.Write(ok))
			r := ok
			tc.edit(&r)
			err = w.Write(r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Write = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestCreateRefusesExisting(t *testing.T) {
	dir := writeDataset(t, testManifest(3), sampleRows(3, "run1"))
	if _, err := Create(dir, testManifest(3)); err == nil || !strings.Contains(err.Error(), "OpenAppend") {
		t.Errorf("Create on a dataset = %v, want a refusal pointing to OpenAppend", err)
	}
	m := testManifest(3)
	m.Variants = append(m.Variants, Variant{Name: "bug"})
	if _, err := Create(filepath.Join(t.TempDir(), "x"), m); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("Create with a repeated variant = %v", err)
	}
}

// TestResume simulates a campaign killed after two flushes (the buffered
// rows are lost), then resumed with OpenAppend and Completed.
func TestResume(t *testing.T) {
	all := sampleRows(50, "run1")
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := Create(dir, testManifest(50), FlushEvery(10))
	must(t, err)
	for _, r := range all[:25] {
		must(t, w.Write(r))
	}
	// No Close: rows 20..24 were only buffered, as after a crash.
	done, err := Completed(dir)
	must(t, err)
	if len(done) != 20 || !done[all[19].Key()] || done[all[20].Key()] {
		t.Fatalf("Completed after crash: %d keys, want the 20 flushed ones", len(done))
	}
	w2, err := OpenAppend(dir, FlushEvery(7))
	must(t, err)
	if err := w2.Write(all[3]); err == nil {
		t.Error("OpenAppend writer accepted a row the dataset already holds")
	}
	for _, r := range all {
		if !done[r.Key()] {
			must(t, w2.Write(r))
		}
	}
	must(t, w2.Close())
	got, err := ReadRows(dir)
	must(t, err)
	if !reflect.DeepEqual(sortRows(got), sortRows(all)) {
		t.Fatalf("after resume: %d rows, want the %d rows once each", len(got), len(all))
	}
	m, err := ReadManifest(dir)
	must(t, err)
	if m.End.IsZero() {
		t.Error("resumed Close did not set End")
	}
}

func sortRows(rows []Row) []Row {
	out := append([]Row(nil), rows...)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Key(), out[j].Key()
		if a.Variant != b.Variant {
			return a.Variant < b.Variant
		}
		if a.Run != b.Run {
			return a.Run < b.Run
		}
		return a.Seed < b.Seed
	})
	return out
}

func TestConcurrentWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := Create(dir, testManifest(400), FlushEvery(33))
	must(t, err)
	rows := sampleRows(400, "run1")
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(rows); i += 4 {
				if err := w.Write(rows[i]); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	must(t, w.Close())
	got, err := ReadRows(dir)
	must(t, err)
	if !reflect.DeepEqual(sortRows(got), sortRows(rows)) {
		t.Fatalf("concurrent writes: %d rows back, want %d", len(got), len(rows))
	}
	if err := w.Write(rows[0]); err == nil {
		t.Error("Write after Close succeeded")
	}
}
