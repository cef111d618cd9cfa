package mcsdk

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// DefaultCheckpoints is the bound on live checkpoints of an exhaustive
// check with checkpoints on (CheckOptions.Checkpoints): the depth-first
// search keeps at most one per state on its current path, so the bound
// matters only beyond this depth.
const DefaultCheckpoints = 16

// DefaultCheckpointMem bounds the memory live checkpoints hold alone
// (CheckOptions.CheckpointMem, per worker): 1 GiB.
const DefaultCheckpointMem = 1 << 30

// Checkpoint copies the world with the clients' history and the
// reduction's tracker (sched.Checkpointer); a world the supervisor cannot
// copy is refused with its reason.
func (w checkWorld) Checkpoint() (sched.Checkpoint, string, error) {
	cp, err := w.World.Checkpoint()
	if errors.Is(err, supervisor.ErrNoCheckpoint) {
		return nil, strings.TrimPrefix(err.Error(), supervisor.ErrNoCheckpoint.Error()+": "), nil
	}
	if err != nil {
		return nil, "", err
	}
	saved := w
	saved.World = nil
	saved.clients, saved.tr = cloneClients(w.clients), w.tr.cloned()
	return &checkpoint{cp: cp, w: saved}, "", nil
}

// checkpoint is a checkWorld's copy: the supervisor's and the rest.
type checkpoint struct {
	cp *supervisor.Checkpoint
	w  checkWorld // without its World
}

func (c *checkpoint) Restore() (sched.World, error) {
	sw, err := c.cp.Restore()
	if err != nil {
		return nil, err
	}
	w := c.w
	w.World, w.clients, w.tr = sw, cloneClients(c.w.clients), c.w.tr.cloned()
	return w, nil
}

func (c *checkpoint) Close() { c.cp.Close() }

// NodeCounts says how many nodes the copy's restores restored and gave
// processes (sched.NodeCounter).
func (c *checkpoint) NodeCounts() (restored, materialised int) { return c.cp.NodeCounts() }

// Memory is what the copy's frozen processes hold alone
// (sched.Measured).
func (c *checkpoint) Memory() int64 { return c.cp.Memory() }

func cloneClients(c *workload.Clients) *workload.Clients {
	if c == nil {
		return nil
	}
	return c.Clone()
}

// cloned copies the tracker (nil stays nil).
func (tr *tracker) cloned() *tracker {
	if tr == nil {
		return nil
	}
	out := *tr
	out.origins = maps.Clone(tr.origins)
	out.ports = slices.Clone(tr.ports)
	out.touched.Nodes = slices.Clone(tr.touched.Nodes)
	return &out
}
