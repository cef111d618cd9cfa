package dataset

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Format is an export file format.
type Format string

// Export formats.
const (
	// FormatArrow is one Arrow IPC file (Feather v2) with the verdict schema.
	FormatArrow Format = "arrow"
	// FormatParquet is Parquet (Snappy) with the Arrow schema stored, so
	// Arrow-based readers restore dictionaries and durations.
	FormatParquet Format = "parquet"
	// FormatCSV is CSV with a header of column names. Durations are whole
	// microseconds, violated invariants are joined with ";", and null is
	// the empty field.
	FormatCSV Format = "csv"
)

// ParseFormat parses "arrow", "parquet" or "csv".
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case FormatArrow, FormatParquet, FormatCSV:
		return f, nil
	}
	return "", fmt.Errorf("dataset: unknown export format %q (want parquet, arrow or csv)", s)
}

// Export writes the rows of the datasets dirs matching f to the file out
// in format, atomically, and returns the number of rows written.
func Export(out string, format Format, f Filter, dirs ...string) (n int64, err error) {
	d, err := Open(dirs...)
	if err != nil {
		return 0, err
	}
	err = writeAtomic(filepath.Dir(out), filepath.Base(out), func(file *os.File) error {
		n, err = d.Export(file, format, f)
		return err
	})
	return n, err
}

// Export writes the rows matching f to w in format and returns the number
// of rows written.
func (d *Dataset) Export(w io.Writer, format Format, f Filter) (int64, error) {
	r := d.NewReader(memory.DefaultAllocator, f)
	defer r.Release()
	switch format {
	case FormatArrow:
		return writeArrow(w, r)
	case FormatParquet:
		return writeParquet(w, r)
	case FormatCSV:
		return writeCSV(w, r)
	}
	return 0, fmt.Errorf("dataset: unknown export format %q", format)
}

func writeArrow(w io.Writer, r *Reader) (int64, error) {
	iw, err := ipc.NewFileWriter(w, ipc.WithSchema(Schema()))
	if err != nil {
		return 0, err
	}
	var n int64
	for r.Next() {
		if err := iw.Write(r.RecordBatch()); err != nil {
			iw.Close()
			return n, err
		}
		n += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		iw.Close()
		return n, err
	}
	return n, iw.Close()
}

func writeParquet(w io.Writer, r *Reader) (int64, error) {
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	pw, err := pqarrow.NewFileWriter(Schema(), w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return 0, err
	}
	var n int64
	for r.Next() {
		if err := pw.Write(r.RecordBatch()); err != nil {
			pw.Close()
			return n, err
		}
		n += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		pw.Close()
		return n, err
	}
	return n, pw.Close()
}

// CSVHeader returns the header line of CSV exports: the schema's column names.
func CSVHeader() []string {
	var h []string
	for _, f := range fields() {
		h = append(h, f.Name)
	}
	return h
}

func writeCSV(w io.Writer, r *Reader) (int64, error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader()); err != nil {
		return 0, err
	}
	var n int64
	for r.Next() {
		rows, err := decodeRecord(r.RecordBatch())
		if err != nil {
			return n, err
		}
		for i := range rows {
			if err := cw.Write(csvRecord(&rows[i])); err != nil {
				return n, err
			}
		}
		n += int64(len(rows))
	}
	if err := r.Err(); err != nil {
		return n, err
	}
	cw.Flush()
	return n, cw.Error()
}

func csvRecord(r *Row) []string {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	var step, at string
	if r.FirstViolationStep != nil {
		step = i(*r.FirstViolationStep)
	}
	if r.FirstViolationTime != nil {
		at = i(int64(toMicros(*r.FirstViolationTime)))
	}
	return []string{r.CampaignID, r.RunID, r.ModelHash, r.BinaryHash, r.Variant, i(r.Seed), r.Verdict,
		strings.Join(r.ViolatedInvariants, ";"), step, at, i(r.Steps), i(r.DistinctStates),
		i(int64(toMicros(r.VirtualDuration))), i(int64(toMicros(r.WallTime))), r.RecordingPath, r.Detail}
}
