package analysis

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// FactorialEffect is one effect of a two-level full factorial design: a
// main effect (one factor) or an interaction (several).
type FactorialEffect struct {
	Mask    int      `json:"mask"`    // the factors of the contrast, bit i = factor i
	Factors []string `json:"factors"` // their names, in factor order
	Units   int      `json:"units"`   // units (seeds) averaged over
	Estimate
	// Positive and Negative count the units whose contrast is above or
	// below 0; SignP is the exact two-sided sign test of H₀: a unit's
	// contrast is as likely above 0 as below (McNemarExact on the two
	// counts), which needs no normal approximation when few units differ.
	Positive int     `json:"positive"`
	Negative int     `json:"negative"`
	SignP    float64 `json:"sign_p"`
}

// Name returns the factors joined by "×".
func (e FactorialEffect) Name() string { return strings.Join(e.Factors, "×") }

// FactorialEffects returns every effect of a full 2^k factorial design in
// which each unit is observed at all 2^k combinations of the k factors:
// y[u][c] is unit u's response at combination c, where bit i of c is set
// when factor i is at its high level ("on"). For a set S of factors, unit
// u's contrast is Yates' effect, the mean response where sign_S is +1 minus
// the mean where it is −1:
//
//	e_S(u) = 2^(1−k) · Σ_c sign_S(c) · y[u][c],   sign_S(c) = Π_{i∈S} (+1 if bit i of c is set, else −1)
//
// The effect is the mean of e_S over the units, with the normal interval
// mean ± z·sd/√n over units at level (the units are independent; the
// combinations of one unit are paired), and the exact sign test of the
// contrasts. With fewer than two units the interval bounds are NaN. names has one name per factor (k = len(names));
// effects come in order of the number of factors, then of Mask.
//
// Reference: G. E. P. Box, J. S. Hunter, W. G. Hunter, Statistics for
// Experimenters, 2nd ed. (Wiley 2005), §5.4–5.6 (effects of a 2^k factorial
// as differences of means, and their calculation with the table of signs).
func FactorialEffects(y [][]float64, names []string, level float64) ([]FactorialEffect, error) {
	k := len(names)
	if k < 1 || k > 16 {
		return nil, fmt.Errorf("analysis: a factorial design needs 1 to 16 factors, got %d", k)
	}
	if len(y) == 0 {
		return nil, fmt.Errorf("analysis: a factorial design needs at least one unit")
	}
	if level <= 0 || level >= 1 {
		return nil, fmt.Errorf("analysis: confidence level %v outside (0, 1)", level)
	}
	cells := 1 << k
	for u, row := range y {
		if len(row) != cells {
			return nil, fmt.Errorf("analysis: unit %d has %d responses, want 2^%d = %d", u, len(row), k, cells)
		}
	}
	masks := make([]int, 0, cells-1)
	for s := 1; s < cells; s++ {
		masks = append(masks, s)
	}
	slices.SortStableFunc(masks, func(a, b int) int { return bits.OnesCount(uint(a)) - bits.OnesCount(uint(b)) })
	z := normalQuantile(1 - (1-level)/2)
	out := make([]FactorialEffect, 0, len(masks))
	for _, s := range masks {
		e := FactorialEffect{Mask: s, Units: len(y)}
		for i := range k {
			if s&(1<<i) != 0 {
				e.Factors = append(e.Factors, names[i])
			}
		}
		contrasts := make([]float64, len(y))
		for u, row := range y {
			contrasts[u] = contrast(row, s)
			switch {
			case contrasts[u] > 0:
				e.Positive++
			case contrasts[u] < 0:
				e.Negative++
			}
		}
		e.SignP, _ = McNemarExact(e.Positive, e.Negative, TwoSided)
		mean, sd := meanSD(contrasts)
		e.Value = mean
		e.Lower, e.Upper = math.NaN(), math.NaN()
		if len(y) > 1 {
			half := z * sd / math.Sqrt(float64(len(y)))
			e.Lower, e.Upper = mean-half, mean+half
		}
		out = append(out, e)
	}
	return out, nil
}

// contrast is Yates' effect of the factor set s over one unit's responses.
func contrast(row []float64, s int) float64 {
	var sum float64
	for c, v := range row {
		if bits.OnesCount(uint(^c&s))%2 == 0 { // an even number of factors of s low: sign +1
			sum += v
		} else {
			sum -= v
		}
	}
	return 2 * sum / float64(len(row))
}

// meanSD returns the mean and the sample standard deviation (n − 1).
func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// FactorialResponses arranges the first run of outcomes as the responses of
// a 2^k factorial design with seeds as units: variants[c] is the variant
// built at combination c (len(variants) must be a power of two), and
// response maps a verdict to the response (e.g. 1 for violated, else 0).
// Seeds that some variant lacks, or on which some variant ended in an
// error, are left out and counted in dropped; seeds come in ascending order.
func FactorialResponses(outcomes []Outcome, variants []string, response func(verdict string) float64) (y [][]float64, seeds []int64, dropped int, err error) {
	if n := len(variants); n < 2 || n&(n-1) != 0 {
		return nil, nil, 0, fmt.Errorf("analysis: %d variants is not 2^k (k ≥ 1)", n)
	}
	verdicts, _, err := firstRunVerdicts(outcomes)
	if err != nil {
		return nil, nil, 0, err
	}
	all := map[int64]bool{}
	for _, v := range variants {
		if verdicts[v] == nil {
			return nil, nil, 0, fmt.Errorf("analysis: no outcomes of variant %q", v)
		}
		for s := range verdicts[v] {
			all[s] = true
		}
	}
	for _, s := range sortedKeys(all) {
		row := make([]float64, len(variants))
		ok := true
		for c, v := range variants {
			verdict, ran := verdicts[v][s]
			if !ran || verdict == VerdictError {
				ok = false
				break
			}
			row[c] = response(verdict)
		}
		if !ok {
			dropped++
			continue
		}
		y = append(y, row)
		seeds = append(seeds, s)
	}
	return y, seeds, dropped, nil
}

// Response functions for FactorialResponses.

// ResponseViolated is 1 for a violated run, else 0.
func ResponseViolated(verdict string) float64 { return b2f(verdict == VerdictViolated) }

// ResponseInvalid is 1 for an invalid run, else 0.
func ResponseInvalid(verdict string) float64 { return b2f(verdict == VerdictInvalid) }

// ResponseITT is 1 for an intention-to-treat failure (violated or invalid),
// else 0.
func ResponseITT(verdict string) float64 { return b2f(ittFailed(verdict)) }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
