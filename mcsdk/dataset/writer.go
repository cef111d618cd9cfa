package dataset

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// RowWriter is what campaigns write verdicts to. *Writer implements it.
type RowWriter interface {
	// Write adds one verdict row.
	Write(Row) error
	// Close flushes buffered rows and finishes the dataset.
	Close() error
}

// DefaultFlushRows is how many rows a Writer buffers before writing a file.
const DefaultFlushRows = 65536

// Option configures a Writer.
type Option func(*Writer)

// FlushEvery makes the writer write a new verdict file every n rows
// (n > 0). Smaller values lose fewer rows to a crash; larger ones make
// fewer, bigger files.
func FlushEvery(n int) Option {
	if n <= 0 {
		panic("dataset: FlushEvery needs n > 0")
	}
	return func(w *Writer) { w.flushRows = n }
}

// Writer writes verdict rows into a dataset directory. It buffers rows and
// writes each batch as a new Arrow IPC file, atomically. It is safe for
// concurrent use. A single Writer may write to a directory at a time.
type Writer struct {
	mu        sync.Mutex
	dir       string
	m         Manifest
	dicts     *dicts
	buf       []Row
	flushRows int
	seq       int
	done      keySet
	closed    bool
	// full is set once the reserve had to be spent: the disk is full, the
	// rows so far are safe, and later rows are kept in memory until Close.
	full error
}

// Create makes dir (and dir/recordings) a new dataset described by m and
// returns a writer for it. It refuses a directory that already holds a
// dataset (resume with OpenAppend). It fills in m.FormatVersion, m.Start
// when zero and m.Machines when empty.
func Create(dir string, m Manifest, opts ...Option) (*Writer, error) {
	if _, err := os.Stat(filepath.Join(dir, ManifestName)); err == nil {
		return nil, fmt.Errorf("dataset: %s already holds a dataset (resume it with OpenAppend or choose a new directory)", dir)
	}
	m.FormatVersion = Version
	m.Files = nil
	if m.Start.IsZero() {
		m.Start = time.Now().UTC()
	}
	if len(m.Machines) == 0 {
		m.Machines = []Machine{HostMachine()}
	}
	if len(m.Sessions) == 0 {
		m.Sessions = []Session{{Start: m.Start, Seeds: normalizeSeeds(m.Seeds)}}
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, RecordingsDir), 0o755); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	if err := writeManifest(dir, &m); err != nil {
		return nil, err
	}
	if err := makeReserve(dir); err != nil {
		return nil, err
	}
	return newWriter(dir, m, opts), nil
}

// OpenAppend opens the existing dataset in dir to add rows, e.g. to resume
// an interrupted campaign. Rows already in the dataset are refused by
// Write; use Completed to skip them.
func OpenAppend(dir string, opts ...Option) (*Writer, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	d, err := Open(dir)
	if err != nil {
		return nil, err
	}
	rows, err := d.Rows(Filter{})
	if err != nil {
		return nil, err
	}
	removeTemporaries(dir)
	// A directory that cannot take the reserve (read-only, full) fails
	// here, before a resumed campaign runs anything.
	if err := makeReserve(dir); err != nil {
		return nil, err
	}
	if err := upgrade(dir, &m, d.files); err != nil {
		return nil, err
	}
	m.Sessions = append(m.Sessions, Session{Start: time.Now().UTC()})
	w := newWriter(dir, m, opts)
	for _, f := range d.files {
		w.seq = max(w.seq, fileSeq(f))
	}
	for i := range rows {
		w.done.add(rows[i].Key())
	}
	return w, nil
}

// Extend records that this session covers seeds, runs and variants,
// perhaps beyond what the dataset held (a campaign grown from 40 to 50
// seeds, or given a new variant): the manifest's seed ranges become the
// union, new runs and variants are added. A variant already listed must
// keep its binary hash.
func (w *Writer) Extend(seeds []SeedRange, runs []string, variants []Variant) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.m
	m.Variants = slices.Clone(m.Variants)
	for _, v := range variants {
		h, ok := m.binaryHash(v.Name)
		switch {
		case !ok:
			m.Variants = append(m.Variants, v)
		case h != v.BinaryHash:
			return fmt.Errorf("dataset: %s: variant %s has binary hash %.12s, the dataset %.12s", w.dir, v.Name, v.BinaryHash, h)
		}
	}
	m.Seeds = normalizeSeeds(append(slices.Clone(m.Seeds), seeds...))
	m.Runs = uniqueInOrder(append(slices.Clone(m.Runs), runs...))
	m.Sessions = slices.Clone(m.Sessions)
	if n := len(m.Sessions); n > 0 {
		m.Sessions[n-1].Seeds = normalizeSeeds(seeds)
	}
	if err := writeManifest(w.dir, &m); err != nil {
		return err
	}
	w.m = m
	w.dicts.release()
	w.dicts = newDicts(memory.DefaultAllocator, m.VariantNames())
	return nil
}

func newWriter(dir string, m Manifest, opts []Option) *Writer {
	w := &Writer{dir: dir, m: m, flushRows: DefaultFlushRows, done: newKeySet()}
	for _, o := range opts {
		o(w)
	}
	w.dicts = newDicts(memory.DefaultAllocator, m.VariantNames())
	return w
}

// removeTemporaries deletes hidden temporaries of writes a crash
// interrupted; they never became part of the dataset.
func removeTemporaries(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "."+filePrefix) && strings.HasSuffix(n, ".tmp") {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// Dir returns the dataset directory.
func (w *Writer) Dir() string { return w.dir }

// Manifest returns the dataset's manifest.
func (w *Writer) Manifest() Manifest {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m
}

// Write buffers r and writes a verdict file when the buffer is full. It
// refuses a row whose variant is not in the manifest, whose model or
// binary hash differs from the manifest's, whose verdict is unknown, or
// whose (variant, seed, run) the dataset already holds.
func (w *Writer) Write(r Row) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("dataset: Write after Close")
	}
	if err := w.check(&r); err != nil {
		return err
	}
	w.done.add(r.Key())
	w.buf = append(w.buf, r)
	if w.full != nil {
		return w.full // kept in memory; Close writes it into the reserve
	}
	if len(w.buf) >= w.flushRows {
		return w.flush()
	}
	return nil
}

func (w *Writer) check(r *Row) error {
	if err := r.validate(); err != nil {
		return err
	}
	bin, ok := w.m.binaryHash(r.Variant)
	switch {
	case !ok:
		return fmt.Errorf("dataset: row %s: variant %q is not in the manifest", r.Key(), r.Variant)
	case bin != "" && r.BinaryHash != bin:
		return fmt.Errorf("dataset: row %s: binary hash %s differs from the manifest's %s", r.Key(), r.BinaryHash, bin)
	case w.m.ModelHash != "" && r.ModelHash != w.m.ModelHash:
		return fmt.Errorf("dataset: row %s: model hash %s differs from the manifest's %s", r.Key(), r.ModelHash, w.m.ModelHash)
	case w.done.has(r.Key()):
		return fmt.Errorf("dataset: row %s is already in %s", r.Key(), w.dir)
	}
	return nil
}

// Flush writes the buffered rows as a new verdict file now.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.full != nil {
		return w.full
	}
	return w.flush()
}

// flush writes the buffer. When the disk is full it spends the reserve
// and tries once more; if that works the rows are safe and the writer
// reports the full disk from then on, so the caller stops producing rows.
func (w *Writer) flush() error {
	err := w.writeBuffer()
	if err == nil || !errors.Is(err, syscall.ENOSPC) || !dropReserve(w.dir) {
		return err
	}
	if err := w.writeBuffer(); err != nil {
		return err
	}
	w.full = fmt.Errorf("dataset: %s: no space left on device (%d rows are written; rows finished after this are kept until Close): %w", w.dir, w.total(), syscall.ENOSPC)
	return w.full
}

func (w *Writer) total() int64 {
	var n int64
	for _, f := range w.m.Files {
		n += f.Rows
	}
	return n
}

// writeBuffer writes the buffered rows as a new verdict file and lists it
// in the manifest; on error the rows stay buffered.
func (w *Writer) writeBuffer() error {
	if len(w.buf) == 0 {
		return nil
	}
	slices.SortFunc(w.buf, compareRows)
	enc, err := w.dicts.encode(w.buf)
	if err != nil {
		return err
	}
	defer enc.Release()
	rec := array.NewRecordBatch(schemaWith(metadataOf([]Manifest{w.m})), enc.Columns(), enc.NumRows())
	defer rec.Release()
	name := w.nextName()
	h := sha256.New()
	err = writeAtomic(w.dir, name, func(f *os.File) error {
		iw, err := ipc.NewFileWriter(io.MultiWriter(f, h), ipc.WithSchema(rec.Schema()))
		if err != nil {
			return err
		}
		if err := iw.Write(rec); err != nil {
			iw.Close()
			return err
		}
		return iw.Close()
	})
	if err != nil {
		return err
	}
	files := append(slices.Clip(w.m.Files), FileEntry{Name: name, Rows: int64(len(w.buf)), SHA256: hex.EncodeToString(h.Sum(nil))})
	m := w.m
	m.Files = files
	m.Sessions = stampSession(m.Sessions)
	if err := writeManifest(w.dir, &m); err != nil {
		os.Remove(filepath.Join(w.dir, name)) // unlisted, it would be ignored anyway
		return err
	}
	w.m = m
	w.buf = w.buf[:0]
	return nil
}

// nextName returns the first unused verdict file name after the last one.
func (w *Writer) nextName() string {
	for {
		w.seq++
		name := fileName(w.seq)
		if _, err := os.Lstat(filepath.Join(w.dir, name)); errors.Is(err, os.ErrNotExist) {
			return name
		}
	}
}

// Close writes the buffered rows, records the end time in the manifest and
// finishes the writer. Closing twice is an error.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("dataset: Close called twice")
	}
	full := w.full
	if full != nil {
		w.full = nil // write what was kept, into the reserve's space
	}
	if err := w.flush(); err != nil {
		return err
	}
	w.closed = true
	w.dicts.release()
	w.m.End = time.Now().UTC()
	w.m.Sessions = stampSession(w.m.Sessions)
	if err := writeManifest(w.dir, &w.m); err != nil {
		return err
	}
	dropReserve(w.dir)
	if full == nil {
		full = w.full
	}
	return full
}

// upgrade makes the manifest of an older format one of this format
// before rows of this format are added: every verdict file it read is
// listed with its checksum.
func upgrade(dir string, m *Manifest, files []string) error {
	if m.FormatVersion >= Version {
		return nil
	}
	for _, path := range files {
		name := filepath.Base(path)
		if slices.ContainsFunc(m.Files, func(f FileEntry) bool { return f.Name == name && f.SHA256 != "" }) {
			continue
		}
		v, err := openVerdictFile(memory.DefaultAllocator, path)
		if err != nil {
			return err
		}
		rows := v.rows
		v.close()
		sum, err := fileSHA256(path)
		if err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
		m.Files = slices.DeleteFunc(m.Files, func(f FileEntry) bool { return f.Name == name })
		m.Files = append(m.Files, FileEntry{Name: name, Rows: rows, SHA256: sum})
	}
	m.FormatVersion = Version
	return writeManifest(dir, m)
}

// stampSession returns ss with the last session ending now.
func stampSession(ss []Session) []Session {
	ss = slices.Clone(ss)
	if n := len(ss); n > 0 {
		ss[n-1].End = time.Now().UTC()
	}
	return ss
}

// compareRows orders rows by variant name, seed, then run.
func compareRows(a, b Row) int {
	return cmp.Or(cmp.Compare(a.Variant, b.Variant), cmp.Compare(a.Seed, b.Seed), cmp.Compare(a.RunID, b.RunID))
}

// ReserveName is the hidden file a writer keeps in the dataset directory
// while it writes: space set aside so that the rows finished when the disk
// fills up can still be written.
const ReserveName = ".reserve"

// ReserveSize is the reserve's size, enough for thousands of rows.
const ReserveSize = 1 << 20

// makeReserve writes the reserve file (real blocks, not a sparse file).
func makeReserve(dir string) error {
	err := writeAtomic(dir, ReserveName, func(f *os.File) error {
		_, err := f.Write(make([]byte, ReserveSize))
		return err
	})
	if err != nil {
		return fmt.Errorf("dataset: %s is not writable: %w", dir, err)
	}
	return nil
}

// dropReserve deletes the reserve and reports whether there was one.
func dropReserve(dir string) bool {
	return os.Remove(filepath.Join(dir, ReserveName)) == nil
}

// Completed lists the (variant, seed, run) triples dir already holds, so a
// resumed campaign can skip them.
func Completed(dir string) (map[Key]bool, error) {
	d, err := Open(dir)
	if err != nil {
		return nil, err
	}
	rows, err := d.Rows(Filter{})
	if err != nil {
		return nil, err
	}
	done := make(map[Key]bool, len(rows))
	for i := range rows {
		done[rows[i].Key()] = true
	}
	return done, nil
}

// keySet is a compact set of keys: variant and run names are interned, so
// a million keys take about 40 MB rather than three times that.
type keySet struct {
	names map[string]int32
	keys  map[packedKey]struct{}
}

type packedKey struct {
	variant, run int32
	seed         int64
}

func newKeySet() keySet {
	return keySet{names: map[string]int32{}, keys: map[packedKey]struct{}{}}
}

func (s keySet) intern(name string) int32 {
	id, ok := s.names[name]
	if !ok {
		id = int32(len(s.names))
		s.names[name] = id
	}
	return id
}

func (s keySet) pack(k Key) packedKey {
	return packedKey{variant: s.intern(k.Variant), run: s.intern(k.Run), seed: k.Seed}
}

func (s keySet) add(k Key) { s.keys[s.pack(k)] = struct{}{} }

func (s keySet) has(k Key) bool {
	_, ok := s.keys[s.pack(k)]
	return ok
}
