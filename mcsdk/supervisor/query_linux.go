//go:build linux && amd64

package supervisor

import (
	"fmt"

	"github.com/weft-mc/weft/mcsdk/netsim"
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
	for k, q := range w.cfg.Queries {
		if w.failure != nil {
			return
		}
		if q.Node < 0 || q.Node >= len(w.nodes) {
			continue
		}
		// A dead node, or one whose threads wait for a Run choice (it is
		// not at a quiescent point), keeps its last answer.
		if n := w.nodes[q.Node]; n.exited || n.anyReady() {
			continue
		}
		// So does a node that sent nothing back (busy, or not serving yet).
		if r := w.query(q); len(r.Data) > 0 || len(w.queryReplies[k].Data) == 0 {
			w.queryReplies[k] = r
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
