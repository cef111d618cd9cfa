package sched

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

// CheckpointStats counts the work of checkpoints in a search.
type CheckpointStats struct {
	Taken    int    // checkpoints kept
	Restores int    // sibling worlds started from a checkpoint instead of a replay
	Refused  int    // states whose world could not be copied (replayed instead)
	Why      string // the first refusal's reason
	Bounded  int    // states not checkpointed because the bound was reached (replayed instead)
	MaxLive  int    // the most checkpoints alive at once
	// Failed counts restores that failed (a tool problem, the first
	// reported in FailedWhy): that checkpoint was dropped and its state's
	// later siblings replayed, so the search is unchanged.
	Failed    int
	FailedWhy string
}

// Add adds o's counts (MaxLive: the larger; Why: the first).
func (c *CheckpointStats) Add(o CheckpointStats) {
	c.Taken += o.Taken
	c.Restores += o.Restores
	c.Refused += o.Refused
	c.Bounded += o.Bounded
	c.MaxLive = max(c.MaxLive, o.MaxLive)
	c.Failed += o.Failed
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
		if j != i && !f.done[j] && !asleep(sleep, a) {
			return true
		}
	}
	return false
}

// checkpoint copies w, about to take action i of f, if its siblings may
// need it and the bound allows; nil otherwise.
func (s *search) checkpoint(w World, f *frame, i int, sleep []sleeper) (Checkpoint, error) {
	if s.x.Checkpoints <= 0 || !f.siblingsMayFollow(i, sleep) {
		return nil, nil
	}
	c, ok := w.(Checkpointer)
	st := &s.res.Checkpoint
	switch {
	case !ok:
		st.Refused++
		if st.Why == "" {
			st.Why = "the world cannot be copied"
		}
		return nil, nil
	case s.live >= s.x.Checkpoints:
		st.Bounded++
		return nil, nil
	}
	cp, why, err := c.Checkpoint()
	if err != nil || cp == nil {
		if err == nil {
			st.Refused++
			if st.Why == "" {
				st.Why = why
			}
		}
		return nil, err
	}
	st.Taken++
	s.live++
	st.MaxLive = max(st.MaxLive, s.live)
	return cp, nil
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
	if cp != nil {
		cp.Close()
		s.live--
	}
}
