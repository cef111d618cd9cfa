package mcsdk

import (
	"math/rand/v2"
	"testing"
)

func TestParseDistribution(t *testing.T) {
	tests := []struct {
		in      string
		ok      bool
		lo, hi  int64 // bounds every draw must respect
		wantMin int64
	}{
		{"", true, 0, 0, 0},
		{"constant:500", true, 500, 500, 500},
		{"uniform:1000-60000", true, 1000, 60000, 1000},
		{"exponential:100", true, 0, 1 << 40, 0},
		{"normal:100,10", true, 0, 1 << 40, 0},
		{"uniform:5-1", false, 0, 0, 0},
		{"gauss:1", false, 0, 0, 0},
		{"constant:-3", false, 0, 0, 0},
		{"uniform:1", false, 0, 0, 0},
		{"1000", false, 0, 0, 0},
	}
	for _, tc := range tests {
		d, err := parseDistribution(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if !tc.ok {
			continue
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 1000 {
			if v := d.draw(r); v < tc.lo || v > tc.hi {
				t.Fatalf("%q drew %d outside [%d, %d]", tc.in, v, tc.lo, tc.hi)
			}
		}
	}
	// uniform:1000-60000 has mean 30500; 10,000 draws land within 1 %.
	d, _ := parseDistribution("uniform:1000-60000")
	r := rand.New(rand.NewPCG(7, 7))
	var sum int64
	for range 10000 {
		sum += d.draw(r)
	}
	if mean := float64(sum) / 10000; mean < 30500*0.99 || mean > 30500*1.01 {
		t.Errorf("uniform mean %.0f, want about 30500", mean)
	}
}
