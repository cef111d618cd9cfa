package dataset

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// readBack reads an exported file of any format back into rows: Arrow and
// Parquet through arrow-go, CSV through encoding/csv.
func readBack(t *testing.T, path string, format Format) []Row {
	t.Helper()
	switch format {
	case FormatArrow:
		return readArrowFile(t, path)
	case FormatParquet:
		return readParquetFile(t, path)
	default:
		return readCSVFile(t, path)
	}
}

func readArrowFile(t *testing.T, path string) []Row {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Schema().Equal(Schema()) {
		t.Errorf("exported schema %v, want %v", r.Schema(), Schema())
	}
	var rows []Row
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, mustDecode(t, rec)...)
	}
	return rows
}

func readParquetFile(t *testing.T, path string) []Row {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	for _, name := range []string{ColVariant, ColVerdict, ColVirtualDuration + "_us", ColViolatedInvariants, ColFaults, ColFirstViolations} {
		idx := tbl.Schema().FieldIndices(name)
		want := parquetSchema(arrow.Metadata{}).Field(parquetSchema(arrow.Metadata{}).FieldIndices(name)[0]).Type
		if len(idx) != 1 || !arrow.TypeEqual(tbl.Schema().Field(idx[0]).Type, want) {
			t.Errorf("parquet column %s: schema %v, want type %v", name, tbl.Schema(), want)
		}
	}
	tr := array.NewTableReader(tbl, 1<<16)
	defer tr.Release()
	var rows []Row
	for tr.Next() {
		rows = append(rows, mustDecode(t, tr.RecordBatch())...)
	}
	return rows
}

func mustDecode(t *testing.T, rec arrow.RecordBatch) []Row {
	t.Helper()
	rows, err := decodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func readCSVFile(t *testing.T, path string) []Row {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(recs[0], CSVHeader()) {
		t.Fatalf("csv header %q", recs[0])
	}
	rows := make([]Row, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		rows = append(rows, parseCSVRow(t, rec))
	}
	return rows
}

func parseCSVRow(t *testing.T, c []string) Row {
	num := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("csv number %q: %v", s, err)
		}
		return n
	}
	us := func(s string) time.Duration { return time.Duration(num(s)) * time.Microsecond }
	r := Row{CampaignID: c[0], RunID: c[1], ModelHash: c[2], BinaryHash: c[3], Variant: c[4], Seed: num(c[5]),
		Verdict: c[6], Steps: num(c[10]), DistinctStates: num(c[11]), VirtualDuration: us(c[12]),
		WallTime: us(c[13]), RecordingPath: c[14], Detail: c[15]}
	if c[7] != "" {
		r.ViolatedInvariants = strings.Split(c[7], ";")
	}
	if c[8] != "" {
		v := num(c[8])
		r.FirstViolationStep = &v
	}
	if c[9] != "" {
		v := us(c[9])
		r.FirstViolationTime = &v
	}
	var faults []FaultJSON
	if err := json.Unmarshal([]byte(c[16]), &faults); err != nil {
		t.Fatalf("csv faults %q: %v", c[16], err)
	}
	for _, f := range faults {
		x := Fault{Kind: f.Kind, Node: -1, Peer: -1, At: time.Duration(f.AtUS) * time.Microsecond, Sides: f.Sides, Applied: f.Applied}
		if f.Node != nil {
			x.Node = *f.Node
		}
		if f.Peer != nil {
			x.Peer = *f.Peer
		}
		if f.UntilUS != nil {
			x.Until = time.Duration(*f.UntilUS) * time.Microsecond
		}
		r.Faults = append(r.Faults, x)
	}
	r.Latency, r.Order = c[17], c[18]
	opt := func(s string) *int64 {
		if s == "" {
			return nil
		}
		v := num(s)
		return &v
	}
	r.MessagesSent, r.MessagesDelivered, r.MessagesDropped = opt(c[19]), opt(c[20]), opt(c[21])
	r.MessagesDuplicated, r.MessagesHeld = opt(c[22]), opt(c[23])
	r.RefusedWrites, r.Ops, r.OpsIndeterminate = opt(c[25]), opt(c[26]), opt(c[27])
	var fvs []FirstViolationJSON
	if err := json.Unmarshal([]byte(c[24]), &fvs); err != nil {
		t.Fatalf("csv first violations %q: %v", c[24], err)
	}
	for _, v := range fvs {
		x := InvariantViolation{Invariant: v.Invariant, Step: v.Step}
		if v.AtUS != nil {
			d := time.Duration(*v.AtUS) * time.Microsecond
			x.At = &d
		}
		r.FirstViolations = append(r.FirstViolations, x)
	}
	return r
}

func TestExportRoundTrip(t *testing.T) {
	rows := sampleRows(300, "run1")
	dir := writeDataset(t, testManifest(300), rows, FlushEvery(64))
	bugOnly := Filter{Variants: []string{"bug"}}
	var bugRows []Row
	for _, r := range rows {
		if r.Variant == "bug" {
			bugRows = append(bugRows, r)
		}
	}
	tests := []struct {
		format Format
		filter Filter
		want   []Row
	}{
		{FormatArrow, Filter{}, rows},
		{FormatParquet, Filter{}, rows},
		{FormatCSV, Filter{}, rows},
		{FormatArrow, bugOnly, bugRows},
		{FormatParquet, bugOnly, bugRows},
		{FormatCSV, bugOnly, bugRows},
	}
	for _, tc := range tests {
		t.Run(string(tc.format)+"/"+strings.Join(tc.filter.Variants, ","), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out."+string(tc.format))
			n, err := Export(out, tc.format, tc.filter, dir)
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(tc.want)) {
				t.Errorf("Export wrote %d rows, want %d", n, len(tc.want))
			}
			got := readBack(t, out, tc.format)
			if len(got) != len(tc.want) {
				t.Fatalf("read back %d rows, want %d", len(got), len(tc.want))
			}
			want := exportOrder(tc.want)
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("row %d:\n got %+v\nwant %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestExportRefusesDatasetDir(t *testing.T) {
	dir := writeDataset(t, testManifest(3), sampleRows(3, "run1"))
	_, err := Export(filepath.Join(dir, "all.parquet"), FormatParquet, Filter{}, dir)
	if err == nil || !strings.Contains(err.Error(), "inside the dataset") {
		t.Fatalf("Export into the dataset = %v", err)
	}
	if _, err := ReadRows(dir); err != nil {
		t.Errorf("dataset unreadable after the refused export: %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		ok   bool
	}{
		{"parquet", FormatParquet, true}, {"ARROW", FormatArrow, true}, {"csv", FormatCSV, true},
		{"json", "", false}, {"", "", false},
	}
	for _, tc := range tests {
		got, err := ParseFormat(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseFormat(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// TestExportUnifiesDictionaries exports two datasets whose variant sets
// differ into one Arrow IPC file, which allows one dictionary per column:
// the reader must re-key every file's dictionary to the union.
func TestExportUnifiesDictionaries(t *testing.T) {
	a := sampleRows(30, "run1")
	dirA := writeDataset(t, testManifest(30), a, FlushEvery(8))
	b := sampleRows(20, "run2")
	for i := range b {
		if b[i].Variant == "correct" {
			b[i].Variant, b[i].BinaryHash = "extra", "eeee"
		}
	}
	mb := testManifest(20)
	mb.Variants = []Variant{{Name: "extra", BinaryHash: "eeee"}, {Name: "bug", BinaryHash: binBug}}
	dirB := writeDataset(t, mb, b, FlushEvery(8))
	d, err := Open(dirA, dirB)
	must(t, err)
	if got := d.Variants(); !reflect.DeepEqual(got, []string{"bug", "correct", "extra"}) {
		t.Errorf("Variants() = %q", got)
	}
	for _, format := range []Format{FormatArrow, FormatParquet} {
		out := filepath.Join(t.TempDir(), "both."+string(format))
		n, err := Export(out, format, Filter{}, dirA, dirB)
		must(t, err)
		got := readBack(t, out, format)
		if want := exportOrder(append(append([]Row(nil), a...), b...)); n != 50 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: exported %d rows; read back %d rows differing from the inputs", format, n, len(got))
		}
	}
}

// exportOrder returns rows in the order exports write them: by variant,
// seed, then run.
func exportOrder(rows []Row) []Row {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, compareRows)
	return out
}
