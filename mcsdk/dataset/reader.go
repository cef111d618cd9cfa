package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Dataset is one or several dataset directories opened for reading as one
// table. Open checks every manifest and every verdict file's footer and
// schema up front, so a truncated or foreign file is reported before any
// row is read.
type Dataset struct {
	Dirs      []string   // the directories, as given
	Manifests []Manifest // one per directory
	files     []string
	variants  []string
	rows      int64 // as the files' record batch headers declare
}

// Filter selects rows. An empty field matches everything; otherwise a row
// matches when its value is one of the listed ones, for every field.
type Filter struct {
	Variants []string
	Runs     []string
	Verdicts []string
}

func (f *Filter) empty() bool { return len(f.Variants)+len(f.Runs)+len(f.Verdicts) == 0 }

func (f *Filter) match(r *Row) bool {
	ok := func(set []string, v string) bool { return len(set) == 0 || slices.Contains(set, v) }
	return ok(f.Variants, r.Variant) && ok(f.Runs, r.RunID) && ok(f.Verdicts, r.Verdict)
}

// Open opens the dataset directories dirs for reading.
func Open(dirs ...string) (*Dataset, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("dataset: no dataset directory given")
	}
	d := &Dataset{Dirs: dirs}
	var names []string
	for _, dir := range dirs {
		m, err := ReadManifest(dir)
		if err != nil {
			return nil, err
		}
		files, err := datasetFiles(dir, &m)
		if err != nil {
			return nil, err
		}
		n, err := checkFiles(dir, &m, files)
		if err != nil {
			return nil, err
		}
		d.rows += n
		d.Manifests = append(d.Manifests, m)
		d.files = append(d.files, files...)
		names = append(names, m.VariantNames()...)
	}
	d.variants = uniqueSorted(names)
	return d, nil
}

// datasetFiles returns the verdict files of dir: the ones the manifest
// lists, after checking each one's checksum, or, for a dataset written
// before manifests listed their files, every verdict file of dir.
func datasetFiles(dir string, m *Manifest) ([]string, error) {
	if len(m.Files) == 0 && m.FormatVersion < 2 {
		return verdictFiles(dir)
	}
	files := make([]string, 0, len(m.Files))
	for _, f := range m.Files {
		if !isVerdictName(f.Name) || f.Name != filepath.Base(f.Name) {
			return nil, fmt.Errorf("dataset: %s lists %q, which is not a verdict file name", filepath.Join(dir, ManifestName), f.Name)
		}
		path := filepath.Join(dir, f.Name)
		if err := checkSum(path, f, m.FormatVersion); err != nil {
			return nil, err
		}
		files = append(files, path)
	}
	return files, nil
}

// checkSum compares the sha256 of the file at path with the manifest's.
// Manifests of format 2 and later must record one.
func checkSum(path string, f FileEntry, version int) error {
	if f.SHA256 == "" {
		if version >= 2 {
			return fmt.Errorf("dataset: the manifest lists %s without its sha256", path)
		}
		return nil
	}
	got, err := fileSHA256(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("dataset: the manifest lists %s (%d rows) but the file is missing", path, f.Rows)
	}
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	if got != f.SHA256 {
		return fmt.Errorf("dataset: %s is damaged: its sha256 is %.16s…, the manifest says %.16s… (altered or truncated after it was written)", path, got, f.SHA256)
	}
	return nil
}

// fileSHA256 returns the hex sha256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkFiles opens every verdict file of dir (footer, schema, metadata
// bounds) and compares the files and row counts with the manifest's list.
// It returns the number of rows of the files.
func checkFiles(dir string, m *Manifest, files []string) (total int64, err error) {
	rows := map[string]int64{}
	for _, path := range files {
		v, err := openVerdictFile(memory.DefaultAllocator, path)
		if err != nil {
			return 0, err
		}
		rows[filepath.Base(path)] = v.rows
		total += max(v.rows, 0)
		v.close()
	}
	for _, f := range m.Files {
		n, ok := rows[f.Name]
		switch {
		case !ok:
			return 0, fmt.Errorf("dataset: %s lists %s (%d rows) but the file is missing", filepath.Join(dir, ManifestName), filepath.Join(dir, f.Name), f.Rows)
		case n != f.Rows:
			return 0, fmt.Errorf("dataset: %s holds %d rows but %s says %d", filepath.Join(dir, f.Name), n, ManifestName, f.Rows)
		}
	}
	return total, nil
}

// Files returns the verdict files in reading order.
func (d *Dataset) Files() []string { return slices.Clone(d.files) }

// Variants returns the sorted union of the manifests' variants: the
// dictionary of the variant column in every record the dataset yields.
func (d *Dataset) Variants() []string { return slices.Clone(d.variants) }

// NewReader returns a reader over the rows matching f, in file order (a nil
// mem means memory.DefaultAllocator). All
// its records share one variant dictionary and one verdict dictionary, so
// they can be written to a single Arrow IPC file as they are.
func (d *Dataset) NewReader(mem memory.Allocator, f Filter) *Reader {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	r := &Reader{ds: d, filter: f, mem: mem, dicts: newDicts(mem, d.variants)}
	r.refs.Store(1)
	return r
}

// Table reads the rows matching f into one table; the caller releases it.
func (d *Dataset) Table(mem memory.Allocator, f Filter) (arrow.Table, error) {
	r := d.NewReader(mem, f)
	defer r.Release()
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return array.NewTableFromRecords(Schema(), recs), nil
}

// Rows reads the rows matching f.
func (d *Dataset) Rows(f Filter) ([]Row, error) {
	r := d.NewReader(memory.DefaultAllocator, f)
	defer r.Release()
	var rows []Row
	if f.empty() {
		rows = make([]Row, 0, d.rows)
	}
	for r.Next() {
		var err error
		if rows, err = appendRows(rows, r.RecordBatch()); err != nil {
			return nil, err
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// ReadRows reads every row of the dataset directories dirs, in file order.
// RecordingPath stays relative to the row's own dataset directory.
func ReadRows(dirs ...string) ([]Row, error) {
	d, err := Open(dirs...)
	if err != nil {
		return nil, err
	}
	return d.Rows(Filter{})
}

// Reader streams a dataset's records. It implements array.RecordReader.
type Reader struct {
	refs   atomic.Int64
	ds     *Dataset
	filter Filter
	mem    memory.Allocator
	dicts  *dicts
	next   int // next file index
	cur    *verdictFile
	batch  int // next batch in cur
	rec    arrow.RecordBatch
	err    error
}

var _ array.RecordReader = (*Reader)(nil)

// Retain increases the reference count.
func (r *Reader) Retain() { r.refs.Add(1) }

// Release decreases the reference count and frees the reader at zero.
func (r *Reader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	r.releaseRec()
	if r.cur != nil {
		r.cur.close()
		r.cur = nil
	}
	r.dicts.release()
}

func (r *Reader) releaseRec() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
}

// Schema returns the verdict schema.
func (r *Reader) Schema() *arrow.Schema { return Schema() }

// RecordBatch returns the current record, valid until the next call to Next.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.rec }

// Record returns the current record.
//
// Deprecated: Use [Reader.RecordBatch].
func (r *Reader) Record() arrow.RecordBatch { return r.rec }

// Err returns the error that stopped Next, if any.
func (r *Reader) Err() error { return r.err }

// Next advances to the next non-empty record.
func (r *Reader) Next() bool {
	r.releaseRec()
	for r.err == nil {
		raw, ok := r.nextRaw()
		if !ok {
			return false
		}
		rec, err := r.convert(raw)
		raw.Release()
		if err != nil {
			r.err = err
			return false
		}
		if rec.NumRows() > 0 {
			r.rec = rec
			return true
		}
		rec.Release()
	}
	return false
}

// nextRaw returns the next validated record batch as stored.
func (r *Reader) nextRaw() (arrow.RecordBatch, bool) {
	for r.err == nil {
		if r.cur == nil {
			if r.next == len(r.ds.files) {
				return nil, false
			}
			r.cur, r.err = openVerdictFile(r.mem, r.ds.files[r.next])
			r.next++
			r.batch = 0
			continue
		}
		if r.batch == r.cur.r.NumRecords() {
			r.cur.close()
			r.cur = nil
			continue
		}
		rec, err := r.cur.batch(r.batch)
		r.batch++
		if err != nil {
			r.err = err
			return nil, false
		}
		return rec, true
	}
	return nil, false
}

// convert re-keys raw's dictionaries to the reader's shared ones and
// applies the filter.
func (r *Reader) convert(raw arrow.RecordBatch) (arrow.RecordBatch, error) {
	rec, err := r.dicts.unify(raw)
	if err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", r.cur.path, err)
	}
	if r.filter.empty() {
		return rec, nil
	}
	defer rec.Release()
	rows, err := decodeRecord(rec)
	if err != nil {
		return nil, err
	}
	keep := rows[:0]
	for i := range rows {
		if r.filter.match(&rows[i]) {
			keep = append(keep, rows[i])
		}
	}
	return r.dicts.encode(keep)
}

// unify returns rec with its variant and verdict columns re-encoded
// against d's dictionaries; other columns are shared, not copied.
func (d *dicts) unify(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := slices.Clone(rec.Columns())
	vi, ve := rec.Schema().FieldIndices(ColVariant)[0], rec.Schema().FieldIndices(ColVerdict)[0]
	var err error
	if cols[vi], err = remap(d.mem, rec.Column(vi).(*array.Dictionary), d.variants, variantType, ColVariant); err != nil {
		return nil, err
	}
	defer cols[vi].Release()
	if cols[ve], err = remap(d.mem, rec.Column(ve).(*array.Dictionary), d.verdicts, verdictType, ColVerdict); err != nil {
		return nil, err
	}
	defer cols[ve].Release()
	// A format 1 file lacks the later columns: they read as null.
	for _, f := range fields()[len(cols):] {
		null := array.MakeArrayOfNull(d.mem, f.Type, int(rec.NumRows()))
		defer null.Release()
		cols = append(cols, null)
	}
	return array.NewRecordBatch(Schema(), cols, rec.NumRows()), nil
}

// remap re-encodes a string dictionary column against target.
func remap(mem memory.Allocator, col *array.Dictionary, target *array.String, typ *arrow.DictionaryType, name string) (arrow.Array, error) {
	pos := make(map[string]int, target.Len())
	for i := 0; i < target.Len(); i++ {
		pos[target.Value(i)] = i
	}
	src := col.Dictionary().(*array.String)
	to := make([]int, src.Len())
	for i := range to {
		p, ok := pos[src.Value(i)]
		if !ok {
			return nil, fmt.Errorf("%s %q is not in the manifest", name, src.Value(i))
		}
		to[i] = p
	}
	idx := remapIndices(mem, col, to, typ)
	defer idx.Release()
	return array.NewDictionaryArray(typ, idx, target), nil
}

func remapIndices(mem memory.Allocator, col *array.Dictionary, to []int, typ *arrow.DictionaryType) arrow.Array {
	n := col.Len()
	if typ.IndexType.ID() == arrow.INT8 {
		b := array.NewInt8Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			b.UnsafeAppend(int8(to[col.GetValueIndex(i)]))
		}
		return b.NewArray()
	}
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		b.UnsafeAppend(int32(to[col.GetValueIndex(i)]))
	}
	return b.NewArray()
}
