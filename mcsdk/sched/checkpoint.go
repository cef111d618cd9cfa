package sched

import "slices"

// Checkpointer is a World that can keep a copy of its current state, from
// which the explorer starts the state's later siblings instead of
// replaying the prefix in a fresh world (Explorer.Checkpoints).
type Checkpointer interface {
	// Checkpoint copies the world's state. A refusal (a reason, no
	// error) means the world cannot be copied and has not changed; the
	// explorer then replays. An error is a tool failure.
	Checkpoint() (cp Checkpoint, refused string, err error)
}

// Checkpoint is a copy of a world's state.
type Checkpoint interface {
	// Restore starts a world in the copied state; the checkpoint stays
	// usable for more.
	Restore() (World, error)
	// Close releases the copy.
	Close()
}

// Measured is a Checkpoint that can say how much memory it holds alone,
// in bytes: what closing it would give back (Explorer.CheckpointMem).
type Measured interface {
	Memory() int64
}

// CheckpointStats counts the work of checkpoints in a search.
type CheckpointStats struct {
	Taken    int    // checkpoints kept
	Restores int    // sibling worlds started from a checkpoint instead of a replay
	Refused  int    // states whose world could not be copied (replayed instead)
	Why      string // the first refusal's reason
	Bounded  int    // states not checkpointed because the bound was reached (replayed instead)
	MaxLive  int    // the most checkpoints alive at once
	// Evicted counts checkpoints closed, deepest first, because the live
	// ones held more memory than Explorer.CheckpointMem (their states'
	// later siblings replayed instead); PeakMem is the most memory the
	// live checkpoints were measured to hold at once (Measured), bytes.
	Evicted int
	PeakMem int64
	// Failed counts restores that failed (a tool problem, the first
	// reported in FailedWhy): that checkpoint was dropped and its state's
	// later siblings replayed, so the search is unchanged.
	Failed    int
	FailedWhy string
	// RestoredNodes counts the nodes with processes the restores
	// restored, Materialised those of them given their processes (a
	// restore forks a node's processes only when its world needs them:
	// the others end with their world unforked), read from each
	// checkpoint that can say (NodeCounter) when it is closed.
	RestoredNodes int
	Materialised  int
}

// NodeCounter is a Checkpoint that can say how many nodes its restores
// restored and how many of them were given processes.
type NodeCounter interface {
	NodeCounts() (restored, materialised int)
}

// Add adds o's counts (MaxLive: the larger; Why: the first).
func (c *CheckpointStats) Add(o CheckpointStats) {
	c.Taken += o.Taken
	c.Restores += o.Restores
	c.Refused += o.Refused
	c.Bounded += o.Bounded
	c.MaxLive = max(c.MaxLive, o.MaxLive)
	c.Evicted += o.Evicted
	c.PeakMem = max(c.PeakMem, o.PeakMem)
	c.Failed += o.Failed
	c.RestoredNodes += o.RestoredNodes
	c.Materialised += o.Materialised
	if c.Why == "" {
		c.Why = o.Why
	}
	if c.FailedWhy == "" {
		c.FailedWhy = o.FailedWhy
	}
}

// siblingsMayFollow reports whether, besides action i about to be
// explored, the frame has an action not yet explored nor asleep: one
// that a sibling world might need (the reduction may add it later).
func (f *frame) siblingsMayFollow(i int, sleep []sleeper) bool {
	for j, a := range f.acts {
		if j != i && !f.done[j] && !f.busy[j] && !asleep(sleep, a) {
			return true
		}
	}
	return false
}

// checkpoint copies w, at depth d about to take action i of f, into
// *slot if its siblings may need it and the bounds allow (fitMemory).
func (s *search) checkpoint(w World, f *frame, i, d int, sleep []sleeper, slot *Checkpoint) error {
	if s.x.Checkpoints <= 0 {
		return nil
	}
	s.lock()
	may := f.siblingsMayFollow(i, sleep)
	s.unlock()
	if !may {
		return nil
	}
	c, ok := w.(Checkpointer)
	st := &s.res.Checkpoint
	switch {
	case !ok:
		st.Refused++
		if st.Why == "" {
			st.Why = "the world cannot be copied"
		}
		return nil
	case s.live >= s.x.Checkpoints:
		st.Bounded++
		return nil
	}
	cp, why, err := c.Checkpoint()
	if err != nil || cp == nil {
		if err == nil {
			st.Refused++
			if st.Why == "" {
				st.Why = why
			}
		}
		return err
	}
	st.Taken++
	s.live++
	st.MaxLive = max(st.MaxLive, s.live)
	*slot = cp
	if s.slots == nil {
		s.slots = map[int]*Checkpoint{}
	}
	s.slots[d] = slot
	s.fitMemory()
	return nil
}

// fitMemory measures the live checkpoints (Measured) and, while they
// hold more than Explorer.CheckpointMem, closes them deepest first: the
// newest, then its ancestors' (a depth-first search's live checkpoints
// are on its path). What a checkpoint holds alone grows as the worlds
// it shares memory with move on, so each new checkpoint measures them
// all again.
func (s *search) fitMemory() {
	if s.x.CheckpointMem <= 0 {
		return
	}
	depths := make([]int, 0, len(s.slots))
	mem := map[int]int64{}
	var total int64
	for d, slot := range s.slots {
		if m, ok := (*slot).(Measured); ok && *slot != nil {
			mem[d] = m.Memory()
			total += mem[d]
		}
		depths = append(depths, d)
	}
	st := &s.res.Checkpoint
	st.PeakMem = max(st.PeakMem, total)
	slices.Sort(depths)
	for k := len(depths) - 1; k >= 0 && total > s.x.CheckpointMem; k-- {
		slot := s.slots[depths[k]]
		if *slot == nil {
			continue
		}
		total -= mem[depths[k]]
		s.release(*slot)
		*slot = nil
		st.Evicted++
	}
}

// drop closes the checkpoint of the state at depth d (in *slot), if it
// has one, when the state's expansion ends.
func (s *search) drop(d int, slot *Checkpoint) {
	s.release(*slot)
	*slot = nil
	delete(s.slots, d)
}

// sibling starts the world for a later sibling: from the state's
// checkpoint *cp if there is one, by replaying path otherwise. A restore
// that fails drops the checkpoint (its later siblings are replayed too).
func (s *search) sibling(cp *Checkpoint, path []Action) (World, error) {
	if *cp == nil {
		return s.replay(path)
	}
	w, err := (*cp).Restore()
	if err == nil {
		s.res.Checkpoint.Restores++
		return w, nil
	}
	st := &s.res.Checkpoint
	st.Failed++
	if st.FailedWhy == "" {
		st.FailedWhy = err.Error()
	}
	s.release(*cp)
	*cp = nil
	return s.replay(path)
}

// release closes a state's checkpoint.
func (s *search) release(cp Checkpoint) {
	if nc, ok := cp.(NodeCounter); ok && cp != nil {
		r, m := nc.NodeCounts()
		s.res.Checkpoint.RestoredNodes += r
		s.res.Checkpoint.Materialised += m
	}
	if cp != nil {
		cp.Close()
		s.live--
	}
}
