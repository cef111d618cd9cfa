package analysis

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Count is the number of successes in a number of independent trials of one
// group. In weft a success is a violated run and the trials are the valid
// runs (invalid runs and tool errors excluded).
type Count struct {
	Group     string `json:"group"`
	Successes int    `json:"successes"`
	Trials    int    `json:"trials"`
}

// Rate returns Successes/Trials, or NaN when Trials is zero.
func (c Count) Rate() float64 {
	if c.Trials == 0 {
		return math.NaN()
	}
	return float64(c.Successes) / float64(c.Trials)
}

// String formats c as "group=x/n".
func (c Count) String() string { return fmt.Sprintf("%s=%d/%d", c.Group, c.Successes, c.Trials) }

// validate reports a data problem in c.
func (c Count) validate() error {
	if c.Trials < 0 || c.Successes < 0 {
		return fmt.Errorf("analysis: %s: negative count", c)
	}
	if c.Successes > c.Trials {
		return fmt.Errorf("analysis: %s: more successes than trials", c)
	}
	return nil
}

// ErrNoTrials is returned when a rate is requested for a group without trials.
var ErrNoTrials = errors.New("analysis: no trials")

// validateRate is validate plus a non-zero number of trials.
func (c Count) validateRate() error {
	if err := c.validate(); err != nil {
		return err
	}
	if c.Trials == 0 {
		return fmt.Errorf("%w in group %q", ErrNoTrials, c.Group)
	}
	return nil
}

// Interval is a confidence interval [Lower, Upper].
type Interval struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// Contains reports whether Lower ≤ x ≤ Upper.
func (iv Interval) Contains(x float64) bool { return iv.Lower <= x && x <= iv.Upper }

// Alternative is the alternative hypothesis of a test.
type Alternative int

// The alternatives. For two groups a and b, Less means rate(a) < rate(b)
// (odds ratio < 1) and Greater means rate(a) > rate(b).
const (
	TwoSided Alternative = iota
	Less
	Greater
)

// String returns "two-sided", "less" or "greater".
func (a Alternative) String() string {
	switch a {
	case TwoSided:
		return "two-sided"
	case Less:
		return "less"
	case Greater:
		return "greater"
	}
	return fmt.Sprintf("Alternative(%d)", int(a))
}

// checkLevel panics unless 0 < level < 1.
func checkLevel(level float64) {
	if !(level > 0 && level < 1) {
		panic(fmt.Sprintf("analysis: confidence level %v outside (0, 1)", level))
	}
}

// normalQuantile returns the standard normal quantile Φ⁻¹(p).
func normalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// WilsonInterval returns the Wilson score interval for a binomial proportion
// at confidence level level:
//
//	p̂ = x/n, z = Φ⁻¹(1 − (1−level)/2)
//	centre = (x + z²/2) / (n + z²)
//	half   = z / (n + z²) · √(x(n−x)/n + z²/4)
//
// It is defined for x = 0 and x = n (it then touches 0 or 1). It returns an
// error when n = 0.
//
// Reference: E. B. Wilson, "Probable inference, the law of succession, and
// statistical inference", JASA 22 (1927) 209–212; Agresti & Coull, Am. Stat.
// 52 (1998) 119–126.
func WilsonInterval(c Count, level float64) (Interval, error) {
	checkLevel(level)
	if err := c.validateRate(); err != nil {
		return Interval{}, err
	}
	z := normalQuantile(1 - (1-level)/2)
	x, n := float64(c.Successes), float64(c.Trials)
	z2 := z * z
	centre := (x + z2/2) / (n + z2)
	half := z / (n + z2) * math.Sqrt(x*(n-x)/n+z2/4)
	iv := Interval{Lower: centre - half, Upper: centre + half}
	// Exact end points for the boundary cases, free of rounding.
	if c.Successes == 0 {
		iv.Lower = 0
	}
	if c.Successes == c.Trials {
		iv.Upper = 1
	}
	return iv, nil
}

// ClopperPearsonInterval returns the exact (Clopper–Pearson) interval for a
// binomial proportion at confidence level level, with α = 1 − level:
//
//	Lower = B⁻¹(α/2; x, n−x+1)     (0 when x = 0)
//	Upper = B⁻¹(1−α/2; x+1, n−x)   (1 when x = n)
//
// where B⁻¹(q; a, b) is the q quantile of the Beta(a, b) distribution.
// It returns an error when n = 0.
//
// Reference: C. J. Clopper and E. S. Pearson, "The use of confidence or
// fiducial limits illustrated in the case of the binomial", Biometrika 26
// (1934) 404–413.
func ClopperPearsonInterval(c Count, level float64) (Interval, error) {
	checkLevel(level)
	if err := c.validateRate(); err != nil {
		return Interval{}, err
	}
	alpha := 1 - level
	x, n := float64(c.Successes), float64(c.Trials)
	iv := Interval{Lower: 0, Upper: 1}
	if c.Successes > 0 {
		iv.Lower = distuv.Beta{Alpha: x, Beta: n - x + 1}.Quantile(alpha / 2)
	}
	if c.Successes < c.Trials {
		iv.Upper = distuv.Beta{Alpha: x + 1, Beta: n - x}.Quantile(1 - alpha/2)
	}
	return iv, nil
}

// ClopperPearsonBound returns the one-sided exact confidence bound at level
// level: with alt == Less the upper bound B⁻¹(level; x+1, n−x) (1 when x = n),
// with alt == Greater the lower bound B⁻¹(1−level; x, n−x+1) (0 when x = 0).
// It panics for TwoSided.
//
// Reference: Clopper and Pearson (1934), as for ClopperPearsonInterval.
func ClopperPearsonBound(c Count, level float64, alt Alternative) (float64, error) {
	checkLevel(level)
	if err := c.validateRate(); err != nil {
		return 0, err
	}
	x, n := float64(c.Successes), float64(c.Trials)
	switch alt {
	case Less:
		if c.Successes == c.Trials {
			return 1, nil
		}
		return distuv.Beta{Alpha: x + 1, Beta: n - x}.Quantile(level), nil
	case Greater:
		if c.Successes == 0 {
			return 0, nil
		}
		return distuv.Beta{Alpha: x, Beta: n - x + 1}.Quantile(1 - level), nil
	}
	panic("analysis: ClopperPearsonBound needs a one-sided alternative")
}

// BinomialTest returns the p-value of the exact binomial test of H₀: p = p0
// for x successes in n trials. One-sided p-values are the tails
// P(X ≤ x) (Less) and P(X ≥ x) (Greater) under Binomial(n, p0). The
// two-sided p-value sums the probabilities of all outcomes no more likely
// than the one observed,
//
//	p = Σ_{k: f(k) ≤ f(x)·(1+10⁻⁷)} f(k),
//
// as R's binom.test and SciPy's binomtest do. It panics unless 0 ≤ p0 ≤ 1.
//
// Reference: Hollander, Wolfe & Chicken, Nonparametric Statistical Methods,
// 3rd ed., §2.1.
func BinomialTest(c Count, p0 float64, alt Alternative) (float64, error) {
	if !(p0 >= 0 && p0 <= 1) {
		panic(fmt.Sprintf("analysis: binomial null proportion %v outside [0, 1]", p0))
	}
	if err := c.validateRate(); err != nil {
		return 0, err
	}
	x, n := c.Successes, c.Trials
	d := distuv.Binomial{N: float64(n), P: p0}
	switch alt {
	case Less:
		return d.CDF(float64(x)), nil
	case Greater:
		if x == 0 {
			return 1, nil
		}
		return clamp01(1 - d.CDF(float64(x-1))), nil
	}
	logp := make([]float64, n+1)
	for k := range logp {
		logp[k] = binomialLogProb(k, n, p0)
	}
	return twoSidedSum(logp, x), nil
}

// binomialLogProb is log f(k; n, p), exact at p = 0 and p = 1.
func binomialLogProb(k, n int, p float64) float64 {
	switch {
	case p == 0:
		if k == 0 {
			return 0
		}
		return math.Inf(-1)
	case p == 1:
		if k == n {
			return 0
		}
		return math.Inf(-1)
	}
	return logChoose(n, k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p)
}

// logChoose returns log C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// twoSidedSum returns Σ f(k) over outcomes with f(k) ≤ f(obs)·(1+10⁻⁷),
// given log f over the whole support (which sums to one up to rounding; the
// sum is normalised, so rounding in the log-probabilities cancels).
func twoSidedSum(logp []float64, obs int) float64 {
	const relErr = 1 + 1e-7
	lmax := math.Inf(-1)
	for _, l := range logp {
		lmax = math.Max(lmax, l)
	}
	cut := logp[obs] + math.Log(relErr)
	var total, tail float64
	for _, l := range logp {
		p := math.Exp(l - lmax)
		total += p
		if l <= cut {
			tail += p
		}
	}
	return clamp01(tail / total)
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }
