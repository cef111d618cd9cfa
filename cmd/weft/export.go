package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

func init() {
	o := &exportOptions{}
	register(&command{
		name: "export",
		usage: `export DATASET... --format parquet|arrow|csv -o FILE [--variant(s) V,…] [--run R,…] [--verdict holds,…]

Writes the verdict rows of one or more datasets into a single file that
pandas, Polars, DuckDB and R open directly:
  arrow    Arrow IPC file (Feather v2), the dataset schema unchanged
  parquet  Parquet with the Arrow schema stored (dictionaries restored);
           durations as int64 microseconds named *_us; the fault
           schedule as a list of structs (kind, node, peer, at_us,
           until_us, sides, applied); one row group per 65536 rows
  csv      header row; durations in microseconds; violated invariants
           joined with ";"; faults and first violations as JSON; null is
           the empty field
Rows come in (variant, seed, run) order; the schema metadata carries the
model's hash and text, the variants and their flags, the tool version,
the fault model and the seeds.
Without --format the format comes from FILE's extension.`,
		summary: "dataset to one Parquet, Arrow IPC or CSV file for other tools",
		flags:   o.declare,
		run:     func(args []string) (int, error) { return o.run(args, os.Stdout) },
	})
}

type exportOptions struct {
	format, out, variants, runs, verdicts string
	json                                  bool
}

func (o *exportOptions) declare(fs *flag.FlagSet) {
	fs.StringVar(&o.format, "format", "", "output `FORMAT`: parquet, arrow or csv (default: from -o's extension)")
	fs.StringVar(&o.out, "o", "", "output `FILE` (written atomically; also --out)")
	fs.StringVar(&o.out, "out", "", "same as -o")
	fs.StringVar(&o.variants, "variant", "", "only these `VARIANTS` (comma-separated; also --variants)")
	fs.StringVar(&o.variants, "variants", "", "same as --variant")
	fs.StringVar(&o.runs, "run", "", "only these `RUNS` (comma-separated)")
	fs.StringVar(&o.verdicts, "verdict", "", "only these `VERDICTS` (comma-separated: holds, violated, invalid, error)")
	fs.BoolVar(&o.json, "json", false, "print the summary as JSON")
}

func (o *exportOptions) run(args []string, stdout io.Writer) (int, error) {
	if len(args) == 0 {
		return exitUsage, errors.New("missing DATASET (see weft export --help)")
	}
	if o.out == "" {
		return exitUsage, errors.New("missing -o FILE (or --out FILE)")
	}
	format, err := o.resolveFormat()
	if err != nil {
		return exitUsage, err
	}
	f := dataset.Filter{Variants: splitList(o.variants), Runs: splitList(o.runs), Verdicts: splitList(o.verdicts)}
	for _, v := range f.Verdicts {
		if !slices.Contains(dataset.Verdicts(), v) {
			return exitUsage, fmt.Errorf("--verdict %q: want holds, violated, invalid or error", v)
		}
	}
	n, err := dataset.Export(o.out, format, f, args...)
	if err != nil {
		return exitUsage, err
	}
	if o.json {
		return exitHolds, json.NewEncoder(stdout).Encode(map[string]any{"file": o.out, "format": format, "rows": n})
	}
	fmt.Fprintf(stdout, "wrote %d rows to %s (%s)\n", n, o.out, format)
	return exitHolds, nil
}

func (o *exportOptions) resolveFormat() (dataset.Format, error) {
	if o.format != "" {
		return dataset.ParseFormat(o.format)
	}
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(o.out)), ".")
	switch ext {
	case "pq", "parq":
		ext = "parquet"
	case "feather", "ipc":
		ext = "arrow"
	}
	f, err := dataset.ParseFormat(ext)
	if err != nil {
		return "", fmt.Errorf("--format not given and %s has no known extension (.parquet, .arrow, .csv)", o.out)
	}
	return f, nil
}
