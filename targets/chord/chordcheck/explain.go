package chordcheck

import (
	"fmt"
	"strconv"

	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// The operations of chord_node.c that change a successor pointer, as an
// adoption is classified from a recording. A recording holds each change
// of a declared global with its step; chord_node changes pointers only in
// these ways: join sets an unset succ; update sets succ to succ2 and clears
// succ2 in one step; stabilize sets succ to its successor's predecessor;
// reconcile sets succ2 to its successor's first successor.
const (
	OpJoin      = "join"
	OpStabilize = "stabilize"
	OpUpdate    = "update"
	OpReconcile = "reconcile"
)

// The checks of CHORD_CHECKS, by name.
const (
	CheckStabilize = "stabilize"
	CheckReconcile = "reconcile"
	CheckUpdate    = "update"
	CheckResponder = "responder"
)

// Adoption is one change of a node's succ or succ2 found in a recording.
type Adoption struct {
	Step  int    `json:"step"`
	TUS   int64  `json:"t_us"` // virtual µs since the start
	Node  int    `json:"node"` // index
	ID    int    `json:"id"`   // the node's chord id
	Field string `json:"field"`
	From  int    `json:"from"`
	To    int    `json:"to"`
	Op    string `json:"op"`
	// DeadSinceUS is when To crashed, if it had (else -1).
	DeadSinceUS int64 `json:"dead_since_us"`
	// Known: the node knew To dead (known_dead) before the step. Responder
	// is the node's successor whose reply the adoption took (reconcile and
	// stabilize); ResponderKnew: it knew To dead by then.
	Known         bool `json:"known"`
	Responder     int  `json:"responder"`
	ResponderKnew bool `json:"responder_knew"`
}

// Refused names the check that refuses this adoption given what the nodes
// knew, or "" if none could (the death was not yet known: a notice in
// flight). A reconcile whose responder knew the node dead is the
// responder's check even when the adopter knew too (either refuses it).
func (a Adoption) Refused() string {
	switch {
	case a.DeadSinceUS < 0:
		return ""
	case a.Op == OpStabilize && a.Known:
		return CheckStabilize
	case a.Op == OpReconcile && a.Known:
		return CheckReconcile
	case a.Op == OpReconcile && a.ResponderKnew:
		return CheckResponder
	case a.Op == OpUpdate && a.Known:
		return CheckUpdate
	}
	return ""
}

func (a Adoption) String() string {
	s := fmt.Sprintf("step %d (%.3f ms): %d's %s %s %d -> %d", a.Step, float64(a.TUS)/1000, a.ID, a.Op, a.Field, a.From, a.To)
	switch {
	case a.To < 0:
		s += " (unset since)"
	case a.DeadSinceUS < 0:
		s += fmt.Sprintf(" (%d alive then)", a.To)
	case a.Known:
		s += fmt.Sprintf(" (%d dead for %.1f ms, known)", a.To, float64(a.TUS-a.DeadSinceUS)/1000)
	default:
		s += fmt.Sprintf(" (%d dead for %.1f ms, not yet known)", a.To, float64(a.TUS-a.DeadSinceUS)/1000)
	}
	if a.Op == OpReconcile && a.ResponderKnew {
		s += fmt.Sprintf("; responder %d knew", a.Responder)
	}
	return s
}

// InvalidCause explains an invalid run from its recording: the crash of
// Crash (a chord id) left Stranded with no live successor, because its
// other pointer (Field) held Dead — a node already dead, or -1 — put there
// by Adoption (nil if it was never set since the start).
type InvalidCause struct {
	Step     int       `json:"step"`
	Crash    int       `json:"crash"`
	Stranded int       `json:"stranded"`
	Field    string    `json:"field"`
	Dead     int       `json:"dead"`
	Why      string    `json:"why"` // the precondition's words
	Adoption *Adoption `json:"adoption,omitempty"`
	// Prior, when Adoption is update's clearing of succ2, is the adoption
	// of the successor that update then replaced because it was dead.
	Prior *Adoption `json:"prior,omitempty"`
	// At the fatal crash: whether Stranded knew Dead dead, and whether the
	// crashing node (Stranded's source of successor lists) knew it.
	KnownAtCrash     bool `json:"known_at_crash"`
	CrashKnewAtCrash bool `json:"crash_knew_at_crash"`
}

// The categories of InvalidCause.Category.
const (
	CauseRefusable = "adopted a dead node the adopter or responder knew dead"
	CauseInFlight  = "adopted a dead node before its notice arrived"
	CauseDiedLater = "adopted a live node that died before repair"
	CauseUnset     = "succ2 cleared by update (replacing a successor that died), not refilled before the crash"
	CauseUnsetDead = "succ2 cleared by update replacing a dead node adopted as successor, not refilled before the crash"
	CauseNeverSet  = "pointer never set"
)

// Category sorts the cause into one of the Cause constants.
func (c InvalidCause) Category() string {
	a := c.Adoption
	switch {
	case a == nil:
		return CauseNeverSet
	case a.To < 0 && c.Prior != nil && c.Prior.DeadSinceUS >= 0:
		return CauseUnsetDead
	case a.To < 0:
		return CauseUnset
	case a.DeadSinceUS < 0:
		return CauseDiedLater
	case a.Refused() != "":
		return CauseRefusable
	}
	return CauseInFlight
}

// Refused names the check that would have refused the adoption that made
// the run invalid, or "" (see Adoption.Refused): for update's clearing of
// succ2, the adoption of the dead successor it replaced.
func (c InvalidCause) Refused() string {
	switch {
	case c.Adoption == nil:
		return ""
	case c.Adoption.To < 0 && c.Prior != nil:
		return c.Prior.Refused()
	}
	return c.Adoption.Refused()
}

func (c InvalidCause) String() string {
	s := fmt.Sprintf("crash of %d strands %d (%s = %d)", c.Crash, c.Stranded, c.Field, c.Dead)
	if c.Adoption == nil {
		return s + ": never set"
	}
	s += ": " + c.Adoption.String()
	if c.Prior != nil {
		s += ", replacing the successor of " + c.Prior.String()
	}
	if r := c.Refused(); r != "" {
		s += "; the " + r + " check refuses it"
	}
	if c.Dead >= 0 {
		s += fmt.Sprintf("; at the crash %d knew %d dead: %v, %d knew: %v", c.Stranded, c.Dead, c.KnownAtCrash, c.Crash, c.CrashKnewAtCrash)
	}
	return s
}

// replayed is the pointer history of a recording, folded event by event.
type replayed struct {
	vars      []map[string]int64
	alive     []bool
	deadSince map[int]int64 // chord id → µs of its crash
	byID      map[int]int
	history   [][]Adoption // per node, in order
}

func newReplayed(nodes int) *replayed {
	r := &replayed{vars: make([]map[string]int64, nodes), alive: make([]bool, nodes),
		deadSince: map[int]int64{}, byID: map[int]int{}, history: make([][]Adoption, nodes)}
	for i := range r.vars {
		r.vars[i] = map[string]int64{"chord_id": -1, "succ": -1, "succ2": -1, "pred": -1}
		r.alive[i] = true
	}
	return r
}

func (r *replayed) knows(node, id int) bool {
	kd, ok := r.vars[node]["known_dead"]
	return ok && id >= 0 && id < 64 && (uint64(kd)>>uint(id))&1 == 1
}

// pointer folds one change of succ or succ2 (ev) of a node, with next the
// event after it (for update's paired clear of succ2).
func (r *replayed) pointer(ev weftlog.Event, v int64, next *weftlog.Event) {
	n := ev.Node
	old := r.vars[n][ev.Var]
	r.vars[n][ev.Var] = v
	if ev.Step == 0 {
		return // the initial state, not an adoption
	}
	a := Adoption{Step: ev.Step, TUS: ev.T, Node: n, ID: int(r.vars[n]["chord_id"]), Field: ev.Var,
		From: int(old), To: int(v), DeadSinceUS: -1, Responder: -1}
	switch {
	case ev.Var == "succ" && old < 0:
		a.Op = OpJoin
	case ev.Var == "succ" && next != nil && next.Kind == "state" && next.Node == n && next.Step == ev.Step &&
		next.Var == "succ2" && next.Value == "-1" && int64(v) == r.vars[n]["succ2"]:
		a.Op = OpUpdate
	case ev.Var == "succ":
		a.Op, a.Responder = OpStabilize, int(old)
	case v < 0:
		a.Op = OpUpdate // update clears succ2 after promoting it
	default:
		a.Op, a.Responder = OpReconcile, int(r.vars[n]["succ"])
	}
	if t, dead := r.deadSince[a.To]; dead {
		a.DeadSinceUS = t
	}
	a.Known = r.knows(n, a.To)
	if i, ok := r.byID[a.Responder]; ok {
		a.ResponderKnew = r.knows(i, a.To)
	}
	r.history[n] = append(r.history[n], a)
}

// priorSucc is the last change of succ before step in h, the adoption of
// the successor that update replaced at step.
func priorSucc(h []Adoption, step int) *Adoption {
	for k := len(h) - 1; k >= 0; k-- {
		if h[k].Field == "succ" && h[k].Step < step {
			a := h[k]
			return &a
		}
	}
	return nil
}

// liveMember: alive with succ set (the spec's member).
func (r *replayed) liveMember(id int) bool {
	i, ok := r.byID[id]
	return ok && r.alive[i] && r.vars[i]["succ"] >= 0
}

// ExplainInvalid finds, from an invalid run's recording alone, the crash
// that broke the failure precondition, the member it stranded, and the
// pointer change that had left that member's other successor pointer dead.
// The recording must declare chord_id, succ and succ2 (and known_dead for
// Known); it is an error if it has no invalid event.
func ExplainInvalid(rec *weftlog.Recording) (InvalidCause, error) {
	r := newReplayed(rec.Header.Nodes)
	evs := rec.Events
	for k, ev := range evs {
		if ev.Node < 0 || ev.Node >= rec.Header.Nodes {
			continue
		}
		switch ev.Kind {
		case "state":
			v, err := strconv.ParseInt(ev.Value, 10, 64)
			if err != nil {
				continue // not an integer global
			}
			if ev.Var == "known_dead" {
				// known_dead is declared after the pointers: a node that
				// learns a death in the step it adopts is not counted as
				// knowing it before.
				r.vars[ev.Node][ev.Var] = int64(uint64(v))
				continue
			}
			if ev.Var == "succ" || ev.Var == "succ2" {
				var next *weftlog.Event
				if k+1 < len(evs) {
					next = &evs[k+1]
				}
				r.pointer(ev, v, next)
				continue
			}
			r.vars[ev.Node][ev.Var] = v
			if ev.Var == "chord_id" {
				r.byID[int(v)] = ev.Node
			}
		case "crash":
			r.alive[ev.Node] = false
			r.deadSince[int(r.vars[ev.Node]["chord_id"])] = ev.T
		case "restart":
			r.alive[ev.Node] = true
			delete(r.deadSince, int(r.vars[ev.Node]["chord_id"]))
		case "invalid":
			return r.cause(ev)
		}
	}
	return InvalidCause{}, fmt.Errorf("chordcheck: the recording (%s seed %d) has no invalid event", rec.Header.Variant, rec.Header.Seed)
}

// cause explains the invalid event ev from the folded state, as
// Precondition decides: the first member in id order left without a live
// successor by the crash of ev.Node.
func (r *replayed) cause(ev weftlog.Event) (InvalidCause, error) {
	f := int(r.vars[ev.Node]["chord_id"])
	r.alive[ev.Node] = false
	defer func() { r.alive[ev.Node] = true }()
	for id := range 64 {
		i, ok := r.byID[id]
		if !ok || !r.liveMember(id) {
			continue
		}
		succ, succ2 := int(r.vars[i]["succ"]), int(r.vars[i]["succ2"])
		field, other := "", 0
		switch {
		case succ == f && !r.liveMember(succ2):
			field, other = "succ2", succ2
		case succ2 == f && !r.liveMember(succ):
			field, other = "succ", succ
		default:
			continue
		}
		c := InvalidCause{Step: ev.Step, Crash: f, Stranded: id, Field: field, Dead: other, Why: ev.Value,
			KnownAtCrash: r.knows(i, other), CrashKnewAtCrash: r.knows(ev.Node, other)}
		h := r.history[i]
		for k := len(h) - 1; k >= 0; k-- {
			if h[k].Field == field {
				a := h[k]
				c.Adoption = &a
				if a.Op == OpUpdate && a.To < 0 {
					c.Prior = priorSucc(h[:k], a.Step)
				}
				break
			}
		}
		return c, nil
	}
	return InvalidCause{}, fmt.Errorf("chordcheck: step %d: the crash of %d strands no member in the recorded state (%s)", ev.Step, f, ev.Value)
}
