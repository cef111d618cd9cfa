package mcsdk

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// Clock faults ([faults] clock_offset, clock_drift_ppm, clock_jumps,
// clock_jump): each node's clock gets an offset and a rate error drawn
// from the seed, and clock_jumps steps of a node's realtime clock happen
// at times drawn in the fault window. Their draws come from a stream of
// their own, so a model without them keeps every seed's run unchanged.

// Bounds on clock faults: a rate error of at most 10% and offsets and
// jumps of at most a day.
const (
	maxDriftPPM   = 100_000
	maxClockUS    = 86_400_000_000
	maxClockJumps = 10_000
)

// signedRange is "constant:X" or "uniform:A-B" over signed integers.
type signedRange struct {
	lo, hi int64
	text   string
}

// parseSignedRange parses a signed distribution whose values must lie in
// [-bound, bound]; "" is constant 0.
func parseSignedRange(s string, bound int64) (signedRange, error) {
	if s == "" {
		return signedRange{text: "constant:0"}, nil
	}
	kind, arg, ok := strings.Cut(s, ":")
	num := func(x string) (int64, error) {
		v, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil || v < -bound || v > bound {
			return 0, fmt.Errorf("%q: %q is not an integer between %d and %d", s, x, -bound, bound)
		}
		return v, nil
	}
	r := signedRange{text: s}
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("%q: want constant:X or uniform:A-B (signed integers)", s)
	case kind == "constant":
		r.lo, err = num(arg)
		r.hi = r.lo
	case kind == "uniform":
		// The separator is the first '-' after the lower bound's own sign.
		i := strings.Index(strings.TrimSpace(arg)[1:], "-")
		if i < 0 {
			return r, fmt.Errorf("%q: want uniform:A-B", s)
		}
		a := strings.TrimSpace(arg)
		if r.lo, err = num(a[:i+1]); err == nil {
			r.hi, err = num(a[i+2:])
		}
		if err == nil && r.hi < r.lo {
			err = fmt.Errorf("%q: upper bound below lower bound", s)
		}
	default:
		err = fmt.Errorf("%q: unknown distribution %q (want constant:X or uniform:A-B)", s, kind)
	}
	return r, err
}

// draw draws a value uniformly in [lo, hi]; a constant draws nothing.
func (d signedRange) draw(r *rand.Rand) int64 {
	if d.hi == d.lo {
		return d.lo
	}
	return d.lo + r.Int64N(d.hi-d.lo+1)
}

// clockSpec is the model's clock faults, parsed.
type clockSpec struct {
	offset, drift, jump signedRange
	jumps               int
}

// any reports whether the model asks for any clock fault.
func (c *clockSpec) any() bool {
	return c != nil && (c.offset.lo != 0 || c.offset.hi != 0 || c.drift.lo != 0 || c.drift.hi != 0 || c.jumps > 0)
}

// clocks checks the [faults] clock keys and records the parsed spec.
func (v *specCheck) clocks() {
	f := v.s.faults
	cs := &clockSpec{jumps: f.ClockJumps}
	for _, k := range []struct {
		key, text string
		bound     int64
		into      *signedRange
	}{
		{"clock_offset", f.ClockOffset, maxClockUS, &cs.offset},
		{"clock_drift_ppm", f.ClockDriftPPM, maxDriftPPM, &cs.drift},
		{"clock_jump", orDefault(f.ClockJump, defaultClockJump), maxClockUS, &cs.jump},
	} {
		r, err := parseSignedRange(k.text, k.bound)
		if err != nil {
			v.at("faults."+k.key, nil, "faults.%s: %v", k.key, err)
		}
		*k.into = r
	}
	if f.ClockJumps < 0 || f.ClockJumps > maxClockJumps {
		v.at("faults.clock_jumps", nil, "faults.clock_jumps = %d: want between 0 and %d", f.ClockJumps, maxClockJumps)
	}
	if f.ClockJump != "" && f.ClockJumps == 0 {
		v.at("faults.clock_jump", nil, "faults.clock_jump needs clock_jumps (how many steps to draw)")
	}
	v.s.clock = cs
}

// defaultClockJump is the size (µs) of a clock step when the model sets
// clock_jumps without clock_jump: up to a second either way.
const defaultClockJump = "uniform:-1000000-1000000"

// clockPlan is the scheduler's plan for the model's clock faults, nil
// without any (so nothing is drawn).
func (r *runner) clockPlan(until int64) *sched.ClockPlan {
	cs := r.sp.clock
	if !cs.any() {
		return nil
	}
	return &sched.ClockPlan{Nodes: r.t.m.Nodes, Offset: cs.offset.draw, DriftPPM: cs.drift.draw,
		Jumps: cs.jumps, Jump: cs.jump.draw, From: r.sp.faults.From, Until: until}
}

// clockParams records each node's clock at the start, and every jump, in
// the run's parameters (weft trace shows them in its header).
func (r *runner) clockParams(clocks []sched.Clock) {
	for i, k := range clocks {
		r.res.Params = append(r.res.Params, Param{"clock", fmt.Sprintf("n%d offset %+.3fms rate %+dppm", i, float64(k.OffsetNS)/1e6, k.PPM)})
	}
	for _, j := range r.jumps(clocks) {
		r.res.Params = append(r.res.Params, Param{"clock jump", fmt.Sprintf("n%d %+.3fms at %.3fms", j.node, float64(j.DeltaNS)/1e6, float64(j.AtUS)/1000)})
	}
}

// nodeJump is one clock jump and its node.
type nodeJump struct {
	node int
	sched.ClockJump
}

// jumps lists the clock jumps of every node in time order (ties by node).
func (r *runner) jumps(clocks []sched.Clock) []nodeJump {
	var out []nodeJump
	for i, k := range clocks {
		for _, j := range k.Jumps {
			out = append(out, nodeJump{i, j})
		}
	}
	for a := 1; a < len(out); a++ { // insertion sort: few jumps, stable
		for b := a; b > 0 && out[b].AtUS < out[b-1].AtUS; b-- {
			out[b], out[b-1] = out[b-1], out[b]
		}
	}
	return out
}

// jumpEvents records the clock jumps up to virtual time t (ns) as
// timeline events, in time order.
func (r *runner) jumpEvents(t int64) {
	js := r.jumps(r.s.Clocks())
	for r.jumpSeen < len(js) {
		j := js[r.jumpSeen]
		if supervisor.Epoch+j.AtUS*1000 > t {
			break
		}
		r.res.Events = append(r.res.Events, Event{Step: r.res.Steps, T: j.AtUS, Kind: "clock", Node: j.node, Peer: -1,
			Value: fmt.Sprintf("%+.3fms", float64(j.DeltaNS)/1e6)})
		r.jumpSeen++
	}
}
