package report

import (
	"fmt"
	"strings"

	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// DefaultSequenceSteps is how many of the last steps before the first
// violation (or the end) a sequence diagram shows: 0, the whole run.
const DefaultSequenceSteps = 0

// clientLifeline names the lifeline of the environment's clients: their
// requests (client, invoke) and replies (return) are arrows to and from
// it, an expired operation a mark on it.
const clientLifeline = "client"

// SequenceOf builds the message sequence diagram of a recording from the
// recording alone: one lifeline per node, an arrow per delivered (or
// dropped) message, crashes, restarts, notices and declared-state changes
// on the lifelines, and the first violation across them. It covers the
// last steps steps up to the first violation (the whole run when it has
// none); steps <= 0 means all of them. A node crashed before the window
// starts with a dashed lifeline.
//
// Recordings have "send" events (Node the sender, Peer the receiver, T the
// send time), matched to deliveries in order per pair of nodes, so each
// arrow runs from its send to its delivery; "drop" events (same fields)
// are drawn as lost messages. Older recordings without sends get level
// arrows at the delivery.
func SequenceOf(rec *weftlog.Recording, steps int) charts.Sequence {
	stop := JudgedStep(rec.Verdict)
	from, last := sequenceWindow(rec, steps)
	h := rec.Header
	name := rolesNamer(h.Roles)
	s := charts.Sequence{Title: fmt.Sprintf("%s · %s · seed %d: %s", h.Model, h.Variant, h.Seed, verdictText(rec.Verdict))}
	for i := range max(h.Nodes, maxNode(rec.Events)+1) {
		s.Nodes = append(s.Nodes, name(i))
	}
	if hasClients(rec.Events) {
		s.Nodes = append(s.Nodes, clientLifeline)
	}
	if from > 0 {
		s.Note = fmt.Sprintf("steps %d–%d of the recording; earlier steps are not drawn (weft trace lists them)", from, last)
	}
	down := downBefore(rec.Events, from)
	for i := range len(s.Nodes) {
		if down[i] {
			s.Down = append(s.Down, name(i))
		}
	}
	sends := map[[2]int][]weftlog.Event{}
	for _, e := range rec.Events {
		if e.Step > last {
			break
		}
		pair := [2]int{e.Peer, e.Node}
		switch e.Kind {
		case "send":
			sends[[2]int{e.Node, e.Peer}] = append(sends[[2]int{e.Node, e.Peer}], e)
			continue
		case "deliver":
			if e.Node < 0 {
				// Delivered to nobody (a SYN to a port no one listens
				// on): the sender learns of it, so it is marked there.
				if e.Step >= from {
					s.Marks = append(s.Marks, charts.Mark{Node: name(e.Peer), AtUS: int(e.T), Step: e.Step, Kind: charts.MarkRefused, Label: msgLabel(e)})
				}
				continue
			}
			m := charts.Message{From: name(e.Peer), To: name(e.Node), SentUS: -1, DeliveredUS: int(e.T), Step: e.Step, Label: msgLabel(e)}
			if q := sends[pair]; len(q) > 0 {
				m.SentUS, m.SentStep = int(q[0].T), q[0].Step
				sends[pair] = q[1:]
			}
			if e.Step >= from && (m.SentUS < 0 || m.SentStep >= from) {
				s.Messages = append(s.Messages, m)
			}
			continue
		case "drop":
			if e.Step >= from {
				s.Messages = append(s.Messages, charts.Message{From: name(e.Node), To: name(e.Peer), SentUS: -1, DeliveredUS: int(e.T), Step: e.Step, Label: msgLabel(e), Dropped: true})
			}
			continue
		}
		if e.Step < from {
			continue
		}
		if m, ok := clientMessage(e, name); ok {
			s.Messages = append(s.Messages, m)
			continue
		}
		if mk, ok := eventMark(e, name); ok {
			s.Marks = append(s.Marks, mk)
		}
	}
	if stop >= 0 {
		at := 0
		for _, e := range rec.Events {
			if e.Step <= stop {
				at = int(e.T)
			}
		}
		s.Marks = append(s.Marks, charts.Mark{Kind: charts.MarkViolation, Step: stop, AtUS: at,
			Label: ViolationText(rec.Verdict)})
	}
	return s
}

// downBefore is which nodes are down (crashed, not restarted) when step
// from begins.
func downBefore(events []weftlog.Event, from int) map[int]bool {
	down := map[int]bool{}
	for _, e := range events {
		if e.Step >= from {
			break
		}
		switch e.Kind {
		case "crash":
			down[e.Node] = true
		case "restart":
			down[e.Node] = false
		}
	}
	return down
}

// eventMark is the mark a node's event draws on its lifeline (a crash, a
// restart, a failure notice, a [state] value, a client call given up), if
// it draws one.
func eventMark(e weftlog.Event, name func(int) string) (charts.Mark, bool) {
	mk := charts.Mark{Node: name(e.Node), AtUS: int(e.T), Step: e.Step}
	switch e.Kind {
	case "crash":
		mk.Kind = charts.MarkCrash
	case "restart":
		mk.Kind = charts.MarkRestart
	case "notice":
		mk.Kind, mk.Label = charts.MarkNotice, fmt.Sprintf("told %s died", name(e.Peer))
	case "state":
		mk.Kind, mk.Label = charts.MarkState, e.Var+" = "+e.Value
	case "expire":
		mk.Node, mk.Kind, mk.Label = clientLifeline, charts.MarkState, e.Var+" gave up: "+e.Value
	default:
		return charts.Mark{}, false
	}
	return mk, true
}

// sequenceWindow is the steps SequenceOf(rec, steps) draws, from and last
// included: the last steps steps up to the judged one (JudgedStep; the
// run's last when it was not violated), every one when steps <= 0.
func sequenceWindow(rec *weftlog.Recording, steps int) (from, last int) {
	stop := JudgedStep(rec.Verdict)
	for _, e := range rec.Events {
		if stop < 0 || e.Step <= stop {
			last = max(last, e.Step)
		}
	}
	if steps > 0 && last-steps+1 > 0 {
		from = last - steps + 1
	}
	return from, last
}

// hasClients reports whether the run has client requests or a workload.
func hasClients(events []weftlog.Event) bool {
	for _, e := range events {
		switch e.Kind {
		case "client", "invoke", "return", "expire":
			return true
		}
	}
	return false
}

// clientMessage is the arrow of a client request (client, invoke: from
// the client lifeline to its node) or reply (return: back to it).
func clientMessage(e weftlog.Event, name func(int) string) (charts.Message, bool) {
	m := charts.Message{SentUS: int(e.T), SentStep: e.Step, DeliveredUS: int(e.T), Step: e.Step, Label: e.Value}
	switch e.Kind {
	case "client", "invoke":
		m.From, m.To = clientLifeline, name(e.Node)
		if e.Var != "" {
			m.Label = e.Var + " " + e.Value
		}
	case "return":
		m.From, m.To, m.Label = name(e.Node), clientLifeline, e.Var+" "+e.Value
	default:
		return m, false
	}
	if e.Node < 0 {
		return m, false
	}
	return m, true
}

func maxNode(events []weftlog.Event) int {
	n := -1
	for _, e := range events {
		n = max(n, e.Node, e.Peer)
	}
	return n
}

func msgLabel(e weftlog.Event) string {
	if e.Value != "" {
		return e.Value
	}
	return fmt.Sprintf("%dB", e.Bytes)
}

func verdictText(v weftlog.Verdict) string {
	if len(v.Violated) > 0 {
		return v.Verdict + " " + strings.Join(v.Violated, ", ")
	}
	return v.Verdict
}

// JudgedStep is the step whose state decided the verdict v: the first
// violation's, or, when the run went on past it (EndJudged), the run's
// last step; -1 for a run that was not violated.
func JudgedStep(v weftlog.Verdict) int {
	switch {
	case v.Verdict != "violated":
		return -1
	case EndJudged(v):
		return v.Steps
	}
	return v.FirstViolationStep
}

// ViolationText says where the violated verdict v was decided:
// "first violation: inv" at the step that ended the run, or "violated in
// the end state (step N): inv" when it was judged there (EndJudged).
func ViolationText(v weftlog.Verdict) string {
	names := strings.Join(v.Violated, ", ")
	if EndJudged(v) {
		return fmt.Sprintf("violated in the end state (step %d): %s", v.Steps, names)
	}
	return "first violation: " + names
}

// EndJudged reports whether the violated verdict v was judged in the run's
// end state ([campaign] check = "final"): a run that is judged at every
// step ends at its first violation, so one that went on past it failed
// there only transiently, and its first violation step names that
// failure, not the verdict's.
func EndJudged(v weftlog.Verdict) bool {
	return v.Verdict == "violated" && v.FirstViolationStep >= 0 && v.FirstViolationStep < v.Steps
}

// SequenceSVG draws the sequence diagram of rec (see SequenceOf).
func SequenceSVG(rec *weftlog.Recording, steps int) ([]byte, error) {
	return charts.SequenceSVG(SequenceOf(rec, steps))
}

// rolesNamer names nodes in a diagram: "n1 replica" when the recording
// has roles ([[node]] role), else "n1".
func rolesNamer(roles []string) func(int) string {
	return func(i int) string {
		if i >= 0 && i < len(roles) && roles[i] != "" {
			return nodeName(i) + " " + roles[i]
		}
		return nodeName(i)
	}
}
