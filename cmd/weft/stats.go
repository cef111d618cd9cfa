package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/weft-mc/weft/report"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/mcsdk/dataset"
)

func init() {
	o := &statsOptions{}
	register(&command{
		name:    "stats",
		usage:   "stats DATASET… | stats --counts NAME=X/N,… [--claim C]… [--claims FILE] [--json]",
		summary: "rates, intervals and tests across variants and runs; evaluate falsification claims",
		flags:   o.declare,
		run:     func(args []string) (int, error) { return o.run(args, os.Stdout) },
	})
}

// statsOptions are the flags of weft stats.
type statsOptions struct {
	counts     string
	claims     claimFlags
	claimsFile string
	json       bool
	format     string
	level      float64
	power      float64
	detect     float64
}

// claimFlags collects repeated --claim flags.
type claimFlags []string

func (c *claimFlags) String() string     { return strings.Join(*c, "; ") }
func (c *claimFlags) Set(s string) error { *c = append(*c, s); return nil }

func (o *statsOptions) declare(fs *flag.FlagSet) {
	fs.StringVar(&o.counts, "counts", "", "counts instead of datasets: `NAME=X/N,…` (violations/valid runs; NAME may be variant@run)")
	fs.Var(&o.claims, "claim", "a claim to evaluate, e.g. \"rate(fix1) < rate(orig)\" (repeatable)")
	fs.StringVar(&o.claimsFile, "claims", "", "`FILE` of claims, one per line (# comments)")
	fs.BoolVar(&o.json, "json", false, "print JSON")
	fs.StringVar(&o.format, "format", "text", "output format: text, markdown or html")
	fs.Float64Var(&o.level, "level", 0.95, "confidence level of intervals (tests use α = 1 − level)")
	fs.Float64Var(&o.power, "power", 0.8, "target power of the power table")
	fs.Float64Var(&o.detect, "detect", 0, "also report each comparison's power to detect a drop of this size (e.g. 0.05)")
}

// statsOutput is the JSON form of weft stats.
type statsOutput struct {
	Summary analysis.Summary      `json:"summary"`
	Claims  *analysis.ClaimReport `json:"claims,omitempty"`
	// ByInvariant counts, per variant, the violated runs that broke each
	// invariant (a run may break several); datasets only.
	ByInvariant []report.InvariantCount `json:"violations_by_invariant,omitempty"`
	// Seeds counts, per variant, the runs and the distinct seeds among
	// them; datasets only.
	Seeds []seedCount `json:"seeds,omitempty"`
}

// seedCount is how many runs of a variant there are and over how many
// distinct seeds: a seed run again repeats the same run (a run is a
// function of its seed), so it is no independent trial.
type seedCount struct {
	Variant  string `json:"variant"`
	Runs     int    `json:"runs"`
	Distinct int    `json:"distinct_seeds"`
}

// seedCounts counts runs and distinct seeds per variant over dirs, in
// order of first appearance.
func seedCounts(dirs []string) ([]seedCount, error) {
	var out []seedCount
	idx := map[string]int{}
	seen := map[string]map[int64]bool{}
	for _, d := range dirs {
		rows, err := dataset.ReadRows(d)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			i, ok := idx[r.Variant]
			if !ok {
				i, idx[r.Variant], seen[r.Variant] = len(out), len(out), map[int64]bool{}
				out = append(out, seedCount{Variant: r.Variant})
			}
			out[i].Runs++
			if !seen[r.Variant][r.Seed] {
				seen[r.Variant][r.Seed] = true
				out[i].Distinct++
			}
		}
	}
	return out, nil
}

// printSeedWarnings warns of every variant with a seed run more than once.
func printSeedWarnings(w io.Writer, seeds []seedCount) {
	for _, c := range seeds {
		if c.Runs > c.Distinct {
			fmt.Fprintf(w, "warning: %s has %d runs over %d distinct seeds: a repeated seed repeats the same run, not an independent trial; the pooled rate counts it %s (compare the runs as %s@RUN, or campaign new seeds with --first-seed)\n",
				c.Variant, c.Runs, c.Distinct, "more than once", c.Variant)
		}
	}
}

// run executes weft stats with the positional arguments args.
func (o *statsOptions) run(args []string, w io.Writer) (int, error) {
	if err := o.check(args); err != nil {
		return exitUsage, err
	}
	claims, err := o.readClaims()
	if err != nil {
		return exitUsage, err
	}
	tab, byInvariant, err := o.table(args)
	if err != nil {
		return exitUsage, err
	}
	out := statsOutput{ByInvariant: byInvariant}
	if o.counts == "" {
		if out.Seeds, err = seedCounts(args); err != nil {
			return exitUsage, err
		}
	}
	if out.Summary, err = analysis.Summarize(tab, analysis.SummaryOptions{Level: o.level, Power: o.power, Difference: o.detect}); err != nil {
		return exitUsage, err
	}
	if len(claims) > 0 {
		rep, err := analysis.EvaluateClaims(claims, tab)
		if err != nil {
			return exitUsage, err
		}
		out.Claims = &rep
	}
	return exitHolds, o.print(w, out)
}

// check validates flag combinations and ranges.
func (o *statsOptions) check(args []string) error {
	switch {
	case o.counts == "" && len(args) == 0:
		return errors.New("give DATASET directories or --counts NAME=X/N,…")
	case o.counts != "" && len(args) > 0:
		return errors.New("give either DATASET directories or --counts, not both")
	case !(o.level > 0 && o.level < 1):
		return fmt.Errorf("--level %v outside (0, 1)", o.level)
	case !(o.power > 0 && o.power < 1):
		return fmt.Errorf("--power %v outside (0, 1)", o.power)
	case !(o.detect >= 0 && o.detect < 1):
		return fmt.Errorf("--detect %v outside [0, 1)", o.detect)
	case o.format != "text" && o.format != "markdown" && o.format != "html":
		return fmt.Errorf("--format %q: want text, markdown or html", o.format)
	}
	return nil
}

// readClaims parses --claim flags and the --claims file.
func (o *statsOptions) readClaims() ([]analysis.Claim, error) {
	texts := append([]string(nil), o.claims...)
	if o.claimsFile != "" {
		f, err := os.Open(o.claimsFile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line, _, _ := strings.Cut(sc.Text(), "#")
			if line = strings.TrimSpace(line); line != "" {
				texts = append(texts, line)
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	claims := make([]analysis.Claim, 0, len(texts))
	for _, t := range texts {
		c, err := analysis.ParseClaim(t)
		if err != nil {
			return nil, err
		}
		claims = append(claims, c)
	}
	return claims, nil
}

// table builds the tally from --counts or from the datasets (with the
// violated runs per invariant, which only datasets have).
func (o *statsOptions) table(dirs []string) (analysis.Table, []report.InvariantCount, error) {
	if o.counts != "" {
		counts, err := parseCounts(o.counts)
		if err != nil {
			return analysis.Table{}, nil, err
		}
		tab, err := analysis.TableFromCounts(counts)
		return tab, nil, err
	}
	return report.LoadTable(dirs...)
}

// parseCounts reads "name=x/n,name=x/n".
func parseCounts(s string) ([]analysis.Count, error) {
	var out []analysis.Count
	for _, item := range splitList(s) {
		name, frac, ok := strings.Cut(item, "=")
		xs, ns, ok2 := strings.Cut(frac, "/")
		x, err1 := strconv.Atoi(strings.TrimSpace(xs))
		n, err2 := strconv.Atoi(strings.TrimSpace(ns))
		name = strings.TrimSpace(name)
		if !ok || !ok2 || err1 != nil || err2 != nil || name == "" {
			return nil, fmt.Errorf("--counts: %q is not NAME=X/N", item)
		}
		out = append(out, analysis.Count{Group: name, Successes: x, Trials: n})
	}
	if len(out) == 0 {
		return nil, errors.New("--counts: no groups")
	}
	return out, nil
}

// print writes out in the chosen format.
func (o *statsOptions) print(w io.Writer, out statsOutput) error {
	if o.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	type renderer interface {
		Text() string
		Markdown() string
		HTML() string
	}
	if o.format == "text" {
		printSeedWarnings(w, out.Seeds)
		for _, c := range out.Seeds {
			fmt.Fprintf(w, "Seeds: %s %d runs over %d distinct seeds\n", c.Variant, c.Runs, c.Distinct)
		}
		if len(out.Seeds) > 0 {
			fmt.Fprintln(w)
		}
	}
	parts := []renderer{out.Summary}
	if out.Claims != nil {
		parts = append(parts, *out.Claims)
	}
	if len(out.ByInvariant) > 0 && o.format == "text" {
		fmt.Fprintln(w, "Violated runs by invariant (a run may break several)")
		fmt.Fprintf(w, "  %-10s %-24s %s\n", "variant", "invariant", "runs")
		for _, c := range out.ByInvariant {
			fmt.Fprintf(w, "  %-10s %-24s %d\n", c.Variant, c.Invariant, c.Runs)
		}
		fmt.Fprintln(w)
	}
	for i, p := range parts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		switch o.format {
		case "markdown":
			fmt.Fprint(w, p.Markdown())
		case "html":
			fmt.Fprint(w, p.HTML())
		default:
			fmt.Fprint(w, p.Text())
		}
	}
	return nil
}
