package analysis

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// counts builds groups g0, g1, … from successes and trials.
func counts(x, n []int) []Count {
	out := make([]Count, len(x))
	for i := range x {
		out[i] = Count{Group: fmt.Sprintf("g%d", i), Successes: x[i], Trials: n[i]}
	}
	return out
}

// Reference values: scipy 1.10.1, scipy.stats.chi2_contingency(table,
// correction=False) → (statistic, p, dof, expected.min()).
func TestChiSquareHomogeneity(t *testing.T) {
	cases := []struct {
		x, n      []int
		stat      float64
		df        int
		p, minExp float64
	}{
		{[]int{57, 41, 8}, []int{404, 441, 444}, 43.47556931518275, 2, 3.625768523608344e-10, 33.22265321955004},
		{[]int{57, 74}, []int{500, 500}, 2.538673038238213, 1, 0.111088111506681, 65.5},
		{[]int{30, 41, 35}, []int{500, 500, 500}, 1.8475406729649984, 2, 0.39701931920959177, 35.333333333333336},
	}
	for _, tc := range cases {
		r, err := ChiSquareHomogeneity(counts(tc.x, tc.n))
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprint(tc.x, tc.n)
		checkNear(t, name+" statistic", r.Statistic, tc.stat, 1e-12)
		checkNear(t, name+" p", r.PValue, tc.p, 1e-9)
		checkNear(t, name+" min expected", r.MinExpected, tc.minExp, 1e-12)
		if r.DF != tc.df {
			t.Errorf("%s df = %d, want %d", name, r.DF, tc.df)
		}
	}
	// Cross-check: for two groups χ² = z² of the two-proportion z-test.
	g := counts([]int{57, 74}, []int{500, 500})
	z, p, _ := TwoProportionZTest(g[0], g[1], TwoSided)
	r, _ := ChiSquareHomogeneity(g)
	checkNear(t, "χ² vs z²", r.Statistic, z*z, 1e-12)
	checkNear(t, "χ² p vs z p", r.PValue, p, 1e-9)
}

func TestChiSquareHomogeneityEdges(t *testing.T) {
	// scipy refuses a zero expected column; the homogeneity of 0/10 and
	// 0/12 is certain: χ² = 0, p = 1.
	r, err := ChiSquareHomogeneity(counts([]int{0, 0}, []int{10, 12}))
	if err != nil || r.Statistic != 0 || r.PValue != 1 {
		t.Errorf("all zero: %+v, %v", r, err)
	}
	r, err = ChiSquareHomogeneity(counts([]int{4, 6}, []int{4, 6}))
	if err != nil || r.Statistic != 0 || r.PValue != 1 {
		t.Errorf("all successes: %+v, %v", r, err)
	}
	if _, err := ChiSquareHomogeneity(counts([]int{3}, []int{9})); !errors.Is(err, ErrTooFewGroups) {
		t.Errorf("one group: err = %v", err)
	}
	if _, err := ChiSquareHomogeneity(counts([]int{3, 0}, []int{9, 0})); !errors.Is(err, ErrNoTrials) {
		t.Errorf("empty group: err = %v", err)
	}
}

// Reference values: the Cochran–Armitage Z² equals N·r² where r is
// Pearson's correlation between score and outcome over the N individual
// runs; computed with scipy 1.10.1 scipy.stats.pearsonr on the expanded
// data, p from scipy.stats.norm. Textbook checks: R's prop.trend.test
// documentation example (smokers) prints X-squared = 8.2249,
// p-value = 0.004132; Agresti, Categorical Data Analysis 3rd ed. §3.4.6
// (infant malformation, scores 0, 0.5, 1.5, 4, 7) reports
// M² = (N−1)r² = 6.57, P = 0.01.
func TestCochranArmitageTrend(t *testing.T) {
	cases := []struct {
		name   string
		x, n   []int
		scores []float64
		z, p   float64
	}{
		{"smokers", []int{83, 90, 129, 70}, []int{86, 93, 136, 82}, nil, -2.867912530953076, 0.004131897477641559},
		{"chord", []int{57, 41, 8}, []int{404, 441, 444}, nil, -6.540955495809034, 6.112702145784347e-11},
		{"agresti", []int{48, 38, 5, 1, 1}, []int{17114, 14502, 793, 127, 38}, []float64{0, 0.5, 1.5, 4, 7}, 2.5632272518654204, 0.010370414572997434},
		{"spaced", []int{2, 5, 9}, []int{20, 20, 20}, []float64{1, 2, 4}, 2.496751135729436, 0.012533688376411008},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CochranArmitageTrend(counts(tc.x, tc.n), tc.scores, TwoSided)
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, "Z", r.Z, tc.z, 1e-9)
			checkNear(t, "p", r.PValue, tc.p, 1e-9)
			one, _ := CochranArmitageTrend(counts(tc.x, tc.n), tc.scores, Less)
			if tc.z < 0 {
				checkNear(t, "one-sided p", one.PValue, tc.p/2, 1e-9)
			} else {
				checkNear(t, "one-sided p", one.PValue, 1-tc.p/2, 1e-9)
			}
		})
	}
	r, _ := CochranArmitageTrend(counts([]int{83, 90, 129, 70}, []int{86, 93, 136, 82}), nil, TwoSided)
	if got := math.Round(r.Z*r.Z*1e4) / 1e4; got != 8.2249 {
		t.Errorf("smokers X-squared = %.4f, R prints 8.2249", got)
	}
}

func TestCochranArmitageTrendEdges(t *testing.T) {
	r, err := CochranArmitageTrend(counts([]int{0, 0, 0}, []int{5, 5, 5}), nil, TwoSided)
	if err != nil || r.Z != 0 || r.PValue != 1 {
		t.Errorf("no successes: %+v %v", r, err)
	}
	defer func() {
		if recover() == nil {
			t.Error("constant scores: no panic")
		}
	}()
	_, _ = CochranArmitageTrend(counts([]int{1, 2}, []int{5, 5}), []float64{1, 1}, TwoSided)
}

// Reference values computed by hand from Holm (1979): p = (0.01, 0.04,
// 0.03, 0.005) sorted is (0.005, 0.01, 0.03, 0.04); multipliers 4, 3, 2, 1
// give 0.02, 0.03, 0.06, 0.04 → running max 0.02, 0.03, 0.06, 0.06. These
// equal R's p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm").
func TestHolmAdjust(t *testing.T) {
	cases := []struct{ p, want []float64 }{
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		{[]float64{0.5, 0.6}, []float64{1, 1}},
		{[]float64{0.02}, []float64{0.02}},
		{nil, []float64{}},
	}
	for _, tc := range cases {
		got := HolmAdjust(tc.p)
		if len(got) != len(tc.want) {
			t.Fatalf("HolmAdjust(%v) = %v", tc.p, got)
		}
		for i := range got {
			checkNear(t, fmt.Sprintf("HolmAdjust(%v)[%d]", tc.p, i), got[i], tc.want[i], 1e-15)
		}
	}
}

func TestPairwiseComparisons(t *testing.T) {
	g := []Count{{"orig", 57, 404}, {"fix1", 41, 441}, {"fix2", 8, 444}}
	pt, err := PairwiseComparisons(g, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	// Fisher p-values as in TestFisherExactTest (scipy 1.10.1); Holm by
	// hand: sorted 3.153e-12·3, 5.599e-07·2, 0.0316·1.
	want := []struct {
		a, b         string
		fisher, holm float64
	}{
		{"orig", "fix1", 0.03159886284272966, 0.03159886284272966},
		{"orig", "fix2", 3.153440638531443e-12, 3 * 3.153440638531443e-12},
		{"fix1", "fix2", 5.5992728542527e-07, 2 * 5.5992728542527e-07},
	}
	if len(pt) != len(want) {
		t.Fatalf("%d pairs, want %d", len(pt), len(want))
	}
	for i, w := range want {
		if pt[i].A != w.a || pt[i].B != w.b {
			t.Errorf("pair %d = %s vs %s, want %s vs %s", i, pt[i].A, pt[i].B, w.a, w.b)
		}
		checkNear(t, w.a+"/"+w.b+" fisher", pt[i].FisherP, w.fisher, 1e-9)
		checkNear(t, w.a+"/"+w.b+" holm", pt[i].HolmP, w.holm, 1e-9)
		if pt[i].RiskRatio == nil || pt[i].OddsRatio == nil {
			t.Errorf("%s/%s: ratios missing", w.a, w.b)
		}
	}
	// A zero cell leaves the ratios undefined but the tests defined.
	pt, err = PairwiseComparisons([]Count{{"x", 0, 10}, {"y", 3, 10}}, 0.95)
	if err != nil || pt[0].RiskRatio != nil || pt[0].OddsRatio != nil {
		t.Errorf("zero cell: %+v %v", pt, err)
	}
}
