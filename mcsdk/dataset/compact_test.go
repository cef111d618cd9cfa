package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestCompact compacts a three-file dataset whose violated rows and one
// holding row have recordings: one compressed verdict file holds the same
// rows, the holding run's recording is dropped, the others are copied
// byte for byte and listed with their sha256, and damage to one is caught.
func TestCompact(t *testing.T) {
	rows := sampleRows(5000, "run1") // two record batches
	held := &rows[0]
	held.RecordingPath = "recordings/holds-0.weftrec"
	dir := writeDataset(t, testManifest(5000), rows, FlushEvery(2000))
	writeRecordings(t, dir, rows)
	out := filepath.Join(t.TempDir(), "compact")
	res, err := Compact(out, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(rows)
	want[0].RecordingPath = ""
	slices.SortFunc(want, compareRows)
	got, err := ReadRows(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("compacted rows differ from the input's")
	}
	m, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	violated := 0
	for _, r := range rows {
		if r.Verdict == Violated {
			violated++
		}
	}
	if len(m.Files) != 1 || res.Rows != 5000 || res.Recordings != violated || res.Dropped != 1 || len(m.Recordings) != violated {
		t.Fatalf("files %v, result %+v, %d recordings listed; want 1 file, 5000 rows, %d recordings, 1 dropped", m.Files, res, len(m.Recordings), violated)
	}
	if _, err := os.Stat(filepath.Join(out, held.RecordingPath)); !os.IsNotExist(err) {
		t.Errorf("the holding run's recording was copied: %v", err)
	}
	checkCompressedFile(t, filepath.Join(out, m.Files[0].Name), dir)
	if err := VerifyRecordings(out); err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(out, m.Recordings[3].Name)
	must(t, os.WriteFile(damaged, []byte("altered"), 0o644))
	if err := VerifyRecordings(out); err == nil || !strings.Contains(err.Error(), damaged) {
		t.Errorf("VerifyRecordings after altering %s: %v", damaged, err)
	}
	if _, err := Compact(out, dir); err == nil {
		t.Error("Compact into a non-empty directory succeeded")
	}
}

// writeRecordings writes a small file for every recording rows name in
// dataset dir.
func writeRecordings(t *testing.T, dir string, rows []Row) {
	t.Helper()
	for _, r := range rows {
		if r.RecordingPath != "" {
			must(t, os.MkdirAll(filepath.Join(dir, "recordings"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, r.RecordingPath), []byte("rec "+r.Key().String()), 0o644))
		}
	}
}

// checkCompressedFile checks that the verdict file at path is smaller than
// the uncompressed files of dataset dir together, and that its record
// batches say they are compressed.
func checkCompressedFile(t *testing.T, path, dir string) {
	t.Helper()
	st, err := os.Stat(path)
	must(t, err)
	var plain int64
	files, err := verdictFiles(dir)
	must(t, err)
	for _, f := range files {
		fi, err := os.Stat(f)
		must(t, err)
		plain += fi.Size()
	}
	if st.Size() >= plain/2 {
		t.Errorf("compacted file %d bytes, the uncompressed ones %d", st.Size(), plain)
	}
	data, err := os.ReadFile(path)
	must(t, err)
	if !strings.Contains(fmt.Sprintf("%q", data[len(data)-64:]), "ARROW1") {
		t.Errorf("%s is not an Arrow IPC file", path)
	}
	if err := compressedBatches(data); err != nil {
		t.Error(err)
	}
}

// compressedBatches returns an error unless every record batch of the IPC
// file data declares body compression.
func compressedBatches(data []byte) error {
	flen := int(int32(uint32(data[len(data)-10]) | uint32(data[len(data)-9])<<8 | uint32(data[len(data)-8])<<16 | uint32(data[len(data)-7])<<24))
	blocks, err := checkFooter(fbuf(data[len(data)-10-flen : len(data)-10]))
	if err != nil {
		return err
	}
	n := 0
	for _, b := range blocks {
		if !b.records {
			continue
		}
		msg, err := fbuf(data[b.offset+8 : b.offset+b.meta]).root()
		if err != nil {
			return err
		}
		rb, _, err := msg.table(2)
		if err != nil {
			return err
		}
		if _, ok := rb.field(3); !ok {
			return fmt.Errorf("record batch at %d is not compressed", b.offset)
		}
		n++
	}
	if n < 2 {
		return fmt.Errorf("%d record batches, want 2", n)
	}
	return nil
}
