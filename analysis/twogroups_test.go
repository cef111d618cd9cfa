package analysis

import (
	"errors"
	"fmt"
	"testing"
)

// pairOf returns the groups of the 2×2 table [[x1, n1−x1], [x2, n2−x2]].
func pairOf(x1, f1, x2, f2 int) (Count, Count) {
	return Count{Group: "a", Successes: x1, Trials: x1 + f1}, Count{Group: "b", Successes: x2, Trials: x2 + f2}
}

// Reference values: scipy 1.10.1, scipy.stats.fisher_exact(table,
// alternative=...)[1]. The tea-tasting table [[3,1],[1,3]] also has the
// textbook one-sided value 17/70 = 0.242857… (Fisher 1935, The Design of
// Experiments, §2).
func TestFisherExactTest(t *testing.T) {
	cases := []struct {
		table              [4]int
		two, less, greater float64
	}{
		{[4]int{57, 347, 41, 400}, 0.03159886284272966, 0.9890187405443723, 0.018986258676800868},
		{[4]int{41, 400, 8, 436}, 5.5992728542527e-07, 0.9999999221939442, 4.596809942175779e-07},
		{[4]int{57, 347, 8, 436}, 3.153440638531443e-12, 0.999999999999721, 2.591975203852573e-12},
		{[4]int{57, 443, 74, 426}, 0.13348605053094786, 0.06674302526547393, 0.9543470112425182},
		{[4]int{3, 1, 1, 3}, 0.48571428571428565, 0.9857142857142858, 17.0 / 70},
		{[4]int{0, 5, 5, 0}, 0.007936507936507938, 0.003968253968253969, 1.0},
		{[4]int{0, 10, 0, 10}, 1.0, 1.0, 1.0},
		{[4]int{1, 0, 0, 1}, 1.0, 1.0, 0.5},
	}
	for _, tc := range cases {
		a, b := pairOf(tc.table[0], tc.table[1], tc.table[2], tc.table[3])
		for _, alt := range []struct {
			alt  Alternative
			want float64
		}{{TwoSided, tc.two}, {Less, tc.less}, {Greater, tc.greater}} {
			got, err := FisherExactTest(a, b, alt.alt)
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, fmt.Sprintf("%v %v", tc.table, alt.alt), got, alt.want, 1e-9)
		}
	}
	if _, err := FisherExactTest(Count{Trials: 3}, Count{}, TwoSided); !errors.Is(err, ErrNoTrials) {
		t.Errorf("empty group: err = %v, want ErrNoTrials", err)
	}
}

// Reference values: scipy 1.10.1, z = sign(p̂₁−p̂₂)·√χ² and p from
// scipy.stats.chi2_contingency(table, correction=False); one-sided p from
// scipy.stats.norm.cdf(z) / norm.sf(z).
func TestTwoProportionZTest(t *testing.T) {
	cases := []struct {
		table              [4]int
		z                  float64
		two, less, greater float64
	}{
		{[4]int{57, 347, 41, 400}, 2.1821161429664677, 0.029100962093783933, 0.9854495189531081, 0.014550481046891961},
		{[4]int{57, 443, 74, 426}, -1.5933213857342823, 0.111088111506681, 0.05554405575334013, 0.9444559442466599},
		{[4]int{41, 400, 8, 436}, 4.874918729514054, 1.0885325934875206e-06, 0.9999994557337033, 5.442662967437606e-07},
	}
	for _, tc := range cases {
		a, b := pairOf(tc.table[0], tc.table[1], tc.table[2], tc.table[3])
		for _, alt := range []struct {
			alt  Alternative
			want float64
		}{{TwoSided, tc.two}, {Less, tc.less}, {Greater, tc.greater}} {
			z, p, err := TwoProportionZTest(a, b, alt.alt)
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, fmt.Sprintf("%v z", tc.table), z, tc.z, 1e-9)
			checkNear(t, fmt.Sprintf("%v p %v", tc.table, alt.alt), p, alt.want, 1e-9)
		}
	}
	// No successes anywhere: the rates cannot differ.
	z, p, err := TwoProportionZTest(Count{Trials: 10}, Count{Trials: 20}, TwoSided)
	if err != nil || z != 0 || p != 1 {
		t.Errorf("0/10 vs 0/20: z=%v p=%v err=%v, want 0, 1, nil", z, p, err)
	}
}

// Reference values: R. G. Newcombe, Statistics in Medicine 17 (1998)
// 873–890, Table II, method 10 (four decimals, all eight examples), and to
// full precision the same formula over scipy 1.10.1 Wilson intervals
// (binomtest(k, n).proportion_ci(0.95, 'wilson')).
func TestRiskDifference(t *testing.T) {
	cases := []struct {
		x1, n1, x2, n2   int
		d, lo, hi        float64
		paperLo, paperHi float64
	}{
		{56, 70, 48, 80, 0.2, 0.05243147240236484, 0.3338726540369059, 0.0524, 0.3339},
		{9, 10, 3, 10, 0.6, 0.17052272393450296, 0.8090179735354881, 0.1705, 0.8090},
		{6, 7, 2, 7, 0.5714285714285714, 0.0582279274823122, 0.8062496375242278, 0.0582, 0.8062},
		{5, 56, 0, 29, 0.08928571428571429, -0.03813714790353688, 0.1925600138551116, -0.0381, 0.1926},
		{0, 10, 0, 20, 0, -0.16112515805281935, 0.27753279986288926, -0.1611, 0.2775},
		{0, 10, 0, 10, 0, -0.27753279986288926, 0.27753279986288926, -0.2775, 0.2775},
		{10, 10, 0, 20, 1, 0.6790860371419147, 1.0, 0.6791, 1},
		{10, 10, 0, 10, 1, 0.6075093504305242, 1.0, 0.6075, 1},
		{57, 404, 41, 441, 0.048118587368940965, 0.004771845240067581, 0.09233917472314865, 0.0048, 0.0923},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%d/%d-%d/%d", tc.x1, tc.n1, tc.x2, tc.n2)
		e, err := RiskDifference(Count{Successes: tc.x1, Trials: tc.n1}, Count{Successes: tc.x2, Trials: tc.n2}, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		checkNear(t, name+" d", e.Value, tc.d, 1e-12)
		checkNear(t, name+" lower", e.Lower, tc.lo, 1e-9)
		checkNear(t, name+" upper", e.Upper, tc.hi, 1e-9)
		if abs(e.Lower-tc.paperLo) > 5e-5 {
			t.Errorf("%s lower %.5f differs from Newcombe's %.4f", name, e.Lower, tc.paperLo)
		}
		if abs(e.Upper-tc.paperHi) > 5e-5 {
			t.Errorf("%s upper %.5f differs from Newcombe's %.4f", name, e.Upper, tc.paperHi)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Reference values: scipy 1.10.1,
// scipy.stats.contingency.relative_risk(x1, n1, x2, n2) and
// .confidence_interval(0.95); scipy.stats.contingency.odds_ratio(table,
// kind='sample') and .confidence_interval(0.95).
func TestRiskRatioOddsRatio(t *testing.T) {
	cases := []struct {
		x1, n1, x2, n2 int
		rr, rrLo, rrHi float64
		or, orLo, orHi float64
	}{
		{57, 404, 41, 441, 1.5175682202366578, 1.039904967949528, 2.214638235273855, 1.6025866310536305, 1.046324040966999, 2.4545779409390716},
		{41, 441, 8, 444, 5.159863945578231, 2.447119756680856, 10.879809156945308, 5.58625, 2.5875303957412967, 12.060221249520739},
		{57, 500, 74, 500, 0.7702702702702703, 0.5579919394806803, 1.0633062008286915, 0.740711365993533, 0.5115693831591087, 1.0724905472721833},
		{3, 7, 1, 7, 3.0, 0.4035419602580588, 22.302513459181892, 4.5, 0.33665007402900904, 60.1514794208988},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%d/%d vs %d/%d", tc.x1, tc.n1, tc.x2, tc.n2)
		a, b := Count{Successes: tc.x1, Trials: tc.n1}, Count{Successes: tc.x2, Trials: tc.n2}
		rr, err := RiskRatio(a, b, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		or, err := OddsRatio(a, b, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			what      string
			got, want float64
		}{
			{"RR", rr.Value, tc.rr}, {"RR lower", rr.Lower, tc.rrLo}, {"RR upper", rr.Upper, tc.rrHi},
			{"OR", or.Value, tc.or}, {"OR lower", or.Lower, tc.orLo}, {"OR upper", or.Upper, tc.orHi},
		} {
			checkNear(t, name+" "+c.what, c.got, c.want, 1e-9)
		}
	}
	zero := []struct{ a, b Count }{
		{Count{Successes: 0, Trials: 10}, Count{Successes: 3, Trials: 10}},
		{Count{Successes: 3, Trials: 10}, Count{Successes: 0, Trials: 10}},
	}
	for _, z := range zero {
		if _, err := RiskRatio(z.a, z.b, 0.95); !errors.Is(err, ErrZeroCell) {
			t.Errorf("RiskRatio(%v, %v) err = %v, want ErrZeroCell", z.a, z.b, err)
		}
		if _, err := OddsRatio(z.a, z.b, 0.95); !errors.Is(err, ErrZeroCell) {
			t.Errorf("OddsRatio(%v, %v) err = %v, want ErrZeroCell", z.a, z.b, err)
		}
	}
	if _, err := OddsRatio(Count{Successes: 10, Trials: 10}, Count{Successes: 3, Trials: 10}, 0.95); !errors.Is(err, ErrZeroCell) {
		t.Errorf("OddsRatio with n of n: err = %v, want ErrZeroCell", err)
	}
}
