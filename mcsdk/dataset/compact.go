package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// compactBatchRows is the number of rows per record batch of a compacted
// verdict file: small enough that a batch stays far below
// fbMaxUncompressed, large enough that ZSTD sees repetition.
const compactBatchRows = 4096

// CompactResult tells what Compact wrote.
type CompactResult struct {
	Rows       int64 // verdict rows
	Recordings int   // recordings kept (of runs that did not hold)
	Dropped    int   // recordings of runs that held, not kept
	Bytes      int64 // size of the verdict file
}

// Compact writes the dataset in dir to out, a new or empty directory, as
// a dataset for shipping: every row in one ZSTD-compressed Arrow IPC
// verdict file (record batches of compactBatchRows rows), the recordings
// of the runs that did not hold (a row of a run that held loses its
// recording path), and a manifest listing the verdict file and every
// recording with its sha256 ([Manifest.Recordings]; see
// [VerifyRecordings]). The rows and recordings are those of dir, byte for
// byte; the manifest keeps dir's description, sessions and machines.
//
// Arrow readers without IPC compression (apache-arrow for JavaScript up to
// version 18) cannot read the compacted file; [Export] writes an
// uncompressed one. On error, out is removed.
func Compact(out, dir string) (res CompactResult, err error) {
	d, err := Open(dir)
	if err != nil {
		return res, err
	}
	rows, err := d.Rows(Filter{})
	if err != nil {
		return res, err
	}
	if err := checkEmptyOut(out); err != nil {
		return res, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return res, fmt.Errorf("dataset: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(out)
		}
	}()
	slices.SortFunc(rows, compareRows)
	m := d.Manifests[0]
	m.Files, m.Recordings = nil, nil
	for i := range rows {
		r := &rows[i]
		if r.RecordingPath == "" {
			continue
		}
		if r.Verdict == Holds {
			r.RecordingPath = ""
			res.Dropped++
			continue
		}
		e, err := copyListed(dir, out, r.RecordingPath)
		if err != nil {
			return res, err
		}
		m.Recordings = append(m.Recordings, e)
		res.Recordings++
	}
	f, err := writeZstd(out, &m, rows)
	if err != nil {
		return res, err
	}
	m.Files = []FileEntry{f}
	res.Rows = f.Rows
	st, err := os.Stat(filepath.Join(out, f.Name))
	if err != nil {
		return res, fmt.Errorf("dataset: %w", err)
	}
	res.Bytes = st.Size()
	return res, writeManifest(out, &m)
}

// copyListed copies recording rel from dataset src to dst and returns its
// manifest entry.
func copyListed(src, dst, rel string) (FileEntry, error) {
	if err := copyRecording(src, dst, rel); err != nil {
		return FileEntry{}, err
	}
	sum, err := fileSHA256(filepath.Join(dst, filepath.Clean(rel)))
	if err != nil {
		return FileEntry{}, fmt.Errorf("dataset: %w", err)
	}
	return FileEntry{Name: filepath.ToSlash(filepath.Clean(rel)), SHA256: sum}, nil
}

// writeZstd writes rows (sorted) of the dataset m describes to dir
// as verdict file 1, ZSTD compressed, and returns its manifest entry.
func writeZstd(dir string, m *Manifest, rows []Row) (FileEntry, error) {
	d := newDicts(memory.DefaultAllocator, m.VariantNames())
	defer d.release()
	schema := schemaWith(metadataOf([]Manifest{*m}))
	name := fileName(1)
	h := sha256.New()
	err := writeAtomic(dir, name, func(f *os.File) error {
		return writeBatches(io.MultiWriter(f, h), schema, d, rows)
	})
	if err != nil {
		return FileEntry{}, err
	}
	return FileEntry{Name: name, Rows: int64(len(rows)), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// writeBatches writes rows as ZSTD-compressed record batches of
// compactBatchRows rows to w.
func writeBatches(w io.Writer, schema *arrow.Schema, d *dicts, rows []Row) error {
	iw, err := ipc.NewFileWriter(w, ipc.WithSchema(schema), ipc.WithZstd())
	if err != nil {
		return err
	}
	for lo := 0; lo < len(rows); lo += compactBatchRows {
		if err := writeBatch(iw, schema, d, rows[lo:min(lo+compactBatchRows, len(rows))]); err != nil {
			iw.Close()
			return err
		}
	}
	return iw.Close()
}

// writeBatch encodes rows as one record batch of schema and writes it.
func writeBatch(iw *ipc.FileWriter, schema *arrow.Schema, d *dicts, rows []Row) error {
	enc, err := d.encode(rows)
	if err != nil {
		return err
	}
	defer enc.Release()
	rec := array.NewRecordBatch(schema, enc.Columns(), enc.NumRows())
	defer rec.Release()
	return iw.Write(rec)
}

// VerifyRecordings checks every recording dir's manifest lists against
// its sha256: a missing or altered recording is an error naming it.
func VerifyRecordings(dir string) error {
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	for _, e := range m.Recordings {
		clean := filepath.Clean(filepath.FromSlash(e.Name))
		if filepath.IsAbs(clean) || !filepath.IsLocal(clean) {
			return fmt.Errorf("dataset: %s lists recording %q outside the dataset", filepath.Join(dir, ManifestName), e.Name)
		}
		if err := checkSum(filepath.Join(dir, clean), e, m.FormatVersion); err != nil {
			return err
		}
	}
	return nil
}
