package mcsdk

import "github.com/weft-mc/weft/mcsdk/model"

// The model's [network], [faults] and [campaign] sections, decoded and
// checked at load (package model); mcsdk's names for them.
type (
	NetworkSpec   = model.Network
	FaultSpec     = model.Faults
	PartitionSpec = model.Partition
	CampaignSpec  = model.Campaign
	Latency       = model.Latency
)

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

// specs are the fault-related sections of a model, as the runner uses
// them.
type specs struct {
	precond  *model.Expr // an expression precondition, with f the crashing node
	net      NetworkSpec
	faults   FaultSpec
	campaign CampaignSpec
	latency  model.Distribution
	restart  model.Distribution
	notice   *model.Distribution // [faults] notice_latency, if set
	clock    model.ClockFaults   // [faults] clock_* keys
}

// specsOf is m's fault sections, decoded and checked when m was loaded.
func specsOf(m *model.Model) *specs {
	return &specs{precond: m.Faults.PreconditionExpr, net: m.Network, faults: m.Faults, campaign: m.Campaign,
		latency: m.Network.Delay, restart: m.Faults.RestartDelay, notice: m.Faults.NoticeDelay, clock: m.Faults.Clock}
}
