package mcsdk

import (
	"fmt"
	"strings"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// stepper applies chosen actions to one supervised world: the one path
// every mode takes. weft check's checkWorld.Apply (and explain) and the
// seeded runner (runs, campaigns, replays, shrinking) both call apply;
// what differs between them is only who chose the action and what they
// keep of the outcome (the runner its choices, timeline and the seeded
// scheduler's bookkeeping; the checker its reduction's footprints).
type stepper struct {
	t       *target
	w       *supervisor.World
	clients *workload.Clients // the workload's clients, or nil
	// allow, if set, is asked before a crash of a live node: a seeded
	// run's fault precondition. The checker leaves it nil: its explorer
	// offers no crash that breaks the precondition (CrashAllowed).
	allow func(node int) (ok bool, why string)
}

// stepped is what applying one action did.
type stepped struct {
	ev      Event   // the action's timeline entry, T set once applied
	returns []Event // the operations whose replies arrived, as "return" events
	done    []int   // their clients, in the same order
	// applied: the action counts as a step (the world was asked to apply
	// it, or a client gave up); apply's error may still say it failed.
	applied bool
	// refused says why the precondition refuses a crash (nothing applied).
	refused string
}

// apply performs a, chosen at virtual time at (ns; the checker passes the
// world's time), as step n of the recording. It moves the clock forward
// to at for the actions that wait for their time (a timer or a thread's
// run moves it itself), keeps the workload clients' history (an
// invocation, an expiry, the replies that arrive), reports a choice the
// world cannot take as a divergence, and describes the step as a timeline
// event. A crash of a dead node and a restart of a live one change nothing
// (applied false). A drop or duplicate of the network is no step: it
// changes the messages in flight at the current time, between steps (n is
// then the last step applied), and applied stays false.
func (s stepper) apply(a sched.Action, at int64, n int) (stepped, error) {
	w := s.w
	out := stepped{ev: Event{Step: n, Kind: a.Kind.String(), Node: a.Node, Peer: -1}}
	ev := &out.ev
	switch a.Kind {
	case sched.Drop, sched.Dup:
		return s.network(a, out)
	case sched.Notice:
		w.AdvanceTo(at)
		ev.Peer = a.Req
	case sched.Run:
		ev.Value = fmt.Sprintf("n%d/t%d", a.Node, a.Task)
	case sched.Timer:
		s.describeTimer(a, ev)
	case sched.Crash, sched.Restart:
		w.AdvanceTo(at)
		if a.Kind == sched.Restart {
			if w.Status(a.Node).Alive {
				return out, nil
			}
			break
		}
		if !w.Status(a.Node).Alive {
			return out, nil // already dead: nothing to do
		}
		if s.allow != nil {
			if ok, why := s.allow(a.Node); !ok {
				out.refused = why
				return out, nil
			}
		}
	case sched.Client:
		w.AdvanceTo(at)
		if err := s.invoke(a, at, ev); err != nil {
			return out, err
		}
	case sched.Expire:
		return s.expire(a, at, out)
	case sched.Deliver:
		if err := s.deliver(a, at, ev); err != nil {
			return out, err
		}
	}
	out.applied = true
	if err := w.Apply(a); err != nil {
		return out, err
	}
	ev.T = (w.Now() - supervisor.Epoch) / 1000
	s.returned(&out)
	return out, nil
}

// describeTimer names what a Timer choice does: a node's start, a
// thread's timeout or a signal timer.
func (s stepper) describeTimer(a sched.Action, ev *Event) {
	switch {
	case s.w.Waiting(a.Node):
		ev.Kind, ev.Value = "start", fmt.Sprintf("n%d starts", a.Node)
	case a.Task > 0:
		ev.Value = fmt.Sprintf("n%d/t%d", a.Node, a.Task)
	case a.Task < 0:
		ev.Value = fmt.Sprintf("n%d %s", a.Node, supervisor.SignalTimerName(a.Task))
	}
}

// invoke describes a client request and, when it is a workload's call,
// starts the operation in the clients' history at virtual time at.
func (s stepper) invoke(a sched.Action, at int64, ev *Event) error {
	if c := s.t.m.Client; c != nil && a.Req < len(c.Requests) {
		ev.Node, ev.Value = c.Requests[a.Req].Node, strings.TrimRight(c.Requests[a.Req].Send, "\n")
	}
	if s.clients == nil || a.Req < s.t.reqBase() {
		return nil
	}
	call, k, ok := s.t.call(a.Req)
	if !ok {
		return fmt.Errorf("step %d: %s is not possible: the run diverged", ev.Step, a)
	}
	ev.Kind, ev.Node, ev.Var, ev.Value = "invoke", call.Node, fmt.Sprintf("c%d", call.Client), call.String()
	// The history numbers steps as the recording does (expires count;
	// the world does not see them), so that Porcupine's history, traces
	// and diagrams agree.
	if err := s.clients.Invoke(k, ev.Step, at-supervisor.Epoch); err != nil {
		return fmt.Errorf("step %d: %v: the run diverged", ev.Step, err)
	}
	return nil
}

// expire applies an Expire choice: the client gives up on its pending
// operation, which stays indeterminate; the world does not change.
func (s stepper) expire(a sched.Action, at int64, out stepped) (stepped, error) {
	ev := &out.ev
	if s.clients == nil || !s.clients.Waiting(a.Req) {
		return out, fmt.Errorf("step %d: %s is not possible: the run diverged", ev.Step, a)
	}
	s.w.AdvanceTo(at)
	var call workload.Call
	for _, op := range s.clients.Ops {
		if op.Call.Client == a.Req {
			call = op.Call
		}
	}
	if err := s.clients.Expire(a.Req); err != nil {
		return out, err
	}
	out.applied = true
	ev.Kind, ev.Node, ev.Var, ev.Value, ev.T = "expire", call.Node, fmt.Sprintf("c%d", a.Req), call.String()+" → indeterminate", (at-supervisor.Epoch)/1000
	return out, nil
}

// network applies a drop or duplicate to the messages in flight, checking
// that the message is there (a choice the world cannot take is a
// divergence). A drop is described as a "drop" timeline event (the lost
// message's sender, receiver and size); a duplicate's copy, which netsim
// puts right after its original, has an identity of its own.
func (s stepper) network(a sched.Action, out stepped) (stepped, error) {
	net := s.w.Network()
	if a.Chan < 0 || a.Chan >= len(net.Channels) || a.Index < 0 || a.Index >= len(net.Channels[a.Chan].Msgs) {
		return out, fmt.Errorf("step %d: %s is not possible: the run diverged", out.ev.Step+1, a)
	}
	d := netsim.Delivery{Chan: a.Chan, Index: a.Index}
	if a.Kind == sched.Dup {
		net.Duplicate(d)
		return out, nil
	}
	c := net.Channels[a.Chan]
	out.ev.Node, out.ev.Peer, out.ev.Bytes = c.FromNode, net.ReceiverNode(c), len(c.Msgs[a.Index].Data)
	out.ev.T = (s.w.Now() - supervisor.Epoch) / 1000
	net.Drop(d)
	return out, nil
}

// deliver checks that the message a delivers is in flight, moves the
// clock to its arrival and describes it (its receiver, sender and size).
func (s stepper) deliver(a sched.Action, at int64, ev *Event) error {
	net := s.w.Network()
	if a.Chan < 0 || a.Chan >= len(net.Channels) || a.Index < 0 || a.Index >= len(net.Channels[a.Chan].Msgs) {
		return fmt.Errorf("step %d: %s is not possible: the run diverged", ev.Step, a)
	}
	s.w.AdvanceTo(at)
	c := net.Channels[a.Chan]
	m := c.Msgs[a.Index]
	ev.Node, ev.Peer, ev.Bytes = net.ReceiverNode(c), c.FromNode, len(m.Data)
	switch {
	case m.SYN && ev.Node < 0:
		ev.Value = fmt.Sprintf("SYN refused (nobody listens on port %d)", c.DstPort)
	case m.SYN:
		ev.Value = "SYN"
	case m.FIN:
		ev.Value = "FIN"
	case m.RST:
		ev.Value = "RST"
	}
	return nil
}

// returned records the operations whose replies arrived in the step just
// applied: their return step is the recording's, and each is a "return"
// event.
func (s stepper) returned(out *stepped) {
	step := out.ev.Step
	for _, c := range feed(s.clients, s.w, s.t.reqBase()) {
		k := len(s.clients.Ops) - 1
		for ; k > 0 && s.clients.Ops[k].Call.Client != c; k-- {
		}
		s.clients.Ops[k].ReturnStep = step
		op := s.clients.Ops[k]
		out.returns = append(out.returns, Event{Step: step, T: op.ReturnT / 1000, Kind: "return", Node: op.Call.Node, Peer: -1,
			Var: fmt.Sprintf("c%d", c), Value: outcomeText(op)})
		out.done = append(out.done, c)
	}
}
