//go:build linux && amd64

package supervisor

import "fmt"

// Which parked calls settle retries.
//
// settle retries parked calls until none completes, and every completed
// call runs its thread, so one action used to cost a retry of every parked
// call of the world at least twice: once to find the calls the action
// woke, and once more after they ran, to find that nothing else had
// changed. Most retries parked again (a Chord run: 4,034 of 4,556).
//
// A parked call's handler is a function of the world's state: a retry
// that parks again, made when nothing has happened since the call's
// previous retry parked, parks again and changes nothing (what handlers
// change while parking is idempotent: an edge-triggered epoll entry's
// evaluation, a deadline set once; the one exception, a blocking send
// done in parts, shows in call.progress). So the world keeps a change
// count, wakeGen, bumped by everything that can wake a parked call: the
// start of each settle (an action, a launch, a query), a node's thread
// running (runNode: its calls, its memory, its exit), a call served for
// the first time (serve: a handler that parks may register itself, as a
// futex waiter does), a retry that moved part of its data. A call whose
// last retry parked at the current count is skipped; every other parked
// call is retried, in the same order as before, so the first call that
// completes (and so the run) is the same.
//
// Each settle's first pass therefore retries every parked call whose
// handler did not say what it waits for. A handler that parks may say so
// (waitOn): the objects (wait keys) whose change can end the wait, or none
// when only the call's own events can: its timer firing (timedOut), a
// signal interrupting it (intr), a futex wake (the thread's woken flag).
// Whatever changes such an object marks its key (mark). A call that
// declared its waits is retried only when one of its keys was marked or
// one of its own events happened since it parked; the others keep the
// change count's rule. The order of the retries made is unchanged, and a
// spared retry would have parked unchanged (weftverify checks each one),
// so the first call that completes, and so every run, is the same.
//
// Declared so far: a futex wait that has queued itself and pause wait for
// their own events alone; a sleep waits for the clock too (timeKey,
// marked wherever the world's time is set). The calls that wait on a
// pipe, a socket, an epoll instance or another thread's exit do not
// declare their waits yet: they need marks wherever those objects change.

// waitKey names one object parked calls may wait on.
type waitKey struct {
	kind waitKind
	node int // the node the object belongs to; -1 for the world's
	// An object kind with many instances (a pipe, a socket) adds which
	// one here when it comes to declare its waits.
}

// waitKind is the kind of object a waitKey names.
type waitKind uint8

const (
	waitTime waitKind = iota + 1 // the world's clock (timeKey)
)

// timeKey is the world's clock: marked whenever virtual time is set.
var timeKey = waitKey{kind: waitTime, node: -1}

// changed records that something a parked call may wait for changed.
func (w *World) changed() { w.wakeGen++ }

// mark records that object k changed: the calls waiting on it are
// retried, and so is every call that did not declare its waits.
func (w *World) mark(k waitKey) {
	w.changed()
	if w.marks == nil {
		w.marks = map[waitKey]uint64{}
	}
	w.marks[k] = w.wakeGen
}

// waitOn declares, while c's handler parks it, what the call waits for
// besides its own events: keys may be empty. A handler that parks without
// declaring keeps the change count's rule. dispatch clears the declaration
// before every handler run.
func (c *call) waitOn(keys ...waitKey) {
	c.keyed = true
	c.waits = append(c.waits, keys...)
}

// clearWaits forgets c's declared waits before its handler runs again.
func (c *call) clearWaits() {
	c.keyed, c.waits = false, c.waits[:0]
}

// unwoken reports whether a retry of parked call c would park again
// unchanged: nothing changed since its last retry parked, or (byWaits) it
// declared its waits and neither they nor its own events changed since it
// parked.
func (w *World) unwoken(c *call) (skip, byWaits bool) {
	switch {
	case c.parkedAt == 0:
		return false, false
	case c.parkedAt == w.wakeGen+1:
		return true, false
	case !c.keyed || c.timedOut || c.intr != nil || c.t.woken:
		return false, false
	case len(c.n.sigScan) > 0:
		return false, false // a dispatch of the process's next call adopts its signalfd (sys_signalfd.go)
	}
	for _, k := range c.waits {
		if w.marks[k] >= c.parkedAt {
			return false, false
		}
	}
	return true, true
}

// parkedNow stamps a call that its first dispatch (serve) parked: one
// that declared its waits need not be retried until they change.
func (w *World) parkedNow(c *call) {
	if c.keyed {
		c.parkedAt = w.wakeGen + 1
	}
}

// retry dispatches parked call c again, unless it would park again
// unchanged (unwoken); it reports whether the call is still parked.
func (w *World) retry(c *call) bool {
	if skip, byWaits := w.unwoken(c); skip {
		w.skipped++
		if byWaits {
			w.spared++
		}
		if verifyWaiters {
			w.verifySkip(c)
		}
		return true
	}
	progress := c.progress
	if w.dispatch(c) != parked {
		c.parkedAt = 0
		return false
	}
	if c.progress != progress {
		c.parkedAt = 0
		w.changed() // part of a send went out: a reader may wake
		return true
	}
	c.parkedAt = w.wakeGen + 1
	return true
}

// verifySkip (tests built with -tags weftverify) dispatches a call retry
// skipped and fails the run if it did not park again unchanged.
func (w *World) verifySkip(c *call) {
	gen, progress := w.wakeGen, c.progress
	if w.dispatch(c) != parked || c.progress != progress || w.wakeGen != gen {
		w.fail(c.n, sysName(int(c.req.Data.Nr)), fmt.Sprintf("weftverify: a skipped retry of %s did not park unchanged", c.t.name()))
	}
}
