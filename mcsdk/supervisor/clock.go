//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"hash"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// A node's clocks are the world's virtual clock seen through the node's
// clock fault (Config.Clocks, drawn from the seed). The rules (what each
// clock id reads, how a node's deadline falls in world time, the armed
// timers counted in node time) are vkernel's (vkernel/clock.go); here
// they are applied to a node and a call. Without a fault every function
// is the identity on world time, so models without clock faults see
// exactly what they saw before.

// clockOf is node n's clock fault, nil for a perfect clock.
func (w *World) clockOf(n *node) *NodeClock {
	if n == nil || n.id >= len(w.cfg.Clocks) {
		return nil
	}
	return &w.cfg.Clocks[n.id]
}

// nodeNow is what clock reads on node n now (ns; realtime clocks since
// the Unix epoch): the world's reading through the node's clock fault.
func (w *World) nodeNow(n *node, clock uint64) (int64, bool) {
	return vkernel.ClockNow(w.clockOf(n), clock, w.now)
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
// have passed from now: a relative timeout's deadline, -1 for none when
// it is past the clock's range (vkernel.After).
func (c *call) after(d int64) int64 { return vkernel.After(c.w.clockOf(c.n), c.w.now, d) }

// left is the calling node's own time from now to the world deadline, 0
// once it has passed (vkernel.TimeLeft).
func (c *call) left(deadline int64) int64 {
	return vkernel.TimeLeft(c.w.clockOf(c.n), deadline, c.w.now)
}

// until is the world time at which clock, on the calling node, reaches
// abs: an absolute timeout's deadline (never before now; -1 none, past
// the clock's range: vkernel.Until).
func (c *call) until(clock uint64, abs int64) int64 {
	return vkernel.Until(c.w.clockOf(c.n), clock, abs, c.w.now)
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
// counted in its node's time (vkernel.NodeTimer).
type nodeTimer = vkernel.NodeTimer

// armAfter arms t on the calling node to expire value ns of node time
// from now (0 disarms), then every interval ns.
func (c *call) armAfter(t *nodeTimer, value, interval int64) {
	t.ArmAfter(c.w.clockOf(c.n), value, interval, c.w.now)
}

// armAt arms t on the calling node to expire when clock reads abs (0
// disarms), then every interval ns of the clock.
func (c *call) armAt(t *nodeTimer, clock uint64, abs, interval int64) {
	t.ArmAt(c.w.clockOf(c.n), clock, abs, interval, c.w.now)
}
