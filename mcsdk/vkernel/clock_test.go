package vkernel

import (
	"encoding/binary"
	"math"
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

// TestClockIDs checks what each clock id of clock_gettime(2) reads: the
// realtime clocks (REALTIME, REALTIME_COARSE, REALTIME_ALARM, TAI) the
// wall clock, moved by the node's offset and jumps; the monotonic ones
// (MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME, BOOTTIME_ALARM)
// and the CPU-time clocks the time since the start plus MonotonicOffset,
// which no offset or jump moves; every one scaled by the node's rate. An
// unknown id (10 was CLOCK_SGI_CYCLE; a dynamic clock's negative id) is
// EINVAL.
func TestClockIDs(t *testing.T) {
	const e = 10e9 // world time since the start
	k := &sched.Clock{PPM: 50000, OffsetNS: 3e9, Jumps: []sched.ClockJump{{AtUS: 1e6, DeltaNS: -2e9}, {AtUS: 20e6, DeltaNS: 7e9}}}
	realK := Epoch + e + e/20 + 3e9 - 2e9 // +5 %, the offset, the first jump only
	monoK := MonotonicOffset + e + e/20
	cases := []struct {
		name     string
		id       uint64
		ok       bool
		perfect  int64
		faulted  int64
		realtime bool
	}{
		{"CLOCK_REALTIME", ClockRealtime, true, Epoch + e, realK, true},
		{"CLOCK_REALTIME_COARSE", ClockRealtimeCoarse, true, Epoch + e, realK, true},
		{"CLOCK_REALTIME_ALARM", ClockRealtimeAlarm, true, Epoch + e, realK, true},
		{"CLOCK_TAI", ClockTAI, true, Epoch + e, realK, true},
		{"CLOCK_MONOTONIC", ClockMonotonic, true, MonotonicOffset + e, monoK, false},
		{"CLOCK_MONOTONIC_RAW", ClockMonotonicRaw, true, MonotonicOffset + e, monoK, false},
		{"CLOCK_MONOTONIC_COARSE", ClockMonotonicCoarse, true, MonotonicOffset + e, monoK, false},
		{"CLOCK_BOOTTIME", ClockBoottime, true, MonotonicOffset + e, monoK, false},
		{"CLOCK_BOOTTIME_ALARM", ClockBoottimeAlarm, true, MonotonicOffset + e, monoK, false},
		{"CLOCK_PROCESS_CPUTIME_ID", ClockProcessCPUTimeID, true, MonotonicOffset + e, monoK, false},
		{"CLOCK_THREAD_CPUTIME_ID", ClockThreadCPUTimeID, true, MonotonicOffset + e, monoK, false},
		{"id 10", 10, false, 0, 0, false},
		{"id 12", 12, false, 0, 0, false},
		{"a dynamic clock", ^uint64(2), false, 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if ValidClock(tc.id) != tc.ok || RealtimeClock(tc.id) != tc.realtime {
				t.Fatalf("valid %v realtime %v, want %v %v", ValidClock(tc.id), RealtimeClock(tc.id), tc.ok, tc.realtime)
			}
			for _, c := range []struct {
				k    *sched.Clock
				want int64
			}{{nil, tc.perfect}, {k, tc.faulted}} {
				got, ok := ClockNow(c.k, tc.id, Epoch+e)
				if ok != tc.ok || got != c.want {
					t.Errorf("clock fault %v: reads %d (%v), want %d (%v)", c.k, got, ok, c.want, tc.ok)
				}
			}
			if got, ok := WorldClock(tc.id, Epoch+e); ok != tc.ok || got != tc.perfect {
				t.Errorf("world reading %d (%v), want %d", got, ok, tc.perfect)
			}
		})
	}
}

// TestTimeouts checks how a node's timeouts fall in world time: a
// relative one (nanosleep(2), clock_nanosleep(2) without TIMER_ABSTIME)
// counts node time on the monotonic base whatever the clock; an absolute
// one (TIMER_ABSTIME) waits for the clock it names to read the value (a
// realtime deadline moves with the clock's jumps; one already passed is
// now); an unknown clock is now.
func TestTimeouts(t *testing.T) {
	now := Epoch + 1e9
	fast := &sched.Clock{PPM: 50000} // node time e + e/20: 1.05 s per world second
	jump := &sched.Clock{Jumps: []sched.ClockJump{{AtUS: 2e6, DeltaNS: 10e9}}}
	cases := []struct {
		name  string
		k     *sched.Clock
		abs   bool
		clock uint64
		v     int64
		want  int64
	}{
		{"relative, perfect", nil, false, 0, 3e9, now + 3e9},
		{"relative, fast: less world time", fast, false, 0, 21e8, now + 2e9},
		{"absolute monotonic", nil, true, ClockMonotonic, MonotonicOffset + 4e9, Epoch + 4e9},
		{"absolute monotonic, fast", fast, true, ClockMonotonic, MonotonicOffset + 42e8, Epoch + 4e9},
		{"absolute realtime", nil, true, ClockRealtime, Epoch + 5e9, Epoch + 5e9},
		{"absolute realtime, passed", nil, true, ClockRealtime, Epoch, now},
		{"absolute realtime, a jump past it fires at the jump", jump, true, ClockRealtime, Epoch + 5e9, Epoch + 2e9},
		{"absolute realtime, after the jump", jump, true, ClockRealtime, Epoch + 15e9, Epoch + 5e9},
		{"absolute monotonic ignores realtime jumps", jump, true, ClockBoottime, MonotonicOffset + 5e9, Epoch + 5e9},
		{"absolute, unknown clock", nil, true, 10, Epoch + 5e9, now},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := After(tc.k, now, tc.v)
			if tc.abs {
				got = Until(tc.k, tc.clock, tc.v, now)
			}
			if got != tc.want {
				t.Errorf("deadline %d, want %d (off by %d)", got-Epoch, tc.want-Epoch, got-tc.want)
			}
		})
	}
	if s, n := StepsBy(jump, Epoch+2e9-1), NextStep(jump, Epoch); s != 0 || n != Epoch+2e9 {
		t.Errorf("before the jump: %d steps, next at %d", s, n-Epoch)
	}
	if s, n := StepsBy(jump, Epoch+2e9), NextStep(jump, Epoch+2e9); s != 1 || n != 0 {
		t.Errorf("at the jump: %d steps, next at %d", s, n)
	}
}

// TestTimespecTimeval checks the decoding of struct timespec and struct
// timeval: normalised values only (nanosleep(2), timer_settime(2),
// setitimer(2): EINVAL otherwise), and the encodings' round trip.
func TestTimespecTimeval(t *testing.T) {
	pair := func(a, b int64) []byte {
		return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, uint64(a)), uint64(b))
	}
	cases := []struct {
		b      []byte
		ts, tv int64
		tsOK   bool
		tvOK   bool
	}{
		{pair(0, 0), 0, 0, true, true},
		{pair(2, 999_999), 2_000_999_999, 2_999_999_000, true, true},
		{pair(1, 1_000_000), 1_001_000_000, 0, true, false},
		{pair(1, 999_999_999), 1_999_999_999, 0, true, false},
		{pair(1, 1_000_000_000), 0, 0, false, false},
		{pair(-1, 0), 0, 0, false, false},
		{pair(0, -1), 0, 0, false, false},
		{pair(0, 0)[:15], 0, 0, false, false},
		// Past KTIME_MAX both saturate, never wrap (timespec64_to_ktime: a
		// tv_sec of KTIME_SEC_MAX, 9223372036, or more is KTIME_MAX).
		{pair(math.MaxInt64, 999_999), KtimeMax, KtimeMax, true, true},
		{pair(20211507185753197, 0), KtimeMax, KtimeMax, true, true}, // 512 ns modulo 2^64
		{pair(9223372036, 0), KtimeMax, KtimeMax, true, true},
		{pair(9223372035, 999_999), 9223372035_000_999_999, 9223372035_999_999_000, true, true},
	}
	for _, tc := range cases {
		if ts, ok := Timespec(tc.b); ok != tc.tsOK || ok && ts != tc.ts {
			t.Errorf("timespec %x = %d (%v), want %d (%v)", tc.b, ts, ok, tc.ts, tc.tsOK)
		}
		if tv, ok := Timeval(tc.b); ok != tc.tvOK || ok && tv != tc.tv {
			t.Errorf("timeval %x = %d (%v), want %d (%v)", tc.b, tv, ok, tc.tv, tc.tvOK)
		}
	}
	for _, ns := range []int64{0, 1, 999_999_999, 1e9, 12_345_678_901} {
		if got, _ := Timespec(TimespecBytes(ns)); got != ns {
			t.Errorf("timespec round trip of %d gives %d", ns, got)
		}
		if got, _ := Timeval(TimevalBytes(ns)); got != ns/1e3*1e3 {
			t.Errorf("timeval round trip of %d gives %d", ns, got)
		}
	}
}

// TestAfterSaturates checks that a relative timeout past the clock's
// range (Linux: ktime_add_safe saturating at KTIME_MAX, an hrtimer there
// never expiring) is a wait without end, never a deadline wrapped into
// the past, on a perfect clock and on fast and slow ones; and that an
// absolute one past the range is none too.
func TestAfterSaturates(t *testing.T) {
	now := Epoch + 7e9
	for _, k := range []*sched.Clock{nil, {PPM: 50000}, {PPM: -50000}} {
		for _, tc := range []struct {
			d    int64
			none bool
		}{
			{1, false}, {3e9, false}, {int64(math.MaxInt32) * 1e6, false}, {MaxLocal / 2, false},
			{MaxLocal, true}, {9e18, true}, {math.MaxInt64, true},
		} {
			got := After(k, now, tc.d)
			switch {
			case tc.none && got != -1:
				t.Errorf("clock %v, timeout %d: deadline %d, want none", k, tc.d, got)
			case !tc.none && got <= now:
				t.Errorf("clock %v, timeout %d: deadline %d is not after now %d", k, tc.d, got, now)
			case !tc.none && TimeLeft(k, got, now) < tc.d:
				t.Errorf("clock %v, timeout %d: deadline %d leaves %d", k, tc.d, got, TimeLeft(k, got, now))
			}
		}
		for _, tc := range []struct {
			clock uint64
			abs   int64
			none  bool
		}{
			{ClockMonotonic, MonotonicOffset + 5e9, false}, {ClockMonotonic, MonotonicOffset + MaxLocal, false},
			{ClockMonotonic, MonotonicOffset + MaxLocal + 1, true}, {ClockBoottime, KtimeMax, true},
			{ClockRealtime, Epoch + 5e9, false}, {ClockRealtime, Epoch + MaxLocal + 1, true}, {ClockTAI, KtimeMax, true},
		} {
			if got := Until(k, tc.clock, tc.abs, now); (got == -1) != tc.none || !tc.none && got < now {
				t.Errorf("clock %v: Until(%d, %d) = %d, want none %v", k, tc.clock, tc.abs, got, tc.none)
			}
		}
	}
	// Ktime's rule is timespec64_to_ktime's (include/linux/ktime.h): a
	// tv_sec of KTIME_SEC_MAX (9223372036) or more is KTIME_MAX, whatever
	// tv_nsec is; below it the product is exact.
	for _, tc := range []struct{ sec, frac, want int64 }{
		{0, 0, 0}, {1, 5, 1e9 + 5}, {9223372036, 854775807, math.MaxInt64}, {9223372036, 0, math.MaxInt64},
		{9223372035, 999999999, 9223372035999999999}, {20211507185753197, 0, math.MaxInt64},
		{math.MaxInt64, 999999999, math.MaxInt64},
	} {
		if got := Ktime(tc.sec, tc.frac); got != tc.want {
			t.Errorf("Ktime(%d, %d) = %d, want %d", tc.sec, tc.frac, got, tc.want)
		}
	}
}

// TestWaitLeft checks what a ppoll, pselect6 or select's timeout has
// left against Linux's rule (fs/select.c poll_select_set_timeout and
// poll_select_finish, kernel/time/time.c timespec64_add_safe): the end
// is start plus the timeout as a timespec64, saturated at {TIME64_MAX, 0}
// only when the seconds overflow, so a timeout past KTIME_MAX is written
// back less the time waited, never as KTIME_MAX less anything.
func TestWaitLeft(t *testing.T) {
	const mono = MonotonicOffset + 5e8 // 1000.5 s
	for _, tc := range []struct {
		sec, nsec, start, now int64
		ls, ln                int64
	}{
		{10, 0, mono, mono, 10, 0},
		{10, 0, mono, mono + 50e6, 9, 950e6},
		{0, 50e6, mono, mono + 50e6, 0, 0},
		{0, 50e6, mono, mono + 60e6, 0, 0},
		{9223372035, 999999999, mono, mono + 20e6, 9223372035, 979999999},
		{9223372036, 0, mono, mono, 9223372036, 0},
		{9223372036, 854775807, mono, mono + 20e6, 9223372036, 834775807},
		{20211507185753197, 0, mono, mono + 1, 20211507185753196, 999999999},
		// start + timeout overflows: the end is {TIME64_MAX, 0}.
		{math.MaxInt64, 999999999, mono, mono, math.MaxInt64 - 1001, 5e8},
		{math.MaxInt64 - 1000, 5e8, mono, mono, math.MaxInt64 - 1001, 5e8},
		// the nanoseconds' carry makes the seconds overflow.
		{math.MaxInt64 - 1000, 999999999, mono, mono, math.MaxInt64 - 1001, 5e8},
		{math.MaxInt64 - 1001, 499999999, mono, mono, math.MaxInt64 - 1001, 499999999},
	} {
		if ls, ln := WaitLeft(tc.sec, tc.nsec, tc.start, tc.now); ls != tc.ls || ln != tc.ln {
			t.Errorf("WaitLeft(%d, %d, %d, %d) = {%d, %d}, want {%d, %d}", tc.sec, tc.nsec, tc.start, tc.now, ls, ln, tc.ls, tc.ln)
		}
	}
}

// TestNodeTimerNever checks that a timer armed past its base's range
// (KTIME_MAX on Linux: it_value saturated, timespec64_to_ktime) is armed
// and never expires: no event (Pending), no expiry however late, and
// time left counted to its saturated reading, not wrapped.
func TestNodeTimerNever(t *testing.T) {
	now := Epoch + 3e9
	for _, k := range []*sched.Clock{nil, {PPM: 50000}, {PPM: -50000, OffsetNS: 7e9}} {
		for _, tc := range []struct {
			name  string
			arm   func(*NodeTimer)
			never bool
		}{
			{"relative KTIME_MAX", func(n *NodeTimer) { n.ArmAfter(k, KtimeMax, 0, now) }, true},
			{"relative KTIME_MAX, periodic", func(n *NodeTimer) { n.ArmAfter(k, KtimeMax, KtimeMax, now) }, true},
			{"relative 9e18", func(n *NodeTimer) { n.ArmAfter(k, 9e18, 0, now) }, true},
			{"absolute monotonic KTIME_MAX", func(n *NodeTimer) { n.ArmAt(k, ClockMonotonic, KtimeMax, 0, now) }, true},
			{"absolute realtime KTIME_MAX", func(n *NodeTimer) { n.ArmAt(k, ClockRealtime, KtimeMax, 0, now) }, true},
			{"relative 1 s", func(n *NodeTimer) { n.ArmAfter(k, 1e9, 0, now) }, false},
		} {
			var n NodeTimer
			tc.arm(&n)
			if n.Deadline == 0 || n.Pending() == tc.never {
				t.Errorf("clock %v, %s: deadline %d, pending %v", k, tc.name, n.Deadline, n.Pending())
				continue
			}
			if !tc.never {
				continue
			}
			if got := n.Forward(math.MaxInt64 - 1); got != 0 || n.Deadline != Never {
				t.Errorf("clock %v, %s: expired %d times, deadline %d", k, tc.name, got, n.Deadline)
			}
			if left := n.Left(now); left < KtimeMax/4 {
				t.Errorf("clock %v, %s: left %d, want the saturated reading's", k, tc.name, left)
			}
			var hashed []uint64
			n.HashLocal(func(v uint64) { hashed = append(hashed, v) })
			if len(hashed) == 0 || hashed[0] != uint64(n.At) {
				t.Errorf("clock %v, %s: hashes %v, want its reading %d first", k, tc.name, hashed, n.At)
			}
		}
	}
}
