package sched

import "fmt"

// Timed is a recorded choice: an action at a virtual time (ns).
type Timed struct {
	At int64
	A  Action
}

// Replayer hands out a recording's choices again, in order, the
// network's recorded drops and duplicates among them, and checks each
// choice is possible before it is taken: a choice the world cannot take is
// a divergence, reported with its step. It only chooses: the caller
// applies each choice before asking for the next.
type Replayer struct {
	choices []Timed
	step    int
}

// NewReplayer replays choices.
func NewReplayer(choices []Timed) *Replayer { return &Replayer{choices: choices} }

// Next returns the next recorded action; ok is false at the end. A drop
// or duplicate is no step of its own: the step a divergence names is the
// one it comes before.
func (r *Replayer) Next(w EventWorld) (a Action, at int64, ok bool, err error) {
	if len(r.choices) == 0 {
		return Action{}, 0, false, nil
	}
	c := r.choices[0]
	r.choices = r.choices[1:]
	a, at = c.A, c.At
	switch a.Kind {
	case Drop, Dup:
		if !hasMessage(w, a) {
			return a, at, false, fmt.Errorf("step %d: %s is not possible: the run diverged", r.step+1, a)
		}
		return a, at, true, nil
	case Deliver:
		if !hasMessage(w, a) {
			return a, at, false, fmt.Errorf("step %d: %s is not possible: the run diverged", r.step+1, a)
		}
	case Timer:
		due, found := int64(0), false
		for _, t := range w.Timers() {
			if t.Node == a.Node && t.Task == a.Task {
				due, found = t.Deadline, true
			}
		}
		if !found {
			return a, at, false, fmt.Errorf("step %d: node %d has no pending timer: the run diverged", r.step+1, a.Node)
		}
		if due != at {
			return a, at, false, fmt.Errorf("step %d: node %d's timer is due at %dns, the recording fired it at %dns: the run diverged", r.step+1, a.Node, due, at)
		}
	}
	r.step++
	return a, at, true, nil
}

func hasMessage(w EventWorld, a Action) bool {
	return a.Chan >= 0 && a.Chan < w.Channels() && a.Index >= 0 && a.Index < len(w.Channel(a.Chan).Sent)
}
