//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// Deferred starts: a node whose NodeSpec names AfterPorts or a StartDelay
// is not launched with the others. It waits, not alive and not crashed,
// until every port of AfterPorts has a listener in the virtual network (a
// condition settle checks at every quiescent point, in node order); then,
// StartDelay later in virtual time, it starts. The delay is a timer event
// of the node's (Task 0, "timer N" in recordings), so a seeded run reaches
// it as it reaches any timeout and an exhaustive check explores it as a
// choice; without a delay the node starts inside settle at the quiescent
// point the condition first holds. Both depend only on the world's state,
// never on wall-clock time.

// deferred reports whether spec's node waits for a condition to start.
func (s NodeSpec) deferred() bool { return len(s.AfterPorts) > 0 || s.StartDelay > 0 }

// startReady reports whether every port node n waits for has a listener.
func (w *World) startReady(n *node) bool {
	for _, p := range w.cfg.Nodes[n.id].AfterPorts {
		if !w.net.HasListener(p) {
			return false
		}
	}
	return true
}

// startDeferred launches the waiting nodes whose condition holds and that
// have no delay left; it arms the delay of those whose condition has just
// come to hold. It reports whether it launched any.
func (w *World) startDeferred() bool {
	launched := false
	for _, n := range w.nodes {
		if !n.waiting || w.failure != nil {
			continue
		}
		if n.startDue < 0 {
			if !w.startReady(n) {
				continue
			}
			n.startDue = w.now + w.cfg.Nodes[n.id].StartDelay
		}
		if n.startDue > w.now {
			continue // a timer event (Timers)
		}
		w.startWaiting(n)
		launched = true
	}
	return launched
}

// startWaiting launches a waiting node.
func (w *World) startWaiting(n *node) {
	n.waiting, n.exited, n.killed = false, false, false
	w.markQueryDue(n.id)
	if err := w.launch(n); err != nil {
		w.fail(n, "", err.Error())
	}
}

// startTimers lists the armed start delays as timer events (Task 0).
func (w *World) startTimers() []TimerInfo {
	var ts []TimerInfo
	for _, n := range w.nodes {
		if n.waiting && n.startDue >= 0 {
			ts = append(ts, TimerInfo{Node: n.id, Deadline: n.startDue})
		}
	}
	return ts
}

// fireStart applies the timer event of a waiting node's start delay: the
// clock moves to its end and the node starts. It reports whether a was
// such an event.
func (w *World) fireStart(a sched.Action) bool {
	if a.Node < 0 || a.Node >= len(w.nodes) || !w.nodes[a.Node].waiting || w.nodes[a.Node].startDue < 0 {
		return false
	}
	n := w.nodes[a.Node]
	if n.startDue > w.now {
		w.setNow(n.startDue)
	}
	w.startWaiting(n)
	return true
}

// Waiting reports whether node i has not started yet: it waits for the
// ports it starts after or for its start delay.
func (w *World) Waiting(i int) bool { return w.nodes[i].waiting }

// writeNodeFiles writes node i's NodeSpec.Files into its run directory
// before its first start, as durable (synced) content: a crash that loses
// unsynced writes keeps them.
func (w *World) writeNodeFiles(i int) error {
	dir := w.DataDir(i)
	for _, f := range w.cfg.Nodes[i].Files {
		path := filepath.Join(dir, f.Name)
		if !strings.HasPrefix(path, dir+"/") {
			return fmt.Errorf("node %d: file %q lies outside its run directory", i, f.Name)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
		if err := os.WriteFile(path, f.Data, f.Mode.Perm()|0o600); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
		if ino, ok := inode(path); ok {
			if w.synced == nil {
				w.synced = map[uint64][]byte{}
			}
			w.synced[ino] = f.Data
		}
	}
	return nil
}
