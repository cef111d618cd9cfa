package report

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/mcsdk/dataset"
)

// Source is one dataset directory of a report.
type Source struct {
	Dir      string // as given
	Manifest dataset.Manifest
	Rows     []dataset.Row
}

// loadSources reads the manifest and rows of every directory.
func loadSources(dirs []string) ([]Source, error) {
	if len(dirs) == 0 {
		return nil, errors.New("report: no dataset")
	}
	srcs := make([]Source, len(dirs))
	for i, d := range dirs {
		m, err := dataset.ReadManifest(d)
		if err != nil {
			return nil, err
		}
		rows, err := dataset.ReadRows(d)
		if err != nil {
			return nil, err
		}
		srcs[i] = Source{Dir: d, Manifest: m, Rows: rows}
	}
	return srcs, nil
}

// variantOrder is the union of the manifests' variants, in manifest order.
func variantOrder(srcs []Source) []string {
	var order []string
	seen := map[string]bool{}
	for _, s := range srcs {
		for _, v := range s.Manifest.VariantNames() {
			if !seen[v] {
				seen[v] = true
				order = append(order, v)
			}
		}
	}
	return order
}

// runFunc names the run a row belongs to.
type runFunc func(dataset.Row) string

// runNamer names a row's run: its run id, or "campaign/run" when the rows
// come from several campaigns, so equal run ids of different campaigns stay
// apart (as weft stats does).
func runNamer(srcs []Source) runFunc {
	campaigns := map[string]bool{}
	for _, s := range srcs {
		for _, r := range s.Rows {
			campaigns[r.CampaignID] = true
		}
	}
	if len(campaigns) > 1 {
		return func(r dataset.Row) string { return r.CampaignID + "/" + r.RunID }
	}
	return func(r dataset.Row) string { return r.RunID }
}

// tally counts the rows per variant and run, variants in manifest order.
// A (variant, seed, run) given twice — the same dataset passed twice — is
// an error, since it would count one run twice.
func tally(srcs []Source, run runFunc) (analysis.Table, error) {
	type key struct {
		variant, run string
		seed         int64
	}
	from := map[key]string{}
	var outcomes []analysis.Outcome
	for _, s := range srcs {
		for _, r := range s.Rows {
			k := key{r.Variant, run(r), r.Seed}
			if d, dup := from[k]; dup {
				return analysis.Table{}, fmt.Errorf("report: %s/%d/%s is in %s and in %s (a dataset given twice?)", k.variant, k.seed, k.run, d, s.Dir)
			}
			from[k] = s.Dir
			outcomes = append(outcomes, analysis.Outcome{Variant: r.Variant, Run: k.run, Verdict: r.Verdict, Seed: r.Seed})
		}
	}
	if len(outcomes) == 0 {
		return analysis.Table{}, errors.New("report: the datasets hold no rows")
	}
	t, err := analysis.Tally(outcomes)
	if err != nil {
		return analysis.Table{}, err
	}
	return t.Reorder(variantOrder(srcs)), nil
}

// VariantRate is one row of the report's variant table.
type VariantRate struct {
	analysis.TallyRow
	Rate   float64           // Violated/Valid; NaN without valid runs
	Wilson analysis.Interval // at Options.Level; zero without valid runs
}

// variantRates computes each variant's rate and Wilson interval.
func variantRates(t analysis.Table, level float64) []VariantRate {
	out := make([]VariantRate, len(t.Variants))
	for i, row := range t.Variants {
		out[i] = VariantRate{TallyRow: row, Rate: row.Rate()}
		if row.Valid > 0 {
			iv, err := analysis.WilsonInterval(row.Count(), level)
			if err != nil {
				panic("report: " + err.Error()) // Valid > 0 makes this impossible
			}
			out[i].Wilson = iv
		}
	}
	return out
}

// InvariantCount is how many runs of a variant violated an invariant.
type InvariantCount struct {
	Variant   string `json:"variant"`
	Invariant string `json:"invariant"`
	Runs      int    `json:"runs"`
}

// LoadTable reads datasets into the tables the report and weft stats
// share: the tally per variant and run (variants in manifest order; runs
// named "campaign/run" when the rows come from several campaigns) and the
// violated runs per invariant.
func LoadTable(dirs ...string) (analysis.Table, []InvariantCount, error) {
	srcs, err := loadSources(dirs)
	if err != nil {
		return analysis.Table{}, nil, err
	}
	t, err := tally(srcs, runNamer(srcs))
	if err != nil {
		return analysis.Table{}, nil, err
	}
	return t, invariantCounts(srcs, t.Variants), nil
}

// invariantCounts tallies violated invariants per variant, variants in
// table order and invariants in order of first appearance.
func invariantCounts(srcs []Source, variants []analysis.TallyRow) []InvariantCount {
	var invs []string
	counts := map[[2]string]int{}
	for _, s := range srcs {
		for _, r := range s.Rows {
			if r.Verdict != dataset.Violated {
				continue
			}
			for _, inv := range r.ViolatedInvariants {
				if !slices.Contains(invs, inv) {
					invs = append(invs, inv)
				}
				counts[[2]string{r.Variant, inv}]++
			}
		}
	}
	var out []InvariantCount
	for _, v := range variants {
		for _, inv := range invs {
			if n := counts[[2]string{v.Variant, inv}]; n > 0 {
				out = append(out, InvariantCount{Variant: v.Variant, Invariant: inv, Runs: n})
			}
		}
	}
	return out
}

// ViolationSet counts a variant's violated runs that broke exactly one set
// of invariants. Each violated run is in one set, so a variant's sets add
// up to its violated runs (the rates table's count).
type ViolationSet struct {
	Variant    string   `json:"variant"`
	Invariants []string `json:"invariants"` // sorted
	Runs       int      `json:"runs"`
}

// Label names the set: "a", or "a + b" for runs that broke both.
func (s ViolationSet) Label() string {
	if len(s.Invariants) == 0 {
		return "(none named)"
	}
	return strings.Join(s.Invariants, " + ")
}

// violationSets tallies the violated runs of each variant (table order) by
// their set of violated invariants, sets in order of first appearance.
func violationSets(srcs []Source, variants []analysis.TallyRow) []ViolationSet {
	var labels []string
	sets := map[string][]string{}
	counts := map[[2]string]int{}
	for _, s := range srcs {
		for _, r := range s.Rows {
			if r.Verdict != dataset.Violated {
				continue
			}
			invs := slices.Clone(r.ViolatedInvariants)
			slices.Sort(invs)
			invs = slices.Compact(invs)
			l := ViolationSet{Invariants: invs}.Label()
			if _, ok := sets[l]; !ok {
				sets[l] = invs
				labels = append(labels, l)
			}
			counts[[2]string{r.Variant, l}]++
		}
	}
	var out []ViolationSet
	for _, v := range variants {
		for _, l := range labels {
			if n := counts[[2]string{v.Variant, l}]; n > 0 {
				out = append(out, ViolationSet{Variant: v.Variant, Invariants: sets[l], Runs: n})
			}
		}
	}
	return out
}
