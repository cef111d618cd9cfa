package analysis

import (
	"fmt"
	"slices"
)

// A seed fixes everything the environment draws — the fault schedule, and
// message latencies until the variants' behaviour diverges — so the
// variants of one campaign run are compared on common random numbers: each
// seed is a matched pair. The paired test uses only the seeds where the two
// variants disagree, which is why it can see a difference that the
// unpaired tests (which also carry the variation between seeds) cannot.

// PairedTest is the seed-by-seed comparison of variants A and B in one run.
type PairedTest struct {
	A   string `json:"a"`
	B   string `json:"b"`
	Run string `json:"run"`
	// Seeds is the number of seeds both variants ran; Valid of them were
	// valid (held or violated) in both.
	Seeds int `json:"seeds"`
	Valid int `json:"valid"`
	// Over the seeds valid in both: violated in both, in A only, in B only.
	BothViolated int `json:"both_violated"`
	OnlyA        int `json:"only_a"`
	OnlyB        int `json:"only_b"`
	// PValue is McNemar's exact test of H₀: P(only A) = P(only B) over the
	// discordant seeds, two-sided (1 when there are none).
	PValue float64 `json:"p"`
	// InvalidOnlyA and InvalidOnlyB count seeds invalid (a broken fault
	// precondition) in one variant and valid in the other: the same fault
	// schedule is legal for one protocol and not for the other, because the
	// precondition reads the protocol's state at the moment of each fault.
	// These seeds are outside the rates and outside PValue.
	InvalidOnlyA int `json:"invalid_only_a"`
	InvalidOnlyB int `json:"invalid_only_b"`
	// InvalidP is McNemar's exact test, two-sided, of H₀: the variants
	// make a schedule illegal equally often (InvalidOnlyA against
	// InvalidOnlyB). A small value means the rates above compare different
	// sets of seeds: validity depends on the variant.
	InvalidP float64 `json:"invalid_p"`
}

// McNemarExact returns the p-value of McNemar's exact test for a paired
// binary outcome: with b pairs positive in A only and c in B only, under
// H₀ each discordant pair is equally likely to go either way, so
//
//	b ~ Binomial(b + c, 1/2)
//
// and the p-value is BinomialTest's for b successes in b + c trials
// (1 when b + c = 0). Concordant pairs carry no information about the
// difference and do not enter.
//
// Reference: Q. McNemar, "Note on the sampling error of the difference
// between correlated proportions or percentages", Psychometrika 12 (1947)
// 153–157; the exact (conditional binomial) form as in A. Agresti,
// Categorical Data Analysis, 3rd ed., §11.1.
func McNemarExact(b, c int, alt Alternative) (float64, error) {
	if b < 0 || c < 0 {
		return 0, fmt.Errorf("analysis: negative discordant count (%d, %d)", b, c)
	}
	if b+c == 0 {
		return 1, nil
	}
	return BinomialTest(Count{Successes: b, Trials: b + c}, 0.5, alt)
}

// PairedComparisons compares every pair of variants (i < j in the order
// given) seed by seed within the first run of the outcomes (runs of one
// campaign repeat the same seeds, so pairing across runs would count a seed
// twice; the drift test covers repeated runs). Errors in either variant
// leave a seed out; a pair without a common seed is left out.
func PairedComparisons(outcomes []Outcome, variants []string) ([]PairedTest, error) {
	if len(outcomes) == 0 {
		return nil, nil
	}
	run := outcomes[0].Run
	verdict := map[string]map[int64]string{}
	for _, o := range outcomes {
		if o.Run != run {
			continue
		}
		if err := new(TallyRow).add(o.Verdict); err != nil { // the one place that knows the verdicts
			return nil, fmt.Errorf("%w (variant %q, seed %d)", err, o.Variant, o.Seed)
		}
		if verdict[o.Variant] == nil {
			verdict[o.Variant] = map[int64]string{}
		}
		if _, dup := verdict[o.Variant][o.Seed]; dup {
			return nil, fmt.Errorf("analysis: variant %q seed %d twice in run %q", o.Variant, o.Seed, run)
		}
		verdict[o.Variant][o.Seed] = o.Verdict
	}
	var out []PairedTest
	for i, a := range variants {
		for _, b := range variants[i+1:] {
			if verdict[a] == nil || verdict[b] == nil {
				continue
			}
			t := pairSeeds(verdict[a], verdict[b])
			if t.Seeds == 0 {
				continue // no common seed: nothing to pair
			}
			t.A, t.B, t.Run = a, b, run
			out = append(out, t)
		}
	}
	return out, nil
}

// pairSeeds fills the counts and the test of one pair of variants.
func pairSeeds(a, b map[int64]string) PairedTest {
	seeds := make([]int64, 0, len(a))
	for s := range a {
		if _, ok := b[s]; ok {
			seeds = append(seeds, s)
		}
	}
	slices.Sort(seeds)
	var t PairedTest
	valid := func(v string) bool { return v == VerdictHolds || v == VerdictViolated }
	for _, s := range seeds {
		va, vb := a[s], b[s]
		if va == VerdictError || vb == VerdictError {
			continue
		}
		t.Seeds++
		switch {
		case valid(va) && valid(vb):
			t.Valid++
			ya, yb := va == VerdictViolated, vb == VerdictViolated
			switch {
			case ya && yb:
				t.BothViolated++
			case ya:
				t.OnlyA++
			case yb:
				t.OnlyB++
			}
		case valid(vb):
			t.InvalidOnlyA++
		case valid(va):
			t.InvalidOnlyB++
		}
	}
	t.PValue, _ = McNemarExact(t.OnlyA, t.OnlyB, TwoSided)
	t.InvalidP, _ = McNemarExact(t.InvalidOnlyA, t.InvalidOnlyB, TwoSided)
	return t
}
