package mcsdk

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/supervisor"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// framed is one reply a client connection received, framed by its
// protocol, at the step its last byte arrived.
type framed struct {
	node, req, step int
	frame           workload.Frame
}

// connStream is one client connection's bytes while they are framed.
type connStream struct {
	buf    []byte
	off    int // the bytes framed so far
	closed bool
	err    error // a malformed reply: nothing more is framed
	node   int
	req    int
}

// frameReplies divides every client connection's byte stream into the
// replies of protocol p, in the order their last bytes arrived (ties in
// connection order). With Stream, re is the reply expression; with
// cumulative, every arrival instead yields the connection's whole stream
// so far as one reply (a workload's per-operation expressions search it).
// It is a pure function of what the world received, recomputed at every
// observation, so checks and replays see the same replies.
func frameReplies(recv []supervisor.Received, p workload.Protocol, re *regexp.Regexp, cumulative bool) ([]framed, map[int]*connStream) {
	var out []framed
	conns := map[int]*connStream{}
	for _, r := range recv {
		c := conns[r.Conn]
		if c == nil {
			c = &connStream{node: r.Node, req: r.Req}
			conns[r.Conn] = c
		}
		c.buf = append(c.buf, r.Data...)
		c.closed = c.closed || r.Closed
		if cumulative {
			if len(r.Data) > 0 {
				out = append(out, framed{node: r.Node, req: r.Req, step: r.Step, frame: workload.Frame{Text: string(c.buf)}})
			}
			continue
		}
		for c.err == nil {
			f, n, ok, err := p.NextFrame(c.buf[c.off:], c.closed, re)
			if err != nil {
				c.err = err
			}
			if !ok {
				break
			}
			c.off += n
			out = append(out, framed{node: r.Node, req: r.Req, step: r.Step, frame: f})
		}
	}
	return out, conns
}

// clientLog is the ghost log of the model's [client]: every reply that
// matches its reply expression, as a record, in arrival order. The line
// protocol keeps the supervisor's lines (a refused connection is a
// reply with no text), as weft always did.
func clientLog(c *model.Client, w *supervisor.World) []model.Value {
	var log []model.Value
	if c.Protocol == workload.Line || c.Protocol == "" {
		for _, r := range w.Replies() {
			if rec, ok := c.ParseReply(r.Node, r.Line); ok {
				log = append(log, rec)
			}
		}
		return log
	}
	frames, _ := frameReplies(w.Received(), c.Protocol, c.Reply, false)
	for _, f := range frames {
		if rec, ok := c.ParseFrame(f.node, f.frame); ok {
			log = append(log, rec)
		}
	}
	return log
}

// workloadReplies are the replies of the workload's calls for
// Clients.Feed, by table index (the supervisor's request index less base,
// the set-up requests before them).
func workloadReplies(s *workload.Spec, w *supervisor.World, base int) []workload.Reply {
	var out []workload.Reply
	if s.Protocol == workload.Line || s.Protocol == "" {
		for _, r := range w.Replies() {
			if r.Req >= base {
				out = append(out, workload.Reply{Req: r.Req - base, Text: r.Line, Step: r.Step})
			}
		}
		return out
	}
	frames, _ := frameReplies(w.Received(), s.Protocol, nil, s.Protocol == workload.Stream)
	for _, f := range frames {
		if f.req >= base {
			out = append(out, workload.Reply{Req: f.req - base, Text: f.frame.Text, Step: f.step})
		}
	}
	return out
}

// unmatchedReplies describes the client connections that received bytes
// of which no reply matched (the [client]'s expression, or for workload
// calls, the call's): for each, the request, the node and the bytes
// received, so that a reply expression or protocol that does not fit the
// program shows what the program did send. At most limit are described.
func unmatchedReplies(m *model.Model, w *supervisor.World, done map[int]bool, base, limit int) []string {
	var out []string
	add := func(what string, c *connStream, expr string) {
		if len(out) >= limit {
			return
		}
		why := fmt.Sprintf("no reply matched %s", expr)
		if c.err != nil {
			why = fmt.Sprintf("a malformed reply (%v)", c.err)
		}
		out = append(out, fmt.Sprintf("%s to n%d: %s in the %d bytes received: %q", what, c.node, why, len(c.buf), excerptBytes(c.buf)))
	}
	if c := m.Client; c != nil && len(c.Requests) > 0 {
		matched := map[int]bool{}
		frames, conns := frameReplies(w.Received(), c.Protocol, c.Reply, false)
		for _, f := range frames {
			if _, ok := c.ParseFrame(f.node, f.frame); ok {
				matched[f.req] = true
			}
		}
		for _, id := range sortedConns(conns) {
			cs := conns[id]
			if cs.req >= 0 && cs.req < len(c.Requests) && !matched[cs.req] && len(cs.buf) > 0 {
				add(fmt.Sprintf("client request %d", cs.req), cs, fmt.Sprintf("client.reply %q (protocol %s)", c.Reply, orDefault(string(c.Protocol), "line")))
			}
		}
	}
	if s := m.Workload; s != nil {
		_, conns := frameReplies(w.Received(), s.Protocol, nil, true)
		tab := workload.NewTable(s)
		// A reply that matched its call's expression is not unmatched even
		// when the call did not complete with it (it came after the call
		// expired, or its node crashed). Framed as workloadReplies frames.
		frames, _ := frameReplies(w.Received(), s.Protocol, nil, s.Protocol == workload.Stream)
		for _, f := range frames {
			if k := f.req - base; k >= 0 && k < len(tab.Calls) && matchesCall(s, tab.Calls[k].Op, f.frame.Text) {
				done[k] = true
			}
		}
		for _, id := range sortedConns(conns) {
			cs := conns[id]
			k := cs.req - base
			if k < 0 || k >= len(tab.Calls) || done[k] || len(cs.buf) == 0 {
				continue
			}
			call := tab.Calls[k]
			add(fmt.Sprintf("c%d's %s", call.Client, call), cs, fmt.Sprintf("workload.reply.%s %q (protocol %s)", call.Op, s.Reply[call.Op], orDefault(string(s.Protocol), "line")))
		}
	}
	return out
}

// matchesCall reports whether text is a reply or a failure of a call of
// op, by the workload's expressions.
func matchesCall(s *workload.Spec, op, text string) bool {
	for _, re := range []*regexp.Regexp{s.Reply[op], s.Fail[op]} {
		if re != nil && re.MatchString(text) {
			return true
		}
	}
	return false
}

func sortedConns(conns map[int]*connStream) []int { return slices.Sorted(maps.Keys(conns)) }

// excerptBytes is b for messages: its start and its end when it is long.
func excerptBytes(b []byte) string {
	const head, tail = 240, 120
	if len(b) > head+tail {
		return strings.ToValidUTF8(string(b[:head]), "?") + "…" + strings.ToValidUTF8(string(b[len(b)-tail:]), "?")
	}
	return string(b)
}
