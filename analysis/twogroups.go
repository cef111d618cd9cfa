package analysis

import (
	"errors"
	"fmt"
	"math"
)

// Estimate is a point estimate with its confidence interval.
type Estimate struct {
	Value float64 `json:"value"`
	Interval
}

// ErrZeroCell is returned by ratio estimates whose log-scale interval is
// undefined because a cell of the 2×2 table is zero.
var ErrZeroCell = errors.New("analysis: zero cell in 2×2 table")

// validatePair checks both groups of a two-group comparison.
func validatePair(a, b Count) error {
	if err := a.validateRate(); err != nil {
		return err
	}
	return b.validateRate()
}

// FisherExactTest returns the p-value of Fisher's exact test comparing the
// success rates of groups a and b, i.e. of the 2×2 table
//
//	| x₁  n₁−x₁ |
//	| x₂  n₂−x₂ |
//
// conditional on its margins: X₁ is hypergeometric,
// P(X₁ = k) = C(n₁, k)·C(n₂, m−k) / C(n₁+n₂, m) with m = x₁+x₂.
// Less tests rate(a) < rate(b) (p = P(X₁ ≤ x₁)), Greater tests
// rate(a) > rate(b) (p = P(X₁ ≥ x₁)); TwoSided sums the probabilities of all
// tables no more likely than the observed one (relative tolerance 10⁻⁷),
// as R's fisher.test and SciPy's fisher_exact do.
//
// Reference: R. A. Fisher, Statistical Methods for Research Workers, 5th ed.
// (1934) §21.02; Agresti, Categorical Data Analysis, 3rd ed., §3.5.
func FisherExactTest(a, b Count, alt Alternative) (float64, error) {
	if err := validatePair(a, b); err != nil {
		return 0, err
	}
	n1, n2, m := a.Trials, b.Trials, a.Successes+b.Successes
	lo, hi := max(0, m-n2), min(n1, m)
	logp := make([]float64, hi-lo+1)
	for k := lo; k <= hi; k++ {
		logp[k-lo] = logChoose(n1, k) + logChoose(n2, m-k)
	}
	obs := a.Successes - lo
	switch alt {
	case Less:
		return tailSum(logp, 0, obs), nil
	case Greater:
		return tailSum(logp, obs, len(logp)-1), nil
	}
	return twoSidedSum(logp, obs), nil
}

// tailSum returns Σ_{i∈[from,to]} exp(logp[i]) / Σ_i exp(logp[i]).
func tailSum(logp []float64, from, to int) float64 {
	lmax := math.Inf(-1)
	for _, l := range logp {
		lmax = math.Max(lmax, l)
	}
	var total, tail float64
	for i, l := range logp {
		p := math.Exp(l - lmax)
		total += p
		if i >= from && i <= to {
			tail += p
		}
	}
	return clamp01(tail / total)
}

// TwoProportionZTest returns the statistic and p-value of the pooled
// two-proportion z-test of H₀: rate(a) = rate(b):
//
//	p̄ = (x₁+x₂)/(n₁+n₂)
//	z = (x₁/n₁ − x₂/n₂) / √(p̄(1−p̄)(1/n₁ + 1/n₂))
//
// z² equals Pearson's χ² for the 2×2 table without continuity correction
// (R's prop.test(correct = FALSE)). When p̄ is 0 or 1 the groups cannot
// differ: z = 0 and p = 1.
//
// Reference: Agresti, Categorical Data Analysis, 3rd ed., §3.2.
func TwoProportionZTest(a, b Count, alt Alternative) (z, p float64, err error) {
	if err := validatePair(a, b); err != nil {
		return 0, 0, err
	}
	n1, n2 := float64(a.Trials), float64(b.Trials)
	pool := float64(a.Successes+b.Successes) / (n1 + n2)
	if pool == 0 || pool == 1 {
		return 0, 1, nil
	}
	z = (a.Rate() - b.Rate()) / math.Sqrt(pool*(1-pool)*(1/n1+1/n2))
	return z, normalPValue(z, alt), nil
}

// normalPValue returns the p-value of a standard normal statistic z.
func normalPValue(z float64, alt Alternative) float64 {
	switch alt {
	case Less:
		return normalCDF(z)
	case Greater:
		return normalCDF(-z)
	}
	return 2 * normalCDF(-math.Abs(z))
}

// normalCDF is Φ(z), accurate in the far tails.
func normalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// RiskDifference returns rate(a) − rate(b) with Newcombe's hybrid score
// interval (his method 10), built from the Wilson intervals (l₁,u₁) and
// (l₂,u₂) of the two rates:
//
//	δ = p̂₁ − p̂₂
//	Lower = δ − √((p̂₁−l₁)² + (u₂−p̂₂)²)
//	Upper = δ + √((u₁−p̂₁)² + (p̂₂−l₂)²)
//
// It is defined for zero counts and lies in [−1, 1].
//
// Reference: R. G. Newcombe, "Interval estimation for the difference
// between independent proportions: comparison of eleven methods", Statistics
// in Medicine 17 (1998) 873–890.
func RiskDifference(a, b Count, level float64) (Estimate, error) {
	checkLevel(level)
	if err := validatePair(a, b); err != nil {
		return Estimate{}, err
	}
	w1, _ := WilsonInterval(a, level)
	w2, _ := WilsonInterval(b, level)
	p1, p2 := a.Rate(), b.Rate()
	d := p1 - p2
	return Estimate{Value: d, Interval: Interval{
		Lower: d - math.Hypot(p1-w1.Lower, w2.Upper-p2),
		Upper: d + math.Hypot(w1.Upper-p1, p2-w2.Lower),
	}}, nil
}

// RiskRatio returns rate(a)/rate(b) with the Katz log interval:
//
//	RR = (x₁/n₁)/(x₂/n₂)
//	se(log RR) = √(1/x₁ − 1/n₁ + 1/x₂ − 1/n₂)
//	interval = RR·exp(∓z·se)
//
// It returns ErrZeroCell when x₁ or x₂ is zero.
//
// Reference: D. Katz, J. Baptista, S. P. Azen, M. C. Pike, "Obtaining
// confidence intervals for the risk ratio in cohort studies", Biometrics 34
// (1978) 469–474.
func RiskRatio(a, b Count, level float64) (Estimate, error) {
	checkLevel(level)
	if err := validatePair(a, b); err != nil {
		return Estimate{}, err
	}
	if a.Successes == 0 || b.Successes == 0 {
		return Estimate{}, fmt.Errorf("%w: risk ratio %s vs %s", ErrZeroCell, a, b)
	}
	x1, n1, x2, n2 := float64(a.Successes), float64(a.Trials), float64(b.Successes), float64(b.Trials)
	rr := (x1 / n1) / (x2 / n2)
	se := math.Sqrt(1/x1 - 1/n1 + 1/x2 - 1/n2)
	return logScaleEstimate(rr, se, level), nil
}

// OddsRatio returns the sample odds ratio of a versus b with Woolf's logit
// interval:
//
//	OR = x₁(n₂−x₂) / (x₂(n₁−x₁))
//	se(log OR) = √(1/x₁ + 1/(n₁−x₁) + 1/x₂ + 1/(n₂−x₂))
//	interval = OR·exp(∓z·se)
//
// It returns ErrZeroCell when any of the four cells is zero.
//
// Reference: B. Woolf, "On estimating the relation between blood group and
// disease", Ann. Hum. Genet. 19 (1955) 251–253; Agresti, Categorical Data
// Analysis, 3rd ed., §3.1.
func OddsRatio(a, b Count, level float64) (Estimate, error) {
	checkLevel(level)
	if err := validatePair(a, b); err != nil {
		return Estimate{}, err
	}
	cells := [4]int{a.Successes, a.Trials - a.Successes, b.Successes, b.Trials - b.Successes}
	var v float64
	for _, c := range cells {
		if c == 0 {
			return Estimate{}, fmt.Errorf("%w: odds ratio %s vs %s", ErrZeroCell, a, b)
		}
		v += 1 / float64(c)
	}
	or := float64(cells[0]) * float64(cells[3]) / (float64(cells[1]) * float64(cells[2]))
	return logScaleEstimate(or, math.Sqrt(v), level), nil
}

// logScaleEstimate returns est·exp(∓z·se) around est.
func logScaleEstimate(est, se, level float64) Estimate {
	z := normalQuantile(1 - (1-level)/2)
	return Estimate{Value: est, Interval: Interval{
		Lower: est * math.Exp(-z*se),
		Upper: est * math.Exp(z*se),
	}}
}
