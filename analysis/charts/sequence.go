package charts

import (
	"cmp"
	"errors"
	"fmt"
	"html"
	"slices"
	"strings"
)

// Sequence is a message sequence diagram: nodes as lifelines, messages as
// arrows from their send to their delivery, and marks (crashes, restarts,
// state changes, the first violation) on the lifelines. Time runs down,
// one row per instant, labelled with its step and virtual time.
type Sequence struct {
	Title    string
	Nodes    []string // lifelines, left to right
	Messages []Message
	Marks    []Mark
	// Note is printed under the title (e.g. what was left out).
	Note string
	// Down lists the nodes already crashed when the diagram starts.
	Down []string
	_    struct{}
}

// Message is one message between lifelines.
type Message struct {
	From, To string
	// SentUS is the virtual time of the send, or -1 when unknown (the
	// arrow is then drawn level at its delivery).
	SentUS, SentStep int
	// DeliveredUS is the virtual time of the delivery; with Dropped it is
	// when the message was lost.
	DeliveredUS, Step int
	Label             string // e.g. "64B" or "FIN"
	Dropped           bool
}

// Mark kinds.
const (
	MarkCrash     = "crash"
	MarkRestart   = "restart"
	MarkState     = "state"
	MarkViolation = "violation" // drawn across every lifeline
	MarkNotice    = "notice"
	MarkRefused   = "refused" // a message delivered to nobody (a refused connect), on its sender
)

// Mark is an event on one lifeline (or, for MarkViolation, on all).
type Mark struct {
	Node  string
	AtUS  int
	Step  int
	Kind  string
	Label string
}

// row is one instant of the diagram.
type row struct {
	step, us int
}

// Layout of the diagram, in SVG pixels.
const (
	seqCol    = 150 // distance between lifelines
	seqLeft   = 130 // room for the step/time labels
	seqTop    = 70  // title and lifeline heads
	seqRow    = 32  // height of one instant: an arrow and a line of state below it
	seqBottom = 40
)

// SequenceSVG draws s as a standalone SVG document (no script, no external
// reference), the same bytes for the same input.
func SequenceSVG(s Sequence) ([]byte, error) {
	if len(s.Nodes) == 0 {
		return nil, errors.New("charts: SequenceSVG needs at least one node")
	}
	col := map[string]int{}
	for i, n := range s.Nodes {
		col[n] = i
	}
	for _, mk := range s.Marks {
		if _, ok := col[mk.Node]; !ok && mk.Kind != MarkViolation {
			return nil, fmt.Errorf("charts: SequenceSVG: mark on unknown node %q", mk.Node)
		}
	}
	for _, m := range s.Messages {
		if _, ok := col[m.From]; !ok {
			return nil, fmt.Errorf("charts: SequenceSVG: message from unknown node %q", m.From)
		}
		if _, ok := col[m.To]; !ok {
			return nil, fmt.Errorf("charts: SequenceSVG: message to unknown node %q", m.To)
		}
	}
	rows, at := seqRows(s)
	d := &svgDoc{}
	width := seqLeft + seqCol*len(s.Nodes)
	height := seqTop + seqRow*(len(rows)+1) + seqBottom
	x := func(node string) int { return seqLeft + seqCol*col[node] + seqCol/2 }
	y := func(r row) int { return seqTop + seqRow*(at[r]+1) }
	d.f(`<svg xmlns="http://www.w3.org/2000/svg" class="weft-sequence" width="%d" height="%d" viewBox="0 0 %d %d" font-family="system-ui, sans-serif" font-size="11">`+"\n", width, height, width, height)
	d.f(`<defs><marker id="seq-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#24292f"/></marker></defs>` + "\n")
	d.f(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	d.f(`<text x="8" y="18" font-size="13" font-weight="600">%s</text>`+"\n", esc(s.Title))
	if s.Note != "" {
		d.f(`<text x="8" y="34" fill="#57606a">%s</text>`+"\n", esc(s.Note))
	}
	d.lifelines(s, rows, x, y, height)
	for _, r := range rows {
		d.f(`<text x="8" y="%d" fill="#57606a">step %d · %s</text>`+"\n", y(r)+4, r.step, msText(r.us))
	}
	for _, m := range s.Messages {
		d.message(m, x, y)
	}
	for _, mk := range mergeStates(s.Marks) {
		d.mark(mk, s, x, y(row{mk.Step, mk.AtUS}), width)
	}
	d.f("</svg>\n")
	return []byte(d.String()), nil
}

// mergeStates joins the state changes of one node at one instant into one
// mark, so they are written once, not over each other.
func mergeStates(marks []Mark) []Mark {
	var out []Mark
	at := map[[3]any]int{}
	for _, mk := range marks {
		if mk.Kind != MarkState {
			out = append(out, mk)
			continue
		}
		k := [3]any{mk.Node, mk.Step, mk.AtUS}
		if i, ok := at[k]; ok {
			out[i].Label += ", " + mk.Label
			continue
		}
		at[k] = len(out)
		out = append(out, mk)
	}
	return out
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// seqRows lists the diagram's instants in order and each one's index.
func seqRows(s Sequence) ([]row, map[row]int) {
	var rows []row
	for _, m := range s.Messages {
		if m.SentUS >= 0 {
			rows = append(rows, row{m.SentStep, m.SentUS})
		}
		rows = append(rows, row{m.Step, m.DeliveredUS})
	}
	for _, mk := range s.Marks {
		rows = append(rows, row{mk.Step, mk.AtUS})
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(a.step, b.step), cmp.Compare(a.us, b.us)) })
	rows = slices.Compact(rows)
	at := make(map[row]int, len(rows))
	for i, r := range rows {
		at[r] = i
	}
	return rows, at
}

// svgDoc accumulates SVG text.
type svgDoc struct{ strings.Builder }

func (d *svgDoc) f(format string, args ...any) { fmt.Fprintf(d, format, args...) }

func esc(s string) string { return html.EscapeString(s) }

func msText(us int) string { return fmt.Sprintf("%.3f ms", float64(us)/1000) }

// lifelines draws each node's head and line, dashed while it is down
// (between a crash and its restart).
func (d *svgDoc) lifelines(s Sequence, rows []row, x func(string) int, y func(row) int, height int) {
	end := height - seqBottom + 10
	for _, n := range s.Nodes {
		d.f(`<rect x="%d" y="%d" width="90" height="22" rx="4" fill="#ddf4ff" stroke="#0969da"/>`+"\n", x(n)-45, seqTop-30)
		d.f(`<text x="%d" y="%d" text-anchor="middle" font-weight="600">%s</text>`+"\n", x(n), seqTop-15, esc(n))
		top := seqTop - 8
		down := slices.Contains(s.Down, n)
		for _, mk := range s.Marks {
			if mk.Node != n || (mk.Kind != MarkCrash && mk.Kind != MarkRestart) {
				continue
			}
			yy := y(row{mk.Step, mk.AtUS})
			d.segment(x(n), top, yy, down)
			top, down = yy, mk.Kind == MarkCrash
		}
		d.segment(x(n), top, end, down)
	}
}

func (d *svgDoc) segment(x, from, to int, down bool) {
	style := `stroke="#8c959f" stroke-width="1.5"`
	if down {
		style = `stroke="#cf222e" stroke-width="1.5" stroke-dasharray="3 4" opacity="0.6"`
	}
	d.f(`<line x1="%d" y1="%d" x2="%d" y2="%d" %s/>`+"\n", x, from, x, to, style)
}

// message draws one arrow with its label and times in a tooltip.
func (d *svgDoc) message(m Message, x func(string) int, y func(row) int) {
	x1, x2 := x(m.From), x(m.To)
	y2 := y(row{m.Step, m.DeliveredUS})
	y1 := y2
	sent := "send time not recorded"
	if m.SentUS >= 0 {
		y1 = y(row{m.SentStep, m.SentUS})
		sent = "sent " + msText(m.SentUS)
	}
	if x1 == x2 {
		x2 += 12 // a message to itself
	}
	what := "delivered"
	style := `stroke="#24292f" stroke-width="1.2" marker-end="url(#seq-arrow)"`
	if m.Dropped {
		what = "dropped"
		style = `stroke="#cf222e" stroke-width="1.2" stroke-dasharray="5 3"`
	}
	d.f(`<g class="msg"><title>%s → %s %s: %s, %s %s (step %d)</title>`, esc(m.From), esc(m.To), esc(m.Label), sent, what, msText(m.DeliveredUS), m.Step)
	d.f(`<line x1="%d" y1="%d" x2="%d" y2="%d" %s/>`, x1, y1, x2, y2, style)
	if m.Dropped {
		d.f(`<text x="%d" y="%d" fill="#cf222e" font-weight="700" text-anchor="middle">✕</text>`, x2, y2+4)
	}
	d.f(`<text x="%d" y="%d" text-anchor="middle" fill="#24292f">%s</text></g>`+"\n", (x1+x2)/2, (y1+y2)/2-4, esc(m.Label))
}

// mark draws a crash, restart, notice, state change or the violation.
func (d *svgDoc) mark(mk Mark, s Sequence, x func(string) int, yy, width int) {
	switch mk.Kind {
	case MarkViolation:
		d.f(`<g class="violation"><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#cf222e" stroke-width="2" opacity="0.7"/>`, seqLeft, yy, width-8, yy)
		d.f(`<text x="%d" y="%d" fill="#cf222e" font-weight="700" text-anchor="end">%s</text></g>`+"\n", width-8, yy+26, esc(mk.Label))
	case MarkCrash:
		d.f(`<g class="crash"><title>%s crashes at %s</title><text x="%d" y="%d" text-anchor="middle" fill="#cf222e" font-size="16" font-weight="700">✕</text>`, esc(mk.Node), msText(mk.AtUS), x(mk.Node), yy+5)
		d.f(`<text x="%d" y="%d" fill="#cf222e">crash</text></g>`+"\n", x(mk.Node)+10, yy+4)
	case MarkRestart:
		d.f(`<g class="restart"><circle cx="%d" cy="%d" r="5" fill="#1a7f37"/><text x="%d" y="%d" fill="#1a7f37">restart</text></g>`+"\n", x(mk.Node), yy, x(mk.Node)+10, yy+4)
	default:
		// Below the instant's arrow, within the lifeline's column.
		d.f(`<g class="%s"><title>%s %s</title><circle cx="%d" cy="%d" r="3" fill="#0969da"/><text x="%d" y="%d" fill="#0969da" font-size="10">%s</text></g>`+"\n",
			esc(mk.Kind), esc(mk.Node), esc(mk.Label), x(mk.Node), yy, x(mk.Node)-seqCol/2+6, yy+13, esc(shorten(mk.Label, 26)))
	}
}
