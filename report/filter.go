package report

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// EventFilter narrows a run's diagram and events, as weft trace's flags
// do: to some nodes (an event of one of them, or a message to or from
// one), some kinds of event, and a window of virtual time; Zoom scales the
// diagram (percent; 100 fits the page).
type EventFilter struct {
	Nodes  []int
	Kinds  []string
	FromMS float64 // -1: from the start
	ToMS   float64 // -1: to the end
	Zoom   int
}

// NoFilter keeps every event at the page's width.
var NoFilter = EventFilter{FromMS: -1, ToMS: -1, Zoom: 100}

// ParseEventFilter reads a filter from a run page's query: nodes=0,2
// kinds=deliver,state from=12.5 to=40 (ms of virtual time) zoom=200.
func ParseEventFilter(q url.Values) (EventFilter, error) {
	f := NoFilter
	for _, s := range splitQuery(q.Get("nodes")) {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "n"))
		if err != nil || n < 0 {
			return f, fmt.Errorf("nodes: %q is not a node (0, 1, … or n0, n1, …)", s)
		}
		f.Nodes = append(f.Nodes, n)
	}
	f.Kinds = splitQuery(q.Get("kinds"))
	for _, b := range []struct {
		name string
		to   *float64
	}{{"from", &f.FromMS}, {"to", &f.ToMS}} {
		if s := strings.TrimSpace(q.Get(b.name)); s != "" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || v < 0 {
				return f, fmt.Errorf("%s: %q is not a time in ms", b.name, s)
			}
			*b.to = v
		}
	}
	if s := strings.TrimSpace(q.Get("zoom")); s != "" {
		z, err := strconv.Atoi(strings.TrimSuffix(s, "%"))
		if err != nil || z < 25 || z > 1000 {
			return f, fmt.Errorf("zoom: %q is not a percentage from 25 to 1000", s)
		}
		f.Zoom = z
	}
	return f, nil
}

func splitQuery(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Keep reports whether f keeps e.
func (f EventFilter) Keep(e weftlog.Event) bool {
	ms := float64(e.T) / 1000
	switch {
	case len(f.Kinds) > 0 && !slices.Contains(f.Kinds, e.Kind):
		return false
	case f.FromMS >= 0 && ms < f.FromMS, f.ToMS >= 0 && ms > f.ToMS:
		return false
	case len(f.Nodes) == 0 || slices.Contains(f.Nodes, e.Node):
		return true
	}
	message := e.Kind == "deliver" || e.Kind == "send" || e.Kind == "drop"
	return message && slices.Contains(f.Nodes, e.Peer)
}

// IsZero reports whether f keeps everything at the page's width.
func (f EventFilter) IsZero() bool {
	return len(f.Nodes) == 0 && len(f.Kinds) == 0 && f.FromMS < 0 && f.ToMS < 0 && f.Zoom == 100
}

// apply removes from rec the events f does not keep.
func (f EventFilter) apply(rec *weftlog.Recording) {
	rec.Events = slices.DeleteFunc(rec.Events, func(e weftlog.Event) bool { return !f.Keep(e) })
}

// form writes the filter's controls: a GET form back to the page.
func (p *page) filterForm(f EventFilter) {
	num := func(v float64) string {
		if v < 0 {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	nodes := make([]string, len(f.Nodes))
	for i, n := range f.Nodes {
		nodes[i] = strconv.Itoa(n)
	}
	p.f("<form class=\"eventfilter\" method=\"get\">Nodes <input name=\"nodes\" value=\"%s\" placeholder=\"0,2\" size=\"6\"> kinds <input name=\"kinds\" value=\"%s\" placeholder=\"deliver,client,state\" size=\"18\"> from <input name=\"from\" value=\"%s\" size=\"7\"> to <input name=\"to\" value=\"%s\" size=\"7\"> ms, zoom <input name=\"zoom\" value=\"%d\" size=\"4\">%% <button type=\"submit\">show</button> <a href=\"?\">everything</a></form>\n",
		esc(strings.Join(nodes, ",")), esc(strings.Join(f.Kinds, ",")), num(f.FromMS), num(f.ToMS), f.Zoom)
}
