package sched

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// graph is a fake system given as an explicit transition system: each
// state lists its edges, each labelled with an action. Environment edges
// (deliveries, timers, client requests) are what the fake world offers as
// enabled; fault edges (crash, restart, partition, heal) exist only so
// that the explorer's choices can be applied: a fault the explorer offers
// without an edge is an error the test sees.
type graph struct {
	start string
	edges map[string][]edge
	dead  map[string]map[int]bool // killed nodes in a state
	bad   map[string]bool
	fail  map[string]string // a world failure on reaching a state
	obs   map[string]string // what the invariants read in a state ("" if not given)
}

type edge struct {
	a        Action
	to       string
	from, at int      // a delivery's sender and receiver
	origin   int      // the step that made a possible (0: none)
	sends    []Action // deliveries this edge's step makes possible (their origin)
	touched  Touched
}

// parseGraph reads lines of the forms
//
//	STATE ACTION ARG -> STATE [from=N] [to=N] [origin=N] [sends=C.I+C.I] [touch=N+M] [alloc] [random] [clock] [global]
//	dead STATE NODE...
//	obs STATE LABEL
//	bad STATE
//	fail STATE MESSAGE
//
// The first state named is the initial one.
func parseGraph(text string) (*graph, error) {
	g := &graph{edges: map[string][]edge{}, dead: map[string]map[int]bool{}, bad: map[string]bool{}, fail: map[string]string{}, obs: map[string]string{}}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "dead":
			if len(f) < 3 {
				return nil, fmt.Errorf("bad line %q", line)
			}
			g.dead[f[1]] = map[int]bool{}
			for _, n := range f[2:] {
				k, err := strconv.Atoi(n)
				if err != nil {
					return nil, err
				}
				g.dead[f[1]][k] = true
			}
			continue
		case "bad":
			g.bad[f[1]] = true
			continue
		case "fail":
			g.fail[f[1]] = strings.Join(f[2:], " ")
			continue
		case "obs":
			g.obs[f[1]] = strings.Join(f[2:], " ")
			continue
		}
		if len(f) < 5 || f[3] != "->" {
			return nil, fmt.Errorf("bad line %q", line)
		}
		a, err := ParseAction(f[1] + " " + f[2])
		if err != nil {
			return nil, err
		}
		e := edge{a: a, to: f[4], from: -1, at: -1}
		for _, kv := range f[5:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "alloc":
				e.touched.Alloc = true
				continue
			case "random":
				e.touched.Random = true
				continue
			case "clock":
				e.touched.Clock = true
				continue
			case "global":
				e.touched.Global = true
				continue
			case "sends":
				for _, x := range strings.Split(v, "+") {
					a, err := ParseAction("deliver " + x)
					if err != nil {
						return nil, fmt.Errorf("bad %q in %q", kv, line)
					}
					e.sends = append(e.sends, a)
				}
				continue
			case "touch":
				for _, x := range strings.Split(v, "+") {
					n, err := strconv.Atoi(x)
					if err != nil {
						return nil, fmt.Errorf("bad %q in %q", kv, line)
					}
					e.touched.Nodes = append(e.touched.Nodes, n)
				}
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("bad %q in %q", kv, line)
			}
			switch k {
			case "from":
				e.from = n
			case "to":
				e.at = n
			case "origin":
				e.origin = n
			default:
				return nil, fmt.Errorf("unknown %q in %q", kv, line)
			}
		}
		if g.start == "" {
			g.start = f[0]
		}
		g.edges[f[0]] = append(g.edges[f[0]], e)
	}
	return g, nil
}

// fakeWorld is one run over a graph.
type fakeWorld struct {
	g       *graph
	at      string
	applied []Action
	closed  *atomic.Int64 // counts closes, to check every world is closed once
	touched Touched
	sent    map[Action]int // the step whose edge sent a delivery
	salt    string         // folded into Hash: a world that drifted (explorer's drift=N)
}

func (w *fakeWorld) Enabled() []Action {
	var out []Action
	for _, e := range w.g.edges[w.at] {
		switch e.a.Kind {
		case Deliver, Timer, Client, Run:
			out = append(out, e.a)
		}
	}
	return out
}

func (w *fakeWorld) Apply(a Action) error {
	for _, e := range w.g.edges[w.at] {
		if e.a == a {
			w.at = e.to
			w.applied = append(w.applied, a)
			w.touched = e.touched
			for _, d := range e.sends {
				if w.sent == nil {
					w.sent = map[Action]int{}
				}
				w.sent[d] = len(w.applied)
			}
			return nil
		}
	}
	return fmt.Errorf("%s is not possible in %s", a, w.at)
}

func (w *fakeWorld) Status(i int) NodeStatus {
	if w.g.dead[w.at][i] {
		return NodeStatus{Killed: true}
	}
	return NodeStatus{Alive: true}
}

func (w *fakeWorld) Endpoints(a Action) (int, int) {
	for _, e := range w.g.edges[w.at] {
		if e.a == a {
			return e.from, e.at
		}
	}
	return -1, -1
}

func (w *fakeWorld) Origin(a Action) int {
	if o, ok := w.sent[a]; ok {
		return o
	}
	for _, e := range w.g.edges[w.at] {
		if e.a == a {
			return e.origin
		}
	}
	return 0
}

func (w *fakeWorld) Touched() Touched { return w.touched }

func (w *fakeWorld) Hash(extra []byte) ([32]byte, error) {
	return sha256.Sum256(append([]byte(w.at+"\x00"+w.salt), extra...)), nil
}

func (w *fakeWorld) Failure() error {
	if msg, ok := w.g.fail[w.at]; ok {
		return fmt.Errorf("%s", msg)
	}
	return nil
}

func (w *fakeWorld) Close() { w.closed.Add(1) }
