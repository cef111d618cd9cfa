package mcsdk

import (
	"encoding/binary"

	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// tracker keeps what the partial-order reduction asks of a supervised
// world beyond its state: which step sent each message in flight (a
// delivery's origin), and what the last step reached (the nodes that ran
// or whose sockets changed, new network names, random draws, the clock).
type tracker struct {
	origins [][]int  // per channel, per message in flight: the step that sent it
	ports   []uint16 // each socket's local port after the last step
	drawn   uint64
	now     int64
	nodes   int
	touched sched.Touched
}

// before notes the world's state before a is applied: a delivered
// message leaves its channel.
func (tr *tracker) before(w *supervisor.World, a sched.Action) {
	if a.Kind == sched.Deliver && a.Chan >= 0 && a.Chan < len(tr.origins) {
		if o := tr.origins[a.Chan]; a.Index >= 0 && a.Index < len(o) {
			tr.origins[a.Chan] = append(o[:a.Index:a.Index], o[a.Index+1:]...)
		}
	}
	w.ClearRan()
	tr.drawn, tr.now = w.RandomDrawn(), w.Now()
}

// after stamps the messages the step sent and records what it reached.
func (tr *tracker) after(w *supervisor.World) {
	net := w.Network()
	step := w.Steps()
	t := sched.Touched{Random: w.RandomDrawn() != tr.drawn, Clock: w.Now() != tr.now}
	for len(tr.origins) < len(net.Channels) {
		tr.origins = append(tr.origins, nil)
		t.Alloc = true
	}
	for c, ch := range net.Channels {
		o := tr.origins[c]
		if len(o) > len(ch.Msgs) {
			o = make([]int, len(ch.Msgs)) // lost track: 0 is always safe
		}
		for len(o) < len(ch.Msgs) {
			o = append(o, step)
		}
		tr.origins[c] = o
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

// origin is the step that sent the message a delivers (0 if unknown).
func (tr *tracker) origin(a sched.Action) int {
	if a.Kind == sched.Deliver && a.Chan >= 0 && a.Chan < len(tr.origins) && a.Index >= 0 && a.Index < len(tr.origins[a.Chan]) {
		return tr.origins[a.Chan][a.Index]
	}
	return 0
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
