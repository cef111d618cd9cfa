package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/report"
)

func init() {
	o := &reportOptions{}
	register(&command{
		name:    "report",
		usage:   "report DATASET… -o FILE.html [--all] [--claim C]… [--claims FILE] [--title T] [--no-default-claim]",
		summary: "a standalone, offline HTML falsification report: manifests, rates, tests, charts, claims and a traced failure per variant",
		flags:   o.declare,
		run:     func(args []string) (int, error) { return o.run(args, os.Stdout) },
	})
}

// reportOptions are the flags of weft report.
type reportOptions struct {
	out            string
	all            bool // the run browser
	claims         claimFlags
	claimsFile     string
	title          string
	noDefaultClaim bool
	level          float64
	traceRows      int
	sections       []string // HTML fragments a target's own analysis wrote
}

func (o *reportOptions) declare(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "o", "", "the report `FILE` to write (required; also --out)")
	fs.StringVar(&o.out, "out", "", "same as -o")
	fs.BoolVar(&o.all, "all", false, "add a run browser: every run with its verdict and fault schedule, filterable, each opening its sequence diagram and events (campaign --record all records every run)")
	fs.Var(&o.claims, "claim", "a claim to evaluate besides the default ordering claim, e.g. \"rate(fix2) <= 2%\" (repeatable)")
	fs.StringVar(&o.claimsFile, "claims", "", "`FILE` of claims, one per line (# comments)")
	fs.StringVar(&o.title, "title", "", "the report's title (default: Falsification report: MODEL)")
	fs.BoolVar(&o.noDefaultClaim, "no-default-claim", false, "leave out the claim rate(v1) > rate(v2) > … over the variants in manifest order")
	fs.Float64Var(&o.level, "level", report.DefaultLevel, "confidence level of intervals (tests use α = 1 − level)")
	fs.IntVar(&o.traceRows, "trace-rows", report.DefaultTraceRows, "state changes listed before each traced failure's first violation")
	fs.Func("section", "add this HTML `FILE` as a section of the report (repeatable), e.g. the Chord attribution from targets/chord/attribution --section", func(v string) error {
		o.sections = append(o.sections, v)
		return nil
	})
}

// run executes weft report with the dataset directories args.
func (o *reportOptions) run(args []string, w io.Writer) (int, error) {
	switch {
	case len(args) == 0:
		return exitUsage, errors.New("give one or more DATASET directories")
	case o.out == "":
		return exitUsage, errors.New("give the output file with -o FILE.html")
	case !(o.level > 0 && o.level < 1):
		return exitUsage, fmt.Errorf("--level %v outside (0, 1)", o.level)
	case o.traceRows < 1:
		return exitUsage, fmt.Errorf("--trace-rows %d: want at least 1", o.traceRows)
	}
	claims, err := (&statsOptions{claims: o.claims, claimsFile: o.claimsFile}).readClaims()
	if err != nil {
		return exitUsage, err
	}
	rep, err := report.Build(args, report.Options{Title: o.title, Claims: claims, NoDefaultClaim: o.noDefaultClaim, Level: o.level, TraceRows: o.traceRows, AllRuns: o.all})
	if err != nil {
		return exitUsage, err
	}
	lib, err := charts.LoadLibrary()
	if err != nil {
		return exitUsage, err
	}
	page := rep.Render(lib)
	var sections []string
	for _, f := range o.sections {
		b, err := os.ReadFile(f)
		if err != nil {
			return exitUsage, err
		}
		sections = append(sections, string(b))
	}
	page = report.InsertSections(page, sections...)
	if err := report.WriteFile(o.out, page); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(w, "wrote %s: %d variants, %d traced failures\n", o.out, len(rep.Rates), len(rep.Traces))
	for _, c := range rep.Claims.Results {
		fmt.Fprintf(w, "  %-12s %s\n", c.Status, c.Claim)
	}
	return exitHolds, nil
}
