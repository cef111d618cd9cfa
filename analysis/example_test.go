package analysis_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/weft-mc/weft/analysis"
)

func ExampleWilsonInterval() {
	iv, _ := analysis.WilsonInterval(analysis.Count{Group: "fix2", Successes: 8, Trials: 444}, 0.95)
	fmt.Printf("%.4f–%.4f\n", iv.Lower, iv.Upper)
	// Output: 0.0092–0.0351
}

func ExampleClopperPearsonInterval() {
	iv, _ := analysis.ClopperPearsonInterval(analysis.Count{Successes: 0, Trials: 10}, 0.95)
	fmt.Printf("%.4f–%.4f\n", iv.Lower, iv.Upper)
	// Output: 0.0000–0.3085
}

func ExampleFisherExactTest() {
	orig := analysis.Count{Group: "orig", Successes: 57, Trials: 404}
	fix1 := analysis.Count{Group: "fix1", Successes: 41, Trials: 441}
	p, _ := analysis.FisherExactTest(fix1, orig, analysis.Less)
	fmt.Printf("p = %.4f\n", p)
	// Output: p = 0.0190
}

func ExampleChiSquareHomogeneity() {
	// Two 500-seed runs of one variant: is 57 vs 74 noise?
	r, _ := analysis.ChiSquareHomogeneity([]analysis.Count{{Group: "run1", Successes: 57, Trials: 500}, {Group: "run2", Successes: 74, Trials: 500}})
	fmt.Printf("χ² = %.3f, df = %d, p = %.3f\n", r.Statistic, r.DF, r.PValue)
	// Output: χ² = 2.539, df = 1, p = 0.111
}

func ExampleTwoProportionSampleSize() {
	// Valid runs per variant to tell 14.1 % from 9.3 % with 80 % power.
	n := analysis.TwoProportionSampleSize(0.141, 0.093, 0.05, 0.8)
	fmt.Printf("%.0f\n", n+0.5)
	// Output: 703
}

func ExampleParseClaim() {
	tab, _ := analysis.TableFromCounts([]analysis.Count{
		{Group: "orig", Successes: 57, Trials: 404},
		{Group: "fix1", Successes: 41, Trials: 441},
		{Group: "fix2", Successes: 8, Trials: 444},
	})
	for _, s := range []string{"rate(fix1) < rate(orig)", "rate(fix2) <= 2%", "rate(orig) > rate(fix1) > rate(fix2)"} {
		c, _ := analysis.ParseClaim(s)
		r, _ := c.Evaluate(tab)
		fmt.Printf("%-38s %s\n", r.Claim, r.Status)
	}
	// Output:
	// rate(fix1) < rate(orig)                survived
	// rate(fix2) <= 0.02                     inconclusive
	// rate(orig) > rate(fix1) > rate(fix2)   survived
}

func ExampleBootstrapInterval() {
	var rows []analysis.Outcome
	for i := range 100 {
		v := analysis.VerdictHolds
		if i < 12 {
			v = analysis.VerdictViolated
		}
		rows = append(rows, analysis.Outcome{Variant: "orig", Run: "1", Verdict: v, Seed: int64(i)})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	e, _ := analysis.BootstrapInterval(rows, analysis.ViolationRate("orig"), 1000, 0.95, rng)
	fmt.Printf("%.2f (%.2f–%.2f)\n", e.Value, e.Lower, e.Upper)
	// Output: 0.12 (0.06–0.19)
}

func ExampleSummarize() {
	tab, _ := analysis.TableFromCounts([]analysis.Count{
		{Group: "orig", Successes: 57, Trials: 404},
		{Group: "fix2", Successes: 8, Trials: 444},
	})
	s, _ := analysis.Summarize(tab, analysis.SummaryOptions{})
	fmt.Printf("%s vs %s: difference %.2f pp, Fisher p = %.2e\n", s.Pairs[0].A, s.Pairs[0].B, 100*s.Pairs[0].RiskDifference.Value, s.Pairs[0].FisherP)
	// Output: orig vs fix2: difference 12.31 pp, Fisher p = 3.15e-12
}
