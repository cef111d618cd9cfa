package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/analysis/charts"
)

// DefaultLevel is the confidence level of intervals when Options.Level is
// zero.
const DefaultLevel = 0.95

// Options tune a report. The zero value gives the defaults.
type Options struct {
	// Title heads the page; by default "Falsification report: MODEL".
	Title string
	// Claims are evaluated after the default ordering claim.
	Claims []analysis.Claim
	// NoDefaultClaim leaves out the ordering claim
	// rate(v1) > rate(v2) > … over the variants in manifest order.
	NoDefaultClaim bool
	// Level is the confidence level of intervals (DefaultLevel when zero);
	// the standard tests use α = 1 − Level.
	Level float64
	// TraceRows is how many state changes and faults each traced failure
	// lists (DefaultTraceRows when zero).
	TraceRows int
	// AllRuns adds the run browser: every run with its verdict and fault
	// schedule, filterable, each opening its diagram and events when it
	// has a recording (campaigns run with --record all have one for every
	// run).
	AllRuns bool
	// RunLink, if set, is where each recorded run of the run browser
	// links to (weft serve's per-run pages); the page then embeds no
	// diagrams.
	RunLink func(*RunEntry) string
	_       struct{}
}

// Report is the content of a falsification report, computed from the
// datasets. Render turns it into the page.
type Report struct {
	Title       string
	Level       float64              // confidence level of the intervals
	Sources     []Source             // the datasets, in the order given
	Table       analysis.Table       // tally per variant (manifest order) and run
	Rates       []VariantRate        // the variant table, in Table order
	Summary     analysis.Summary     // the standard statistics
	Claims      analysis.ClaimReport // default ordering claim first, then Options.Claims
	ByInvariant []InvariantCount     // violating runs per variant and invariant (a run may count under several)
	BySet       []ViolationSet       // violating runs per variant and set of invariants (each run once)
	Traces      []*Trace             // one per variant with a traceable violation, in Table order
	Untraced    map[string]string    // variant → why it has no traced failure (variants with violations only)
	Runs        []RunEntry           // every run, when Options.AllRuns
	// Notes explain what the report left out and why.
	Notes []string

	defaultClaim bool // Claims.Results[0] is the default ordering claim
	runLink      func(*RunEntry) string
	figs         reportCharts
}

// Build reads the datasets dirs and computes the report. Unreadable
// datasets, a run given twice and claims naming unknown variants are
// errors; a variant none of whose recordings reads is noted in Untraced.
// It panics if opt.Level is outside (0, 1).
func Build(dirs []string, opt Options) (*Report, error) {
	opt = opt.withDefaults()
	srcs, err := loadSources(dirs)
	if err != nil {
		return nil, err
	}
	run := runNamer(srcs)
	tab, err := tally(srcs, run)
	if err != nil {
		return nil, err
	}
	r := &Report{Title: opt.Title, Level: opt.Level, Sources: srcs, Table: tab, Rates: variantRates(tab, opt.Level), Untraced: map[string]string{}}
	if r.Title == "" {
		r.Title = "Falsification report: " + strings.Join(modelPaths(srcs), ", ")
	}
	if hs := modelHashes(srcs); len(hs) > 1 {
		r.Notes = append(r.Notes, "the datasets come from different model files (sha256 "+strings.Join(hs, ", ")+"): rates of one variant name pool runs of different models")
	}
	if r.Summary, err = analysis.Summarize(tab, analysis.SummaryOptions{Level: opt.Level}); err != nil {
		return nil, err
	}
	if err := r.evaluateClaims(opt); err != nil {
		return nil, err
	}
	r.ByInvariant = invariantCounts(srcs, tab.Variants)
	r.BySet = violationSets(srcs, tab.Variants)
	r.traceFailures(srcs, run, opt.TraceRows)
	if opt.AllRuns {
		r.allRuns(srcs, run, opt.RunLink == nil)
		r.runLink = opt.RunLink
	}
	if r.figs, err = r.buildCharts(srcs, run, opt.Level); err != nil {
		return nil, err
	}
	return r, nil
}

func (o Options) withDefaults() Options {
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if !(o.Level > 0 && o.Level < 1) {
		panic(fmt.Sprintf("report: confidence level %v outside (0, 1)", o.Level))
	}
	if o.TraceRows == 0 {
		o.TraceRows = DefaultTraceRows
	}
	return o
}

// modelPaths lists the manifests' model paths without repeats.
func modelPaths(srcs []Source) []string {
	var out []string
	for _, s := range srcs {
		if p := s.Manifest.ModelPath; p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// modelHashes lists the manifests' model hashes without repeats.
func modelHashes(srcs []Source) []string {
	var out []string
	for _, s := range srcs {
		if h := s.Manifest.ModelHash; h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// DefaultClaim returns the ordering claim rate(v1) > rate(v2) > … > rate(vk)
// over the variants of t with valid runs, in t's order, and false when
// fewer than two variants have valid runs.
func DefaultClaim(t analysis.Table) (analysis.Claim, bool) {
	var vs []string
	for _, row := range t.Variants {
		if row.Valid > 0 {
			vs = append(vs, row.Variant)
		}
	}
	if len(vs) < 2 {
		return analysis.Claim{}, false
	}
	return analysis.OrderRates(analysis.Above, vs...), true
}

// evaluateClaims evaluates the default claim and opt.Claims.
func (r *Report) evaluateClaims(opt Options) error {
	var claims []analysis.Claim
	if !opt.NoDefaultClaim {
		if c, ok := DefaultClaim(r.Table); ok {
			claims = append(claims, c)
			r.defaultClaim = true
		} else {
			r.Notes = append(r.Notes, "no ordering claim: fewer than two variants have valid runs")
		}
	}
	claims = append(claims, opt.Claims...)
	if len(claims) == 0 {
		return nil
	}
	rep, err := analysis.EvaluateClaims(claims, r.Table)
	if err != nil {
		return err
	}
	r.Claims = rep
	return nil
}

// traceFailures traces one failure per variant that has violations.
func (r *Report) traceFailures(srcs []Source, run runFunc, rows int) {
	cands := traceCandidates(srcs)
	for _, v := range r.Table.Variants {
		if v.Violated == 0 {
			continue
		}
		t, why := traceVariant(srcs, cands[v.Variant], run, rows)
		if t == nil {
			r.Untraced[v.Variant] = why
			continue
		}
		r.Traces = append(r.Traces, t)
	}
}

// Render returns the page with lib (echarts) inlined once.
func (r *Report) Render(lib *charts.Library) []byte {
	var p page
	p.render(r, lib)
	return []byte(p.String())
}

// Write builds the report of dirs and writes it to path atomically, with
// echarts found by charts.LoadLibrary.
func Write(path string, dirs []string, opt Options) error {
	lib, err := charts.LoadLibrary()
	if err != nil {
		return err
	}
	r, err := Build(dirs, opt)
	if err != nil {
		return err
	}
	return WriteFile(path, r.Render(lib))
}

// WriteFile writes a rendered report b to path atomically: a temporary
// file beside path, synced, then renamed into place.
func WriteFile(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
