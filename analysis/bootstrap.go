package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// ErrUndefinedStatistic is returned by BootstrapInterval when the statistic
// is NaN on the data or on a resample.
var ErrUndefinedStatistic = errors.New("analysis: statistic undefined")

// BootstrapInterval returns statistic(rows) with a percentile bootstrap
// interval at confidence level level. Each of the resamples draws, within
// every (Variant, Run) stratum, as many rows as the stratum holds, with
// replacement, so the design (seeds per variant and run) is kept:
//
//	θ̂ = statistic(rows),  θ*_b = statistic(resample_b), b = 1…B
//	interval = [Q(α/2), Q(1−α/2)] of {θ*_b}  (stat.Empirical quantiles)
//
// The result depends only on rows and the state of rng, so a seeded rng,
// e.g. rand.New(rand.NewPCG(seed, 0)), makes it reproducible. It panics if
// resamples < 1 or rng is nil; it returns ErrUndefinedStatistic when the
// statistic is NaN on the data or a resample.
//
// Reference: B. Efron and R. J. Tibshirani, An Introduction to the
// Bootstrap (1993), ch. 13.
func BootstrapInterval(rows []Outcome, statistic func([]Outcome) float64, resamples int, level float64, rng *rand.Rand) (Estimate, error) {
	checkLevel(level)
	if resamples < 1 || rng == nil {
		panic("analysis: BootstrapInterval needs resamples ≥ 1 and a non-nil rng")
	}
	est := statistic(rows)
	if math.IsNaN(est) {
		return Estimate{}, fmt.Errorf("%w on the data", ErrUndefinedStatistic)
	}
	strata := stratify(rows)
	buf := make([]Outcome, len(rows))
	thetas := make([]float64, resamples)
	for b := range thetas {
		i := 0
		for _, s := range strata {
			for range s {
				buf[i] = s[rng.IntN(len(s))]
				i++
			}
		}
		thetas[b] = statistic(buf)
		if math.IsNaN(thetas[b]) {
			return Estimate{}, fmt.Errorf("%w on resample %d", ErrUndefinedStatistic, b)
		}
	}
	sort.Float64s(thetas)
	alpha := 1 - level
	return Estimate{Value: est, Interval: Interval{
		Lower: stat.Quantile(alpha/2, stat.Empirical, thetas, nil),
		Upper: stat.Quantile(1-alpha/2, stat.Empirical, thetas, nil),
	}}, nil
}

// stratify groups rows by (Variant, Run) in order of first appearance.
func stratify(rows []Outcome) [][]Outcome {
	idx := map[[2]string]int{}
	var out [][]Outcome
	for _, r := range rows {
		k := [2]string{r.Variant, r.Run}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], r)
	}
	return out
}
