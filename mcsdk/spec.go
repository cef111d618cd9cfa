package mcsdk

import (
	"fmt"
	"math"
	"math/rand/v2"
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
}

func readSpecs(m *model.Model) (*specs, error) {
	s := &specs{}
	if err := m.Decode("network", &s.net); err != nil {
		return nil, err
	}
	if err := m.Decode("faults", &s.faults); err != nil {
		return nil, err
	}
	if err := m.Decode("campaign", &s.campaign); err != nil {
		return nil, err
	}
	var err error
	if s.latency, err = parseDistribution(s.net.Latency); err != nil {
		return nil, fmt.Errorf("%s: [network] latency: %v", m.Path, err)
	}
	if s.restart, err = parseDistribution(s.faults.RestartAfter); err != nil {
		return nil, fmt.Errorf("%s: [faults] restart_after: %v", m.Path, err)
	}
	if s.faults.NoticeLatency != "" {
		if s.faults.Notice == "" {
			return nil, fmt.Errorf("%s: [faults] notice_latency needs notice (the line a death notice sends)", m.Path)
		}
		d, _ := parseDistribution(string(s.faults.NoticeLatency)) // checked when decoded
		s.notice = &d
	}
	for name, p := range map[string]float64{"drop": s.net.Drop, "duplicate": s.net.Duplicate, "reorder": s.net.Reorder} {
		if p < 0 || p > 1 {
			return nil, fmt.Errorf("%s: [network] %s = %v: a probability is between 0 and 1", m.Path, name, p)
		}
	}
	switch s.net.Order {
	case "", "fifo", "bag":
	default:
		return nil, fmt.Errorf("%s: [network] order %q: want fifo or bag", m.Path, s.net.Order)
	}
	switch s.campaign.Check {
	case "", "always", "final":
	default:
		return nil, fmt.Errorf("%s: [campaign] check %q: want always or final", m.Path, s.campaign.Check)
	}
	for _, n := range s.faults.Nodes {
		if n < 0 || n >= m.Nodes {
			return nil, fmt.Errorf("%s: [faults] nodes: no node %d", m.Path, n)
		}
	}
	for i, p := range s.faults.Partition {
		if len(p.Groups) < 2 {
			return nil, fmt.Errorf("%s: [[faults.partition]] %d: want at least two groups", m.Path, i+1)
		}
		seen := map[int]bool{}
		for _, g := range p.Groups {
			for _, n := range g {
				if n < 0 || n >= m.Nodes || seen[n] {
					return nil, fmt.Errorf("%s: [[faults.partition]] %d: node %d is out of range or in two groups", m.Path, i+1, n)
				}
				seen[n] = true
			}
		}
		if p.Until == 0 {
			if _, err := parseDistribution(p.Duration); err != nil {
				return nil, fmt.Errorf("%s: [[faults.partition]] %d: duration: %v", m.Path, i+1, err)
			}
		} else if p.Until <= p.From {
			return nil, fmt.Errorf("%s: [[faults.partition]] %d: until must come after from", m.Path, i+1)
		}
	}
	if p := s.faults.Precondition; p != "" && !strings.HasPrefix(p, "go:") {
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
		s.campaign.MaxSteps = 1_000_000
	}
	return s, nil
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
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, fmt.Errorf("%q: %q is not a non-negative number", s, x)
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
