package report

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
	"github.com/weft-mc/weft/mcsdk/workload"
)

// MaxRunDiagrams bounds how many runs of the run browser embed their
// sequence diagram and events; the others list the command that draws them.
const MaxRunDiagrams = 300

// RunEntry is one run in the run browser (Options.AllRuns).
type RunEntry struct {
	Dataset string
	Row     dataset.Row
	Run     string // as the tables name it
	// Recording is the recording's path ("" without one); Diagram and
	// Events are filled for the first MaxRunDiagrams runs that have one.
	Recording string
	Diagram   []byte
	Events    []weftlog.Event
	// Problem says why a listed recording could not be shown.
	Problem string
	// Checked names the invariants every run of the dataset checked,
	// from the model in its manifest (nil when the manifest has none).
	Checked []string
	// Workload is the model's workload kind ("" without one). Load then
	// fills History with Porcupine's visualisation of the clients'
	// history rebuilt from the recording (HistoryOps), and Linearizable
	// with Porcupine's verdict on it.
	Workload     workload.Kind
	History      []byte
	Linearizable bool
	// Filter, when set, narrows the diagram and events Load reads (a run
	// page's query, see ParseEventFilter); the history stays whole.
	Filter *EventFilter
}

// CheckedInvariants names the invariants of the model in man, in model
// order; nil when the manifest does not hold a model that parses.
func CheckedInvariants(man dataset.Manifest) []string {
	if man.ModelText == "" {
		return nil
	}
	m, err := model.Parse(man.ModelPath, []byte(man.ModelText))
	if err != nil {
		return nil
	}
	names := make([]string, len(m.Invariants))
	for i, inv := range m.Invariants {
		names[i] = inv.Name
	}
	return names
}

// ID is the run's anchor in the page.
func (e *RunEntry) ID() string {
	return anchor(fmt.Sprintf("run-%s-%d-%s", e.Row.Variant, e.Row.Seed, e.Run))
}

func anchor(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// allRuns lists every row of the datasets, variants in table order, then
// seed and run; failing runs get their diagrams first.
func (r *Report) allRuns(srcs []Source, run runFunc, embed bool) {
	order := map[string]int{}
	for i, v := range r.Table.Variants {
		order[v.Variant] = i
	}
	for _, s := range srcs {
		checked, kind := CheckedInvariants(s.Manifest), WorkloadKind(s.Manifest)
		for _, row := range s.Rows {
			e := RunEntry{Dataset: s.Dir, Row: row, Run: run(row), Checked: checked, Workload: kind}
			if row.RecordingPath != "" {
				e.Recording = filepath.Join(s.Dir, filepath.FromSlash(row.RecordingPath))
			}
			r.Runs = append(r.Runs, e)
		}
	}
	slices.SortStableFunc(r.Runs, func(a, b RunEntry) int {
		return cmp.Or(cmp.Compare(order[a.Row.Variant], order[b.Row.Variant]), cmp.Compare(a.Row.Seed, b.Row.Seed), cmp.Compare(a.Run, b.Run))
	})
	if !embed {
		return
	}
	idx := make([]int, 0, len(r.Runs))
	for i := range r.Runs {
		if r.Runs[i].Recording != "" {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(verdictRank(r.Runs[a].Row.Verdict), verdictRank(r.Runs[b].Row.Verdict))
	})
	for n, i := range idx {
		if n == MaxRunDiagrams {
			break
		}
		e := &r.Runs[i]
		rec, err := weftlog.ReadFile(e.Recording)
		if err == nil {
			e.Diagram, err = SequenceSVG(rec, DefaultSequenceSteps)
		}
		if err != nil {
			e.Problem = err.Error()
			continue
		}
		e.Events = rec.Events
	}
}

func verdictRank(v string) int {
	switch v {
	case dataset.Violated:
		return 0
	case dataset.Invalid, dataset.Error:
		return 1
	}
	return 2
}

// Load reads the run's recording, draws its diagram and, with a
// workload, checks its clients' history.
func (e *RunEntry) Load() error {
	if e.Recording == "" {
		return fmt.Errorf("report: %s seed %d has no recording (run the campaign with --record all)", e.Row.Variant, e.Row.Seed)
	}
	rec, err := weftlog.ReadFile(e.Recording)
	if err != nil {
		return err
	}
	all := rec.Events
	if e.Filter != nil {
		shown := *rec
		shown.Events = slices.Clone(rec.Events)
		e.Filter.apply(&shown)
		rec = &shown
	}
	if e.Diagram, err = SequenceSVG(rec, DefaultSequenceSteps); err != nil {
		return err
	}
	e.Events = rec.Events
	rec.Events = all
	if e.Workload != "" {
		if e.History, e.Linearizable, err = historyPage(e.Workload, rec.Events); err != nil {
			return fmt.Errorf("report: the history of %s: %v", e.Recording, err)
		}
	}
	return nil
}

// RowEndJudged reports whether the violated row was judged in its run's
// end state ([campaign] check = "final"), as EndJudged says of a
// recording's verdict: a run judged at every step ends at its first
// violation, so one that went on past it failed there only transiently.
func RowEndJudged(row dataset.Row) bool {
	return row.Verdict == dataset.Violated && row.FirstViolationStep != nil && *row.FirstViolationStep < row.Steps
}

// violationCell is the runs table's violation column: the first
// violation's step and virtual time or, for a run judged in its end state
// (RowEndJudged), that state's, as the traced failure and the diagram
// say, with the transient failure's step after it; "—" without one.
func violationCell(row dataset.Row) string {
	switch {
	case row.FirstViolationStep == nil:
		return "—"
	case RowEndJudged(row):
		return fmt.Sprintf("end state: step %d, %s (check = final; failed transiently at step %d)", row.Steps, ms(row.VirtualDuration), *row.FirstViolationStep)
	case row.FirstViolationTime != nil:
		return fmt.Sprintf("step %d, %s", *row.FirstViolationStep, ms(*row.FirstViolationTime))
	}
	return fmt.Sprintf("step %d", *row.FirstViolationStep)
}

// sidesText writes a partition's sides, each node by name, each side in
// braces, the sides joined by sep: "{n0,n1} | {n2}".
func sidesText(sides [][]int32, name func(int) string, sep string) string {
	var out []string
	for _, g := range sides {
		var ns []string
		for _, n := range g {
			ns = append(ns, name(int(n)))
		}
		out = append(out, "{"+strings.Join(ns, ",")+"}")
	}
	return strings.Join(out, sep)
}

// FaultsText is a run's fault schedule in one line, e.g.
// "crash n2 8.224ms · restart n2 8.225ms · partition {0,1}|{2} 5–9ms".
// Faults a run did not reach are marked "(not reached)".
func FaultsText(fs []dataset.Fault) string {
	var parts []string
	for _, f := range fs {
		var s string
		switch f.Kind {
		case "partition":
			s = fmt.Sprintf("partition %s %s–%s", sidesText(f.Sides, strconv.Itoa, "|"), ms(f.At), ms(f.Until))
		case "notice":
			s = fmt.Sprintf("notice n%d: n%d died %s", f.Node, f.Peer, ms(f.At))
		default:
			s = fmt.Sprintf("%s n%d %s", f.Kind, f.Node, ms(f.At))
		}
		if !f.Applied {
			s += " (not reached)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond)) }
