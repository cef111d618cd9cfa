package analysis

import (
	"errors"
	"fmt"
	"testing"
)

// Reference values: scipy 1.10.1,
// scipy.stats.binomtest(k, n).proportion_ci(level, method='wilson') and
// method='exact'.
var intervalCases = []struct {
	c          Count
	level      float64
	wLo, wHi   float64
	cpLo, cpHi float64
}{
	{Count{Successes: 57, Trials: 404}, 0.95, 0.11051603427511657, 0.17842334712431746, 0.10864228224611105, 0.17890233544065068},
	{Count{Successes: 41, Trials: 441}, 0.95, 0.06927210381050133, 0.12369880103336336, 0.06754437232126564, 0.12400950015899762},
	{Count{Successes: 8, Trials: 444}, 0.95, 0.009157661777948953, 0.03514698762396854, 0.00781019614493994, 0.03519282793794367},
	{Count{Successes: 0, Trials: 10}, 0.95, 0.0, 0.27753279986288926, 0.0, 0.30849710781876294},
	{Count{Successes: 10, Trials: 10}, 0.95, 0.7224672001371109, 1.0, 0.6915028921812371, 1.0},
	{Count{Successes: 1, Trials: 1}, 0.95, 0.20654931437723745, 1.0, 0.025000000000000022, 1.0},
	{Count{Successes: 0, Trials: 1}, 0.95, 0.0, 0.7934506856227626, 0.0, 0.975},
	{Count{Successes: 74, Trials: 500}, 0.95, 0.11956140538920543, 0.18180613029572737, 0.11803282506921828, 0.18220039527232693},
	{Count{Successes: 3, Trials: 7}, 0.95, 0.1582198552514697, 0.7495416354723428, 0.09898827844243689, 0.81594843235993},
	{Count{Successes: 57, Trials: 500}, 0.95, 0.08903690099400285, 0.14484908984231548, 0.08749490287997012, 0.14516846659904137},
	{Count{Successes: 57, Trials: 404}, 0.99, 0.10226021771321536, 0.19151631613610282, 0.09971014648708278, 0.19118338856050718},
	{Count{Successes: 3, Trials: 7}, 0.99, 0.11637368051613817, 0.8102850959116125, 0.055299349980557536, 0.8822962483310521},
}

func TestWilsonInterval(t *testing.T) {
	for _, tc := range intervalCases {
		t.Run(fmt.Sprintf("%d/%d@%v", tc.c.Successes, tc.c.Trials, tc.level), func(t *testing.T) {
			iv, err := WilsonInterval(tc.c, tc.level)
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, "lower", iv.Lower, tc.wLo, 1e-12)
			checkNear(t, "upper", iv.Upper, tc.wHi, 1e-12)
		})
	}
}

func TestClopperPearsonInterval(t *testing.T) {
	for _, tc := range intervalCases {
		t.Run(fmt.Sprintf("%d/%d@%v", tc.c.Successes, tc.c.Trials, tc.level), func(t *testing.T) {
			iv, err := ClopperPearsonInterval(tc.c, tc.level)
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, "lower", iv.Lower, tc.cpLo, 1e-9)
			checkNear(t, "upper", iv.Upper, tc.cpHi, 1e-9)
		})
	}
}

func TestClopperPearsonBound(t *testing.T) {
	// A one-sided bound at level 1−α/2 is the two-sided interval's end
	// point at level 1−α (same quantile): cross-check against the scipy
	// values above.
	for _, tc := range intervalCases {
		oneSided := 1 - (1-tc.level)/2
		hi, err := ClopperPearsonBound(tc.c, oneSided, Less)
		if err != nil {
			t.Fatal(err)
		}
		lo, _ := ClopperPearsonBound(tc.c, oneSided, Greater)
		checkNear(t, fmt.Sprintf("%v upper", tc.c), hi, tc.cpHi, 1e-9)
		checkNear(t, fmt.Sprintf("%v lower", tc.c), lo, tc.cpLo, 1e-9)
	}
}

func TestIntervalErrors(t *testing.T) {
	bad := []struct {
		c    Count
		want error
	}{
		{Count{Group: "empty", Successes: 0, Trials: 0}, ErrNoTrials},
		{Count{Group: "over", Successes: 5, Trials: 4}, nil},
		{Count{Group: "neg", Successes: -1, Trials: 4}, nil},
	}
	for _, tc := range bad {
		for name, f := range map[string]func(Count, float64) (Interval, error){
			"wilson": WilsonInterval, "clopper-pearson": ClopperPearsonInterval,
		} {
			_, err := f(tc.c, 0.95)
			if err == nil {
				t.Errorf("%s(%v): no error", name, tc.c)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("%s(%v) = %v, want %v", name, tc.c, err, tc.want)
			}
		}
	}
}

func TestLevelPanics(t *testing.T) {
	for _, level := range []float64{0, 1, -0.5, 95} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("level %v: no panic", level)
				}
			}()
			_, _ = WilsonInterval(Count{Successes: 1, Trials: 2}, level)
		}()
	}
}

// Reference values: scipy 1.10.1,
// scipy.stats.binomtest(k, n, p, alternative=...).pvalue.
func TestBinomialTest(t *testing.T) {
	cases := []struct {
		k, n               int
		p0                 float64
		two, less, greater float64
	}{
		{8, 444, 0.02, 1.0, 0.47037807608492, 0.6641487026781633},
		{57, 404, 0.1, 0.007859451548829173, 0.9965852185770193, 0.005304411075387546},
		{0, 10, 0.3, 0.0388396033, 0.028247524900000005, 1.0},
		{10, 10, 0.3, 5.9048999999999975e-06, 1.0, 5.9048999999999975e-06},
		{3, 7, 0.5, 1.0, 0.5, 0.7734375},
	}
	for _, tc := range cases {
		c := Count{Successes: tc.k, Trials: tc.n}
		for _, a := range []struct {
			alt  Alternative
			want float64
		}{{TwoSided, tc.two}, {Less, tc.less}, {Greater, tc.greater}} {
			got, err := BinomialTest(c, tc.p0, a.alt)
			if err != nil {
				t.Fatal(err)
			}
			checkNear(t, fmt.Sprintf("%d/%d p0=%v %v", tc.k, tc.n, tc.p0, a.alt), got, a.want, 1e-9)
		}
	}
	// Degenerate nulls, exact by definition: under p0 = 0 only x = 0 can
	// occur, under p0 = 1 only x = n.
	degenerate := []struct {
		k, n int
		p0   float64
		alt  Alternative
		want float64
	}{
		{0, 5, 0, TwoSided, 1}, {2, 5, 0, TwoSided, 0}, {2, 5, 0, Greater, 0}, {2, 5, 0, Less, 1},
		{5, 5, 1, TwoSided, 1}, {2, 5, 1, TwoSided, 0}, {2, 5, 1, Less, 0}, {2, 5, 1, Greater, 1},
	}
	for _, tc := range degenerate {
		got, err := BinomialTest(Count{Successes: tc.k, Trials: tc.n}, tc.p0, tc.alt)
		if err != nil || got != tc.want {
			t.Errorf("%d/%d p0=%v %v: %v, %v; want %v", tc.k, tc.n, tc.p0, tc.alt, got, err, tc.want)
		}
	}
	if _, err := BinomialTest(Count{}, 0.5, TwoSided); !errors.Is(err, ErrNoTrials) {
		t.Errorf("0/0: err = %v, want ErrNoTrials", err)
	}
}
