package sched

import (
	"math/rand/v2"
	"sort"
)

// Clock is one node's clock fault in a seeded run: how the node's clocks
// read against the world's virtual time. A nil or zero Clock is a
// perfect clock.
//
// A node's realtime clock reads Epoch + e·(1+PPM/10⁶) + OffsetNS + the
// sum of the Jumps passed, where e is the world time since the start;
// its monotonic clocks read e·(1+PPM/10⁶) from their origin (they drift
// but, as on Linux, are never stepped). Its timers run on the same rate:
// a node sleeping d of its own ns sleeps d/(1+PPM/10⁶) of the world's.
type Clock struct {
	OffsetNS int64       // realtime offset from the start on
	PPM      int64       // rate error in parts per million (+100: 100 µs fast per second)
	Jumps    []ClockJump // steps of the realtime clock, in time order
}

// ClockJump is one step of a node's realtime clock: from AtUS (virtual µs
// since the start) on, it reads DeltaNS more (less, if negative).
type ClockJump struct {
	AtUS    int64
	DeltaNS int64
}

// SignedDraw draws a signed integer (µs, or ppm for a rate).
type SignedDraw func(r *rand.Rand) int64

// ClockPlan draws every node's clock fault from the seed: an offset and a
// rate per node, then Jumps steps, each of a node drawn uniformly, at a
// time drawn uniformly in [From, Until] µs, of a size drawn from Jump
// (µs). Nil draws are zero.
type ClockPlan struct {
	Nodes       int
	Offset      SignedDraw // µs
	DriftPPM    SignedDraw
	Jumps       int
	Jump        SignedDraw // µs
	From, Until int64
	_           struct{}
}

// drawClocks draws the clocks of plan p from their own stream, so that a
// model with clock faults keeps every other draw of its seeds (and a
// model without them draws nothing).
func drawClocks(seed uint64, p *ClockPlan) []Clock {
	if p == nil {
		return nil
	}
	r := rand.New(rand.NewPCG(seed, 0x636c6f636b73)) // "clocks"
	draw := func(d SignedDraw) int64 {
		if d == nil {
			return 0
		}
		return d(r)
	}
	clocks := make([]Clock, p.Nodes)
	for i := range clocks {
		clocks[i].OffsetNS = draw(p.Offset) * 1000
		clocks[i].PPM = draw(p.DriftPPM)
	}
	if p.Nodes == 0 {
		return clocks
	}
	for k := 0; k < p.Jumps; k++ {
		n := r.IntN(p.Nodes)
		at := p.From
		if p.Until > p.From {
			at += r.Int64N(p.Until - p.From + 1)
		}
		clocks[n].Jumps = append(clocks[n].Jumps, ClockJump{AtUS: at, DeltaNS: draw(p.Jump) * 1000})
	}
	for i := range clocks {
		js := clocks[i].Jumps
		sort.SliceStable(js, func(a, b int) bool { return js[a].AtUS < js[b].AtUS })
	}
	return clocks
}

// Clocks is every node's clock fault, drawn from the seed (nil when the
// plan has none).
func (s *Seeded) Clocks() []Clock { return s.clocks }

// Local is the node's elapsed time (ns) on its monotonic clock when e ns
// of world time have passed since the start (e ≥ 0).
func (k *Clock) Local(e int64) int64 {
	if k == nil || k.PPM == 0 {
		return e
	}
	// e·PPM/10⁶ without overflow, rounded toward zero: monotone in e
	// for |PPM| < 10⁶.
	return e + e/1e6*k.PPM + e%1e6*k.PPM/1e6
}

// World is the earliest world time e ≥ 0 (ns since the start) at which
// the node's monotonic clock reads at least l: the inverse of Local, used
// to turn a node's deadline into the world's.
func (k *Clock) World(l int64) int64 {
	if l <= 0 {
		return 0
	}
	if k == nil || k.PPM == 0 {
		return l
	}
	e := max(int64(float64(l)/(1+float64(k.PPM)/1e6)), 0)
	for k.Local(e) < l {
		e++
	}
	for e > 0 && k.Local(e-1) >= l {
		e--
	}
	return e
}

// Stepped is the sum of the node's realtime jumps up to world time e ns
// since the start.
func (k *Clock) Stepped(e int64) int64 {
	if k == nil {
		return 0
	}
	var d int64
	for _, j := range k.Jumps {
		if j.AtUS*1000 > e {
			break
		}
		d += j.DeltaNS
	}
	return d
}
