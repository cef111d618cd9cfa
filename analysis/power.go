package analysis

import (
	"fmt"
	"math"
)

// checkProb panics unless 0 ≤ p ≤ 1.
func checkProb(name string, p float64) {
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("analysis: %s = %v outside [0, 1]", name, p))
	}
}

// TwoProportionPower returns the approximate power of the two-sided
// two-proportion z-test at level alpha to detect true rates p1 and p2 with
// n1 and n2 trials:
//
//	p̄ = (n₁p₁ + n₂p₂)/(n₁ + n₂),  z = Φ⁻¹(1 − α/2)
//	power = Φ( (|p₁ − p₂| − z·√(p̄(1−p̄)(1/n₁ + 1/n₂))) / √(p₁(1−p₁)/n₁ + p₂(1−p₂)/n₂) )
//
// ignoring the negligible opposite tail. With n₁ = n₂ it equals R's
// power.prop.test(strict = FALSE). Use it for the power a finished campaign
// had against a stated difference. It panics for n1 or n2 < 1 or rates or
// alpha outside their ranges; with p1 = p2 it returns alpha/2.
//
// Reference: J. L. Fleiss, B. Levin, M. C. Paik, Statistical Methods for
// Rates and Proportions, 3rd ed. (2003) §4.2.
func TwoProportionPower(p1, p2 float64, n1, n2 int, alpha float64) float64 {
	checkProb("p1", p1)
	checkProb("p2", p2)
	checkLevel(alpha)
	if n1 < 1 || n2 < 1 {
		panic("analysis: TwoProportionPower needs n1, n2 ≥ 1")
	}
	a, b := float64(n1), float64(n2)
	pbar := (a*p1 + b*p2) / (a + b)
	z := normalQuantile(1 - alpha/2)
	sd1 := math.Sqrt(pbar * (1 - pbar) * (1/a + 1/b))
	sd := math.Sqrt(p1*(1-p1)/a + p2*(1-p2)/b)
	if sd == 0 {
		if p1 != p2 {
			return 1
		}
		return alpha / 2
	}
	return normalCDF((math.Abs(p1-p2) - z*sd1) / sd)
}

// TwoProportionSampleSize returns the number of trials per group (equal
// groups; round up with math.Ceil) for the two-sided two-proportion z-test
// at level alpha to reach the given power when the true rates are p1 ≠ p2:
//
//	p̄ = (p₁ + p₂)/2
//	n = (z_{1−α/2}·√(2p̄(1−p̄)) + z_{power}·√(p₁(1−p₁) + p₂(1−p₂)))² / (p₁ − p₂)²
//
// This is the n at which TwoProportionPower reaches power, as R's
// power.prop.test(strict = FALSE) solves it. It panics when p1 = p2.
//
// Reference: Fleiss, Levin & Paik (2003) eq. 4.14 (without continuity
// correction).
func TwoProportionSampleSize(p1, p2, alpha, power float64) float64 {
	checkProb("p1", p1)
	checkProb("p2", p2)
	checkLevel(alpha)
	checkLevel(power)
	if p1 == p2 {
		panic("analysis: TwoProportionSampleSize needs p1 ≠ p2")
	}
	pbar := (p1 + p2) / 2
	za, zb := normalQuantile(1-alpha/2), normalQuantile(power)
	s := za*math.Sqrt(2*pbar*(1-pbar)) + zb*math.Sqrt(p1*(1-p1)+p2*(1-p2))
	d := p1 - p2
	return s * s / (d * d)
}

// MinimumDetectableDifference returns the smallest decrease δ > 0 such that
// TwoProportionPower(p1, p1−δ, n1, n2, alpha) ≥ power, found by bisection to
// 10⁻¹²; it returns NaN when even p2 = 0 is not detectable. It answers "how
// large an improvement could this campaign have seen?".
func MinimumDetectableDifference(p1 float64, n1, n2 int, alpha, power float64) float64 {
	checkLevel(power)
	if TwoProportionPower(p1, 0, n1, n2, alpha) < power {
		return math.NaN()
	}
	lo, hi := 0.0, p1
	for hi-lo > 1e-12 {
		mid := (lo + hi) / 2
		if TwoProportionPower(p1, p1-mid, n1, n2, alpha) >= power {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
