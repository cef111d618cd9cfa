package mcsdk

import (
	"fmt"

	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// Clock faults ([faults] clock_offset, clock_drift_ppm, clock_jumps,
// clock_jump): each node's clock gets an offset and a rate error drawn
// from the seed, and clock_jumps steps of a node's realtime clock happen
// at times drawn in the fault window. Their draws come from a stream of
// their own, so a model without them keeps every seed's run unchanged.

// clockPlan is the scheduler's plan for the model's clock faults, nil
// without any (so nothing is drawn).
func (r *runner) clockPlan(until int64) *sched.ClockPlan {
	cs := r.sp.clock
	if !cs.Any() {
		return nil
	}
	return &sched.ClockPlan{Nodes: r.t.m.Nodes, Offset: cs.Offset.Draw, DriftPPM: cs.DriftPPM.Draw,
		Jumps: cs.Jumps, Jump: cs.Jump.Draw, From: r.sp.faults.From, Until: until}
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
