package mcsdk

import (
	"encoding/binary"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// tracker keeps what the partial-order reduction asks of a supervised
// world beyond its state: which step sent each message in flight (a
// delivery's origin), and what the last step reached (the nodes that ran
// or whose sockets changed, new network names, random draws, the clock).
type tracker struct {
	origins  map[uint64]int // per message in flight, by its netsim ID: the step that sent it
	seen     uint64         // the network's LastID at the last look
	channels int            // the network's channels after the last step
	ports    []uint16       // each socket's local port after the last step
	drawn    uint64
	now      int64
	nodes    int
	touched  sched.Touched
}

// before notes the world's state before a is applied: a delivered
// message leaves its channel.
func (tr *tracker) before(w *supervisor.World, a sched.Action) {
	if m, ok := message(w, a); ok {
		delete(tr.origins, m.ID)
	}
	w.ClearRan()
	tr.drawn, tr.now = w.RandomDrawn(), w.Now()
}

// after stamps the messages the step sent and records what it reached.
func (tr *tracker) after(w *supervisor.World) {
	net := w.Network()
	step := w.Steps()
	t := sched.Touched{Random: w.RandomDrawn() != tr.drawn, Clock: w.Now() != tr.now}
	if len(net.Channels) > tr.channels {
		tr.channels = len(net.Channels)
		t.Alloc = true
	}
	if net.LastID() != tr.seen {
		if tr.origins == nil {
			tr.origins = map[uint64]int{}
		}
		for _, ch := range net.Channels {
			// The step's sends are the channel's tail; a duplicate the
			// step made is inside it, and was sent by the step too.
			for _, m := range ch.Msgs {
				if m.ID > tr.seen {
					tr.origins[m.ID] = step
				}
			}
		}
		tr.seen = net.LastID()
	}
	touch := func(n int) {
		for _, m := range t.Nodes {
			if m == n {
				return
			}
		}
		t.Nodes = append(t.Nodes, n)
	}
	for i, s := range net.Sockets {
		if i >= len(tr.ports) || tr.ports[i] != s.Local.Port {
			t.Alloc = true
			if s.Node >= 0 {
				touch(s.Node)
			}
		}
	}
	tr.ports = tr.ports[:0]
	for _, s := range net.Sockets {
		tr.ports = append(tr.ports, s.Local.Port)
	}
	for i := 0; i < tr.nodes; i++ {
		if w.Ran(i) {
			touch(i)
		}
	}
	tr.touched = t
}

// origin is the step that sent the message a delivers (0 if unknown,
// which is always safe).
func (tr *tracker) origin(w *supervisor.World, a sched.Action) int {
	if m, ok := message(w, a); ok {
		return tr.origins[m.ID]
	}
	return 0
}

// message is the message in flight a delivers, if a is a delivery of one.
func message(w *supervisor.World, a sched.Action) (netsim.Message, bool) {
	net := w.Network()
	if a.Kind != sched.Deliver || a.Chan < 0 || a.Chan >= len(net.Channels) {
		return netsim.Message{}, false
	}
	msgs := net.Channels[a.Chan].Msgs
	if a.Index < 0 || a.Index >= len(msgs) {
		return netsim.Message{}, false
	}
	return msgs[a.Index], true
}

// visible encodes what the invariants and the crash preconditions read
// in a state: every node's status, the declared globals, the reply lines
// and the clients' history (without step numbers, which count invisible
// steps too).
func (ob observation) visible(w *supervisor.World, nodes int) []byte {
	b := []byte{}
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	num := func(v int64) { b = binary.AppendVarint(b, v) }
	flag := func(v bool) {
		if v {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	for i := 0; i < nodes; i++ {
		st := w.Status(i)
		flag(st.Alive)
		flag(st.Exited)
		flag(st.Killed)
		num(int64(st.ExitCode))
		str(st.Signal)
	}
	str(string(ob.globals))
	for _, r := range w.Replies() {
		num(int64(r.Node))
		num(int64(r.Req))
		str(r.Line)
		str(r.Err)
	}
	num(int64(len(ob.ops)))
	for _, op := range ob.ops {
		num(int64(op.Req))
		num(int64(op.Outcome))
		num(int64(len(op.Values)))
		for _, v := range op.Values {
			num(v)
		}
		flag(op.ReturnStep >= 0)
	}
	return b
}
