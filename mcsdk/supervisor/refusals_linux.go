//go:build linux && amd64

package supervisor

import (
	"strings"

	"golang.org/x/sys/unix"
)

// Rules named in Refusal.Rule.
const (
	ruleRunDir = "a node writes only inside its run directory"
	ruleNative = "the host kernel resolves this call's path itself, and would not find it where the node's view has it (its run directory is shown at a virtual path): the call runs only with a path relative to a working directory in the run directory, or through no part of the run directory"
)

// refusalKey is a Refusal without its count.
type refusalKey struct {
	node, nr           int // nr names the call when call is ""
	call, what, answer string
	rule               string
}

// refuse records one refused call of c (World.Refusals).
func (w *World) refuse(node int, call, what, answer, rule string) {
	w.refuseKey(refusalKey{node: node, call: call, what: what, answer: answer, rule: rule})
}

// refuseKey records one refused call of kind k.
func (w *World) refuseKey(k refusalKey) {
	if k.node >= 0 && k.node < len(w.cfg.Nodes) && strings.HasPrefix(k.what, "/") {
		if h, ok := w.view(k.node).ReadHost(k.what); ok {
			k.what = h // the model's own files, by where the model lies
		}
	}
	if w.refusals == nil {
		w.refusals = map[refusalKey]int{}
	}
	if w.refusals[k] == 0 {
		w.refusalOrder = append(w.refusalOrder, k)
	}
	w.refusals[k]++
}

// Refusals returns the run's refusals so far, once each, in the order
// they first happened.
func (w *World) Refusals() []Refusal {
	out := make([]Refusal, 0, len(w.refusalOrder))
	for _, k := range w.refusalOrder {
		call := k.call
		if call == "" {
			call = sysName(k.nr)
		}
		out = append(out, Refusal{Node: k.node, Call: call, What: k.what, Answer: k.answer, Rule: k.rule, Count: w.refusals[k]})
	}
	return out
}

// refuseTable records a call the syscall table refuses with e's errno.
func (w *World) refuseTable(c *call, e entry) {
	w.refuse(c.n.id, e.name, "", unix.ErrnoName(unix.Errno(e.errno)), e.note)
}
