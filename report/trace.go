package report

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// TraceSequenceSteps is how many steps up to the violation (or the end
// state where the verdict was judged) a traced failure's sequence
// diagram shows at first; a longer run's whole diagram is one click
// away (Trace.WholeSequence). A long run drawn whole is many screens
// tall: the steps that led to the violation would be at its bottom.
const TraceSequenceSteps = 80

// DefaultTraceRows is how many state changes (and faults) before and at the
// first violation a traced failure lists when Options.TraceRows is zero.
const DefaultTraceRows = 40

// Trace is one traced failure: a violating run of a variant whose recording
// the report shows.
type Trace struct {
	Variant   string
	Seed      int64
	Run       string
	Dataset   string // the dataset directory, as given
	Recording string // the recording's path: Dataset joined with the row's RecordingPath
	ModelPath string // the model as the manifest names it
	Violated  []string
	// FirstViolationStep is the scheduler step of the first violation, or
	// of the end state when the verdict was judged there (EndJudged).
	FirstViolationStep int
	// EndJudged is set when the verdict was judged in the run's end state
	// ([campaign] check = "final"); Transient is then the step at which a
	// required invariant failed first, without deciding the verdict.
	EndJudged bool
	Transient int
	// Recent are the last state changes and faults up to and including
	// FirstViolationStep, oldest first.
	Recent []weftlog.Event
	// Timeline is the recording's timeline up to FirstViolationStep; nil
	// when the recording holds no event to draw.
	Timeline *charts.Chart
	// Sequence is the run's message sequence diagram (SVG), drawn from the
	// recording alone, of its last TraceSequenceSteps steps up to the
	// violation (the judged step, JudgedStep): steps SequenceFrom to
	// SequenceTo.
	Sequence                 []byte
	SequenceFrom, SequenceTo int
	// WholeSequence is the diagram of the whole run when Sequence shows
	// only its last steps, else nil; the report puts it behind a control
	// that draws it only once opened.
	WholeSequence []byte
	// Linearizability is Porcupine's visualisation of the run's history
	// (the campaign writes it beside the recording when a porcupine:
	// invariant fails), or nil.
	Linearizability []byte
	// Commands reproduce and inspect the run.
	Commands []string
}

// candidate is a violating row with a recording.
type candidate struct {
	src int
	row dataset.Row
}

// traceCandidates returns, per variant, its violating rows that have a
// recording, lowest seed first (then dataset order, then run).
func traceCandidates(srcs []Source) map[string][]candidate {
	out := map[string][]candidate{}
	for i, s := range srcs {
		for _, r := range s.Rows {
			if r.Verdict == dataset.Violated && r.RecordingPath != "" {
				out[r.Variant] = append(out[r.Variant], candidate{i, r})
			}
		}
	}
	for _, cs := range out {
		slices.SortStableFunc(cs, func(a, b candidate) int {
			return cmp.Or(cmp.Compare(a.row.Seed, b.row.Seed), cmp.Compare(a.src, b.src), cmp.Compare(a.row.RunID, b.row.RunID))
		})
	}
	return out
}

// traceVariant traces the first candidate of a variant whose recording
// reads. It returns nil and a note when there is none.
func traceVariant(srcs []Source, cands []candidate, run runFunc, rows int) (*Trace, string) {
	if len(cands) == 0 {
		return nil, "no violating run with a recording"
	}
	var problems []string
	for _, c := range cands {
		s := srcs[c.src]
		path := filepath.Join(s.Dir, filepath.FromSlash(c.row.RecordingPath))
		rec, err := weftlog.ReadFile(path)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		t, err := newTrace(rec, c.row, path, s, run(c.row), rows)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		return t, ""
	}
	return nil, "no readable recording: " + strings.Join(problems, "; ")
}

// newTrace builds the traced failure of rec, the recording of row.
func newTrace(rec *weftlog.Recording, row dataset.Row, path string, s Source, run string, rows int) (*Trace, error) {
	step := JudgedStep(rec.Verdict)
	if step < 0 && row.FirstViolationStep != nil {
		step = int(*row.FirstViolationStep)
	}
	t := &Trace{
		Variant: row.Variant, Seed: row.Seed, Run: run, Dataset: s.Dir, Recording: path,
		ModelPath: s.Manifest.ModelPath, Violated: row.ViolatedInvariants, FirstViolationStep: step,
		Recent: recentChanges(rec.Events, step, rows), EndJudged: EndJudged(rec.Verdict), Transient: rec.Verdict.FirstViolationStep,
	}
	if len(t.Violated) == 0 {
		t.Violated = rec.Verdict.Violated
	}
	if evs := timelineEvents(rec.Events, step); len(evs) > 0 {
		c, err := charts.Timeline(fmt.Sprintf("trace-%s-%d", row.Variant, row.Seed), evs)
		if err != nil {
			return nil, err
		}
		c.Title = fmt.Sprintf("%s seed %d: declared state up to the first violation (step %d)", row.Variant, row.Seed, step)
		if t.EndJudged {
			c.Title = fmt.Sprintf("%s seed %d: declared state up to the end state (step %d), where the verdict was judged", row.Variant, row.Seed, step)
		}
		t.Timeline = c
	}
	if err := t.sequences(rec, TraceSequenceSteps); err != nil {
		return nil, err
	}
	if b, err := os.ReadFile(path + ".porcupine.html"); err == nil {
		t.Linearizability = b
	}
	t.Commands = reproduceCommands(t)
	return t, nil
}

// sequences draws t's diagrams of rec: its last steps steps up to the
// judged step and, when the run is longer, the whole run.
func (t *Trace) sequences(rec *weftlog.Recording, steps int) error {
	from, last := sequenceWindow(rec, steps)
	s := SequenceOf(rec, steps)
	if from > 0 {
		whole, err := SequenceSVG(rec, 0)
		if err != nil {
			return err
		}
		t.WholeSequence = whole
		s.Note = fmt.Sprintf("steps %d–%d of the recording, the last %d up to the %s; the whole run is under “%s” below", from, last, last-from+1, judgedWhere(rec.Verdict), wholeRunControl)
	}
	svg, err := charts.SequenceSVG(s)
	t.Sequence, t.SequenceFrom, t.SequenceTo = svg, from, last
	return err
}

// wholeRunControl labels the control that shows a traced failure's whole
// diagram.
const wholeRunControl = "The whole run"

// judgedWhere names the judged step of a violated verdict v.
func judgedWhere(v weftlog.Verdict) string {
	if EndJudged(v) {
		return "end state, where the verdict was judged"
	}
	return "first violation"
}

// shown reports whether an event belongs in the table of recent changes.
func shown(kind string) bool {
	switch kind {
	case "state", "crash", "restart", "invalid":
		return true
	}
	return false
}

// recentChanges returns what the table of a traced failure lists, oldest
// first: every fault (crash, restart, invalid) at or before step, since a
// failure usually starts there, and the last n state changes up to step.
func recentChanges(events []weftlog.Event, step, n int) []weftlog.Event {
	var states []int
	for i, e := range events {
		if e.Kind == "state" && (step < 0 || e.Step <= step) {
			states = append(states, i)
		}
	}
	from := -1
	if len(states) > n {
		from = states[len(states)-n]
	}
	var out []weftlog.Event
	for i, e := range events {
		if !shown(e.Kind) || (step >= 0 && e.Step > step) {
			continue
		}
		if e.Kind != "state" || i >= from {
			out = append(out, e)
		}
	}
	return out
}

// timelineEvents converts the events at or before step for charts.Timeline:
// state changes as values, crashes and restarts as faults, and deliveries
// that changed declared state (a state event at the same step) as pins on
// the receiver. Other deliveries and timers are left out: in a long run
// they would bury the ones that mattered.
func timelineEvents(events []weftlog.Event, step int) []charts.TraceEvent {
	changed := map[int]bool{}
	for _, e := range events {
		if e.Kind == "state" {
			changed[e.Step] = true
		}
	}
	var out []charts.TraceEvent
	for _, e := range events {
		if step >= 0 && e.Step > step {
			break
		}
		te := charts.TraceEvent{Step: e.Step, TimeUS: e.T, Node: nodeName(e.Node)}
		switch {
		case e.Kind == "state":
			te.Kind, te.Var, te.Value = charts.KindState, e.Var, e.Value
		case e.Kind == "crash":
			te.Kind = charts.KindCrash
		case e.Kind == "restart":
			te.Kind = charts.KindRestart
		case e.Kind == "invalid":
			te.Kind, te.Value = charts.KindFault, "invalid: "+e.Value
		case e.Kind == "partition", e.Kind == "heal":
			// Shaded across every panel (recordings that record them).
			te.Kind, te.Node, te.Value = e.Kind, "", e.Value
		case e.Kind == "deliver" && changed[e.Step]:
			te.Kind, te.Value = charts.KindDeliver, deliveryText(e)
		default:
			continue
		}
		out = append(out, te)
	}
	return out
}

func nodeName(i int) string { return fmt.Sprintf("n%d", i) }

// deliveryText describes a delivery as weft trace does.
func deliveryText(e weftlog.Event) string {
	what := fmt.Sprintf("%dB", e.Bytes)
	if e.Value != "" {
		what = e.Value
	}
	return fmt.Sprintf("%s→%s %s", nodeName(e.Peer), nodeName(e.Node), what)
}

// eventText is an event as the table of recent changes shows it.
func eventText(e weftlog.Event) string {
	switch e.Kind {
	case "state":
		return fmt.Sprintf("%s.%s = %s", nodeName(e.Node), e.Var, e.Value)
	case "invalid":
		return fmt.Sprintf("INVALID crash of %s: %s", nodeName(e.Node), e.Value)
	case "deliver":
		return "deliver " + deliveryText(e)
	}
	return strings.ToUpper(e.Kind) + " " + nodeName(e.Node)
}

// reproduceCommands are the weft commands that replay, trace and rerun t.
func reproduceCommands(t *Trace) []string {
	rec := shellQuote(filepath.ToSlash(t.Recording))
	from := 0
	if len(t.Recent) > 0 {
		from = t.Recent[0].Step
	}
	cmds := []string{
		"weft replay " + rec,
		fmt.Sprintf("weft trace %s --from %d --to %d", rec, from, t.FirstViolationStep),
		fmt.Sprintf("weft trace %s --svg diagram.svg", rec),
	}
	if t.ModelPath != "" {
		cmds = append(cmds, fmt.Sprintf("weft run %s --variant %s --seed %d", shellQuote(t.ModelPath), shellQuote(t.Variant), t.Seed))
	}
	return cmds
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// ordinary path characters.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=+,:@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
