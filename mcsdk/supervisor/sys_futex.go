//go:build linux && amd64

package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Futexes are virtual: a wait parks the thread's notification in the
// node's futex table (vkernel.Futexes, keyed by address and address
// space, futexKey: a process's threads share one, a forked child has its
// own, and nodes share no memory; a waiter is named by its task's index),
// a wake marks waiters ready, and a timeout is a timer on the virtual
// clock. No thread ever blocks in the kernel unseen. The queues and
// FUTEX_WAKE_OP's arithmetic are vkernel's; this file decodes the calls,
// reads and writes the futex words and parks.

// futex(2) operations and flags (linux/futex.h).
const (
	futexWait          = 0
	futexWake          = 1
	futexRequeue       = 3
	futexCmpRequeue    = 4
	futexWakeOp        = 5
	futexWaitBitset    = 9
	futexWakeBitset    = 10
	futexPrivateFlag   = 128
	futexClockRealtime = 256
	futexBitsetAll     = vkernel.FutexBitsetAll
)

// Futex implements futex(2): WAIT, WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP,
// WAIT_BITSET and WAKE_BITSET, private or not, with timeouts on the
// virtual clocks. The priority-inheritance operations end the run.
func sysFutex(c *call) result {
	op := c.arg(1)
	cmd := op &^ (futexPrivateFlag | futexClockRealtime)
	addr, val, addr2, val3 := c.arg(0), uint32(c.arg(2)), c.arg(4), uint32(c.arg(5))
	val2 := int(int32(c.arg(3))) // REQUEUE, CMP_REQUEUE, WAKE_OP: a count, not a timeout
	n := c.n
	switch cmd {
	case futexWait:
		return c.futexWait(addr, val, futexBitsetAll, false, unix.CLOCK_MONOTONIC)
	case futexWaitBitset:
		if val3 == 0 {
			return errno(unix.EINVAL)
		}
		clock := uint64(unix.CLOCK_MONOTONIC)
		if op&futexClockRealtime != 0 {
			clock = unix.CLOCK_REALTIME
		}
		return c.futexWait(addr, val, val3, true, clock)
	case futexWake:
		return ret(int64(n.futexWake(c.futexKey(addr), int(int32(val)), futexBitsetAll)))
	case futexWakeBitset:
		if val3 == 0 {
			return errno(unix.EINVAL)
		}
		return ret(int64(n.futexWake(c.futexKey(addr), int(int32(val)), val3)))
	case futexRequeue, futexCmpRequeue:
		if cmd == futexCmpRequeue {
			word, err := c.readU32(addr)
			if err != nil {
				return errno(unix.EFAULT)
			}
			if word != val3 {
				return errno(unix.EAGAIN)
			}
		}
		if int32(val) < 0 || val2 < 0 {
			return errno(unix.EINVAL)
		}
		return ret(int64(n.futexRequeue(c.futexKey(addr), int(val), val2, c.futexKey(addr2))))
	case futexWakeOp:
		return c.futexWakeOp(addr, int(int32(val)), addr2, val2, val3)
	}
	return failf("futex operation %d is not modelled (priority inheritance and futex fds are not)", cmd)
}

// futexWait parks the thread on addr while the word there equals val,
// until a wake whose bitset meets bits, or the timeout (relative, or
// absolute on clock).
func (c *call) futexWait(addr uint64, val, bits uint32, absolute bool, clock uint64) result {
	t, n := c.t, c.n
	if !c.started {
		c.started = true
		if c.arg(3) != 0 { // before the word, as sys_futex reads it (futex_init_timeout)
			ns, e := c.readTimespec(c.arg(3))
			if e != 0 {
				return errno(e)
			}
			c.deadline = c.after(ns)
			if absolute {
				c.deadline = c.until(clock, ns)
			}
		}
		word, err := c.readU32(addr)
		if err != nil {
			return errno(unix.EFAULT)
		}
		if word != val {
			return errno(unix.EAGAIN)
		}
		if c.deadline >= 0 && c.deadline <= c.w.now {
			return errno(unix.ETIMEDOUT)
		}
		t.woken = false
		if n.futexQ == nil {
			n.futexQ = vkernel.NewFutexes()
		}
		n.futexQ.Wait(c.futexKey(addr), t.k, bits)
		c.waitOn() // queued: only a wake, its timer or a signal ends the wait
		return park()
	}
	if t.woken {
		t.woken = false
		return ret(0)
	}
	if c.timedOut {
		n.futexRemove(t)
		return errno(unix.ETIMEDOUT)
	}
	c.waitOn()
	return park()
}

// futexWake wakes up to nr waiters on addr whose bitset meets bits, in
// arrival order (vkernel.Futexes.Wake), and returns how many it woke. A
// woken waiter is ready: the scheduler picks when it runs.
func (n *node) futexWake(addr uint64, nr int, bits uint32) int {
	return n.futexWoken(n.futexQ.Wake(addr, nr, bits))
}

// futexWoken marks the tasks ids names woken and ready; it returns how
// many they are.
func (n *node) futexWoken(ids []int) int {
	for _, k := range ids {
		t := n.tasks[k]
		t.woken, t.ready = true, true
	}
	return len(ids)
}

// futexRequeue wakes up to nwake waiters on addr and moves up to nreq of
// the rest to addr2; it returns how many it woke and moved.
func (n *node) futexRequeue(addr uint64, nwake, nreq int, addr2 uint64) int {
	woken, moved := n.futexQ.Requeue(addr, nwake, nreq, addr2)
	return n.futexWoken(woken) + moved
}

// futexWakeOp implements FUTEX_WAKE_OP: change the word at addr2 by the
// encoded operation, wake nr waiters on addr, and, if the old value of the
// word at addr2 passes the encoded comparison, nr2 waiters there. No other
// thread runs meanwhile, so the change is atomic.
func (c *call) futexWakeOp(addr uint64, nr int, addr2 uint64, nr2 int, enc uint32) result {
	old, err := c.readU32(addr2)
	if err != nil {
		return errno(unix.EFAULT)
	}
	v, pass, err := vkernel.FutexOp(enc, old)
	if err != nil {
		return vkAnswer(err)
	}
	if err := c.writeU32(addr2, v); err != nil {
		return errno(unix.EFAULT)
	}
	woke := c.n.futexWake(c.futexKey(addr), nr, futexBitsetAll)
	if pass {
		woke += c.n.futexWake(c.futexKey(addr2), nr2, futexBitsetAll)
	}
	return ret(int64(woke))
}

// futexRemove takes a waiter off its queue (a timeout, a signal, its
// end).
func (n *node) futexRemove(t *task) { n.futexQ.Remove(t.k) }
