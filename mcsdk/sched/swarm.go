package sched

import (
	"math/rand/v2"
	"strings"
)

// FaultKinds are the kinds of fault a model's seeded runs have: crashes
// ([faults] crashes of some node), seeded partitions ([[faults.partition]]
// with a duration), datagram drops or duplicates ([network] drop,
// duplicate) and clock faults ([faults] clock_*). A swarm configuration
// (Swarm) leaves some of them out.
type FaultKinds struct {
	Crashes, Partitions, Drops, Clocks bool
}

// count is the number of kinds the model has.
func (k FaultKinds) count() int {
	n := 0
	for _, b := range []bool{k.Crashes, k.Partitions, k.Drops, k.Clocks} {
		if b {
			n++
		}
	}
	return n
}

// Swarm is one execution's fault configuration, swarm testing's (Groce
// et al., ISSTA 2012): the kinds of the model's faults it leaves out, so
// that a run without partitions or drops has its crashes' effects alone,
// and another its partitions'. The model's rates and windows are kept:
// a configuration only takes faults away, so every run it makes is one
// the model allows. The zero Swarm leaves out nothing: the seeded run.
type Swarm struct {
	NoCrashes    bool `json:",omitempty"` // an empty fault schedule
	NoPartitions bool `json:",omitempty"` // Omit.Partitions: every seeded one
	NoDrops      bool `json:",omitempty"` // Omit.NoDrops
	NoClocks     bool `json:",omitempty"` // Omit.Clocks: every node's
}

// IsZero reports whether s leaves out nothing.
func (s Swarm) IsZero() bool { return s == Swarm{} }

// String says what s leaves out, e.g. "no crashes, no drops".
func (s Swarm) String() string {
	var parts []string
	for _, k := range []struct {
		on   bool
		name string
	}{{s.NoCrashes, "no crashes"}, {s.NoPartitions, "no partitions"}, {s.NoDrops, "no drops"}, {s.NoClocks, "no clock faults"}} {
		if k.on {
			parts = append(parts, k.name)
		}
	}
	if len(parts) == 0 {
		return "all faults"
	}
	return strings.Join(parts, ", ")
}

// DrawSwarm draws a configuration over the model's fault kinds: each
// kind it has is left out with probability 1/2, drawn again while all
// are (a run without faults finds nothing seeded runs' own streams do
// not). With fewer than two kinds there is nothing to choose: it returns
// the zero Swarm and draws nothing from r, so a guide over such a model
// makes the same executions as without swarm.
func DrawSwarm(r *rand.Rand, k FaultKinds) Swarm {
	if k.count() < 2 {
		return Swarm{}
	}
	for {
		bits := r.IntN(16)
		s := Swarm{
			NoCrashes:    k.Crashes && bits&1 != 0,
			NoPartitions: k.Partitions && bits&2 != 0,
			NoDrops:      k.Drops && bits&4 != 0,
			NoClocks:     k.Clocks && bits&8 != 0,
		}
		if !s.noFaults(k) {
			return s
		}
	}
}

// noFaults reports whether s leaves out every kind k has.
func (s Swarm) noFaults(k FaultKinds) bool {
	return (!k.Crashes || s.NoCrashes) && (!k.Partitions || s.NoPartitions) && (!k.Drops || s.NoDrops) && (!k.Clocks || s.NoClocks)
}
