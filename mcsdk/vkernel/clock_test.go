package vkernel

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// randClock draws a clock fault: a rate within ±10 %, an offset within a
// day, up to three jumps of up to ±5 s in the first 10 s.
func randClock(r *rand.Rand) *sched.Clock {
	k := &sched.Clock{PPM: r.Int64N(200_001) - 100_000, OffsetNS: (r.Int64N(2*86400+1) - 86400) * 1e9}
	for range r.IntN(4) {
		k.Jumps = append(k.Jumps, sched.ClockJump{AtUS: r.Int64N(10_000_001), DeltaNS: r.Int64N(10_000_000_001) - 5_000_000_000})
	}
	slices.SortStableFunc(k.Jumps, func(a, b sched.ClockJump) int { return int(a.AtUS - b.AtUS) })
	return k
}

// TestWorldAtProperties: for random clock faults, both bases and random
// deadlines, WorldAt is not before now, the base has reached the
// deadline there, no earlier world time from now on reaches it (checked
// at the end of every stretch between jumps), and it is monotone in the
// deadline.
func TestWorldAtProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 17))
	for i := range 3000 {
		k := randClock(r)
		real := i%2 == 1
		now := Epoch + r.Int64N(20e9)
		at := r.Int64N(40e9) - 5e9
		if real {
			at += Epoch + k.OffsetNS
		}
		got := WorldAt(k, real, at, now)
		if got < now {
			t.Fatalf("%+v real=%v: WorldAt(%d, now %d) = %d, before now", k, real, at, now, got)
		}
		if b := BaseNow(k, real, got); b < at {
			t.Fatalf("%+v real=%v: at WorldAt(%d) = %d the base reads %d, short of it", k, real, at, got, b)
		}
		ends := []int64{got}
		for _, j := range k.Jumps {
			if e := Epoch + j.AtUS*1000; e > now && e < got {
				ends = append(ends, e)
			}
		}
		for _, e := range ends {
			if e > now && BaseNow(k, real, e-1) >= at {
				t.Fatalf("%+v real=%v: the base reaches %d at %d already, WorldAt said %d", k, real, at, e-1, got)
			}
		}
		later := at + r.Int64N(2e9)
		if g2 := WorldAt(k, real, later, now); g2 < got {
			t.Fatalf("%+v real=%v: WorldAt(%d) = %d before WorldAt(%d) = %d", k, real, later, g2, at, got)
		}
	}
}

// TestWorldAtRateZero: on a perfect clock, and at rate 0 with only an
// offset, WorldAt is the identity (shifted by Epoch, or by the offset on
// the realtime base) clamped to now, and BaseNow its inverse; jumps at
// rate 0 move realtime deadlines by exactly their size.
func TestWorldAtRateZero(t *testing.T) {
	tests := []struct {
		name       string
		k          *sched.Clock
		real       bool
		at, now    int64
		want, base int64
	}{
		{"perfect monotonic", nil, false, 3e9, Epoch + 1e9, Epoch + 3e9, 1e9},
		{"perfect monotonic past", nil, false, 5e8, Epoch + 1e9, Epoch + 1e9, 1e9},
		{"perfect monotonic negative", nil, false, -7, Epoch, Epoch, 0},
		{"perfect realtime", nil, true, Epoch + 2e9, Epoch + 1e9, Epoch + 2e9, Epoch + 1e9},
		{"perfect realtime past", nil, true, Epoch, Epoch + 1e9, Epoch + 1e9, Epoch + 1e9},
		{"rate 0 monotonic", &sched.Clock{OffsetNS: 5e9}, false, 4e9, Epoch + 1e9, Epoch + 4e9, 1e9},
		{"rate 0 realtime, offset", &sched.Clock{OffsetNS: 5e9}, true, Epoch + 9e9, Epoch + 1e9, Epoch + 4e9, Epoch + 6e9},
		{"rate 0 realtime, offset past", &sched.Clock{OffsetNS: 5e9}, true, Epoch + 3e9, Epoch + 1e9, Epoch + 1e9, Epoch + 6e9},
		{"rate 0, beyond MaxLocal", nil, false, 1 << 62, Epoch, Epoch + MaxLocal, 0},
		{"rate 0 realtime, two jumps at once", &sched.Clock{Jumps: []sched.ClockJump{{AtUS: 1000, DeltaNS: 1e9}, {AtUS: 1000, DeltaNS: 1e9}}},
			true, Epoch + 2_500_000_000, Epoch, Epoch + 500_000_000, Epoch},
		{"rate 0 realtime, a jump past it", &sched.Clock{Jumps: []sched.ClockJump{{AtUS: 1000, DeltaNS: 5e9}}},
			true, Epoch + 2e9, Epoch, Epoch + 1_000_000, Epoch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := WorldAt(tc.k, tc.real, tc.at, tc.now); got != tc.want {
				t.Errorf("WorldAt = %d, want %d", got, tc.want)
			}
			if got := BaseNow(tc.k, tc.real, tc.now); got != tc.base {
				t.Errorf("BaseNow = %d, want %d", got, tc.base)
			}
		})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		now, at := Epoch+r.Int64N(1e12), r.Int64N(2e12)
		if got, want := WorldAt(nil, false, at, now), max(now, Epoch+at); got != want {
			t.Fatalf("perfect WorldAt(%d, now %d) = %d, want %d", at, now, got, want)
		}
		if got, want := WorldAt(&sched.Clock{}, true, Epoch+at, now), max(now, Epoch+at); got != want {
			t.Fatalf("rate 0 realtime WorldAt(%d, now %d) = %d, want %d", at, now, got, want)
		}
	}
}

// TestNodeTimerPerfectIsWorldTime: on a perfect clock a periodic timer
// expires, counts and reports time left exactly as a timer kept in world
// time: k = 1 + (now - deadline)/interval expiries, the next deadline k
// intervals on, the time left deadline - now.
func TestNodeTimerPerfectIsWorldTime(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		now := Epoch + r.Int64N(1e10)
		value, interval := 1+r.Int64N(1e9), 1+r.Int64N(1e8)
		var nt NodeTimer
		nt.arm(nil, false, now-Epoch+value, interval, now)
		deadline := now + value
		for range 5 {
			if nt.Deadline != deadline {
				t.Fatalf("deadline %d, want %d", nt.Deadline, deadline)
			}
			probe := now + r.Int64N(deadline-now+1)
			if got := nt.Left(probe); got != max(deadline-probe, 1) {
				t.Fatalf("left at %d = %d, want %d", probe, got, deadline-probe)
			}
			now = deadline + r.Int64N(3*interval)
			want := 1 + (now-deadline)/interval
			if got := nt.Forward(now); got != want {
				t.Fatalf("Forward at %d = %d, want %d", now, got, want)
			}
			deadline += want * interval
		}
	}
}

// TestNodeTimerDrifted: on a drifted clock a periodic timer's k-th
// expiry is where the node's time reaches its arming time plus value
// plus k intervals, with no error accumulated, and one that fires late
// counts the intervals the node's time ran past.
func TestNodeTimerDrifted(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		k := randClock(r)
		now := Epoch + r.Int64N(1e10)
		value, interval := 1+r.Int64N(1e9), 1+r.Int64N(1e8)
		var nt NodeTimer
		start := k.Local(now - Epoch)
		nt.arm(k, false, start+value, interval, now)
		next := start + value
		for range 6 {
			if want := WorldAt(k, false, next, now); nt.Deadline != want {
				t.Fatalf("%+v: deadline %d, want %d (node time %d)", k, nt.Deadline, want, next)
			}
			now = nt.Deadline
			if r.IntN(2) == 0 {
				now += r.Int64N(3 * interval)
			}
			want := 1 + (k.Local(now-Epoch)-next)/interval
			if got := nt.Forward(now); got != want {
				t.Fatalf("%+v: Forward = %d, want %d", k, got, want)
			}
			next += want * interval
		}
	}
}

// TestNodeTimerHashLocal: a drifted node's armed timer hashes its base
// and reading; a perfect node's, or a disarmed one, hashes nothing more.
func TestNodeTimerHashLocal(t *testing.T) {
	sum := func(nt NodeTimer) []uint64 {
		var out []uint64
		nt.HashLocal(func(v uint64) { out = append(out, v) })
		return out
	}
	k := &sched.Clock{PPM: -20}
	a := NodeTimer{Deadline: Epoch + 10, At: 10, Clk: k}
	b := a
	b.At++
	c := a
	c.Real = true
	if slices.Equal(sum(a), sum(b)) || slices.Equal(sum(a), sum(c)) {
		t.Errorf("a drifted timer's reading or base is not hashed: %v %v %v", sum(a), sum(b), sum(c))
	}
	if s := sum(NodeTimer{Deadline: Epoch + 10, At: 10}); s != nil {
		t.Errorf("a perfect clock's timer hashed %v", s)
	}
	if s := sum(NodeTimer{Clk: k}); s != nil {
		t.Errorf("a disarmed timer hashed %v", s)
	}
}
