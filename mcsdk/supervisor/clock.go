//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"hash"

	"golang.org/x/sys/unix"
)

// A node's clocks are the world's virtual clock seen through the node's
// clock fault (Config.Clocks, drawn from the seed): its rate error scales
// every clock and timer of the node, its offset and jumps move its
// realtime clocks only (Linux never steps CLOCK_MONOTONIC; NTP and
// settimeofday step CLOCK_REALTIME). Without a fault every function here
// is the identity on world time, so models without clock faults see
// exactly what they saw before.

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
	local := k.Local(w.now - Epoch)
	if realtimeClock(clock) {
		return Epoch + local + w.realtimeShift(k), true
	}
	return local + monotonicOffset, true
}

// realtimeShift is the node's realtime offset plus the jumps passed by
// now.
func (w *World) realtimeShift(k *NodeClock) int64 {
	if k == nil {
		return 0
	}
	return k.OffsetNS + k.Stepped(w.now-Epoch)
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
	e := c.w.now - Epoch
	return Epoch + k.World(k.Local(e)+d)
}

// until is the world time at which clock, on the calling node, reaches
// abs: an absolute timeout's deadline (never before now). A realtime
// deadline is placed by the offset and jumps passed so far; a later jump
// does not move it.
func (c *call) until(clock uint64, abs int64) int64 {
	now, ok := c.clockNow(clock)
	if !ok {
		return c.w.now
	}
	return c.after(max(abs-now, 0))
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
