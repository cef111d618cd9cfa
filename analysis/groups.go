package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// ErrTooFewGroups is returned by tests that need at least two groups.
var ErrTooFewGroups = errors.New("analysis: at least two groups are needed")

// validateGroups checks every group and that there are at least two.
func validateGroups(groups []Count) error {
	if len(groups) < 2 {
		return fmt.Errorf("%w (got %d)", ErrTooFewGroups, len(groups))
	}
	for _, g := range groups {
		if err := g.validateRate(); err != nil {
			return err
		}
	}
	return nil
}

// pooled returns Σx, Σn over groups.
func pooled(groups []Count) (x, n int) {
	for _, g := range groups {
		x += g.Successes
		n += g.Trials
	}
	return x, n
}

// ChiSquareResult is the outcome of a chi-square test.
type ChiSquareResult struct {
	Statistic float64 `json:"statistic"`
	DF        int     `json:"df"`
	PValue    float64 `json:"p_value"`
	// MinExpected is the smallest expected cell count; below 5 the χ²
	// approximation is doubtful and an exact test should be preferred.
	MinExpected float64 `json:"min_expected"`
}

// ChiSquareHomogeneity returns Pearson's chi-square test that k ≥ 2 groups
// share one success rate (the k×2 table of successes and failures), without
// continuity correction:
//
//	p̄ = Σxᵢ / Σnᵢ,  Eᵢ = nᵢp̄
//	χ² = Σᵢ (xᵢ − Eᵢ)² / (nᵢ p̄ (1−p̄)),  df = k − 1
//
// When p̄ is 0 or 1 the groups cannot differ: χ² = 0, p = 1. This is the
// test of drift across repeated runs of one variant.
//
// Reference: Agresti, Categorical Data Analysis, 3rd ed., §3.2; equals
// scipy.stats.chi2_contingency(table, correction=False).
func ChiSquareHomogeneity(groups []Count) (ChiSquareResult, error) {
	if err := validateGroups(groups); err != nil {
		return ChiSquareResult{}, err
	}
	x, n := pooled(groups)
	p := float64(x) / float64(n)
	res := ChiSquareResult{DF: len(groups) - 1, PValue: 1, MinExpected: math.Inf(1)}
	for _, g := range groups {
		e := float64(g.Trials) * p
		res.MinExpected = math.Min(res.MinExpected, math.Min(e, float64(g.Trials)-e))
	}
	if x == 0 || x == n {
		return res, nil
	}
	for _, g := range groups {
		d := float64(g.Successes) - float64(g.Trials)*p
		res.Statistic += d * d / (float64(g.Trials) * p * (1 - p))
	}
	res.PValue = distuv.ChiSquared{K: float64(res.DF)}.Survival(res.Statistic)
	return res, nil
}

// TrendResult is the outcome of the Cochran–Armitage trend test.
type TrendResult struct {
	// Z > 0 means the rate rises with the score.
	Z      float64 `json:"z"`
	PValue float64 `json:"p_value"`
	// Alternative is the alternative hypothesis PValue refers to.
	Alternative string `json:"alternative"`
}

// CochranArmitageTrend returns the Cochran–Armitage test for a linear trend
// of the success rate over ordered groups with scores sᵢ (nil means
// 0, 1, …, k−1):
//
//	p̄ = Σxᵢ/N,  s̄ = Σnᵢsᵢ/N
//	T = Σ sᵢ(xᵢ − nᵢp̄)
//	Var(T) = p̄(1−p̄) Σ nᵢ(sᵢ − s̄)²
//	Z = T / √Var(T)
//
// Z² equals R's prop.trend.test statistic. Less tests a decreasing trend,
// Greater an increasing one. When p̄ is 0 or 1, Z = 0 and p = 1. It panics if
// len(scores) differs from len(groups) or the scores do not vary.
//
// Reference: W. G. Cochran, Biometrics 10 (1954) 417–451; P. Armitage,
// Biometrics 11 (1955) 375–386; Agresti, Categorical Data Analysis, 3rd
// ed., §5.3.5.
func CochranArmitageTrend(groups []Count, scores []float64, alt Alternative) (TrendResult, error) {
	if scores == nil {
		scores = make([]float64, len(groups))
		for i := range scores {
			scores[i] = float64(i)
		}
	}
	if len(scores) != len(groups) {
		panic("analysis: CochranArmitageTrend: scores and groups differ in length")
	}
	if err := validateGroups(groups); err != nil {
		return TrendResult{}, err
	}
	res := TrendResult{PValue: 1, Alternative: alt.String()}
	x, n := pooled(groups)
	p, N := float64(x)/float64(n), float64(n)
	var sbar float64
	for i, g := range groups {
		sbar += float64(g.Trials) * scores[i] / N
	}
	var t, ss float64
	for i, g := range groups {
		t += scores[i] * (float64(g.Successes) - float64(g.Trials)*p)
		ss += float64(g.Trials) * (scores[i] - sbar) * (scores[i] - sbar)
	}
	if ss == 0 {
		panic("analysis: CochranArmitageTrend: scores do not vary")
	}
	if x == 0 || x == n {
		return res, nil
	}
	res.Z = t / math.Sqrt(p*(1-p)*ss)
	res.PValue = normalPValue(res.Z, alt)
	return res, nil
}

// HolmAdjust returns Holm's step-down adjusted p-values, in the order of p:
// with p₍₁₎ ≤ … ≤ p₍ₘ₎,
//
//	p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1)·p₍ⱼ₎).
//
// Rejecting where p̃ ≤ α controls the family-wise error rate at α. It equals
// R's p.adjust(p, "holm").
//
// Reference: S. Holm, "A simple sequentially rejective multiple test
// procedure", Scand. J. Statist. 6 (1979) 65–70.
func HolmAdjust(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return p[idx[i]] < p[idx[j]] })
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range idx {
		running = math.Max(running, math.Min(1, float64(m-rank)*p[i]))
		adj[i] = running
	}
	return adj
}

// PairTest is one pairwise comparison of rate(A) with rate(B).
type PairTest struct {
	A string `json:"a"`
	B string `json:"b"`
	// FisherP is the two-sided Fisher exact p-value; HolmP is FisherP after
	// Holm's correction over all pairs.
	FisherP float64 `json:"fisher_p"`
	HolmP   float64 `json:"holm_p"`
	// Z and ZP are the pooled two-proportion z statistic and its two-sided
	// p-value.
	Z  float64 `json:"z"`
	ZP float64 `json:"z_p"`
	// RiskDifference is rate(A) − rate(B) (Newcombe interval).
	RiskDifference Estimate `json:"risk_difference"`
	// RiskRatio and OddsRatio are nil when a zero cell leaves them undefined.
	RiskRatio *Estimate `json:"risk_ratio,omitempty"`
	OddsRatio *Estimate `json:"odds_ratio,omitempty"`
}

// PairwiseComparisons compares every pair of groups (i < j, in the order
// given) with Fisher's exact test, corrects the p-values with HolmAdjust, and
// adds the z-test and the risk difference, risk ratio and odds ratio with
// intervals at confidence level level.
func PairwiseComparisons(groups []Count, level float64) ([]PairTest, error) {
	checkLevel(level)
	if err := validateGroups(groups); err != nil {
		return nil, err
	}
	var out []PairTest
	for i := range groups {
		for j := i + 1; j < len(groups); j++ {
			out = append(out, comparePair(groups[i], groups[j], level))
		}
	}
	ps := make([]float64, len(out))
	for i, t := range out {
		ps[i] = t.FisherP
	}
	for i, h := range HolmAdjust(ps) {
		out[i].HolmP = h
	}
	return out, nil
}

// comparePair fills a PairTest for two validated groups.
func comparePair(a, b Count, level float64) PairTest {
	t := PairTest{A: a.Group, B: b.Group}
	t.FisherP, _ = FisherExactTest(a, b, TwoSided)
	t.Z, t.ZP, _ = TwoProportionZTest(a, b, TwoSided)
	t.RiskDifference, _ = RiskDifference(a, b, level)
	if rr, err := RiskRatio(a, b, level); err == nil {
		t.RiskRatio = &rr
	}
	if or, err := OddsRatio(a, b, level); err == nil {
		t.OddsRatio = &or
	}
	return t
}
