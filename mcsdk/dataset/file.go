package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Verdict files are named verdicts-NNNNNN.arrow.
const (
	filePrefix = "verdicts-"
	fileSuffix = ".arrow"
)

// RecordingsDir is the subdirectory that holds recordings.
const RecordingsDir = "recordings"

// tableExts are extensions of files that look like tables: such a file in
// a dataset directory that is not a verdict file is reported, since
// silently skipping it could drop rows.
var tableExts = []string{".arrow", ".arrows", ".feather", ".ipc", ".parquet"}

// verdictFiles lists dir's verdict files in name order. Hidden files
// (temporaries of interrupted writes) are ignored; other table-like files
// are an error naming them.
func verdictFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var files []string
	for _, e := range ents {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."), e.IsDir():
			continue
		case isVerdictName(name):
			files = append(files, filepath.Join(dir, name))
		case isTableName(name):
			return nil, fmt.Errorf("dataset: foreign file %s in dataset directory (weft reads only %s*%s files there); move it out", filepath.Join(dir, name), filePrefix, fileSuffix)
		}
	}
	sort.Strings(files)
	return files, nil
}

func isVerdictName(name string) bool {
	return strings.HasPrefix(name, filePrefix) && strings.HasSuffix(name, fileSuffix)
}

func isTableName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, t := range tableExts {
		if ext == t {
			return true
		}
	}
	return false
}

// fileSeq returns the sequence number in a verdict file name, or 0.
func fileSeq(path string) int {
	s := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), filePrefix), fileSuffix)
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

func fileName(seq int) string { return fmt.Sprintf("%s%06d%s", filePrefix, seq, fileSuffix) }

// checkSchema verifies that s is the verdict schema of a format version
// this package reads.
func checkSchema(s *arrow.Schema) error {
	v, ok := s.Metadata().GetValue(VersionKey)
	if !ok {
		return fmt.Errorf("not a weft verdict file (its schema has no %q metadata)", VersionKey)
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil || n < 1:
		return fmt.Errorf("not a weft verdict file (format version %q)", v)
	case n > Version:
		return fmt.Errorf("format version %d, this weft reads up to %d: %w", n, Version, ErrNewerVersion)
	}
	want := fieldsOf(n)
	if s.NumFields() != len(want) {
		return fmt.Errorf("not a weft verdict file: %d columns, want %d", s.NumFields(), len(want))
	}
	for i, w := range want {
		f := s.Field(i)
		if f.Name != w.Name || !arrow.TypeEqual(f.Type, w.Type) || f.Nullable != w.Nullable {
			return fmt.Errorf("not a weft verdict file: column %d is %s %s (nullable %v), want %s %s (nullable %v)",
				i, f.Name, f.Type, f.Nullable, w.Name, w.Type, w.Nullable)
		}
	}
	return nil
}

// verdictFile is an open verdict file whose schema has been checked.
type verdictFile struct {
	path string
	c    interface{ Close() error }
	r    *ipc.FileReader
	rows int64 // as the record batch headers declare
}

// openVerdictFile opens path and checks its footer and schema: a truncated
// file has no footer and is refused here, before any row is read.
func openVerdictFile(mem memory.Allocator, path string) (*verdictFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	v, err := newVerdictFile(mem, path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	v.c = f
	return v, nil
}

func newVerdictFile(mem memory.Allocator, path string, r ipc.ReadAtSeeker) (v *verdictFile, err error) {
	defer recoverInto(&err, path)
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	rows, err := checkIPCMetadata(r, size)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s is not a readable Arrow IPC file: %w", path, err)
	}
	fr, err := ipc.NewFileReader(r, ipc.WithAllocator(mem))
	if err != nil {
		return nil, fmt.Errorf("dataset: %s is truncated or not an Arrow IPC file: %w", path, err)
	}
	if err := checkSchema(fr.Schema()); err != nil {
		fr.Close()
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	// The seed column alone takes 8 bytes a row.
	if rows < 0 || rows > size/8 {
		fr.Close()
		return nil, fmt.Errorf("dataset: %s declares %d rows in %d bytes: %w", path, rows, size, errFlatbuffer)
	}
	return &verdictFile{path: path, r: fr, rows: rows}, nil
}

func (v *verdictFile) close() {
	v.r.Close()
	if v.c != nil {
		v.c.Close()
	}
}

// batch reads and validates record batch i; the caller releases it.
func (v *verdictFile) batch(i int) (rec arrow.RecordBatch, err error) {
	defer recoverInto(&err, v.path)
	rec, err = v.r.RecordBatchAt(i)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: record batch %d: %w", v.path, i, err)
	}
	if err := validateRecord(rec); err != nil {
		rec.Release()
		return nil, fmt.Errorf("dataset: %s: record batch %d: %w", v.path, i, err)
	}
	return rec, nil
}

// validateRecord checks buffers, offsets, dictionary indices, column
// lengths and non-nullable columns, so later value access cannot fail.
func validateRecord(rec arrow.RecordBatch) error {
	if err := array.ValidateRecordFull(rec); err != nil {
		return err
	}
	for i, f := range rec.Schema().Fields() {
		c := rec.Column(i)
		if int64(c.Len()) != rec.NumRows() {
			return fmt.Errorf("column %s has %d rows, the batch %d", f.Name, c.Len(), rec.NumRows())
		}
		if !f.Nullable && c.NullN() > 0 {
			return fmt.Errorf("column %s holds %d nulls but is not nullable", f.Name, c.NullN())
		}
	}
	l := rec.Column(rec.Schema().FieldIndices(ColViolatedInvariants)[0]).(*array.List)
	if l.ListValues().NullN() > 0 {
		return errors.New("violated_invariants holds null names")
	}
	return nil
}

// readIPC reads every row of one verdict file held in r, checked as Open
// and Reader check files of a dataset whose manifest lists variants.
func readIPC(name string, r ipc.ReadAtSeeker, variants []string) ([]Row, error) {
	mem := memory.DefaultAllocator
	v, err := newVerdictFile(mem, name, r)
	if err != nil {
		return nil, err
	}
	defer v.close()
	d := newDicts(mem, variants)
	defer d.release()
	var rows []Row
	for i := 0; i < v.r.NumRecords(); i++ {
		rs, err := readBatch(v, d, i)
		if err != nil {
			return nil, err
		}
		rows = append(rows, rs...)
	}
	return rows, nil
}

func readBatch(v *verdictFile, d *dicts, i int) ([]Row, error) {
	raw, err := v.batch(i)
	if err != nil {
		return nil, err
	}
	defer raw.Release()
	rec, err := d.unify(raw)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", v.path, err)
	}
	defer rec.Release()
	return decodeRecord(rec)
}
