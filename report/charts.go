package report

import (
	"fmt"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/analysis/charts"
)

// reportCharts are the dataset-wide charts; a nil chart is left out.
type reportCharts struct {
	rates, invariants, outcomes, drift *charts.Chart
}

// all lists the charts that exist, in page order.
// buildCharts draws the rates, invariant, outcome and drift charts.
func (r *Report) buildCharts(srcs []Source, run runFunc, level float64) (reportCharts, error) {
	var c reportCharts
	var err error
	pct := fmt.Sprintf("%g%%", 100*level)
	if bars := rateBars(r.Rates); len(bars) > 0 {
		if c.rates, err = charts.Rates("rates", bars); err != nil {
			return c, err
		}
		c.rates.Title = "Violation rate per variant (violated / valid runs, Wilson " + pct + ")"
	}
	if len(r.BySet) > 0 {
		if c.invariants, err = charts.Invariants("invariants", invariantRows(r.BySet, r.Table)); err != nil {
			return c, err
		}
		c.invariants.Title = "Violating runs by the invariants they broke (each run counted once)"
	}
	if c.outcomes, err = charts.Outcomes("outcomes", outcomeCells(srcs, run, r.Table)); err != nil {
		return c, err
	}
	c.outcomes.Title = "Outcome of every seed × variant"
	if rows := driftRows(r.Table, level); len(rows) > 0 {
		if c.drift, err = charts.Drift("drift", rows); err != nil {
			return c, err
		}
		c.drift.Title = "Violation rate across runs (Wilson " + pct + ")"
	}
	return c, nil
}

// invariantRows stacks each variant's violated runs by invariant set;
// variants without a violation get a zero bar, so every variant is on the
// axis.
func invariantRows(sets []ViolationSet, t analysis.Table) []charts.InvariantCount {
	var rows []charts.InvariantCount
	for _, v := range t.Variants {
		n := 0
		for _, s := range sets {
			if s.Variant == v.Variant {
				rows = append(rows, charts.InvariantCount{Variant: v.Variant, Invariant: s.Label(), Count: s.Runs})
				n++
			}
		}
		if n == 0 {
			rows = append(rows, charts.InvariantCount{Variant: v.Variant, Invariant: sets[0].Label(), Count: 0})
		}
	}
	return rows
}

// rateBars converts the variants with valid runs.
func rateBars(rates []VariantRate) []charts.RateBar {
	var out []charts.RateBar
	for _, v := range rates {
		if v.Valid > 0 {
			out = append(out, charts.RateBar{Variant: v.Variant, Rate: v.Rate, Lo: v.Wilson.Lower, Hi: v.Wilson.Upper, K: v.Violated, N: v.Valid})
		}
	}
	return out
}

// outcomeCells lists every row's verdict. A variant with several runs gets
// one line per run, named variant@run, so no cell is given twice.
func outcomeCells(srcs []Source, run runFunc, t analysis.Table) []charts.Outcome {
	runs := map[string]int{}
	for _, r := range t.Runs {
		runs[r.Variant]++
	}
	byLabel := map[string][]charts.Outcome{}
	for _, s := range srcs {
		for _, r := range s.Rows {
			label := r.Variant
			if runs[r.Variant] > 1 {
				label += "@" + run(r)
			}
			byLabel[label] = append(byLabel[label], charts.Outcome{Variant: label, Seed: r.Seed, Verdict: r.Verdict})
		}
	}
	// Lines follow the table: variants in order, their runs in order.
	var out []charts.Outcome
	for _, v := range t.Variants {
		if runs[v.Variant] <= 1 {
			out = append(out, byLabel[v.Variant]...)
			continue
		}
		for _, r := range t.Runs {
			if r.Variant == v.Variant {
				out = append(out, byLabel[v.Variant+"@"+r.Run]...)
			}
		}
	}
	return out
}

// driftRows are the per-run rates of the variants with at least two runs
// that have valid runs.
func driftRows(t analysis.Table, level float64) []charts.RunRate {
	runs := map[string]int{}
	for _, r := range t.Runs {
		if r.Valid > 0 {
			runs[r.Variant]++
		}
	}
	var out []charts.RunRate
	for _, r := range t.Runs {
		if runs[r.Variant] < 2 || r.Valid == 0 {
			continue
		}
		iv, err := analysis.WilsonInterval(r.Count(), level)
		if err != nil {
			panic("report: " + err.Error()) // Valid > 0 makes this impossible
		}
		out = append(out, charts.RunRate{Run: r.Run, Variant: r.Variant, Rate: r.Rate(), Lo: iv.Lower, Hi: iv.Upper, K: r.Violated, N: r.Valid})
	}
	return out
}
