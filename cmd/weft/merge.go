package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/weft-mc/weft/mcsdk/dataset"
)

func init() {
	o := &mergeOptions{}
	register(&command{
		name: "merge",
		usage: `merge -o OUT DATASET...

Combines datasets from several shards or machines into the new dataset OUT.
Refuses inputs of different models (model hash) or builds (a variant's
binary hash). A (variant, seed, run) found in several inputs is kept once,
from the first input listing it, when all copies agree on the outcome;
copies that disagree are refused (the runs were not deterministic).
Recordings of kept rows are copied.`,
		summary: "combine datasets from shards or machines into one",
		flags:   o.declare,
		run:     func(args []string) (int, error) { return o.run(args, os.Stdout) },
	})
}

type mergeOptions struct {
	out  string
	json bool
}

func (o *mergeOptions) declare(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "o", "", "output dataset `DIR` (must not exist or be empty; also --out)")
	fs.StringVar(&o.out, "out", "", "same as -o")
	fs.BoolVar(&o.json, "json", false, "print the summary as JSON")
}

func (o *mergeOptions) run(args []string, stdout io.Writer) (int, error) {
	if o.out == "" {
		return exitUsage, errors.New("missing -o OUT (or --out OUT)")
	}
	if len(args) == 0 {
		return exitUsage, errors.New("missing DATASET (see weft merge --help)")
	}
	res, err := dataset.Merge(o.out, args...)
	if err != nil {
		return exitUsage, err
	}
	if o.json {
		return exitHolds, json.NewEncoder(stdout).Encode(map[string]any{
			"out": o.out, "rows": res.Rows, "duplicates": res.Duplicates, "recordings": res.Recordings})
	}
	fmt.Fprintf(stdout, "merged %d rows into %s (%d identical duplicates dropped, %d recordings copied)\n",
		res.Rows, o.out, res.Duplicates, res.Recordings)
	return exitHolds, nil
}
