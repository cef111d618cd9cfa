// Package dataset stores campaign verdicts as Apache Arrow datasets.
//
// A dataset is a directory:
//
//	manifest.json          model (hash and text), fault model, variants with flags and binary
//	                       hashes, seeds, sessions, tool version, machines, files with sha256
//	verdicts-000001.arrow  Arrow IPC files (the "file" format), one per flushed chunk
//	verdicts-000002.arrow
//	recordings/            recordings of interesting runs, referenced by relative path
//
// Every verdict file holds rows of one fixed schema (see [Schema] and [Row]),
// sorted by (variant, seed, run); its schema metadata carries the format
// version under "weft.dataset.version" and describes the campaign (model
// hash and text, variants and their flags, tool version, fault model,
// seeds: [MetaModelHash] and the keys after it). Format 2 adds the
// structured fault schedule, the network model, message counts and the
// first violation of each invariant; files of format 1 still read, those
// columns null. Files are written to a hidden temporary name in the same
// directory, fsync'd, renamed into place, and the directory is fsync'd,
// so a crash leaves either a whole file or none. The manifest is replaced
// the same way after every file, and lists each verdict file with its row
// count and sha256.
//
// Readers read exactly the files the manifest lists, and never take a
// damaged dataset for a smaller one: a listed file whose checksum differs
// (one flipped bit), that is missing, truncated, foreign or holds other
// rows than the manifest says is an error naming the file, before any row
// is returned; a newer format version is refused with [ErrNewerVersion].
// Other files in the directory (strays, a file written just before a
// crash) are ignored. Campaigns write uncompressed IPC, which every
// Arrow implementation reads; [Compact] rewrites a dataset for shipping
// as one ZSTD-compressed file with the recordings of failing runs, each
// checksummed in the manifest.
//
// A writer keeps a reserve file of [ReserveSize] bytes in the directory:
// when the disk fills up, the reserve is given up so that every row
// already finished is still written, and the writer reports the full disk
// so the campaign stops. Opening a read-only directory to resume fails at
// once. The manifest records each writing session, so a campaign grown or
// resumed with more seeds states the union of its seeds and its compute
// time without the pauses ([Manifest.ComputeTime]).
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
