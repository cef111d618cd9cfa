package dataset

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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
	// type every reader shares: durations are int64 microseconds named
	// with the suffix _us (field metadata weft.unit=us), one row group per
	// RowGroupRows rows.
	FormatParquet Format = "parquet"
	// FormatCSV is CSV with a header of Parquet's column names. Durations
	// are whole microseconds, violated invariants are joined with ";", the
	// faults and first violations are JSON arrays, and null is the empty
	// field.
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

// RowGroupRows is how many rows an export puts in one Parquet row group
// (and one Arrow record batch).
const RowGroupRows = 1 << 16

// Export writes the rows matching f to w in format, ordered by (variant,
// seed, run), and returns the number of rows written. The schema metadata
// describes the datasets (see [MetaModelHash] and the keys after it).
func (d *Dataset) Export(w io.Writer, format Format, f Filter) (int64, error) {
	rows, err := d.Rows(f)
	if err != nil {
		return 0, err
	}
	slices.SortStableFunc(rows, compareRows)
	md := metadataOf(d.Manifests)
	if format == FormatCSV {
		return writeCSV(w, rows)
	}
	dicts := newDicts(memory.DefaultAllocator, d.variants)
	defer dicts.release()
	batches := func(yield func(arrow.RecordBatch) error) error {
		for lo := 0; lo < len(rows); lo += RowGroupRows {
			rec, err := dicts.encode(rows[lo:min(lo+RowGroupRows, len(rows))])
			if err != nil {
				return err
			}
			err = yield(rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
	switch format {
	case FormatArrow:
		return int64(len(rows)), writeArrow(w, schemaWith(md), batches)
	case FormatParquet:
		return int64(len(rows)), writeParquet(w, parquetSchema(md), batches)
	}
	return 0, fmt.Errorf("dataset: unknown export format %q", format)
}

type batchFunc func(yield func(arrow.RecordBatch) error) error

func writeArrow(w io.Writer, schema *arrow.Schema, batches batchFunc) error {
	iw, err := ipc.NewFileWriter(w, ipc.WithSchema(schema))
	if err != nil {
		return err
	}
	err = batches(func(rec arrow.RecordBatch) error {
		r := array.NewRecordBatch(schema, rec.Columns(), rec.NumRows())
		defer r.Release()
		return iw.Write(r)
	})
	if err != nil {
		iw.Close()
		return err
	}
	return iw.Close()
}

// writeParquet writes one row group per batch.
func writeParquet(w io.Writer, schema *arrow.Schema, batches batchFunc) error {
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(RowGroupRows))
	// The struct hides w's Close: pqarrow closes its sink, the caller owns it.
	pw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return err
	}
	err = batches(func(rec arrow.RecordBatch) error {
		r := durationsAsInt64(schema, rec)
		defer r.Release()
		return pw.Write(r)
	})
	if err != nil {
		pw.Close()
		return err
	}
	return pw.Close()
}

// CSVHeader returns the header line of CSV exports: the Parquet column
// names (durations named *_us).
func CSVHeader() []string {
	var h []string
	for _, f := range parquetSchema(arrow.Metadata{}).Fields() {
		h = append(h, f.Name)
	}
	return h
}

func writeCSV(w io.Writer, rows []Row) (int64, error) {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader()); err != nil {
		return 0, err
	}
	for i := range rows {
		if err := cw.Write(csvRecord(&rows[i])); err != nil {
			return int64(i), err
		}
	}
	cw.Flush()
	return int64(len(rows)), cw.Error()
}

func csvRecord(r *Row) []string {
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	opt := func(p *int64) string {
		if p == nil {
			return ""
		}
		return i(*p)
	}
	var at string
	if r.FirstViolationTime != nil {
		at = i(int64(toMicros(*r.FirstViolationTime)))
	}
	return []string{r.CampaignID, r.RunID, r.ModelHash, r.BinaryHash, r.Variant, i(r.Seed), r.Verdict,
		strings.Join(r.ViolatedInvariants, ";"), opt(r.FirstViolationStep), at, i(r.Steps), i(r.DistinctStates),
		i(int64(toMicros(r.VirtualDuration))), i(int64(toMicros(r.WallTime))), r.RecordingPath, r.Detail,
		faultsJSON(r.Faults), r.Latency, r.Order, opt(r.MessagesSent), opt(r.MessagesDelivered),
		opt(r.MessagesDropped), opt(r.MessagesDuplicated), opt(r.MessagesHeld), firstViolationsJSON(r.FirstViolations), opt(r.RefusedWrites), opt(r.Ops), opt(r.OpsIndeterminate)}
}

// FaultJSON is a fault as CSV exports write it (in a JSON array), with
// the Parquet field names.
type FaultJSON struct {
	Kind    string    `json:"kind"`
	Node    *int      `json:"node"`
	Peer    *int      `json:"peer"`
	AtUS    int64     `json:"at_us"`
	UntilUS *int64    `json:"until_us"`
	Sides   [][]int32 `json:"sides"`
	Applied bool      `json:"applied"`
}

func faultsJSON(fs []Fault) string {
	out := make([]FaultJSON, len(fs))
	for k, f := range fs {
		j := FaultJSON{Kind: f.Kind, AtUS: int64(toMicros(f.At)), Sides: f.Sides, Applied: f.Applied}
		if f.Node >= 0 {
			j.Node = &fs[k].Node
		}
		if f.Peer >= 0 {
			j.Peer = &fs[k].Peer
		}
		if f.Kind == "partition" {
			u := int64(toMicros(f.Until))
			j.UntilUS = &u
		}
		out[k] = j
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// FirstViolationJSON is a first violation as CSV exports write it.
type FirstViolationJSON struct {
	Invariant string `json:"invariant"`
	Step      *int64 `json:"step"`
	AtUS      *int64 `json:"at_us"`
}

func firstViolationsJSON(vs []InvariantViolation) string {
	out := make([]FirstViolationJSON, len(vs))
	for k, v := range vs {
		out[k] = FirstViolationJSON{Invariant: v.Invariant, Step: v.Step}
		if v.At != nil {
			us := int64(toMicros(*v.At))
			out[k].AtUS = &us
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// parquetSchema is Schema with metadata md and every duration column as
// int64 microseconds, named with the suffix _us (Parquet has no duration
// type that DuckDB, pandas and R all read).
func parquetSchema(md arrow.Metadata) *arrow.Schema {
	fs := fields()
	for i, f := range fs {
		if f.Type.ID() == arrow.DURATION {
			fs[i].Name += "_us"
			fs[i].Type = arrow.PrimitiveTypes.Int64
			fs[i].Metadata = arrow.NewMetadata([]string{"weft.unit"}, []string{"us"})
		}
	}
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
