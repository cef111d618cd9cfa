package dataset

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
	// Arrow-based readers restore the dictionaries. Parquet has no duration
	// type: durations are int64 microseconds (field metadata weft.unit=us).
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
// It refuses to write a table file into one of the dataset directories,
// which would make the dataset unreadable (see Open).
func Export(out string, format Format, f Filter, dirs ...string) (n int64, err error) {
	d, err := Open(dirs...)
	if err != nil {
		return 0, err
	}
	if err := checkOutside(out, dirs); err != nil {
		return 0, err
	}
	err = writeAtomic(filepath.Dir(out), filepath.Base(out), func(file *os.File) error {
		n, err = d.Export(file, format, f)
		return err
	})
	return n, err
}

func checkOutside(out string, dirs []string) error {
	od, err := filepath.Abs(filepath.Dir(out))
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	for _, dir := range dirs {
		if ad, err := filepath.Abs(dir); err == nil && ad == od && isTableName(out) {
			return fmt.Errorf("dataset: %s is inside the dataset %s, which would then hold a foreign file; write it elsewhere", out, dir)
		}
	}
	return nil
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
	schema := parquetSchema()
	// The struct hides w's Close: pqarrow closes its sink, the caller owns it.
	pw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return 0, err
	}
	var n int64
	for r.Next() {
		rec := durationsAsInt64(schema, r.RecordBatch())
		err := pw.Write(rec)
		rec.Release()
		if err != nil {
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

// parquetSchema is Schema with every duration column as int64 microseconds.
func parquetSchema() *arrow.Schema {
	fs := fields()
	for i, f := range fs {
		if f.Type.ID() == arrow.DURATION {
			fs[i].Type = arrow.PrimitiveTypes.Int64
			fs[i].Metadata = arrow.NewMetadata([]string{"weft.unit"}, []string{"us"})
		}
	}
	md := Schema().Metadata()
	return arrow.NewSchema(fs, &md)
}

// durationsAsInt64 returns rec under schema, its duration columns viewed as
// int64 (same buffers, no copy); the caller releases it.
func durationsAsInt64(schema *arrow.Schema, rec arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		if c.DataType().ID() != arrow.DURATION {
			cols[i] = c
			c.Retain()
			continue
		}
		d := c.Data()
		data := array.NewData(arrow.PrimitiveTypes.Int64, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
		cols[i] = array.MakeFromData(data)
		data.Release()
	}
	out := array.NewRecordBatch(schema, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}
