package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

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
	if err := m.check(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, RecordingsDir), 0o755); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	if err := writeManifest(dir, &m); err != nil {
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
	w := newWriter(dir, m, opts)
	for _, f := range d.files {
		w.seq = max(w.seq, fileSeq(f))
	}
	for i := range rows {
		w.done.add(rows[i].Key())
	}
	return w, nil
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
	return w.flush()
}

func (w *Writer) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	rec, err := w.dicts.encode(w.buf)
	if err != nil {
		return err
	}
	defer rec.Release()
	name := w.nextName()
	err = writeAtomic(w.dir, name, func(f *os.File) error {
		iw, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
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
	w.m.Files = append(w.m.Files, FileEntry{Name: name, Rows: int64(len(w.buf))})
	w.buf = w.buf[:0]
	return writeManifest(w.dir, &w.m)
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
	if err := w.flush(); err != nil {
		return err
	}
	w.closed = true
	w.dicts.release()
	w.m.End = time.Now().UTC()
	return writeManifest(w.dir, &w.m)
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
