package vkernel

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// A node's clocks (clock_gettime(2)) are the world's one virtual clock,
// which only the scheduler moves, seen through the node's clock fault
// (a sched.Clock drawn from the seed; nil is a perfect clock): its rate
// error scales every clock, the TSC and every timer of the node, its
// offset and jumps move its realtime clocks only (Linux never steps
// CLOCK_MONOTONIC; NTP and settimeofday step CLOCK_REALTIME). Node time
// per clock id:
//
//	REALTIME, REALTIME_COARSE, REALTIME_ALARM, TAI:
//	    Epoch + Local(e) + OffsetNS + the jumps passed by e
//	MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME, BOOTTIME_ALARM,
//	the CPU-time clocks, the TSC:
//	    MonotonicOffset + Local(e)
//
// where e is the world time since the start and Local applies the rate.
// Every timeout becomes a world deadline here: a relative one by the
// node's rate (After), an absolute one from the clock it names (Until),
// and the armed timers (NodeTimer) keep their next expiry in node time so
// that intervals are counted in node time too. Without a fault every
// function here is the identity on world time. A node may not set a
// clock (clock_settime, settimeofday, adjtimex are refused with EPERM by
// the supervisor's table): the clock is the scheduler's.

// Clock ids (linux/time.h).
const (
	ClockRealtime         = 0
	ClockMonotonic        = 1
	ClockProcessCPUTimeID = 2
	ClockThreadCPUTimeID  = 3
	ClockMonotonicRaw     = 4
	ClockRealtimeCoarse   = 5
	ClockMonotonicCoarse  = 6
	ClockBoottime         = 7
	ClockRealtimeAlarm    = 8
	ClockBoottimeAlarm    = 9
	ClockTAI              = 11

	TimerAbstime = 1 << 0 // TIMER_ABSTIME, TFD_TIMER_ABSTIME
)

// Epoch is the virtual wall clock at the start of every run, in ns since
// the Unix epoch: 2026-01-01T00:00:00Z. MonotonicOffset is what the
// monotonic, boot and CPU-time clocks read at the start (so that they are
// never zero).
const (
	Epoch           = int64(1767225600) * 1e9
	MonotonicOffset = int64(1000) * 1e9
)

// RealtimeClock reports whether clock is one of the realtime clocks,
// which a clock fault's offset and jumps move.
func RealtimeClock(clock uint64) bool {
	switch clock {
	case ClockRealtime, ClockRealtimeCoarse, ClockRealtimeAlarm, ClockTAI:
		return true
	}
	return false
}

// ValidClock reports whether clock is a clock id weft serves (every
// static id; a dynamic or CPU-time clock of another process is EINVAL).
func ValidClock(clock uint64) bool {
	switch clock {
	case ClockRealtime, ClockRealtimeCoarse, ClockRealtimeAlarm, ClockTAI,
		ClockMonotonic, ClockMonotonicRaw, ClockMonotonicCoarse, ClockBoottime, ClockBoottimeAlarm,
		ClockProcessCPUTimeID, ClockThreadCPUTimeID:
		return true
	}
	return false
}

// WorldClock is what clock reads on a perfect clock at world time now:
// the realtime clocks now itself, the others the time since Epoch plus
// MonotonicOffset (the CPU-time clocks too: weft has no CPU time).
func WorldClock(clock uint64, now int64) (int64, bool) {
	if !ValidClock(clock) {
		return 0, false
	}
	if RealtimeClock(clock) {
		return now, true
	}
	return now - Epoch + MonotonicOffset, true
}

// ClockNow is what clock reads at world time now on the node with clock
// fault k (ns; realtime clocks since the Unix epoch).
func ClockNow(k *sched.Clock, clock uint64, now int64) (int64, bool) {
	if !ValidClock(clock) {
		return 0, false
	}
	if RealtimeClock(clock) {
		return BaseNow(k, true, now), true
	}
	return BaseNow(k, false, now) + MonotonicOffset, true
}

// A node's timers count on one of two bases, as Linux's hrtimers do: the
// node's monotonic time (its drifted elapsed time: CLOCK_MONOTONIC and
// CLOCK_BOOTTIME less their origin, and every relative timeout on any
// clock, since Linux runs a relative CLOCK_REALTIME timer on the
// monotonic base), or its realtime clock (an absolute deadline on a
// realtime clock, which a step of that clock moves: a jump forward past
// it fires it at the jump, a jump back delays it). The jumps are drawn
// before the run, so the world time at which a base reaches a reading is
// known exactly when the timer is armed.

// MaxLocal bounds a base reading a deadline may ask for, so that no
// conversion overflows (about 73 years of node time; further is never).
const MaxLocal = int64(1) << 61

// BaseNow is what a base of the node with clock fault k reads at world
// time now (ns): the monotonic base from the start of the run, the
// realtime base since the Unix epoch.
func BaseNow(k *sched.Clock, real bool, now int64) int64 {
	e := now - Epoch
	if !real {
		return k.Local(e)
	}
	r := Epoch + k.Local(e)
	if k != nil {
		r += k.OffsetNS + k.Stepped(e)
	}
	return r
}

// WorldAt is the earliest world time, not before now, at which the base
// of the node with clock fault k reads at least at: where a deadline in
// node time falls among the world's events. It is monotone in at, and
// the identity shifted by Epoch on a perfect clock.
func WorldAt(k *sched.Clock, real bool, at, now int64) int64 {
	if !real {
		return max(now, Epoch+k.World(min(at, MaxLocal)))
	}
	at = min(at, Epoch+MaxLocal)
	if k == nil {
		return max(now, at)
	}
	// The realtime base is Epoch + Local(e) + OffsetNS + the jumps passed:
	// between two jumps its shift is constant. Look stretch by stretch,
	// from the first jump after now.
	s := now - Epoch
	shift := k.OffsetNS + k.Stepped(s)
	i := sort.Search(len(k.Jumps), func(i int) bool { return k.Jumps[i].AtUS*1000 > s })
	for {
		e := max(s, k.World(at-Epoch-shift))
		if i == len(k.Jumps) || e < k.Jumps[i].AtUS*1000 {
			return Epoch + e
		}
		for s = k.Jumps[i].AtUS * 1000; i < len(k.Jumps) && k.Jumps[i].AtUS*1000 == s; i++ {
			shift += k.Jumps[i].DeltaNS
		}
	}
}

// After is the world time at which d ns (d ≥ 0) of the node's own time
// have passed from world time now: a relative timeout's deadline
// (nanosleep(2), a relative clock_nanosleep(2), the timeouts of poll,
// select, the epoll waits, futex, semtimedop, rt_sigtimedwait and
// SO_RCVTIMEO), counted on the monotonic base; -1 (none) when the base
// would pass MaxLocal first. Linux adds a relative timeout to the clock
// saturating (ktime_add_safe, timespec64_add_safe) and an hrtimer at
// KTIME_MAX never expires; a deadline decades away is never reached by
// a run either, and nothing may wrap to one that has passed.
func After(k *sched.Clock, now, d int64) int64 {
	if d > MaxLocal-k.Local(now-Epoch) {
		return -1
	}
	if k == nil || k.PPM == 0 {
		return now + d
	}
	return WorldAt(k, false, k.Local(now-Epoch)+d, now)
}

// KtimeMax is Linux's KTIME_MAX, the latest time an hrtimer may be set
// to: a timeout or timer value at or past it never expires.
const KtimeMax = math.MaxInt64

// Ktime is a valid struct timespec {sec, nsec} (neither negative, nsec
// below 10⁹) in ns, saturated at KtimeMax as Linux converts one
// (timespec64_to_ktime, ktime_set: a tv_sec of KTIME_SEC_MAX or more is
// KTIME_MAX), never wrapped. It is the one conversion of every timeout
// and timer value weft reads: the sleeps, the waits of poll, ppoll,
// select, pselect6 and the epoll calls, futex, semtimedop,
// rt_sigtimedwait, SO_RCVTIMEO and SO_SNDTIMEO, the timers. Below
// KTIME_SEC_MAX seconds the product fits (at most KTIME_MAX less
// 854775808 ns); a deadline past the clock's range is none (After).
func Ktime(sec, nsec int64) int64 {
	if sec >= KtimeMax/int64(1e9) { // KTIME_SEC_MAX
		return KtimeMax
	}
	return sec*1e9 + nsec
}

// WaitLeft is what a ppoll, pselect6 or select's timeout {sec, nsec}
// (valid) has left, as {sec, nsec}, when CLOCK_MONOTONIC reads now, of a
// call that began when it read start: Linux's end (poll_select_set_timeout:
// start plus the timeout as a struct timespec64, saturated at
// {TIME64_MAX, 0} by timespec64_add_safe) less now, zero once passed
// (poll_select_finish). The end is kept as a timespec64, wider than
// ktime: a timeout whose end is past KTIME_MAX still waits without end
// (timespec64_to_ktime) but is written back exactly, counted to that end.
func WaitLeft(sec, nsec, start, now int64) (int64, int64) {
	es, en := start/1e9, start%1e9+nsec
	if en >= 1e9 {
		es, en = es+1, en-1e9
	}
	if sec > math.MaxInt64-es {
		es, en = math.MaxInt64, 0 // TIME64_MAX
	} else {
		es += sec
	}
	ls, ln := es-now/1e9, en-now%1e9
	if ln < 0 {
		ls, ln = ls-1, ln+1e9
	}
	if ls < 0 {
		return 0, 0
	}
	return ls, ln
}

// TimeLeft is the node's own time (its monotonic base, ns) from world
// time now to the world deadline, 0 once it has passed: what a relative
// timeout has left (the time nanosleep(2) reports when interrupted, and
// that ppoll(2), pselect6(2) and select(2) write back). On a perfect
// clock it is deadline - now. A fast clock's deadline, the first world
// time its base reaches the node's, may read up to 1 ns past it.
func TimeLeft(k *sched.Clock, deadline, now int64) int64 {
	return max(BaseNow(k, false, deadline)-BaseNow(k, false, now), 0)
}

// Until is the world time at which clock, on the node, reaches abs: an
// absolute timeout's deadline (clock_nanosleep(2) with TIMER_ABSTIME, a
// futex's FUTEX_WAIT_BITSET), never before now (a deadline passed
// returns at once); -1 (none) when abs is past the base's range
// (Beyond), as Linux's hrtimer at KTIME_MAX never expires. A realtime
// deadline counts on the realtime base, which the node's jumps move, the
// others on the monotonic base. An invalid clock is now.
func Until(k *sched.Clock, clock uint64, abs, now int64) int64 {
	switch {
	case !ValidClock(clock):
		return now
	case RealtimeClock(clock):
		if Beyond(true, abs) {
			return -1
		}
		return WorldAt(k, true, abs, now)
	}
	if Beyond(false, abs-MonotonicOffset) {
		return -1
	}
	return WorldAt(k, false, abs-MonotonicOffset, now)
}

// Beyond reports whether a reading of the realtime (real) or monotonic
// base is past the range of node time weft counts (MaxLocal from the
// start of the run): a deadline there is never reached.
func Beyond(real bool, at int64) bool {
	if real {
		return at > Epoch+MaxLocal
	}
	return at > MaxLocal
}

// StepsBy is how many jumps of clock fault k have happened by world time
// now: the node's realtime clock was set that many times.
func StepsBy(k *sched.Clock, now int64) int {
	if k == nil {
		return 0
	}
	return sort.Search(len(k.Jumps), func(i int) bool { return Epoch+k.Jumps[i].AtUS*1000 > now })
}

// NextStep is the world time of clock fault k's first jump after now (0:
// none).
func NextStep(k *sched.Clock, now int64) int64 {
	if i := StepsBy(k, now); k != nil && i < len(k.Jumps) {
		return Epoch + k.Jumps[i].AtUS*1000
	}
	return 0
}

// NodeTimer is an armed timer (a timerfd, ITIMER_REAL, a POSIX timer)
// counted in its node's time: its next expiry is the reading At of its
// base, its Interval is in ns of that base, and Deadline is where that
// expiry falls in world time. On a perfect clock At is Deadline less
// Epoch (the monotonic base) or Deadline itself (realtime), so only the
// timers of a node with a clock fault hash it.
type NodeTimer struct {
	Deadline int64 // world time (ns since the Unix epoch) of the next expiry; 0 disarmed, Never armed past the clock's range
	Interval int64 // ns of the base; 0 one-shot
	At       int64 // the base's reading at the next expiry
	Real     bool  // counts on the realtime base (an absolute realtime deadline)
	Clk      *sched.Clock
}

// Never is the Deadline of a timer armed to expire past its base's range
// (Beyond): armed, as Linux's hrtimer at KTIME_MAX is, but it never
// expires, and it is no event a run waits for (Pending).
const Never = math.MaxInt64

// arm sets t to expire when its base, on the node with clock fault k,
// reads at (never before now), then every interval ns.
func (t *NodeTimer) arm(k *sched.Clock, real bool, at, interval, now int64) {
	t.Clk, t.Real, t.Interval = k, real, interval
	t.At = max(at, BaseNow(k, real, now))
	if Beyond(real, t.At) {
		t.Deadline = Never
		return
	}
	t.Deadline = WorldAt(k, real, t.At, now)
}

// Pending reports whether t is armed to expire within the clock's range:
// whether its Deadline is an event of the world.
func (t *NodeTimer) Pending() bool { return t.Deadline > 0 && t.Deadline != Never }

// Disarm stops t.
func (t *NodeTimer) Disarm() { t.Deadline, t.At = 0, 0 }

// ArmAfter arms t on the node with clock fault k to expire value ns of
// node time from world time now, then every interval ns (a zero value
// disarms, keeping the interval for the hash: timer_settime(2),
// setitimer(2), alarm(2), timerfd_settime(2) without TIMER_ABSTIME).
func (t *NodeTimer) ArmAfter(k *sched.Clock, value, interval, now int64) {
	if value == 0 {
		t.Disarm()
		t.Clk, t.Interval = k, interval
		return
	}
	t.arm(k, false, SatAdd(k.Local(now-Epoch), value), interval, now)
}

// SatAdd is a+b for b ≥ 0, saturated at KtimeMax (ktime_add_safe).
func SatAdd(a, b int64) int64 {
	if b > KtimeMax-a {
		return KtimeMax
	}
	return a + b
}

// ArmAt arms t on the node with clock fault k to expire when clock reads
// abs, then every interval ns of the clock (TIMER_ABSTIME; a zero value
// disarms). A realtime clock's deadline moves with the clock's steps.
func (t *NodeTimer) ArmAt(k *sched.Clock, clock uint64, abs, interval, now int64) {
	switch {
	case abs == 0:
		t.Disarm()
		t.Clk, t.Interval = k, interval
	case RealtimeClock(clock):
		t.arm(k, true, abs, interval, now)
	default:
		t.arm(k, false, abs-MonotonicOffset, interval, now)
	}
}

// Forward counts t's expiries up to world time now and re-arms it: one
// for its deadline, and one more for each whole interval its base has
// run past it since (as Linux forwards an hrtimer: the overrun of
// timer_getoverrun(2)).
func (t *NodeTimer) Forward(now int64) int64 {
	if t.Deadline == 0 || now < t.Deadline || t.Deadline == Never {
		return 0
	}
	if t.Interval == 0 {
		t.Disarm()
		return 1
	}
	k := int64(1)
	if l := BaseNow(t.Clk, t.Real, now); l > t.At {
		k += (l - t.At) / t.Interval
	}
	if t.At = SatAdd(t.At, k*t.Interval); Beyond(t.Real, t.At) {
		t.Deadline = Never
		return k
	}
	t.Deadline = WorldAt(t.Clk, t.Real, t.At, now)
	return k
}

// Left is the base's time to t's next expiry at world time now (0
// disarmed), never 0 while armed (timer_gettime(2): a zero it_value
// means disarmed).
func (t *NodeTimer) Left(now int64) int64 {
	if t.Deadline == 0 {
		return 0
	}
	return max(t.At-BaseNow(t.Clk, t.Real, now), 1)
}

// HashLocal writes what the world deadline does not determine of t: its
// base and reading, on a node with a clock fault or for a timer armed
// past the clock's range (Never: its reading is what timer_gettime
// reports); nothing otherwise, so that worlds without clock faults hash
// as before.
func (t *NodeTimer) HashLocal(put func(uint64)) {
	if t.Deadline == 0 || t.Clk == nil && t.Deadline != Never {
		return
	}
	put(uint64(t.At))
	if t.Real {
		put(1)
	} else {
		put(0)
	}
}

// Timespec decodes a struct timespec (16 bytes), which must be
// normalised: a negative field or tv_nsec of 10⁹ or more is EINVAL
// (timespec64_valid: nanosleep(2), timer_settime(2), futex(2), …); one
// past KTIME_MAX saturates (Ktime).
func Timespec(b []byte) (int64, bool) {
	if len(b) < 16 {
		return 0, false
	}
	sec, nsec := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return 0, false
	}
	return Ktime(sec, nsec), true
}

// TimespecBytes is ns as a struct timespec.
func TimespecBytes(ns int64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(ns/1e9))
	return binary.LittleEndian.AppendUint64(b, uint64(ns%1e9))
}

// Timeval decodes a struct timeval (16 bytes), which must be normalised:
// a negative field or tv_usec of 10⁶ or more is EINVAL (setitimer(2));
// one past KTIME_MAX saturates, as Linux converts it to a timespec64
// and then to ktime (Ktime).
func Timeval(b []byte) (int64, bool) {
	if len(b) < 16 {
		return 0, false
	}
	sec, usec := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
	if sec < 0 || usec < 0 || usec >= 1e6 {
		return 0, false
	}
	return Ktime(sec, usec*1e3), true
}

// TimevalBytes is ns as a struct timeval (truncated to microseconds).
func TimevalBytes(ns int64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(ns/1e9))
	return binary.LittleEndian.AppendUint64(b, uint64(ns%1e9/1e3))
}
