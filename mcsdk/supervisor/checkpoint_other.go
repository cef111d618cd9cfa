//go:build !(linux && amd64)

package supervisor

import (
	"errors"
	"fmt"
)

// ErrNoCheckpoint wraps the reason a world cannot be checkpointed.
var ErrNoCheckpoint = errors.New("no checkpoint")

// Checkpoint is a copy of a world; on this platform none is taken.
type Checkpoint struct{}

// Checkpoint refuses: no world runs here.
func (w *World) Checkpoint() (*Checkpoint, error) {
	return nil, fmt.Errorf("%w: %v", ErrNoCheckpoint, ErrUnsupported)
}

// Restore is never reached.
func (cp *Checkpoint) Restore() (*World, error) { return nil, ErrUnsupported }

// Close is never reached.
func (cp *Checkpoint) Close() {}

// Memory is never reached.
func (cp *Checkpoint) Memory() int64 { return 0 }

// NodeCounts says how many nodes the checkpoint's restores restored and
// gave processes: none.
func (cp *Checkpoint) NodeCounts() (restored, materialised int) { return 0, 0 }

// EagerRestore makes restores give every node its processes at once
// (lazy_linux.go); without checkpoints it does nothing.
var EagerRestore bool

// ReleaseHost has nothing to release: no world runs here.
func ReleaseHost() error { return nil }
