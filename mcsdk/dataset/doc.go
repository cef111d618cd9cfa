// Package dataset stores campaign verdicts as Apache Arrow datasets.
//
// A dataset is a directory:
//
//	manifest.json          model, variants with binary hashes, seeds, tool version, machine
//	verdicts-000001.arrow  Arrow IPC files (the "file" format), one per flushed chunk
//	verdicts-000002.arrow
//	recordings/            recordings of interesting runs, referenced by relative path
//
// Every verdict file holds rows of one fixed schema (see [Schema] and [Row]);
// its schema metadata carries the format version under
// "weft.dataset.version". Files are written to a hidden temporary name in
// the same directory, fsync'd, renamed into place, and the directory is
// fsync'd, so a crash leaves either a whole file or none. The manifest is
// replaced the same way, after every file, and lists each verdict file with
// its row count.
//
// Readers never take a damaged dataset for a smaller one: a truncated or
// foreign verdict file, a listed file that is missing or holds other rows
// than the manifest says, or a table-like file that is not a verdict file
// is an error naming the file, before any row is returned; a newer format
// version is refused with [ErrNewerVersion]. Verdict files are
// uncompressed IPC, which every Arrow implementation reads.
//
// Campaign code writes through [Writer] (or the [RowWriter] interface) and
// never touches Arrow. Analysis code reads with [ReadRows], or as Arrow
// data with [Open] and [Dataset.NewReader] / [Dataset.Table]. [Export]
// converts a dataset into one Arrow IPC, Parquet or CSV file that pandas,
// Polars, DuckDB and R open directly, and [Merge] combines datasets from
// several shards or machines.
//
// The Arrow implementation is github.com/apache/arrow-go/v18, the
// maintained continuation of github.com/apache/arrow/go/v17: the Go
// implementation moved out of the main Arrow repository into its own
// (apache/arrow-go) with the same API, and new releases are published only
// there. Parquet goes through its parquet/pqarrow package.
package dataset
