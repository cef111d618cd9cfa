package analysis

import (
	"errors"
	"math"
)

// RateRow is one group's violation rate with both intervals.
type RateRow struct {
	Count
	Rate           float64  `json:"rate"`
	Wilson         Interval `json:"wilson"`
	ClopperPearson Interval `json:"clopper_pearson"`
	// Runs, Invalid and Errors come from verdict rows (zero for counts).
	Runs    int `json:"runs,omitempty"`
	Invalid int `json:"invalid,omitempty"`
	Errors  int `json:"errors,omitempty"`
}

// DriftRow is the homogeneity test across the runs of one variant.
type DriftRow struct {
	Variant string  `json:"variant"`
	Runs    []Count `json:"runs"`
	ChiSquareResult
}

// PowerRow states what a finished comparison of A and B could detect, for
// the two-sided two-proportion z-test at α = 1 − Level.
type PowerRow struct {
	A string `json:"a"`
	B string `json:"b"`
	// MinimumDetectableDifference is the smallest drop from the higher of
	// the two observed rates that the campaign's sizes detect with the
	// target power (omitted when undetectable).
	MinimumDetectableDifference *float64 `json:"minimum_detectable_difference,omitempty"`
	// TrialsForObserved is the number of valid runs per variant needed to
	// detect the observed difference with the target power (omitted when
	// the observed rates are equal).
	TrialsForObserved *float64 `json:"trials_for_observed,omitempty"`
	// SeedsForObserved is TrialsForObserved divided by the smaller of the
	// two variants' fractions of valid runs (valid/runs): the seeds per
	// variant a campaign needs once invalid runs and errors are discarded.
	// Omitted when every run was valid or the fraction is unknown.
	SeedsForObserved *float64 `json:"seeds_for_observed,omitempty"`
	// PowerForDifference is the power the campaign had against a drop of
	// SummaryOptions.Difference from the higher observed rate (omitted
	// when no difference was asked for).
	PowerForDifference *float64 `json:"power_for_difference,omitempty"`
}

// SummaryOptions tunes Summarize; the zero value gives the defaults.
type SummaryOptions struct {
	// Level is the confidence level of intervals (default 0.95); tests
	// use α = 1 − Level.
	Level float64
	// Power is the target power of the power table (default 0.8).
	Power float64
	// Difference, if positive, adds the power each comparison had to
	// detect a drop of that size from the higher rate.
	Difference float64
	_          struct{}
}

// withDefaults fills zero fields and checks the ranges.
func (o SummaryOptions) withDefaults() SummaryOptions {
	if o.Level == 0 {
		o.Level = 0.95
	}
	if o.Power == 0 {
		o.Power = 0.8
	}
	checkLevel(o.Level)
	checkLevel(o.Power)
	if !(o.Difference >= 0 && o.Difference < 1) {
		panic("analysis: SummaryOptions.Difference outside [0, 1)")
	}
	return o
}

// Summary is the standard set of tables for groups in a given order.
type Summary struct {
	Level      float64   `json:"level"`
	PowerLevel float64   `json:"power_target"`
	Difference float64   `json:"difference,omitempty"`
	Rates      []RateRow `json:"rates"`
	// RunRates are the rates of each run of each variant (verdict rows or
	// "variant@run" counts).
	RunRates []RateRow `json:"run_rates,omitempty"`
	// Homogeneity tests all groups for one common rate (k ≥ 2).
	Homogeneity *ChiSquareResult `json:"homogeneity,omitempty"`
	// Trend is the Cochran–Armitage test over the given order (k ≥ 3),
	// scores 0, 1, …, k−1, two-sided.
	Trend *TrendResult `json:"trend,omitempty"`
	Pairs []PairTest   `json:"pairs,omitempty"`
	Power []PowerRow   `json:"power,omitempty"`
	// Drift tests each variant with at least two runs for one common rate.
	Drift []DriftRow `json:"drift,omitempty"`
	// Paired compares every pair of variants seed by seed (McNemar's exact
	// test) within the first run; only for tables tallied from verdict
	// rows, where each seed gives every variant the same fault schedule.
	Paired []PairedTest `json:"paired,omitempty"`
}

// Summarize computes the standard tables for the variants of t in their
// order (the order of the trend test). Variants without valid runs are
// listed without intervals and left out of the tests.
func Summarize(t Table, opt SummaryOptions) (Summary, error) {
	opt = opt.withDefaults()
	s := Summary{Level: opt.Level, PowerLevel: opt.Power, Difference: opt.Difference}
	var tested []Count
	for _, r := range t.Variants {
		row := rateRow(r, opt.Level)
		if row.Trials > 0 {
			tested = append(tested, row.Count)
		}
		s.Rates = append(s.Rates, row)
	}
	if len(s.Rates) == 0 {
		return s, errors.New("analysis: nothing to summarise")
	}
	for _, r := range t.Runs {
		s.RunRates = append(s.RunRates, rateRow(r, opt.Level))
	}
	if err := s.compare(tested, opt); err != nil {
		return s, err
	}
	if t.outcomes != nil {
		names := make([]string, len(t.Variants))
		for i, v := range t.Variants {
			names[i] = v.Variant
		}
		var err error
		if s.Paired, err = PairedComparisons(t.outcomes, names); err != nil {
			return s, err
		}
	}
	for _, v := range t.Variants {
		if runs := t.RunCounts(v.Variant); len(runs) >= 2 {
			if chi, err := ChiSquareHomogeneity(runs); err == nil {
				s.Drift = append(s.Drift, DriftRow{Variant: v.Variant, Runs: runs, ChiSquareResult: chi})
			}
		}
	}
	return s, nil
}

// rateRow returns r's rate with intervals (zero rate and intervals when r
// has no valid run).
func rateRow(r TallyRow, level float64) RateRow {
	row := RateRow{Count: r.Count(), Runs: r.Runs, Invalid: r.Invalid, Errors: r.Errors}
	if row.Trials > 0 {
		row.Rate = row.Count.Rate()
		row.Wilson, _ = WilsonInterval(row.Count, level)
		row.ClopperPearson, _ = ClopperPearsonInterval(row.Count, level)
	}
	return row
}

// compare fills the multi-group tables when there are at least two groups.
func (s *Summary) compare(groups []Count, opt SummaryOptions) error {
	if len(groups) < 2 {
		return nil
	}
	chi, err := ChiSquareHomogeneity(groups)
	if err != nil {
		return err
	}
	s.Homogeneity = &chi
	if len(groups) >= 3 {
		tr, _ := CochranArmitageTrend(groups, nil, TwoSided)
		s.Trend = &tr
	}
	if s.Pairs, err = PairwiseComparisons(groups, opt.Level); err != nil {
		return err
	}
	for _, p := range s.Pairs {
		row := powerRow(find(groups, p.A), find(groups, p.B), opt)
		if f := min(s.validFraction(p.A), s.validFraction(p.B)); row.TrialsForObserved != nil && f > 0 && f < 1 {
			seeds := *row.TrialsForObserved / f
			row.SeedsForObserved = &seeds
		}
		s.Power = append(s.Power, row)
	}
	return nil
}

// validFraction returns valid/runs of the named group (1 when unknown).
func (s *Summary) validFraction(name string) float64 {
	for _, r := range s.Rates {
		if r.Group == name && r.Runs > 0 {
			return float64(r.Trials) / float64(r.Runs)
		}
	}
	return 1
}

func find(groups []Count, name string) Count {
	for _, g := range groups {
		if g.Group == name {
			return g
		}
	}
	panic("analysis: group vanished: " + name)
}

// powerRow computes the power table entry for a and b.
func powerRow(a, b Count, opt SummaryOptions) PowerRow {
	row := PowerRow{A: a.Group, B: b.Group}
	alpha := 1 - opt.Level
	hi := math.Max(a.Rate(), b.Rate())
	if mdd := MinimumDetectableDifference(hi, a.Trials, b.Trials, alpha, opt.Power); !math.IsNaN(mdd) {
		row.MinimumDetectableDifference = &mdd
	}
	if a.Rate() != b.Rate() {
		n := TwoProportionSampleSize(a.Rate(), b.Rate(), alpha, opt.Power)
		row.TrialsForObserved = &n
	}
	if d := opt.Difference; d > 0 {
		pw := TwoProportionPower(hi, math.Max(0, hi-d), a.Trials, b.Trials, alpha)
		row.PowerForDifference = &pw
	}
	return row
}
