package sched

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// eventFake is a fake network for the seeded scheduler: channels of
// messages (each known by its send time), timers, and echo rules (a
// delivery on one channel sends a message on another at the delivery
// time), with nodes that crash and restart.
type eventFake struct {
	chans  []fakeChan
	timers []TimerInfo
	echo   map[int]int
	dead   map[int]bool
	now    int64
	log    []string // what happened, for comparing runs
	// ready lists each node's threads that may run next; a Run of one
	// consumes it (runs are "ready N T..." lines).
	ready [][2]int
	// uncounted makes Pending answer -1, so that the scheduler describes
	// every channel at every step (the path before Pending).
	uncounted bool
	lastUID   uint64 // the last message identity given (see uid)
}

// Ready lists the Run choices: every ready thread, when a node has two or
// more (as the supervisor offers them).
func (f *eventFake) Ready() []Action {
	var acts []Action
	for _, r := range f.ready {
		acts = append(acts, Action{Kind: Run, Node: r[0], Task: r[1]})
	}
	return acts
}

// Now is the fake's virtual time.
func (f *eventFake) Now() int64 { return f.now }

type fakeChan struct {
	from, to int
	dgram    bool
	sent     []int64
	ids      []int    // message names, to show which arrived (a copy shares its original's)
	uids     []uint64 // message identities, unique (ChannelInfo.IDs), given by uid
}

// uid gives identities to the messages appended to channel c since its
// last look (tests and echoes append to sent and ids only).
func (f *eventFake) uid(c int) {
	ch := &f.chans[c]
	for len(ch.uids) < len(ch.sent) {
		f.lastUID++
		ch.uids = append(ch.uids, f.lastUID)
	}
}

func (f *eventFake) clone() *eventFake {
	g := &eventFake{echo: f.echo, dead: map[int]bool{}, timers: slices.Clone(f.timers), ready: slices.Clone(f.ready), lastUID: f.lastUID}
	for _, c := range f.chans {
		g.chans = append(g.chans, fakeChan{c.from, c.to, c.dgram, slices.Clone(c.sent), slices.Clone(c.ids), slices.Clone(c.uids)})
	}
	return g
}

func (f *eventFake) Status(i int) NodeStatus {
	if f.dead[i] {
		return NodeStatus{Killed: true}
	}
	return NodeStatus{Alive: true}
}
func (f *eventFake) Channels() int { return len(f.chans) }
func (f *eventFake) Pending(c int) int {
	if f.uncounted {
		return -1
	}
	return len(f.chans[c].sent)
}
func (f *eventFake) Channel(c int) ChannelInfo {
	to := f.chans[c].to
	if f.dead[to] {
		to = -1
	}
	f.uid(c)
	return ChannelInfo{From: f.chans[c].from, To: to, Datagram: f.chans[c].dgram, Sent: slices.Clone(f.chans[c].sent), IDs: slices.Clone(f.chans[c].uids)}
}
func (f *eventFake) Timers() []TimerInfo { return slices.Clone(f.timers) }

// apply performs a at at, as a world would: the one place the fake's
// network loses, duplicates or delivers a message.
func (f *eventFake) apply(a Action, at int64) error {
	f.now = max(f.now, at)
	switch a.Kind {
	case Drop, Dup:
		if !hasMessage(f, a) {
			return fmt.Errorf("%s is not possible", a)
		}
		c, i := a.Chan, a.Index
		f.log = append(f.log, fmt.Sprintf("%s m%d", a.Kind, f.chans[c].ids[i]))
		f.uid(c)
		if a.Kind == Drop {
			f.chans[c].uids = slices.Delete(f.chans[c].uids, i, i+1)
			f.chans[c].sent = slices.Delete(f.chans[c].sent, i, i+1)
			f.chans[c].ids = slices.Delete(f.chans[c].ids, i, i+1)
			break
		}
		f.lastUID++
		f.chans[c].uids = slices.Insert(f.chans[c].uids, i+1, f.lastUID)
		f.chans[c].sent = slices.Insert(f.chans[c].sent, i+1, f.chans[c].sent[i])
		f.chans[c].ids = slices.Insert(f.chans[c].ids, i+1, f.chans[c].ids[i])
	case Deliver:
		if !hasMessage(f, a) {
			return fmt.Errorf("%s is not possible", a)
		}
		id := f.chans[a.Chan].ids[a.Index]
		f.uid(a.Chan)
		f.chans[a.Chan].uids = slices.Delete(f.chans[a.Chan].uids, a.Index, a.Index+1)
		f.chans[a.Chan].sent = slices.Delete(f.chans[a.Chan].sent, a.Index, a.Index+1)
		f.chans[a.Chan].ids = slices.Delete(f.chans[a.Chan].ids, a.Index, a.Index+1)
		f.log = append(f.log, fmt.Sprintf("%d deliver m%d", f.now, id))
		if d, ok := f.echo[a.Chan]; ok && !f.dead[f.chans[a.Chan].to] {
			f.chans[d].sent = append(f.chans[d].sent, f.now)
			f.chans[d].ids = append(f.chans[d].ids, id+100)
		}
	case Run:
		k := slices.Index(f.ready, [2]int{a.Node, a.Task})
		if k < 0 {
			return fmt.Errorf("%s is not possible", a)
		}
		f.ready = slices.Delete(f.ready, k, k+1)
		f.log = append(f.log, fmt.Sprintf("%d %s", f.now, a))
	case Timer:
		k := slices.IndexFunc(f.timers, func(t TimerInfo) bool { return t.Node == a.Node && t.Task == a.Task })
		if k < 0 {
			return fmt.Errorf("%s is not possible", a)
		}
		f.timers = slices.Delete(f.timers, k, k+1)
		f.log = append(f.log, fmt.Sprintf("%d %s", f.now, a))
	default:
		if a.Kind == Crash {
			f.dead[a.Node] = true
		}
		if a.Kind == Restart {
			delete(f.dead, a.Node)
		}
		f.log = append(f.log, fmt.Sprintf("%d %s", f.now, a))
	}
	return nil
}

// runSeeded drives s over f until nothing is pending or end (ns) passes,
// returning every choice made (drops and duplicates included).
// Neither Next nor Applied may change f: f.apply is the one place
// anything happens to it, drops and duplicates included.
func runSeeded(s *Seeded, f *eventFake, end int64) ([]Timed, error) {
	var out []Timed
	for steps := 0; steps < 10000; steps++ {
		before := f.String()
		pre, a, at, ok := s.Next(f)
		if now := f.String(); now != before {
			return out, fmt.Errorf("Next changed the world:\n%s\nto\n%s", before, now)
		}
		for _, p := range pre {
			// Drops and duplicates are applied as every action is; the
			// scheduler learns a copy's identity once it is made.
			if err := f.apply(p, f.now); err != nil {
				return out, err
			}
			if err := unchanged(f, func() { s.Applied(f, p, f.now) }); err != nil {
				return out, err
			}
			out = append(out, Timed{At: f.now, A: p})
		}
		if !ok || at > end {
			return out, nil
		}
		if err := unchanged(f, func() { s.Applied(f, a, at) }); err != nil {
			return out, err
		}
		if err := f.apply(a, at); err != nil {
			return out, err
		}
		if a.Kind == Crash {
			s.Crashed(f, a.Node, 2, at)
		}
		out = append(out, Timed{At: at, A: a})
	}
	return out, fmt.Errorf("no end after 10000 steps")
}

// unchanged runs tell and fails if it changed f.
func unchanged(f *eventFake, tell func()) error {
	before := f.String()
	tell()
	if now := f.String(); now != before {
		return fmt.Errorf("Applied changed the world:\n%s\nto\n%s", before, now)
	}
	return nil
}

// String describes everything the fake's behaviour depends on: its
// channels' messages, timers, ready threads, dead nodes, clock and log.
func (f *eventFake) String() string {
	var b strings.Builder
	for c, ch := range f.chans {
		fmt.Fprintf(&b, "chan %d: %v %v\n", c, ch.sent, ch.ids)
	}
	fmt.Fprintf(&b, "timers %v ready %v dead %v now %d\nlog %q", f.timers, f.ready, f.dead, f.now, f.log)
	return b.String()
}

// replaySeeded re-applies recorded choices to f through a Replayer.
func replaySeeded(choices []Timed, f *eventFake) error {
	r := NewReplayer(choices)
	for {
		a, at, ok, err := r.Next(f)
		if err != nil || !ok {
			return err
		}
		if err := f.apply(a, at); err != nil {
			return err
		}
	}
}

// uniform draws uniformly in [lo, hi] µs.
func uniform(lo, hi int64) Draw {
	return func(r *rand.Rand) int64 { return lo + r.Int64N(hi-lo+1) }
}

func formatChoices(ch []Timed) string {
	var b strings.Builder
	for _, c := range ch {
		fmt.Fprintf(&b, "%8.3fms %s\n", float64(c.At)/1e6, c.A)
	}
	return b.String()
}
