package kernel

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// interruptGrace is how long an interrupted cell whose work listens to
// display.Context() has to return by itself, and then again once its
// child processes are killed, before its interpreted code is stopped.
const interruptGrace = 2 * time.Second

// cellRun is the cancellation of the running cell, in two steps: work is
// the cell's display.Context(), cancelled first so that a campaign stops
// between runs and a check stops with what it explored; stopEval stops the
// interpreted code itself, which ends the cell at once but loses what the
// compiled work in flight would have returned.
type cellRun struct {
	work     *watchedContext
	stopWork context.CancelFunc
	stopEval context.CancelFunc
	ended    chan struct{} // closed when the cell has returned

	once        sync.Once
	interrupted atomic.Bool // an interrupt or a shutdown reached the cell
	stopped     atomic.Bool // its interpreted code was stopped
}

// newCellRun returns the contexts of a cell: eval for the engine, carrying
// run.work for display.Context().
func newCellRun() (run *cellRun, eval context.Context) {
	eval, stopEval := context.WithCancel(context.Background())
	work, stopWork := context.WithCancel(context.Background())
	run = &cellRun{work: &watchedContext{Context: work}, stopWork: stopWork, stopEval: stopEval, ended: make(chan struct{})}
	return run, eval
}

// end releases the cell's contexts once it has returned.
func (r *cellRun) end() {
	r.stopWork()
	r.stopEval()
	close(r.ended)
}

// watchedContext is a cell's display.Context(): it notes whether anything
// asked for its cancellation (Done or Err), which tells the kernel whether
// the cell's work can stop by itself when it is cancelled.
type watchedContext struct {
	context.Context
	watched atomic.Bool
}

func (c *watchedContext) Done() <-chan struct{} {
	c.watched.Store(true)
	return c.Context.Done()
}

func (c *watchedContext) Err() error {
	c.watched.Store(true)
	return c.Context.Err()
}

// Interrupt stops the running cell, if any (interrupt_request or SIGINT).
// Its display.Context() is cancelled; if the cell's work listens to it,
// the cell has interruptGrace to return (a campaign keeps the runs it
// completed, a check reports what it explored), then the node processes of
// runs in flight are killed and, after interruptGrace more, its
// interpreted code is stopped. A cell that does not listen, or a second
// interrupt, is stopped at once (stopCell).
func (k *Kernel) Interrupt() {
	k.mu.Lock()
	r := k.run
	k.mu.Unlock()
	if r == nil {
		return
	}
	first := !r.interrupted.Swap(true)
	r.stopWork()
	if !first || !r.work.watched.Load() {
		k.stopCell(r)
		return
	}
	r.once.Do(func() { go k.escalate(r) })
}

// escalate stops an interrupted cell that did not return by itself.
func (k *Kernel) escalate(r *cellRun) {
	select {
	case <-r.ended:
		return
	case <-time.After(interruptGrace):
	}
	if n := k.killChildren(true); n > 0 {
		fmt.Fprintf(k.log, "weft kernel: interrupted cell still running after %v: killed %d node processes\n", interruptGrace, n)
	}
	select {
	case <-r.ended:
		return
	case <-time.After(interruptGrace):
	}
	k.stopCell(r)
}

// stopCell stops the interpreted code of a cell. If the cell's work
// listens to display.Context(), now cancelled, the node processes of its
// runs in flight are killed too: a cancelled campaign does not keep their
// outcome. Compiled work that does not listen is left alone, since killing
// its nodes would only write failed runs into its results; it runs on
// until it returns, and the cell's error says so.
func (k *Kernel) stopCell(r *cellRun) {
	r.stopped.Store(true)
	r.stopEval()
	if r.work.watched.Load() {
		k.killChildren(true)
	}
}

// killChildren kills the kernel's descendant processes, or with nodesOnly
// the node processes it traces (killDescendants), when it runs as its own
// process (Run), and reports how many it signalled.
func (k *Kernel) killChildren(nodesOnly bool) int {
	if !k.ownsProcess {
		return 0
	}
	return killDescendants(nodesOnly)
}

// stopAll ends the running cell for a shutdown: its work is cancelled, its
// processes killed (runs in flight fail at once, so a campaign returns and
// closes its dataset), and it has up to grace to return before its
// interpreted code is stopped; processes left are killed again.
func (k *Kernel) stopAll(grace time.Duration) {
	k.mu.Lock()
	r := k.run
	k.mu.Unlock()
	if r != nil {
		r.interrupted.Store(true)
		r.stopWork()
	}
	k.killChildren(false)
	if r != nil {
		select {
		case <-r.ended:
		case <-time.After(grace):
			r.stopped.Store(true)
			r.stopEval()
		}
	}
	k.killChildren(false)
}

// interruptedMessage is the evalue of an interrupted cell.
func (r *cellRun) interruptedMessage() string {
	if r.stopped.Load() {
		return "interrupted: the cell was stopped. Compiled work that does not take " +
			"display.Context() cannot be cancelled and may still be running until it returns " +
			"(give mcsdk.Campaign display.Context(), and mcsdk.Check CheckOptions{Context: display.Context()})"
	}
	return "interrupted: display.Context() was cancelled and the cell's work stopped early: a campaign keeps the runs it " +
		"completed (run the cell again to resume it), a check returns what it explored (Interrupted is set); variables are kept"
}
