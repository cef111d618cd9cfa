package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The verdicts of a verdict row (ARCHITECTURE.md, "Verdict row").
const (
	VerdictHolds    = "holds"
	VerdictViolated = "violated"
	VerdictInvalid  = "invalid"
	VerdictError    = "error"
)

// Outcome is the part of a verdict row that statistics need: one seed of one
// variant in one run (campaign repetition).
type Outcome struct {
	Variant string `json:"variant"`
	Run     string `json:"run"`
	Verdict string `json:"verdict"`
	Seed    int64  `json:"seed"`
}

// TallyRow counts the outcomes of one variant (Run == "") or of one run of a
// variant. Valid runs are those that held or violated; invalid runs broke a
// fault precondition and errors are tool failures: both are excluded from
// the rate and reported.
type TallyRow struct {
	Variant  string `json:"variant"`
	Run      string `json:"run,omitempty"`
	Runs     int    `json:"runs"`
	Valid    int    `json:"valid"`
	Invalid  int    `json:"invalid"`
	Violated int    `json:"violated"`
	Errors   int    `json:"errors"`
}

// Rate returns Violated/Valid, NaN when no run was valid.
func (r TallyRow) Rate() float64 { return r.Count().Rate() }

// Name returns "variant" or "variant@run".
func (r TallyRow) Name() string {
	if r.Run == "" {
		return r.Variant
	}
	return r.Variant + "@" + r.Run
}

// Count returns the row as violations over valid runs, named by Name.
func (r TallyRow) Count() Count {
	return Count{Group: r.Name(), Successes: r.Violated, Trials: r.Valid}
}

// add counts one verdict.
func (r *TallyRow) add(verdict string) error {
	switch verdict {
	case VerdictHolds:
		r.Valid++
	case VerdictViolated:
		r.Valid++
		r.Violated++
	case VerdictInvalid:
		r.Invalid++
	case VerdictError:
		r.Errors++
	default:
		return fmt.Errorf("analysis: unknown verdict %q", verdict)
	}
	r.Runs++
	return nil
}

// Table is a tally per variant and per run of each variant, both in order
// of first appearance (which is the order used for trend tests).
type Table struct {
	Variants []TallyRow `json:"variants"`
	Runs     []TallyRow `json:"runs"`
	// outcomes are the verdict rows the table was tallied from (nil for a
	// table built from counts): Summarize pairs variants seed by seed.
	outcomes []Outcome
}

// Tally counts outcomes per variant and per (variant, run). It returns an
// error for a verdict other than holds, violated, invalid or error.
func Tally(outcomes []Outcome) (Table, error) {
	var t Table
	vi, ri := map[string]int{}, map[[2]string]int{}
	for _, o := range outcomes {
		v := indexOf(vi, o.Variant, &t.Variants, TallyRow{Variant: o.Variant})
		r := indexOf(ri, [2]string{o.Variant, o.Run}, &t.Runs, TallyRow{Variant: o.Variant, Run: o.Run})
		if err := t.Variants[v].add(o.Verdict); err != nil {
			return Table{}, fmt.Errorf("%w (variant %q, run %q, seed %d)", err, o.Variant, o.Run, o.Seed)
		}
		_ = t.Runs[r].add(o.Verdict)
	}
	t.outcomes = slices.Clone(outcomes) // the caller may reuse its slice
	return t, nil
}

// indexOf returns the index of key in rows, appending fresh if absent.
func indexOf[K comparable](idx map[K]int, key K, rows *[]TallyRow, fresh TallyRow) int {
	if i, ok := idx[key]; ok {
		return i
	}
	idx[key] = len(*rows)
	*rows = append(*rows, fresh)
	return idx[key]
}

// TableFromCounts builds a Table from counts (successes = violations,
// trials = valid runs). A group named "variant@run" is one run of a variant;
// the variant's row is then the sum of its runs. A group without "@" is a
// variant with a single unnamed run. A variant given both ways, or a group
// given twice, is an error.
func TableFromCounts(counts []Count) (Table, error) {
	var t Table
	vi, seen := map[string]int{}, map[string]bool{}
	plain, byRun := map[string]bool{}, map[string]bool{}
	for _, c := range counts {
		if err := c.validate(); err != nil {
			return Table{}, err
		}
		if seen[c.Group] {
			return Table{}, fmt.Errorf("analysis: group %q given twice", c.Group)
		}
		seen[c.Group] = true
		variant, run, hasRun := strings.Cut(c.Group, "@")
		if plain[variant] || (!hasRun && byRun[variant]) {
			return Table{}, fmt.Errorf("analysis: variant %q given both whole and by run", variant)
		}
		plain[variant], byRun[variant] = !hasRun, hasRun
		row := TallyRow{Variant: variant, Run: run, Runs: c.Trials, Valid: c.Trials, Violated: c.Successes}
		if _, ok := vi[variant]; !ok {
			vi[variant] = len(t.Variants)
			t.Variants = append(t.Variants, TallyRow{Variant: variant})
		}
		v := &t.Variants[vi[variant]]
		v.Runs, v.Valid, v.Violated = v.Runs+row.Runs, v.Valid+row.Valid, v.Violated+row.Violated
		if hasRun {
			t.Runs = append(t.Runs, row)
		}
	}
	return t, nil
}

// Counts returns one Count per variant, in table order.
func (t Table) Counts() []Count {
	out := make([]Count, len(t.Variants))
	for i, r := range t.Variants {
		out[i] = r.Count()
	}
	return out
}

// RunCounts returns one Count per run of variant, in table order.
func (t Table) RunCounts(variant string) []Count {
	var out []Count
	for _, r := range t.Runs {
		if r.Variant == variant {
			out = append(out, r.Count())
		}
	}
	return out
}

// Variant returns the row of the named variant.
func (t Table) Variant(name string) (TallyRow, bool) {
	for _, r := range t.Variants {
		if r.Variant == name {
			return r, true
		}
	}
	return TallyRow{}, false
}

// ViolationRate returns a statistic for BootstrapInterval: the violation
// rate of variant over its valid rows (NaN when it has none).
func ViolationRate(variant string) func([]Outcome) float64 {
	return func(rows []Outcome) float64 {
		var r TallyRow
		for _, o := range rows {
			if o.Variant == variant {
				_ = r.add(o.Verdict)
			}
		}
		return r.Rate()
	}
}

// RateDifference returns a statistic for BootstrapInterval: the violation
// rate of variant a minus that of variant b.
func RateDifference(a, b string) func([]Outcome) float64 {
	ra, rb := ViolationRate(a), ViolationRate(b)
	return func(rows []Outcome) float64 {
		d := ra(rows) - rb(rows)
		if math.IsInf(d, 0) {
			return math.NaN()
		}
		return d
	}
}

// Reorder returns t with the variants named in order first, in that order,
// followed by the others in their current order; runs follow their
// variants. Names not in t are ignored. Use it to give the trend test the
// manifest's variant order.
func (t Table) Reorder(order []string) Table {
	rank := map[string]int{}
	for _, n := range order {
		if _, dup := rank[n]; !dup {
			rank[n] = len(rank)
		}
	}
	for _, r := range t.Variants {
		if _, ok := rank[r.Variant]; !ok {
			rank[r.Variant] = len(rank)
		}
	}
	out := Table{Variants: slices.Clone(t.Variants), Runs: slices.Clone(t.Runs), outcomes: t.outcomes}
	by := func(a, b TallyRow) int { return rank[a.Variant] - rank[b.Variant] }
	slices.SortStableFunc(out.Variants, by)
	slices.SortStableFunc(out.Runs, by)
	return out
}
