package mcsdk

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/weft-mc/weft/mcsdk/model"
)

// NetworkSpec is a model's [network] section.
type NetworkSpec struct {
	// Order is "fifo" (each channel delivers in send order; TCP's
	// semantics, the default) or "bag" (any message in flight may arrive
	// next).
	Order string `toml:"order"`
	// Latency is a distribution in virtual µs: "constant:X",
	// "uniform:A-B", "exponential:MEAN" or "normal:MEAN,SD" (truncated at
	// 0). Default "constant:0".
	Latency string `toml:"latency"`
	// Drop, Duplicate and Reorder are per-datagram probabilities (UDP only:
	// TCP retransmits and orders its byte stream, so for it loss is only
	// latency). A reordered datagram may overtake earlier ones on its
	// channel; the others keep their order.
	Drop      float64 `toml:"drop"`
	Duplicate float64 `toml:"duplicate"`
	Reorder   float64 `toml:"reorder"`
}

// FaultSpec is a model's [faults] section.
type FaultSpec struct {
	// Crashes is the number of crashes: the most an exhaustive check
	// explores, the number a seeded run draws.
	Crashes int `toml:"crashes"`
	// Nodes are the nodes that may crash (default: all).
	Nodes []int `toml:"nodes"`
	// Restart lets a crashed node be relaunched with its data directory
	// (an action in exhaustive checks; after RestartAfter in seeded runs).
	Restart      bool   `toml:"restart"`
	RestartAfter string `toml:"restart_after"`
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
	// latency) of every death notice's delay instead of the network's.
	// "constant:0" is perfect failure detection: every live node is told
	// at the instant of death, before any message is delivered or timer
	// fires at that instant or later.
	NoticeLatency Latency `toml:"notice_latency"`
	// Partition lists network partitions of seeded runs.
	Partition []PartitionSpec `toml:"partition"`
	// Precondition is a predicate every crash must satisfy, checked on the
	// state at the moment of death: an expression of the invariant language
	// in which f is the crashing node (e.g. "node[f].role != 1"), or
	// "go:NAME" for a Go predicate. A crash that breaks it makes the run
	// invalid (exit 3).
	Precondition string `toml:"precondition"`
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
	// intervals, SO_RCVTIMEO, itimers and the TSC.
	ClockOffset   string `toml:"clock_offset"`
	ClockDriftPPM string `toml:"clock_drift_ppm"`
	ClockJumps    int    `toml:"clock_jumps"`
	ClockJump     string `toml:"clock_jump"`
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
	if _, err := parseDistribution(string(b)); err != nil {
		return err
	}
	*l = Latency(b)
	return nil
}

// PartitionSpec is one [[faults.partition]]: while it lasts, nodes in
// different groups cannot reach each other — datagrams between them are
// lost and stream segments wait for the heal (TCP retransmits). A node in
// no group is in a group of its own.
type PartitionSpec struct {
	Groups [][]int `toml:"groups"`
	// From and Until (µs) schedule it in seeded runs; with Until = 0 it
	// starts at a time drawn from the seed within [faults.from,
	// faults.until] and lasts a duration drawn from Duration; with neither
	// it is for exhaustive checks only, where beginning and healing are
	// choices explored like any other.
	From     int64  `toml:"from"`
	Until    int64  `toml:"until"`
	Duration string `toml:"duration"`
}

// sides maps each node of a partition to its group.
type sides map[int]int

func newSides(p PartitionSpec) sides {
	s := sides{}
	for gi, g := range p.Groups {
		for _, n := range g {
			s[n] = gi
		}
	}
	return s
}

// apart reports whether nodes a and b (≥ 0; the environment is never cut
// off) are on different sides. A node in no group is on a side of its own.
func (s sides) apart(a, b int) bool {
	if a < 0 || b < 0 || a == b {
		return false
	}
	ga, oka := s[a]
	gb, okb := s[b]
	return !oka || !okb || ga != gb
}

// CampaignSpec is a model's [campaign] section.
type CampaignSpec struct {
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
	// MaxSteps bounds a run's actions (default 1,000,000).
	MaxSteps int `toml:"max_steps"`
}

// specs are the fault-related sections of a model.
type specs struct {
	precond  *model.Expr // an expression precondition, with f the crashing node
	net      NetworkSpec
	faults   FaultSpec
	campaign CampaignSpec
	latency  distribution
	restart  distribution
	notice   *distribution // [faults] notice_latency, if set
	clock    *clockSpec    // [faults] clock_* keys
}

// Bounds on the numbers of the fault sections: virtual times stay far from
// overflowing the nanosecond clock (which starts at supervisor.Epoch), a
// distribution's draws stay below the bound on times, and a campaign's seed
// list fits in memory.
const (
	maxTimeUS      = 1_000_000_000_000_000 // 10^15 µs, about 31 years
	maxDistUS      = 1_000_000_000_000     // 10^12 µs, about 11.6 days
	maxSeeds       = 10_000_000
	defaultMaxStep = 1_000_000
)

// readSpecs decodes and validates the model's [network], [faults] and
// [campaign] sections. Every problem is a *model.Error at the offending
// value; all of them are reported, in file order.
func readSpecs(m *model.Model) (*specs, error) {
	s := &specs{}
	var errs []error
	for _, sec := range []struct {
		name string
		v    any
	}{{"network", &s.net}, {"faults", &s.faults}, {"campaign", &s.campaign}} {
		if err := m.Decode(sec.name, sec.v); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	v := &specCheck{m: m, s: s}
	v.network()
	v.faults()
	v.clocks()
	v.partitions()
	v.campaign()
	if len(v.errs) > 0 {
		return nil, v.joined()
	}
	if p := s.faults.Precondition; p != "" && !strings.HasPrefix(p, "go:") {
		var err error
		if s.precond, err = m.ExprAtWith("faults", "precondition", "f"); err != nil {
			return nil, err
		}
	}
	if len(s.faults.Nodes) == 0 {
		for i := 0; i < m.Nodes; i++ {
			s.faults.Nodes = append(s.faults.Nodes, i)
		}
	}
	if s.campaign.MaxSteps == 0 {
		s.campaign.MaxSteps = defaultMaxStep
	}
	return s, nil
}

// specCheck collects the positioned problems of the fault sections.
type specCheck struct {
	m    *model.Model
	s    *specs
	errs []*model.Error
}

// at records a problem at the value at path (element index..., see
// model.Model.ValuePos).
func (v *specCheck) at(path string, index []int, format string, args ...any) {
	v.errs = append(v.errs, model.ErrorAt(v.m.ValuePos(path, index...), format, args...))
}

func (v *specCheck) joined() error {
	sort.SliceStable(v.errs, func(i, j int) bool {
		a, b := v.errs[i].Pos, v.errs[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	errs := make([]error, len(v.errs))
	for i, e := range v.errs {
		errs[i] = e
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// dist parses the distribution at path (called name in messages) and
// records a problem with it.
func (v *specCheck) dist(path, name, text string) distribution {
	d, err := parseDistribution(text)
	if err != nil {
		v.at(path, nil, "%s: %v", name, err)
	}
	return d
}

// timeUS records a problem unless the virtual time at path (called name
// in messages) is in [0, maxTimeUS].
func (v *specCheck) timeUS(path, name string, us int64) {
	if us < 0 || us > maxTimeUS {
		v.at(path, nil, "%s = %d: want a virtual time in µs between 0 and %d", name, us, int64(maxTimeUS))
	}
}

func (v *specCheck) network() {
	n := v.s.net
	v.s.latency = v.dist("network.latency", "network.latency", n.Latency)
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

func (v *specCheck) faults() {
	f, nodes := v.s.faults, v.m.Nodes
	v.s.restart = v.dist("faults.restart_after", "faults.restart_after", f.RestartAfter)
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
		v.s.notice = &d
	}
}

func (v *specCheck) partitions() {
	for i, p := range v.s.faults.Partition {
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
			v.dist(path+".duration", name+".duration", p.Duration)
		case p.Until != 0 && p.Until <= p.From:
			v.at(path+".until", nil, "%s.until = %d must come after from = %d", name, p.Until, p.From)
		}
	}
}

func (v *specCheck) campaign() {
	c := v.s.campaign
	if c.Seeds < 0 || c.Seeds > maxSeeds {
		v.at("campaign.seeds", nil, "campaign.seeds = %d: want between 0 and %d", c.Seeds, maxSeeds)
	}
	v.timeUS("campaign.duration", "campaign.duration", c.Duration)
	v.timeUS("campaign.tail", "campaign.tail", c.Tail)
	v.timeUS("campaign.client_window", "campaign.client_window", c.ClientWindow)
	if c.Duration >= 0 && c.Duration <= maxTimeUS && c.Tail >= 0 && c.Tail <= maxTimeUS && c.Duration+c.Tail > maxTimeUS {
		v.at("campaign.tail", nil, "campaign.duration + campaign.tail = %d: want at most %d µs", c.Duration+c.Tail, int64(maxTimeUS))
	}
	if c.MaxSteps < 0 {
		v.at("campaign.max_steps", nil, "campaign.max_steps = %d: want 1 or more (0: the default, %d)", c.MaxSteps, defaultMaxStep)
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

// distribution draws a non-negative duration in virtual µs.
type distribution struct {
	kind string
	a, b float64
	text string
}

// parseDistribution parses "constant:X", "uniform:A-B",
// "exponential:MEAN" and "normal:MEAN,SD" (all µs). "" is constant 0.
func parseDistribution(s string) (distribution, error) {
	if s == "" {
		return distribution{kind: "constant", text: "constant:0"}, nil
	}
	kind, arg, ok := strings.Cut(s, ":")
	if !ok {
		return distribution{}, fmt.Errorf("%q: want KIND:ARGS (constant:X, uniform:A-B, exponential:MEAN, normal:MEAN,SD)", s)
	}
	num := func(x string) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || !(v >= 0 && v <= maxDistUS) { // NaN and ±Inf too
			return 0, fmt.Errorf("%q: %q is not a number of µs between 0 and %d", s, x, int64(maxDistUS))
		}
		return v, nil
	}
	d := distribution{kind: kind, text: s}
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

// draw returns a duration in µs.
func (d distribution) draw(r *rand.Rand) int64 {
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

func (d distribution) String() string { return d.text }
