package analysis

import (
	"fmt"
	"math"
	"strings"
)

// Status is the outcome of evaluating a claim.
type Status string

// The outcomes of a claim.
const (
	// Survived: the data reject the claim's negation at α (the claim was
	// at risk and passed).
	Survived Status = "survived"
	// Falsified: the data reject the claim itself at α.
	Falsified Status = "falsified"
	// Inconclusive: neither test rejects; more seeds are needed.
	Inconclusive Status = "inconclusive"
)

// TestResult is the evaluation of one relation of a claim.
type TestResult struct {
	Statement string `json:"statement"`
	Method    string `json:"method"`
	Status    Status `json:"status"`
	// PSupport is the p-value of the test whose rejection supports the
	// statement, PAgainst of the test whose rejection falsifies it; nil
	// where the form has no such test.
	PSupport *float64 `json:"p_support,omitempty"`
	PAgainst *float64 `json:"p_against,omitempty"`
	// Groups are the counts the test used.
	Groups []Count `json:"groups"`
	// Estimate is the compared quantity (rate difference, rate, or the
	// largest run-to-run difference) with an interval at level Level =
	// 1 − 2α, whose ends match one-sided tests at α.
	Estimate *Estimate `json:"estimate,omitempty"`
	Level    float64   `json:"level"`
	Note     string    `json:"note,omitempty"`
}

// ClaimResult is the evaluation of a claim.
type ClaimResult struct {
	Claim  string       `json:"claim"`
	Alpha  float64      `json:"alpha"`
	Status Status       `json:"status"`
	Tests  []TestResult `json:"tests"`
	// Rule states how the tests were combined.
	Rule string `json:"rule"`
}

// Evaluate tests the claim against the tally t. For each relation:
//
//   - rate(A) < rate(B) (and <=, >, >=): Fisher's exact test one-sided in
//     each direction; survived if the predicted direction is significant at
//     α, falsified if the opposite one is. < and <= are tested alike (the
//     boundary has probability zero).
//   - rate(A) < c: the exact binomial test against c, likewise.
//   - == (rates, bound or drift): falsified if the two-sided test (Fisher,
//     exact binomial, or χ² homogeneity across A's runs) rejects at α;
//     survived only with a margin m, when the 1−2α interval of the
//     difference (Newcombe; Clopper–Pearson for a bound; every pair of runs
//     for drift) lies within ±m (two one-sided tests); else inconclusive.
//   - != (and drift > 0): the mirror image of ==.
//
// A chain of k relations survives if every link survives at α (an
// intersection–union test) and is falsified if any link is falsified at
// α/k (Bonferroni). An unknown variant or a group without valid runs is an
// error.
func (c Claim) Evaluate(t Table) (ClaimResult, error) {
	if err := c.validate(); err != nil {
		return ClaimResult{}, err
	}
	res := ClaimResult{Claim: c.String(), Alpha: c.alpha()}
	links := len(c.Relations)
	for i, rel := range c.Relations {
		tr, err := c.evalLink(t, c.Terms[i], rel, c.Terms[i+1], c.alpha()/float64(links))
		if err != nil {
			return ClaimResult{}, fmt.Errorf("analysis: claim %q: %w", c.String(), err)
		}
		res.Tests = append(res.Tests, tr)
	}
	res.Status, res.Rule = combine(res.Tests, c.alpha())
	return res, nil
}

// combine applies the chain rule to the links' statuses.
func combine(tests []TestResult, alpha float64) (Status, string) {
	if len(tests) == 1 {
		return tests[0].Status, fmt.Sprintf("single test at α = %g", alpha)
	}
	rule := fmt.Sprintf("all %d links must survive at α = %g; any link falsified at α/%d = %.4g falsifies",
		len(tests), alpha, len(tests), alpha/float64(len(tests)))
	all := true
	for _, tr := range tests {
		if tr.Status == Falsified {
			return Falsified, rule
		}
		all = all && tr.Status == Survived
	}
	if all {
		return Survived, rule
	}
	return Inconclusive, rule
}

// evalLink evaluates left rel right; alphaAgainst is the falsification
// level (α divided among the links of a chain).
func (c Claim) evalLink(t Table, left Term, rel Relation, right Term, alphaAgainst float64) (TestResult, error) {
	a, err := lookup(t, left)
	if err != nil {
		return TestResult{}, err
	}
	tr := TestResult{Statement: left.String() + " " + string(rel) + " " + right.String(), Level: 1 - 2*c.alpha()}
	dec := decision{alpha: c.alpha(), alphaAgainst: alphaAgainst, margin: c.Margin}
	switch {
	case left.Kind == DriftTerm:
		runs := t.RunCounts(left.Variant)
		err = evalDrift(&tr, runs, rel, dec)
	case right.Kind == ConstantTerm:
		err = evalBound(&tr, a[0], rel, right.Value, dec)
	default:
		var b []Count
		if b, err = lookup(t, right); err == nil {
			err = evalPair(&tr, a[0], rel, b[0], dec)
		}
	}
	return tr, err
}

// lookup finds the count of a rate term ("variant" or "variant@run").
func lookup(t Table, term Term) ([]Count, error) {
	if term.Kind == DriftTerm {
		if _, ok := t.Variant(term.Variant); !ok {
			return nil, unknownGroup(t, term.Variant)
		}
		return nil, nil
	}
	rows := t.Variants
	if strings.Contains(term.Variant, "@") {
		rows = t.Runs
	}
	for _, r := range rows {
		if r.Name() == term.Variant {
			return []Count{r.Count()}, nil
		}
	}
	return nil, unknownGroup(t, term.Variant)
}

func unknownGroup(t Table, name string) error {
	var names []string
	for _, r := range t.Variants {
		names = append(names, r.Name())
	}
	for _, r := range t.Runs {
		names = append(names, r.Name())
	}
	return fmt.Errorf("unknown variant %q (have %s)", name, strings.Join(names, ", "))
}

// decision holds the thresholds of one link.
type decision struct {
	alpha, alphaAgainst, margin float64
}

// ordered sets the status from one-sided p-values.
func (d decision) ordered(tr *TestResult, pSupport, pAgainst float64) {
	tr.PSupport, tr.PAgainst = &pSupport, &pAgainst
	switch {
	case pSupport < d.alpha:
		tr.Status = Survived
	case pAgainst < d.alphaAgainst:
		tr.Status = Falsified
	default:
		tr.Status = Inconclusive
	}
}

// point sets the status of == (equal true) or != from the two-sided
// p-value and whether the 1−2α interval(s) lie within the margin.
func (d decision) point(tr *TestResult, equal bool, p float64, withinMargin bool) {
	reject := p < d.alphaAgainst
	if !equal {
		reject = p < d.alpha
	}
	equivalent := d.margin > 0 && withinMargin
	switch {
	case equal && reject, !equal && equivalent:
		tr.Status = Falsified
	case equal && equivalent, !equal && reject:
		tr.Status = Survived
	default:
		tr.Status = Inconclusive
	}
	if equal {
		tr.PAgainst = &p
	} else {
		tr.PSupport = &p
	}
	if d.margin == 0 {
		tr.Note = "no margin given (within=…): equality can be falsified, never confirmed"
	} else {
		tr.Note = fmt.Sprintf("equivalence margin ±%g on the rate scale", d.margin)
	}
}

func opposite(a Alternative) Alternative {
	if a == Less {
		return Greater
	}
	return Less
}

// evalPair evaluates rate(A) rel rate(B).
func evalPair(tr *TestResult, a Count, rel Relation, b Count, d decision) error {
	tr.Groups = []Count{a, b}
	diff, err := RiskDifference(a, b, tr.Level)
	if err != nil {
		return err
	}
	tr.Estimate = &diff
	if rel.ordered() {
		tr.Method = "Fisher's exact test, one-sided in each direction"
		dir := rel.direction()
		ps, _ := FisherExactTest(a, b, dir)
		pa, _ := FisherExactTest(a, b, opposite(dir))
		d.ordered(tr, ps, pa)
		return nil
	}
	tr.Method = "Fisher's exact test, two-sided; equivalence by the Newcombe interval"
	p, _ := FisherExactTest(a, b, TwoSided)
	d.point(tr, rel == Equal, p, diff.Lower > -d.margin && diff.Upper < d.margin)
	return nil
}

// evalBound evaluates rate(A) rel c.
func evalBound(tr *TestResult, a Count, rel Relation, c float64, d decision) error {
	tr.Groups = []Count{a}
	iv, err := ClopperPearsonInterval(a, tr.Level)
	if err != nil {
		return err
	}
	tr.Estimate = &Estimate{Value: a.Rate(), Interval: iv}
	if rel.ordered() {
		tr.Method = "exact binomial test, one-sided in each direction"
		dir := rel.direction()
		ps, _ := BinomialTest(a, c, dir)
		pa, _ := BinomialTest(a, c, opposite(dir))
		d.ordered(tr, ps, pa)
		return nil
	}
	tr.Method = "exact binomial test, two-sided; equivalence by the Clopper–Pearson interval"
	p, _ := BinomialTest(a, c, TwoSided)
	d.point(tr, rel == Equal, p, iv.Lower > c-d.margin && iv.Upper < c+d.margin)
	return nil
}

// evalDrift evaluates drift(A) == 0, != 0 or > 0 over A's runs.
func evalDrift(tr *TestResult, runs []Count, rel Relation, d decision) error {
	tr.Groups = runs
	if len(runs) < 2 {
		return fmt.Errorf("drift needs at least two runs, have %d", len(runs))
	}
	chi, err := ChiSquareHomogeneity(runs)
	if err != nil {
		return err
	}
	tr.Method = fmt.Sprintf("χ² test of homogeneity across %d runs (df %d); equivalence by Newcombe intervals of every pair", len(runs), chi.DF)
	widest, within := Estimate{}, true
	for i := range runs {
		for j := i + 1; j < len(runs); j++ {
			e, _ := RiskDifference(runs[i], runs[j], tr.Level)
			if math.Abs(e.Value) >= math.Abs(widest.Value) {
				widest = e
			}
			within = within && e.Lower > -d.margin && e.Upper < d.margin
		}
	}
	tr.Estimate = &widest
	d.point(tr, rel == Equal, chi.PValue, within)
	if chi.MinExpected < 5 {
		tr.Note += fmt.Sprintf("; smallest expected count %.2g < 5: χ² approximation doubtful", chi.MinExpected)
	}
	return nil
}
