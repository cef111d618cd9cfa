package dataset

import (
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchRows is the size of the benchmark campaign.
const benchRows = 1_000_000

// benchDataset writes benchRows rows into a new dataset and returns it
// with its verdict files' total size.
func benchDataset(b *testing.B, rows []Row) (string, int64) {
	dir := writeDataset(b, testManifest(benchRows), rows)
	var size int64
	files, err := verdictFiles(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	return dir, size
}

// BenchmarkWrite measures writing a campaign of a million verdict rows
// (65,536-row files, each fsync'd and renamed).
func BenchmarkWrite(b *testing.B) {
	rows := sampleRows(benchRows, "run1")
	var size int64
	b.ResetTimer()
	for b.Loop() {
		_, size = benchDataset(b, rows)
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size)/benchRows, "bytes/row")
}

// BenchmarkReadRows measures reading a million rows back as []Row.
func BenchmarkReadRows(b *testing.B) {
	dir, _ := benchDataset(b, sampleRows(benchRows, "run1"))
	b.ResetTimer()
	for b.Loop() {
		rows, err := ReadRows(dir)
		if err != nil || len(rows) != benchRows {
			b.Fatalf("%d rows, %v", len(rows), err)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadArrow measures streaming a million rows as Arrow records
// (validated, dictionaries unified; no conversion to Row).
func BenchmarkReadArrow(b *testing.B) {
	dir, _ := benchDataset(b, sampleRows(benchRows, "run1"))
	b.ResetTimer()
	for b.Loop() {
		d, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		r := d.NewReader(memory.DefaultAllocator, Filter{})
		n := int64(0)
		for r.Next() {
			n += r.RecordBatch().NumRows()
		}
		if r.Err() != nil || n != benchRows {
			b.Fatalf("%d rows, %v", n, r.Err())
		}
		r.Release()
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
