package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// writeIPC writes rows as an Arrow IPC file at path under schema (the
// verdict fields with possibly other metadata).
func writeIPC(t *testing.T, path string, schema *arrow.Schema, rows []Row) {
	t.Helper()
	d := newDicts(memory.DefaultAllocator, []string{"correct", "bug"})
	defer d.release()
	rec, err := d.encode(rows)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	rec2 := array.NewRecordBatch(schema, rec.Columns(), rec.NumRows())
	defer rec2.Release()
	writeRecordFile(t, path, rec2)
}

func writeRecordFile(t *testing.T, path string, rec arrow.RecordBatch) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func withVersion(v string) *arrow.Schema {
	md := arrow.NewMetadata([]string{VersionKey}, []string{v})
	return arrow.NewSchema(fields(), &md)
}

// foreignArrow writes a valid Arrow file of another schema.
func foreignArrow(t *testing.T, path string) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	defer rec.Release()
	writeRecordFile(t, path, rec)
}

func TestBadInput(t *testing.T) {
	rows := sampleRows(30, "run1")
	// Damage to a listed file is caught by its checksum. Cases marked
	// resign also rewrite the manifest's checksum, as a careless tool
	// would, to show the structural checks still stand behind it.
	tests := []struct {
		name    string
		damage  func(t *testing.T, dir string) string // returns the path the error must name
		want    string                                // substring of the error
		resign  bool                                  // update the manifest's sha256 of the damaged file
		newer   bool                                  // errors.Is(err, ErrNewerVersion)
		readsOK bool                                  // the damage must not matter
	}{
		{"truncated tail", func(t *testing.T, dir string) string {
			return truncate(t, filepath.Join(dir, fileName(2)), func(n int64) int64 { return n - 9 })
		}, "is damaged", false, false, false},
		{"one flipped byte", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, fileName(1))
			data, err := os.ReadFile(p)
			must(t, err)
			data[len(data)/2] ^= 0x10
			must(t, os.WriteFile(p, data, 0o644))
			return p
		}, "is damaged", false, false, false},
		{"truncated half, checksum rewritten", func(t *testing.T, dir string) string {
			return truncate(t, filepath.Join(dir, fileName(1)), func(n int64) int64 { return n / 2 })
		}, "truncated", true, false, false},
		{"empty file, checksum rewritten", func(t *testing.T, dir string) string {
			return truncate(t, filepath.Join(dir, fileName(3)), func(int64) int64 { return 0 })
		}, "truncated", true, false, false},
		{"text under a verdict name", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, fileName(3))
			must(t, os.WriteFile(p, []byte("hello, this is not arrow\n"), 0o644))
			return p
		}, "not an Arrow IPC file", true, false, false},
		{"arrow file of another schema", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, fileName(3))
			foreignArrow(t, p)
			return p
		}, "not a weft verdict file", true, false, false},
		{"verdict file without version", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, fileName(3))
			writeIPC(t, p, arrow.NewSchema(fields(), nil), sampleRows(3, "run9"))
			return p
		}, "not a weft verdict file", true, false, false},
		{"newer verdict file", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, fileName(3))
			writeIPC(t, p, withVersion(fmt.Sprint(Version+1)), sampleRows(3, "run9"))
			return p
		}, fmt.Sprintf("format version %d, this weft reads up to %d", Version+1, Version), true, true, false},
		{"newer manifest", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, ManifestName)
			data, err := os.ReadFile(p)
			must(t, err)
			must(t, os.WriteFile(p, []byte(strings.Replace(string(data), fmt.Sprintf(`"format_version": %d`, Version), fmt.Sprintf(`"format_version": %d`, Version+1), 1)), 0o644))
			return p
		}, fmt.Sprintf("format version %d", Version+1), false, true, false},
		{"missing manifest", func(t *testing.T, dir string) string {
			must(t, os.Remove(filepath.Join(dir, ManifestName)))
			return dir
		}, "not a dataset", false, false, false},
		{"manifest names a file outside", func(t *testing.T, dir string) string {
			editManifest(t, dir, func(m *Manifest) { m.Files[0].Name = "../" + fileName(1) })
			return filepath.Join(dir, ManifestName)
		}, "not a verdict file name", false, false, false},
		{"manifest without checksums", func(t *testing.T, dir string) string {
			editManifest(t, dir, func(m *Manifest) { m.Files[1].SHA256 = "" })
			return filepath.Join(dir, fileName(2))
		}, "without its sha256", false, false, false},
		{"schema vector length corrupt", func(t *testing.T, dir string) string {
			return patchFieldCount(t, filepath.Join(dir, fileName(2)), 0x7fffffff)
		}, "corrupt Arrow metadata", true, false, false},
		{"compressed batch claiming 1 TiB uncompressed", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, fileName(3))
			writeCompressed(t, p, rows[20:])
			patchUncompressed(t, p, 1<<40)
			return p
		}, "claim more than", true, false, false},
		{"compressed file of the same rows reads", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, fileName(3))
			writeCompressed(t, p, rows[20:])
			return p
		}, "", true, false, true},
		{"listed file missing (interrupted copy)", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, fileName(3))
			must(t, os.Remove(p))
			return p
		}, "but the file is missing", false, false, false},
		{"listed file replaced by fewer rows", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, fileName(2))
			writeIPC(t, p, Schema(), rows[10:13])
			return p
		}, "holds 3 rows but manifest.json says 10", true, false, false},
		{"unlisted complete file (crash before the manifest update) is ignored", func(t *testing.T, dir string) string {
			writeIPC(t, filepath.Join(dir, fileName(4)), Schema(), sampleRows(35, "run1")[30:])
			return ""
		}, "", false, false, true},
		{"stray unreadable verdict file is ignored", func(t *testing.T, dir string) string {
			must(t, os.WriteFile(filepath.Join(dir, fileName(9)), []byte("garbage"), 0o000))
			return ""
		}, "", false, false, true},
		{"foreign parquet beside is ignored", func(t *testing.T, dir string) string {
			must(t, os.WriteFile(filepath.Join(dir, "all.parquet"), []byte("PAR1"), 0o644))
			return ""
		}, "", false, false, true},
		{"leftover temporary is ignored", func(t *testing.T, dir string) string {
			must(t, os.WriteFile(filepath.Join(dir, "."+fileName(4)+".123.tmp"), []byte("partial"), 0o644))
			return ""
		}, "", false, false, true},
		{"unrelated notes are ignored", func(t *testing.T, dir string) string {
			must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hi"), 0o644))
			return ""
		}, "", false, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeDataset(t, testManifest(30), rows, FlushEvery(10))
			path := tc.damage(t, dir)
			if tc.resign {
				resign(t, dir, filepath.Base(path))
			}
			got, err := ReadRows(dir)
			if tc.readsOK {
				if err != nil || len(got) != len(rows) {
					t.Fatalf("ReadRows = %d rows, %v; want %d rows", len(got), err, len(rows))
				}
				return
			}
			if err == nil || got != nil {
				t.Fatalf("ReadRows = %d rows, %v; want no rows and an error", len(got), err)
			}
			t.Logf("error: %v", err)
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %s and say %q", err, path, tc.want)
			}
			if errors.Is(err, ErrNewerVersion) != tc.newer {
				t.Errorf("errors.Is(err, ErrNewerVersion) = %v, want %v", !tc.newer, tc.newer)
			}
			if _, err := Completed(dir); err == nil {
				t.Error("Completed accepted the damaged dataset")
			}
		})
	}
}

// editManifest rewrites dir's manifest through edit.
func editManifest(t *testing.T, dir string, edit func(*Manifest)) {
	t.Helper()
	m, err := ReadManifest(dir)
	must(t, err)
	edit(&m)
	must(t, writeManifest(dir, &m))
}

// resign sets the manifest's checksum of the file name to its current one.
func resign(t *testing.T, dir, name string) {
	t.Helper()
	sum, err := fileSHA256(filepath.Join(dir, name))
	must(t, err)
	editManifest(t, dir, func(m *Manifest) {
		for i := range m.Files {
			if m.Files[i].Name == name {
				m.Files[i].SHA256 = sum
			}
		}
	})
}

func truncate(t *testing.T, path string, size func(int64) int64) string {
	t.Helper()
	fi, err := os.Stat(path)
	must(t, err)
	must(t, os.Truncate(path, size(fi.Size())))
	return path
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// patchFieldCount overwrites the length of the footer schema's fields
// vector in the verdict file at path.
func patchFieldCount(t *testing.T, path string, n uint32) string {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	flen := int(binary.LittleEndian.Uint32(data[len(data)-10:]))
	start := len(data) - 10 - flen
	footer, err := fbuf(data[start : len(data)-10]).root()
	must(t, err)
	schema, _, err := footer.table(1)
	must(t, err)
	p, ok, err := schema.indirect(1)
	if err != nil || !ok {
		t.Fatalf("no fields vector: %v", err)
	}
	binary.LittleEndian.PutUint32(data[start+p:], n)
	must(t, os.WriteFile(path, data, 0o644))
	return path
}

// patchUncompressed sets the uncompressed length that the first non-empty
// buffer of the first record batch of the IPC file at path declares.
func patchUncompressed(t *testing.T, path string, n uint64) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	flen := int(binary.LittleEndian.Uint32(data[len(data)-10:]))
	blocks, err := checkFooter(fbuf(data[len(data)-10-flen : len(data)-10]))
	must(t, err)
	b := blocks[len(blocks)-1] // the record batch (after the dictionaries)
	msg, err := fbuf(data[b.offset+8 : b.offset+b.meta]).root()
	must(t, err)
	rb, _, err := msg.table(2)
	must(t, err)
	start, count, err := rb.vector(2, 16)
	must(t, err)
	for i := 0; i < count; i++ {
		off, size := rb.b.u64(start+16*i), rb.b.u64(start+16*i+8)
		if size >= 8 {
			binary.LittleEndian.PutUint64(data[uint64(b.offset+b.meta)+off:], n)
			must(t, os.WriteFile(path, data, 0o644))
			return
		}
	}
	t.Fatal("no compressed buffer")
}

// writeCompressed writes rows as a zstd-compressed verdict file.
func writeCompressed(t *testing.T, path string, rows []Row) {
	d := newDicts(memory.DefaultAllocator, []string{"correct", "bug"})
	defer d.release()
	rec, err := d.encode(rows)
	must(t, err)
	defer rec.Release()
	f, err := os.Create(path)
	must(t, err)
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()), ipc.WithZstd())
	must(t, err)
	must(t, w.Write(rec))
	must(t, w.Close())
}
