package analysis

import (
	"fmt"
	"slices"
)

// An intention-to-treat (ITT) outcome counts every seed in every variant: a
// run fails if it is violated or invalid. The rate over valid runs (Tally)
// drops a variant's invalid runs, and since a variant's own behaviour can
// make a schedule illegal, two variants' valid runs can be different sets of
// seeds; the ITT outcome compares the same seeds in every variant, so
// comparing it seed by seed cannot be biased by validity. Schedules that
// fail in both variants cancel out of the paired test.

// ITTRow is one variant's intention-to-treat tally: Failed of Runs−Errors
// seeds were violated or invalid (errors are tool failures, left out).
type ITTRow struct {
	Variant  string   `json:"variant"`
	Runs     int      `json:"runs"`
	Violated int      `json:"violated"`
	Invalid  int      `json:"invalid"`
	Errors   int      `json:"errors"`
	Failed   int      `json:"failed"` // Violated + Invalid
	Rate     float64  `json:"rate"`   // Failed / (Runs − Errors), NaN if none
	Interval Interval `json:"interval"`
}

// Count returns the row as failures over the seeds that ran without error.
func (r ITTRow) Count() Count {
	return Count{Group: r.Variant, Successes: r.Failed, Trials: r.Runs - r.Errors}
}

// ittFailed reports whether a verdict is an ITT failure.
func ittFailed(verdict string) bool {
	return verdict == VerdictViolated || verdict == VerdictInvalid
}

// IntentionToTreat tallies the ITT outcome of each variant of the first run
// of outcomes (see PairedComparisons for why one run), in order of first
// appearance, with Wilson intervals at level.
func IntentionToTreat(outcomes []Outcome, level float64) ([]ITTRow, error) {
	verdicts, order, err := firstRunVerdicts(outcomes)
	if err != nil {
		return nil, err
	}
	var out []ITTRow
	for _, v := range order {
		r := ITTRow{Variant: v}
		for _, verdict := range verdicts[v] {
			r.Runs++
			switch verdict {
			case VerdictViolated:
				r.Violated++
			case VerdictInvalid:
				r.Invalid++
			case VerdictError:
				r.Errors++
			}
		}
		r.Failed = r.Violated + r.Invalid
		r.Rate = r.Count().Rate()
		if r.Count().Trials > 0 {
			if r.Interval, err = WilsonInterval(r.Count(), level); err != nil {
				return nil, err
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// ITTPairedTest is the seed-by-seed comparison of the ITT outcome of
// variants A and B: over Seeds seeds that both ran without error, BothFailed
// failed in both, OnlyA in A only, OnlyB in B only. PValue is McNemar's exact
// test on OnlyA against OnlyB, two-sided; Errors seeds were left out.
type ITTPairedTest struct {
	A          string  `json:"a"`
	B          string  `json:"b"`
	Seeds      int     `json:"seeds"`
	BothFailed int     `json:"both_failed"`
	OnlyA      int     `json:"only_a"`
	OnlyB      int     `json:"only_b"`
	Errors     int     `json:"errors"`
	PValue     float64 `json:"p"`
}

// IntentionToTreatPaired compares the ITT outcome of every pair of variants
// (i < j in the order given) seed by seed, in the first run of outcomes. A
// variant without outcomes is an error.
func IntentionToTreatPaired(outcomes []Outcome, variants []string) ([]ITTPairedTest, error) {
	verdicts, _, err := firstRunVerdicts(outcomes)
	if err != nil {
		return nil, err
	}
	for _, v := range variants {
		if verdicts[v] == nil {
			return nil, fmt.Errorf("analysis: no outcomes of variant %q", v)
		}
	}
	var out []ITTPairedTest
	for i, a := range variants {
		for _, b := range variants[i+1:] {
			out = append(out, ittPair(a, b, verdicts[a], verdicts[b]))
		}
	}
	return out, nil
}

func ittPair(a, b string, va, vb map[int64]string) ITTPairedTest {
	t := ITTPairedTest{A: a, B: b}
	for _, s := range sortedKeys(va) {
		x, ok := vb[s]
		if !ok {
			continue
		}
		y := va[s]
		if x == VerdictError || y == VerdictError {
			t.Errors++
			continue
		}
		t.Seeds++
		fa, fb := ittFailed(y), ittFailed(x)
		switch {
		case fa && fb:
			t.BothFailed++
		case fa:
			t.OnlyA++
		case fb:
			t.OnlyB++
		}
	}
	t.PValue, _ = McNemarExact(t.OnlyA, t.OnlyB, TwoSided)
	return t
}

// firstRunVerdicts maps variant → seed → verdict over the first run of
// outcomes, checking verdicts and duplicates; order lists the variants in
// order of first appearance.
func firstRunVerdicts(outcomes []Outcome) (verdicts map[string]map[int64]string, order []string, err error) {
	verdicts = map[string]map[int64]string{}
	if len(outcomes) == 0 {
		return verdicts, nil, nil
	}
	run := outcomes[0].Run
	for _, o := range outcomes {
		if o.Run != run {
			continue
		}
		if err := new(TallyRow).add(o.Verdict); err != nil {
			return nil, nil, fmt.Errorf("%w (variant %q, seed %d)", err, o.Variant, o.Seed)
		}
		if verdicts[o.Variant] == nil {
			verdicts[o.Variant] = map[int64]string{}
			order = append(order, o.Variant)
		}
		if _, dup := verdicts[o.Variant][o.Seed]; dup {
			return nil, nil, fmt.Errorf("analysis: variant %q seed %d twice in run %q", o.Variant, o.Seed, run)
		}
		verdicts[o.Variant][o.Seed] = o.Verdict
	}
	return verdicts, order, nil
}

// sortedKeys returns the seeds of m in ascending order.
func sortedKeys[V any](m map[int64]V) []int64 {
	seeds := make([]int64, 0, len(m))
	for s := range m {
		seeds = append(seeds, s)
	}
	slices.Sort(seeds)
	return seeds
}
