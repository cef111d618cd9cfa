package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Network is a model's [network] section, decoded and checked at load
// (Model.Network).
type Network struct {
	// Order is "fifo" (each channel delivers in send order; TCP's
	// semantics, the default) or "bag" (any message in flight may arrive
	// next).
	Order string `toml:"order"`
	// Latency is a distribution in virtual µs: "constant:X",
	// "uniform:A-B", "exponential:MEAN" or "normal:MEAN,SD" (truncated at
	// 0). Default "constant:0". Delay is it parsed.
	Latency string       `toml:"latency"`
	Delay   Distribution `toml:"-"`
	// Drop, Duplicate and Reorder are per-datagram probabilities (UDP only:
	// TCP retransmits and orders its byte stream, so for it loss is only
	// latency). A reordered datagram may overtake earlier ones on its
	// channel; the others keep their order.
	Drop      float64 `toml:"drop"`
	Duplicate float64 `toml:"duplicate"`
	Reorder   float64 `toml:"reorder"`
}

// Faults is a model's [faults] section, decoded and checked at load
// (Model.Faults).
type Faults struct {
	// Crashes is the number of crashes: the most an exhaustive check
	// explores, the number a seeded run draws.
	Crashes int `toml:"crashes"`
	// Nodes are the nodes that may crash (at load, the empty list
	// becomes every node).
	Nodes []int `toml:"nodes"`
	// Restart lets a crashed node be relaunched with its data directory
	// (an action in exhaustive checks; after RestartAfter in seeded runs,
	// whose parsed distribution is RestartDelay).
	Restart      bool         `toml:"restart"`
	RestartAfter string       `toml:"restart_after"`
	RestartDelay Distribution `toml:"-"`
	// LoseUnsynced makes a crash lose file data not yet fsync'd (each file
	// of the node's data directory reverts to its last fsync'd content).
	LoseUnsynced bool `toml:"lose_unsynced"`
	// From and Until bound the virtual time (µs) of seeded crashes.
	From  int64 `toml:"from"`
	Until int64 `toml:"until"`
	// Notice, if set, is a failure detector: when a node crashes, the
	// environment sends this line ("{node}" = the crashed node's index) to
	// every live node over a fresh connection, each arriving after a
	// network latency drawn from [network] latency.
	Notice string `toml:"notice"`
	// NoticeLatency, if set, is the distribution (virtual µs, as [network]
	// latency) of every death notice's delay instead of the network's;
	// NoticeDelay is it parsed (nil: not set).
	// "constant:0" is perfect failure detection: every live node is told
	// at the instant of death, before any message is delivered or timer
	// fires at that instant or later.
	NoticeLatency Latency       `toml:"notice_latency"`
	NoticeDelay   *Distribution `toml:"-"`
	// Partition lists network partitions of seeded runs.
	Partition []Partition `toml:"partition"`
	// Precondition is a predicate every crash must satisfy, checked on the
	// state at the moment of death: an expression of the invariant language
	// in which f is the crashing node (e.g. "node[f].role != 1"), or
	// "go:NAME" for a Go predicate. A crash that breaks it makes the run
	// invalid (exit 3). PreconditionExpr is an expression one parsed.
	Precondition     string `toml:"precondition"`
	PreconditionExpr *Expr  `toml:"-"`
	// ClockOffset and ClockDriftPPM are each node's realtime offset (µs)
	// and clock rate error (ppm), drawn from the seed: "constant:X" or
	// "uniform:A-B" over signed integers ("uniform:-50000-50000").
	// ClockJumps steps of realtime clocks happen at times drawn in
	// [from, until], each of a node drawn uniformly and of a size (µs)
	// drawn from ClockJump (default uniform:-1000000-1000000). Seeded runs
	// only (weft check keeps perfect clocks). A node's rate scales all its
	// clocks and its timeouts (nanosleep, clock_nanosleep, poll, epoll,
	// futex, timerfd's first expiry); offsets and jumps move its realtime
	// clocks only, never CLOCK_MONOTONIC. Not yet scaled: timerfd
	// intervals, SO_RCVTIMEO, itimers and the TSC. Clock is them parsed.
	ClockOffset   string      `toml:"clock_offset"`
	ClockDriftPPM string      `toml:"clock_drift_ppm"`
	ClockJumps    int         `toml:"clock_jumps"`
	ClockJump     string      `toml:"clock_jump"`
	Clock         ClockFaults `toml:"-"`
}

// Partition is one [[faults.partition]]: while it lasts, nodes in
// different groups cannot reach each other — datagrams between them are
// lost and stream segments wait for the heal (TCP retransmits). A node in
// no group is in a group of its own.
type Partition struct {
	Groups [][]int `toml:"groups"`
	// From and Until (µs) schedule it in seeded runs; with Until = 0 it
	// starts at a time drawn from the seed within [faults.from,
	// faults.until] and lasts a duration drawn from Duration (parsed:
	// Length); with neither it is for exhaustive checks only, where
	// beginning and healing are choices explored like any other.
	From     int64        `toml:"from"`
	Until    int64        `toml:"until"`
	Duration string       `toml:"duration"`
	Length   Distribution `toml:"-"`
}

// Campaign is a model's [campaign] section, decoded and checked at load
// (Model.Campaign).
type Campaign struct {
	Seeds int `toml:"seeds"`
	// Duration is the virtual time (µs) during which faults happen; Tail
	// is the repair time (µs) after it, with no new faults.
	Duration int64 `toml:"duration"`
	Tail     int64 `toml:"tail"`
	// ClientWindow (µs) is when seeded runs send the [client] requests:
	// each at a time drawn from the seed in [0, ClientWindow]. Default:
	// Duration, or DefaultClientWindowUS without one.
	ClientWindow int64 `toml:"client_window"`
	// Check is "always" (a violation at any quiescent point fails the run,
	// the default) or "final" (only the final state decides, as for
	// repairable properties; the first violation is still recorded).
	Check string `toml:"check"`
	// Required lists the invariants that decide the verdict (default all);
	// the others are reported only.
	Required []string `toml:"required"`
	// MaxSteps bounds a run's actions (at load, 0 becomes
	// DefaultMaxSteps).
	MaxSteps int `toml:"max_steps"`
}

// Latency is a delay distribution in a model file ("constant:X",
// "uniform:A-B", "exponential:MEAN", "normal:MEAN,SD", in virtual µs),
// checked when the model is decoded so that a bad one is reported at its
// file:line:col. The empty Latency means "not set".
type Latency string

// UnmarshalText implements encoding.TextUnmarshaler: it accepts only a
// well-formed distribution.
func (l *Latency) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("empty distribution: want constant:X, uniform:A-B, exponential:MEAN or normal:MEAN,SD")
	}
	if _, err := ParseDistribution(string(b)); err != nil {
		return err
	}
	*l = Latency(b)
	return nil
}

// Bounds on the numbers of the fault sections: virtual times stay far from
// overflowing the nanosecond clock (which starts at supervisor.Epoch), a
// distribution's draws stay below the bound on times, and a campaign's seed
// list fits in memory.
const (
	MaxTimeUS       = 1_000_000_000_000_000 // 10^15 µs, about 31 years
	maxDistUS       = 1_000_000_000_000     // 10^12 µs, about 11.6 days
	maxSeeds        = 10_000_000
	DefaultMaxSteps = 1_000_000 // [campaign] max_steps when not set
)

// sections decodes [network], [faults] and [campaign], once, at load, and
// checks them. Every problem is an *Error at the offending value. They
// refer to the nodes and invariants, so they are read only when the rest
// of the model is sound.
func (p *parser) sections() {
	m := p.m
	for _, sec := range []struct {
		name string
		v    any
	}{{"network", &m.Network}, {"faults", &m.Faults}, {"campaign", &m.Campaign}} {
		if err := m.Decode(sec.name, sec.v); err != nil {
			p.errs = append(p.errs, positioned(m, err)...)
		}
	}
	if len(p.errs) > 0 {
		return
	}
	v := &sectionCheck{m: m}
	v.network()
	v.faults()
	v.clocks()
	v.partitions()
	v.campaign()
	for _, e := range v.errs {
		p.errs = append(p.errs, e)
	}
	if len(p.errs) > 0 {
		return
	}
	if pre := m.Faults.Precondition; pre != "" && !strings.HasPrefix(pre, "go:") {
		e, err := m.ExprAtWith("faults", "precondition", "f")
		if err != nil {
			p.errs = append(p.errs, positioned(m, err)...)
			return
		}
		m.Faults.PreconditionExpr = e
	}
	if len(m.Faults.Nodes) == 0 {
		for i := range m.Nodes {
			m.Faults.Nodes = append(m.Faults.Nodes, i)
		}
	}
	if m.Campaign.MaxSteps == 0 {
		m.Campaign.MaxSteps = DefaultMaxSteps
	}
}

// positioned splits err (joined or not) into *Errors; one that is not is
// placed at the start of the file.
func positioned(m *Model, err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, positioned(m, e)...)
		}
		return out
	}
	var pe *Error
	if errors.As(err, &pe) {
		return []error{pe}
	}
	return []error{errorf(Pos{File: m.Path, Line: 1, Col: 1}, "%v", err)}
}

// sectionCheck collects the positioned problems of the fault sections.
type sectionCheck struct {
	m    *Model
	errs []*Error
}

// at records a problem at the value at path (element index..., see
// Model.ValuePos).
func (v *sectionCheck) at(path string, index []int, format string, args ...any) {
	v.errs = append(v.errs, ErrorAt(v.m.ValuePos(path, index...), format, args...))
}

// dist parses the distribution at path (called name in messages) and
// records a problem with it.
func (v *sectionCheck) dist(path, name, text string) Distribution {
	d, err := ParseDistribution(text)
	if err != nil {
		v.at(path, nil, "%s: %v", name, err)
	}
	return d
}

// timeUS records a problem unless the virtual time at path (called name
// in messages) is in [0, MaxTimeUS].
func (v *sectionCheck) timeUS(path, name string, us int64) {
	if us < 0 || us > MaxTimeUS {
		v.at(path, nil, "%s = %d: want a virtual time in µs between 0 and %d", name, us, int64(MaxTimeUS))
	}
}

func (v *sectionCheck) network() {
	n := &v.m.Network
	n.Delay = v.dist("network.latency", "network.latency", n.Latency)
	for _, p := range []struct {
		key string
		p   float64
	}{{"drop", n.Drop}, {"duplicate", n.Duplicate}, {"reorder", n.Reorder}} {
		if !(p.p >= 0 && p.p <= 1) { // NaN too
			v.at("network."+p.key, nil, "network.%s = %v: a probability is between 0 and 1", p.key, p.p)
		}
	}
	switch n.Order {
	case "", "fifo", "bag":
	default:
		v.at("network.order", nil, "network.order %q: want fifo or bag", n.Order)
	}
}

func (v *sectionCheck) faults() {
	f, nodes := &v.m.Faults, v.m.Nodes
	f.RestartDelay = v.dist("faults.restart_after", "faults.restart_after", f.RestartAfter)
	if f.Crashes < 0 {
		v.at("faults.crashes", nil, "faults.crashes = %d: want 0 or more", f.Crashes)
	}
	for i, n := range f.Nodes {
		if n < 0 || n >= nodes {
			v.at("faults.nodes", []int{i}, "faults.nodes: no node %d (the model has nodes 0..%d)", n, nodes-1)
		}
	}
	v.timeUS("faults.from", "faults.from", f.From)
	v.timeUS("faults.until", "faults.until", f.Until)
	if f.Until != 0 && f.Until < f.From {
		v.at("faults.until", nil, "faults.until = %d is before faults.from = %d", f.Until, f.From)
	}
	if f.NoticeLatency != "" {
		if f.Notice == "" {
			v.at("faults.notice_latency", nil, "faults.notice_latency needs notice (the line a death notice sends)")
		}
		d := v.dist("faults.notice_latency", "faults.notice_latency", string(f.NoticeLatency))
		f.NoticeDelay = &d
	}
}

func (v *sectionCheck) partitions() {
	for i := range v.m.Faults.Partition {
		p := &v.m.Faults.Partition[i]
		path := fmt.Sprintf("faults.partition#%d", i)
		name := fmt.Sprintf("faults.partition[%d]", i)
		if len(p.Groups) < 2 {
			v.at(path+".groups", nil, "%s.groups: want at least two groups", name)
		}
		seen := map[int]bool{}
		for gi, g := range p.Groups {
			for ni, n := range g {
				switch {
				case n < 0 || n >= v.m.Nodes:
					v.at(path+".groups", []int{gi, ni}, "%s.groups: no node %d (the model has nodes 0..%d)", name, n, v.m.Nodes-1)
				case seen[n]:
					v.at(path+".groups", []int{gi, ni}, "%s.groups: node %d is in two groups", name, n)
				}
				seen[n] = true
			}
		}
		v.timeUS(path+".from", name+".from", p.From)
		v.timeUS(path+".until", name+".until", p.Until)
		switch {
		case p.Until == 0 && p.Duration != "":
			p.Length = v.dist(path+".duration", name+".duration", p.Duration)
		case p.Until != 0 && p.Until <= p.From:
			v.at(path+".until", nil, "%s.until = %d must come after from = %d", name, p.Until, p.From)
		default:
			p.Length, _ = ParseDistribution(p.Duration)
		}
	}
}

func (v *sectionCheck) campaign() {
	c := v.m.Campaign
	if c.Seeds < 0 || c.Seeds > maxSeeds {
		v.at("campaign.seeds", nil, "campaign.seeds = %d: want between 0 and %d", c.Seeds, maxSeeds)
	}
	v.timeUS("campaign.duration", "campaign.duration", c.Duration)
	v.timeUS("campaign.tail", "campaign.tail", c.Tail)
	v.timeUS("campaign.client_window", "campaign.client_window", c.ClientWindow)
	if c.Duration >= 0 && c.Duration <= MaxTimeUS && c.Tail >= 0 && c.Tail <= MaxTimeUS && c.Duration+c.Tail > MaxTimeUS {
		v.at("campaign.tail", nil, "campaign.duration + campaign.tail = %d: want at most %d µs", c.Duration+c.Tail, int64(MaxTimeUS))
	}
	if c.MaxSteps < 0 {
		v.at("campaign.max_steps", nil, "campaign.max_steps = %d: want 1 or more (0: the default, %d)", c.MaxSteps, DefaultMaxSteps)
	}
	switch c.Check {
	case "", "always", "final":
	default:
		v.at("campaign.check", nil, "campaign.check %q: want always or final", c.Check)
	}
	names := make([]string, len(v.m.Invariants))
	known := map[string]bool{}
	for i, inv := range v.m.Invariants {
		names[i] = inv.Name
		known[inv.Name] = true
	}
	for i, r := range c.Required {
		if !known[r] {
			v.at("campaign.required", []int{i}, "campaign.required: no invariant %q (the model's invariants: %s)", r, orNone(names))
		}
	}
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Distribution draws a non-negative duration in virtual µs. The zero
// Distribution draws 0.
type Distribution struct {
	kind string
	a, b float64
	text string
}

// ParseDistribution parses "constant:X", "uniform:A-B",
// "exponential:MEAN" and "normal:MEAN,SD" (all µs). "" is constant 0.
func ParseDistribution(s string) (Distribution, error) {
	if s == "" {
		return Distribution{kind: "constant", text: "constant:0"}, nil
	}
	kind, arg, ok := strings.Cut(s, ":")
	if !ok {
		return Distribution{}, fmt.Errorf("%q: want KIND:ARGS (constant:X, uniform:A-B, exponential:MEAN, normal:MEAN,SD)", s)
	}
	num := func(x string) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || !(v >= 0 && v <= maxDistUS) { // NaN and ±Inf too
			return 0, fmt.Errorf("%q: %q is not a number of µs between 0 and %d", s, x, int64(maxDistUS))
		}
		return v, nil
	}
	d := Distribution{kind: kind, text: s}
	var err error
	switch kind {
	case "constant", "exponential":
		d.a, err = num(arg)
	case "uniform", "normal":
		sep := "-"
		if kind == "normal" {
			sep = ","
		}
		lo, hi, ok := strings.Cut(arg, sep)
		if !ok {
			return d, fmt.Errorf("%q: want %s:A%sB", s, kind, sep)
		}
		if d.a, err = num(lo); err == nil {
			d.b, err = num(hi)
		}
		if err == nil && kind == "uniform" && d.b < d.a {
			err = fmt.Errorf("%q: upper bound below lower bound", s)
		}
	default:
		err = fmt.Errorf("%q: unknown distribution %q", s, kind)
	}
	return d, err
}

// Draw returns a duration in µs.
func (d Distribution) Draw(r *rand.Rand) int64 {
	switch d.kind {
	case "uniform":
		return int64(d.a) + r.Int64N(int64(d.b-d.a)+1)
	case "exponential":
		return int64(r.ExpFloat64() * d.a)
	case "normal":
		return max(0, int64(d.a+r.NormFloat64()*d.b))
	}
	return int64(d.a)
}

// String is the distribution as the model wrote it ("constant:0" for
// none).
func (d Distribution) String() string { return d.text }
