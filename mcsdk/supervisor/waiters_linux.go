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
// Each settle's first pass therefore still retries every parked call; a
// per-object waiter list (the calls waiting on one socket, futex word,
// pipe) would spare those too, but needs every handler to say what it
// waits for.

// changed records that something a parked call may wait for changed.
func (w *World) changed() { w.wakeGen++ }

// retry dispatches parked call c again, unless nothing changed since its
// last retry parked; it reports whether the call is still parked.
func (w *World) retry(c *call) bool {
	if c.parkedAt == w.wakeGen+1 {
		w.skipped++
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
