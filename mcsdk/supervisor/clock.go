//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"hash"
	"sort"

	"golang.org/x/sys/unix"
)

// A node's clocks are the world's virtual clock seen through the node's
// clock fault (Config.Clocks, drawn from the seed): its rate error scales
// every clock, the TSC and every timer of the node, its offset and jumps
// move its realtime clocks only (Linux never steps CLOCK_MONOTONIC; NTP and
// settimeofday step CLOCK_REALTIME). Node time per clock id:
//
//	REALTIME, REALTIME_COARSE, REALTIME_ALARM, TAI:
//	    Epoch + Local(e) + OffsetNS + the jumps passed by e
//	MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME, BOOTTIME_ALARM,
//	the CPU-time clocks, the TSC:
//	    monotonicOffset + Local(e)
//
// where e is the world time since the start and Local applies the rate.
// Every timeout is turned into a world deadline here: a relative one by
// the node's rate (after), an absolute one from the clock it names
// (until), and the armed timers (nodeTimer) keep their next expiry in
// node time so that intervals are counted in node time too. Without a
// fault every function here is the identity on world time, so models
// without clock faults see exactly what they saw before.

// clockOf is node n's clock fault, nil for a perfect clock.
func (w *World) clockOf(n *node) *NodeClock {
	if n == nil || n.id >= len(w.cfg.Clocks) {
		return nil
	}
	return &w.cfg.Clocks[n.id]
}

// realtimeClock reports whether clock is one of the realtime clocks,
// which offsets and jumps move.
func realtimeClock(clock uint64) bool {
	switch clock {
	case unix.CLOCK_REALTIME, unix.CLOCK_REALTIME_COARSE, unix.CLOCK_REALTIME_ALARM, unix.CLOCK_TAI:
		return true
	}
	return false
}

// nodeNow is what clock reads on node n now (ns; realtime clocks since
// the Unix epoch): the world's reading through the node's clock fault.
func (w *World) nodeNow(n *node, clock uint64) (int64, bool) {
	if _, ok := w.clockNow(clock); !ok {
		return 0, false
	}
	k := w.clockOf(n)
	if realtimeClock(clock) {
		return baseNow(k, true, w.now), true
	}
	return baseNow(k, false, w.now) + monotonicOffset, true
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

// maxLocal bounds a base reading a deadline may ask for, so that no
// conversion overflows (about 73 years of node time; further is never).
const maxLocal = int64(1) << 61

// baseNow is what a base of the node with clock fault k reads at world
// time now (ns): the monotonic base from the start of the run, the
// realtime base since the Unix epoch.
func baseNow(k *NodeClock, real bool, now int64) int64 {
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

// worldAt is the earliest world time, not before now, at which the base
// of the node with clock fault k reads at least at: where a deadline in
// node time falls among the world's events. It is monotone in at, and
// the identity shifted by Epoch on a perfect clock.
func worldAt(k *NodeClock, real bool, at, now int64) int64 {
	if !real {
		return max(now, Epoch+k.World(min(at, maxLocal)))
	}
	at = min(at, Epoch+maxLocal)
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

// clockNow is what clock reads on the calling node now.
func (c *call) clockNow(clock uint64) (int64, bool) { return c.w.nodeNow(c.n, clock) }

// realNow is the calling node's CLOCK_REALTIME now (ns since the Unix
// epoch).
func (c *call) realNow() int64 {
	now, _ := c.w.nodeNow(c.n, unix.CLOCK_REALTIME)
	return now
}

// after is the world time at which d ns of the calling node's own time
// have passed from now: a relative timeout's deadline.
func (c *call) after(d int64) int64 {
	k := c.w.clockOf(c.n)
	if k == nil || k.PPM == 0 {
		return c.w.now + d
	}
	return worldAt(k, false, k.Local(c.w.now-Epoch)+d, c.w.now)
}

// until is the world time at which clock, on the calling node, reaches
// abs: an absolute timeout's deadline (never before now). A realtime
// deadline counts on the realtime base, which the node's jumps move, the
// others on the monotonic base.
func (c *call) until(clock uint64, abs int64) int64 {
	if _, ok := c.clockNow(clock); !ok {
		return c.w.now
	}
	if realtimeClock(clock) {
		return worldAt(c.w.clockOf(c.n), true, abs, c.w.now)
	}
	return worldAt(c.w.clockOf(c.n), false, abs-monotonicOffset, c.w.now)
}

// hashClocks writes every node's clock fault to h: two states whose nodes
// will read different times must not merge.
func (w *World) hashClocks(h hash.Hash) {
	var b [8]byte
	put := func(v int64) { binary.LittleEndian.PutUint64(b[:], uint64(v)); h.Write(b[:]) }
	if len(w.cfg.Clocks) == 0 {
		return // no clock faults: the hash of every world without them is unchanged
	}
	put(int64(len(w.cfg.Clocks)))
	for _, k := range w.cfg.Clocks {
		put(k.OffsetNS)
		put(k.PPM)
		put(int64(len(k.Jumps)))
		for _, j := range k.Jumps {
			put(j.AtUS)
			put(j.DeltaNS)
		}
	}
}

// nodeTimer is an armed timer (a timerfd, ITIMER_REAL, a POSIX timer)
// counted in its node's time: its next expiry is the reading at of its
// base, its interval is in ns of that base, and deadline is where that
// expiry falls in world time. On a perfect clock at is deadline less
// Epoch (the monotonic base) or deadline itself (realtime), so only the
// timers of a node with a clock fault hash it.
type nodeTimer struct {
	deadline int64 // world time (ns since the Unix epoch) of the next expiry; 0 disarmed
	interval int64 // ns of the base; 0 one-shot
	at       int64 // the base's reading at the next expiry
	real     bool  // counts on the realtime base (an absolute realtime deadline)
	clk      *NodeClock
}

// arm sets t to expire when its base, on the node with clock fault k,
// reads at (never before now; 0 disarms), then every interval ns.
func (t *nodeTimer) arm(k *NodeClock, real bool, at, interval, now int64) {
	t.clk, t.real, t.interval = k, real, interval
	t.at = max(at, baseNow(k, real, now))
	t.deadline = worldAt(k, real, t.at, now)
}

// disarm stops t.
func (t *nodeTimer) disarm() { t.deadline, t.at = 0, 0 }

// armAfter arms t on the calling node to expire value ns of node time
// from now (0 disarms), then every interval ns.
func (c *call) armAfter(t *nodeTimer, value, interval int64) {
	k := c.w.clockOf(c.n)
	if value == 0 {
		t.disarm()
		t.clk, t.interval = k, interval
		return
	}
	t.arm(k, false, k.Local(c.w.now-Epoch)+value, interval, c.w.now)
}

// armAt arms t on the calling node to expire when clock reads abs (0
// disarms), then every interval ns of the clock.
func (c *call) armAt(t *nodeTimer, clock uint64, abs, interval int64) {
	if abs == 0 {
		t.disarm()
		t.clk, t.interval = c.w.clockOf(c.n), interval
		return
	}
	if realtimeClock(clock) {
		t.arm(c.w.clockOf(c.n), true, abs, interval, c.w.now)
		return
	}
	t.arm(c.w.clockOf(c.n), false, abs-monotonicOffset, interval, c.w.now)
}

// expire counts t's expiries up to world time now and re-arms it: one
// for its deadline, and one more for each whole interval its base has
// run past it since (as Linux forwards an hrtimer).
func (t *nodeTimer) expire(now int64) int64 {
	if t.deadline == 0 || now < t.deadline {
		return 0
	}
	if t.interval == 0 {
		t.disarm()
		return 1
	}
	k := int64(1)
	if l := baseNow(t.clk, t.real, now); l > t.at {
		k += (l - t.at) / t.interval
	}
	t.at += k * t.interval
	t.deadline = worldAt(t.clk, t.real, t.at, now)
	return k
}

// left is the base's time to t's next expiry at world time now (0
// disarmed), never 0 while armed.
func (t *nodeTimer) left(now int64) int64 {
	if t.deadline == 0 {
		return 0
	}
	return max(t.at-baseNow(t.clk, t.real, now), 1)
}

// hashLocal writes what the world deadline does not determine of t: its
// base and reading, on a node with a clock fault (nothing otherwise, so
// that worlds without clock faults hash as before).
func (t *nodeTimer) hashLocal(put func(uint64)) {
	if t.clk == nil || t.deadline == 0 {
		return
	}
	put(uint64(t.at))
	if t.real {
		put(1)
	} else {
		put(0)
	}
}

// stepsBy is how many jumps of clock fault k have happened by world time
// now: the node's realtime clock was set that many times.
func stepsBy(k *NodeClock, now int64) int {
	if k == nil {
		return 0
	}
	return sort.Search(len(k.Jumps), func(i int) bool { return Epoch+k.Jumps[i].AtUS*1000 > now })
}

// nextStep is the world time of clock fault k's first jump after now (0:
// none).
func nextStep(k *NodeClock, now int64) int64 {
	if i := stepsBy(k, now); k != nil && i < len(k.Jumps) {
		return Epoch + k.Jumps[i].AtUS*1000
	}
	return 0
}
