package workload

import (
	"encoding/binary"
	"fmt"
)

// Op is one operation of a history: the call, its outcome, and when it
// was invoked and completed, as steps of the run (a total order of the
// run's events) and virtual times (ns since the run began).
type Op struct {
	Call       Call
	Req        int // the table index
	Outcome    Outcome
	Values     []int64 // a read's result
	CallStep   int
	ReturnStep int // -1 while pending or indeterminate
	CallT      int64
	ReturnT    int64 // -1 while pending or indeterminate
	_          struct{}
}

// Reply is one reply the environment received on a call's connection
// (a line, or a reply of the workload's Protocol).
type Reply struct {
	Req  int // the table index of the call whose connection carried it
	Text string
	Step int
}

// Clients is the state of every client of a workload during one run:
// each client invokes its operations one after another; an operation ends
// with its reply or, when the scheduler says its deadline passed, as
// indeterminate, and the client goes on with its next one (to a node
// chosen afresh: a retry elsewhere). The zero value is not usable; use
// NewClients. A Clients belongs to one run.
type Clients struct {
	spec     *Spec
	table    *Table
	next     []int // per client: the number of its next operation
	pending  []int // per client: its pending operation (index into Ops), or -1
	byReq    map[int]int
	consumed int
	order    []byte // invocations and completions in order: the history's shape
	// Ops is the history so far, in invocation order.
	Ops []Op
}

// NewClients starts the clients of s over table t.
func NewClients(s *Spec, t *Table) *Clients {
	c := &Clients{spec: s, table: t, next: make([]int, s.Clients), pending: make([]int, s.Clients), byReq: map[int]int{}}
	for i := range c.pending {
		c.pending[i] = -1
	}
	return c
}

// Spec is the workload the clients run.
func (c *Clients) Spec() *Spec { return c.spec }

// Table is the calls the clients choose from.
func (c *Clients) Table() *Table { return c.table }

// Ready reports whether client i may invoke an operation now: none is
// pending and it has operations left.
func (c *Clients) Ready(i int) bool { return c.pending[i] < 0 && c.next[i] < c.spec.Ops }

// Waiting reports whether client i has an operation pending.
func (c *Clients) Waiting(i int) bool { return c.pending[i] >= 0 }

// Next is the number of client i's next operation.
func (c *Clients) Next(i int) int { return c.next[i] }

// Enabled lists the table indices of every call some client may invoke
// now, in table order.
func (c *Clients) Enabled() []int {
	var out []int
	for i := range c.next {
		if !c.Ready(i) {
			continue
		}
		lo, hi := c.table.Slot(i, c.next[i])
		for r := lo; r < hi; r++ {
			out = append(out, r)
		}
	}
	return out
}

// Invoke starts call req at step and virtual time t.
func (c *Clients) Invoke(req, step int, t int64) error {
	if req < 0 || req >= len(c.table.Calls) {
		return fmt.Errorf("workload: no call %d", req)
	}
	call := c.table.Calls[req]
	if !c.Ready(call.Client) || c.next[call.Client] != call.Seq {
		return fmt.Errorf("workload: client %d cannot invoke %s (operation %d) now", call.Client, call, call.Seq)
	}
	c.pending[call.Client] = len(c.Ops)
	c.byReq[req] = len(c.Ops)
	c.next[call.Client]++
	c.order = binary.LittleEndian.AppendUint32(append(c.order, 'c'), uint32(len(c.Ops)))
	c.Ops = append(c.Ops, Op{Call: call, Req: req, CallStep: step, CallT: t, ReturnStep: -1, ReturnT: -1})
	return nil
}

// Expire gives up on client i's pending operation: it is indeterminate.
func (c *Clients) Expire(i int) error {
	if i < 0 || i >= len(c.pending) || c.pending[i] < 0 {
		return fmt.Errorf("workload: client %d has no pending operation", i)
	}
	c.Ops[c.pending[i]].Outcome = Indeterminate
	c.order = binary.LittleEndian.AppendUint32(append(c.order, 'x'), uint32(c.pending[i]))
	c.pending[i] = -1
	return nil
}

// Feed reads the replies not seen before (lines is every reply so
// far) at virtual time t and returns the clients whose operation a reply
// completed. A reply to an operation that is no longer pending is
// ignored: the operation stays indeterminate.
func (c *Clients) Feed(lines []Reply, t int64) []int {
	var done []int
	for _, l := range lines[min(c.consumed, len(lines)):] {
		k, ok := c.byReq[l.Req]
		if !ok || c.pending[c.Ops[k].Call.Client] != k {
			continue
		}
		op := &c.Ops[k]
		out, vals, ok := c.spec.Parse(op.Call, l.Text)
		if !ok {
			continue
		}
		op.Outcome, op.Values, op.ReturnStep, op.ReturnT = out, vals, l.Step, t
		c.pending[op.Call.Client] = -1
		c.order = binary.LittleEndian.AppendUint32(append(c.order, 'r'), uint32(k))
		done = append(done, op.Call.Client)
	}
	c.consumed = len(lines)
	return done
}

// Counts is the number of operations invoked and, of them, those whose
// outcome is unknown (indeterminate or still pending).
func (c *Clients) Counts() (run, indeterminate int) {
	for _, op := range c.Ops {
		if op.Outcome == Indeterminate || op.Outcome == Pending {
			indeterminate++
		}
	}
	return len(c.Ops), indeterminate
}

// Bytes is a canonical encoding of the clients' state, for state hashing:
// what each client does next, the order in which operations were invoked
// and completed (which decides what a linearizability check can say of
// the history's future) and every operation's outcome so far. Steps and
// times are left out: histories of the same shape merge.
func (c *Clients) Bytes() []byte {
	b := append([]byte(nil), c.order...)
	for i := range c.next {
		b = binary.LittleEndian.AppendUint32(b, uint32(c.next[i]))
		b = binary.LittleEndian.AppendUint32(b, uint32(c.pending[i]+1))
	}
	for _, op := range c.Ops {
		b = binary.LittleEndian.AppendUint32(b, uint32(op.Req))
		b = append(b, byte(op.Outcome))
		for _, v := range op.Values {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		b = append(b, 0xff)
	}
	return b
}
