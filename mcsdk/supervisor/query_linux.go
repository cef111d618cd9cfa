//go:build linux && amd64

package supervisor

import (
	"fmt"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/sched"
)

// queryRun is one state query's connection while it is open.
type queryRun struct {
	reply []byte
}

// runQueries sends every configured state query to its node, if alive, on
// a fresh connection from the environment, runs the world to quiescence,
// keeps what the node sent back, then closes the connection and runs to
// quiescence again. It is part of every transition (Start and Apply), so
// a replayed path repeats it exactly; it draws nothing from the seed and
// takes no virtual time, and its bytes pass through no channel.
func (w *World) runQueries() {
	if len(w.cfg.Queries) == 0 {
		return
	}
	if w.queryReplies == nil {
		w.queryReplies = make([]QueryReply, len(w.cfg.Queries))
		w.queryOpen = map[int]*queryRun{}
	}
	asked := make([]bool, len(w.nodes))
	defer func() {
		for i, a := range asked {
			if a {
				w.queryStale[i] = false
			}
		}
	}()
	for k, q := range w.cfg.Queries {
		if w.failure != nil {
			return
		}
		if q.Node < 0 || q.Node >= len(w.nodes) {
			continue
		}
		// A dead node, or one whose threads wait for a Run choice (it is
		// not at a quiescent point), keeps its last answer; so does one
		// that neither got nor sent anything since it was last asked.
		if n := w.nodes[q.Node]; n.exited || n.anyReady() || !w.queryDue(q.Node) {
			continue
		}
		// So does a node that sent nothing back (busy, or not serving yet);
		// it stays due until it answers.
		r := w.query(q)
		if len(r.Data) > 0 || len(w.queryReplies[k].Data) == 0 {
			w.queryReplies[k] = r
		}
		asked[q.Node] = asked[q.Node] || len(r.Data) > 0
	}
}

// A node is asked again only when it may have changed in a way its
// protocol shows: it started or restarted, something reached it (a
// delivery, a client request, a death notice), or it sent something to
// the network. Its own timers alone do not make it due: a runtime's
// housekeeping (a Go program's sysmon, its netpoller's timeouts) wakes the
// node after every query, and asking again at each of those wake-ups made
// a query cost a hundred times the steps of the request it observes.
// Every query of a due node is sent at the same quiescent point; then the
// node is no longer due. The rule reads only the world's state, so a
// replayed path asks at the same points.

// queryDue reports whether node i is due to be asked.
func (w *World) queryDue(i int) bool {
	return i < len(w.queryStale) && w.queryStale[i]
}

// markQueryDue makes node i due to be asked.
func (w *World) markQueryDue(i int) {
	if i >= 0 && i < len(w.queryStale) {
		w.queryStale[i] = true
	}
}

// sentBy counts the messages each node has in flight.
func (w *World) sentBy() []int {
	out := make([]int, len(w.nodes))
	for _, c := range w.net.Channels {
		if c.FromNode >= 0 && c.FromNode < len(out) {
			out[c.FromNode] += len(c.Msgs)
		}
	}
	return out
}

// queryInputs makes due the node that action a reaches, and returns the
// messages in flight per node once a is applied if nothing new is sent
// (for queryOutputs).
func (w *World) queryInputs(a sched.Action) []int {
	if len(w.cfg.Queries) == 0 {
		return nil
	}
	before := w.sentBy()
	switch a.Kind {
	case sched.Deliver:
		if a.Chan >= 0 && a.Chan < len(w.net.Channels) {
			c := w.net.Channels[a.Chan]
			w.markQueryDue(w.net.ReceiverNode(c))
			if c.FromNode >= 0 && c.FromNode < len(before) && a.Index < len(c.Msgs) {
				before[c.FromNode]-- // the delivered message leaves its channel
			}
		}
	case sched.Client:
		if a.Req >= 0 && a.Req < len(w.cfg.Client) {
			w.markQueryDue(w.cfg.Client[a.Req].Node)
		}
	case sched.Notice, sched.Restart, sched.Timer, sched.Crash:
		// A timer makes its node due only if the node sends something
		// (queryOutputs); a start timer starts the node (startWaiting).
		if a.Kind != sched.Timer && a.Kind != sched.Crash {
			w.markQueryDue(a.Node)
		}
	}
	return before
}

// queryOutputs makes due every node that has more messages in flight than
// before, that is, sent something while the action was applied.
func (w *World) queryOutputs(before []int) {
	if before == nil {
		return
	}
	for i, n := range w.sentBy() {
		if i < len(before) && n > before[i] {
			w.markQueryDue(i)
		}
	}
}

func (w *World) query(q StateQuery) QueryReply {
	env, e := w.net.ConnectEnv(uint16(w.cfg.BasePort + q.Node))
	if e != netsim.OK {
		return QueryReply{Err: fmt.Sprintf("connecting to port %d: %s", w.cfg.BasePort+q.Node, e)}
	}
	run := &queryRun{}
	w.queryOpen[env.ID] = run
	w.net.InjectEnv(env, q.Data)
	w.settle()
	w.net.CloseEnv(env)
	w.settle()
	delete(w.queryOpen, env.ID)
	return QueryReply{Data: run.reply}
}

// queryData takes bytes a node sent on a state query's connection; it
// reports whether env is one.
func (w *World) queryData(env *netsim.Socket, data []byte) bool {
	run, ok := w.queryOpen[env.ID]
	if ok {
		run.reply = append(run.reply, data...)
	}
	return ok
}

// QueryReplies returns the latest reply to each configured state query
// (Config.Queries, same order): what the node sent back before it went
// quiet, at the last transition at which it was alive, quiescent and
// answered. Before its first answer a reply is empty, with Err set if the
// connection was refused.
func (w *World) QueryReplies() []QueryReply { return w.queryReplies }
