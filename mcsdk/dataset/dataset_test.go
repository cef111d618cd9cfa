package dataset

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestWriteReadRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		rows  int
		flush int
		files int
	}{
		{"empty", 0, 10, 0},
		{"one", 1, 10, 1},
		{"exact flush", 20, 10, 2},
		{"partial last file", 25, 10, 3},
		{"default flush", 1000, DefaultFlushRows, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := sampleRows(tc.rows, "run1")
			dir := writeDataset(t, testManifest(int64(tc.rows)), want, FlushEvery(tc.flush))
			d, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(d.Files()); got != tc.files {
				t.Errorf("files = %d, want %d", got, tc.files)
			}
			got, err := ReadRows(dir)
			if err != nil {
				t.Fatal(err)
			}
			// Each file holds its rows in (variant, seed, run) order.
			got, want = sortRows(got), sortRows(want)
			if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("rows differ:\n got %+v\nwant %+v", first(got), first(want))
			}
		})
	}
}

func first(rows []Row) any {
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}

func TestManifestRoundTrip(t *testing.T) {
	m := testManifest(10)
	dir := writeDataset(t, m, sampleRows(10, "run1"))
	got, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.FormatVersion != Version || got.End.IsZero() || len(got.Machines) != 1 || got.Machines[0].CPUs < 1 {
		t.Errorf("manifest not completed by the writer: %+v", got)
	}
	sum, err := fileSHA256(filepath.Join(dir, fileName(1)))
	if err != nil {
		t.Fatal(err)
	}
	if want := []FileEntry{{Name: fileName(1), Rows: 10, SHA256: sum}}; !reflect.DeepEqual(got.Files, want) {
		t.Errorf("manifest files %+v, want %+v", got.Files, want)
	}
	if len(got.Sessions) != 1 || !got.Sessions[0].Start.Equal(m.Start) || got.Sessions[0].End.IsZero() {
		t.Errorf("sessions %+v, want one from the start to the close", got.Sessions)
	}
	got.FormatVersion, got.End, got.Machines, got.Files, got.Sessions = 0, m.End, nil, nil, nil
	if !reflect.DeepEqual(got, m) {
		t.Errorf("manifest = %+v\nwant %+v", got, m)
	}
	if _, err := os.Stat(dir + "/" + RecordingsDir); err != nil {
		t.Errorf("recordings dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ReserveName)); err == nil {
		t.Error("Close left the reserve file behind")
	}
}

func TestFilter(t *testing.T) {
	rows := append(sampleRows(40, "run1"), sampleRows(40, "run2")...)
	m := testManifest(40)
	m.Runs = []string{"run1", "run2"}
	dir := writeDataset(t, m, rows, FlushEvery(16))
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    Filter
	}{
		{"all", Filter{}},
		{"variant", Filter{Variants: []string{"bug"}}},
		{"run", Filter{Runs: []string{"run2"}}},
		{"verdict", Filter{Verdicts: []string{Violated, Error}}},
		{"all three", Filter{Variants: []string{"correct"}, Runs: []string{"run1"}, Verdicts: []string{Holds}}},
		{"no match", Filter{Variants: []string{"nonexistent"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []Row
			for i := range rows {
				if tc.f.match(&rows[i]) {
					want = append(want, rows[i])
				}
			}
			got, err := d.Rows(tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(sortRows(got), sortRows(want))) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			tbl, err := d.Table(memory.DefaultAllocator, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			defer tbl.Release()
			if tbl.NumRows() != int64(len(want)) {
				t.Errorf("table has %d rows, want %d", tbl.NumRows(), len(want))
			}
		})
	}
}

// TestReaderReleasesMemory checks that Reader and Table give back every
// buffer they allocate, filtered or not, read to the end or abandoned.
func TestReaderReleasesMemory(t *testing.T) {
	dir := writeDataset(t, testManifest(100), sampleRows(100, "run1"), FlushEvery(30))
	d, err := Open(dir)
	must(t, err)
	tests := []struct {
		name    string
		f       Filter
		stopAt  int // records to read before Release; -1 reads to the end via Table
		wantRec int
	}{
		{"table", Filter{}, -1, 0},
		{"filtered table", Filter{Verdicts: []string{Holds}}, -1, 0},
		{"abandoned reader", Filter{}, 1, 1},
		{"full reader", Filter{Runs: []string{"run1"}}, 100, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			if tc.stopAt < 0 {
				tbl, err := d.Table(mem, tc.f)
				must(t, err)
				tbl.Release()
				return
			}
			r := d.NewReader(mem, tc.f)
			n := 0
			for n < tc.stopAt && r.Next() {
				n++
			}
			must(t, r.Err())
			r.Release()
			if n != tc.wantRec {
				t.Errorf("read %d records, want %d", n, tc.wantRec)
			}
		})
	}
}
