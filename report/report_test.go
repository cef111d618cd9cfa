package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/analysis"
	"github.com/weft-mc/weft/analysis/charts"
	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// row is a verdict row of variant and seed in run1.
func row(variant string, seed int64, verdict, rec string) dataset.Row {
	r := dataset.Row{CampaignID: "c", RunID: "run1", ModelHash: "abc", BinaryHash: "h-" + variant, Variant: variant, Seed: seed, Verdict: verdict, RecordingPath: rec, Steps: 10}
	if verdict == dataset.Violated {
		step := int64(3)
		r.ViolatedInvariants, r.FirstViolationStep = []string{"safe"}, &step
	}
	if verdict == dataset.Error {
		r.Detail = "node 1 exited with status 139"
	}
	return r
}

// recording is a small run of two nodes whose violation is at step 3.
// The event of step 4 lies past it: a trace must not show it.
func recording(variant string, seed uint64) *weftlog.Recording {
	return recordingOf(variant, seed, 3)
}

// recordingOf is recording with steps steps: more than 3 makes a run that
// went on past its first (transient) failure and was judged in its end
// state ([campaign] check = "final").
func recordingOf(variant string, seed uint64, steps int) *weftlog.Recording {
	r := &weftlog.Recording{Header: weftlog.Header{Model: "m.model", Variant: variant, Seed: seed, Nodes: 2, State: []string{"x"}}}
	for _, e := range []weftlog.Event{
		{Step: 0, Kind: "state", Node: 0, Var: "x", Value: "0"},
		{Step: 0, Kind: "state", Node: 1, Var: "x", Value: "0"},
		{Step: 1, T: 1000, Kind: "deliver", Node: 1, Peer: 0, Bytes: 4},
		{Step: 1, T: 1000, Kind: "state", Node: 1, Var: "x", Value: "1"},
		{Step: 2, T: 2000, Kind: "crash", Node: 0},
		{Step: 2, T: 2000, Kind: "timer", Node: 1},
		{Step: 3, T: 3000, Kind: "deliver", Node: 0, Peer: 1, Bytes: 4},
		{Step: 3, T: 3000, Kind: "state", Node: 0, Var: "x", Value: "7"},
		{Step: 4, T: 4000, Kind: "state", Node: 0, Var: "x", Value: "8"},
	} {
		r.AddEvent(e)
	}
	r.Verdict = weftlog.Verdict{Verdict: "violated", Violated: []string{"safe"}, FirstViolationStep: 3, Steps: steps}
	return r
}

// writeDataset writes a real dataset of rows into dir, with recordings for
// the paths in recs.
func writeDataset(t *testing.T, dir string, variants []string, rows []dataset.Row, recs map[string]*weftlog.Recording) string {
	t.Helper()
	m := dataset.Manifest{CampaignID: "c", ModelPath: "targets/m/m.model", ModelHash: "abc", ToolVersion: "test",
		Seeds: []dataset.SeedRange{{Lo: 0, Hi: 10}}, Runs: []string{"run1"}, Start: time.Date(2026, 7, 7, 12, 0, 0, 0, time.UTC)}
	for _, v := range variants {
		m.Variants = append(m.Variants, dataset.Variant{Name: v, BinaryHash: "h-" + v})
	}
	w, err := dataset.Create(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for path, rec := range recs {
		if err := rec.WriteFile(filepath.Join(dir, path)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestBuild covers the report's content on hand-made datasets: what is
// traced, what is noted instead, and which claims are made.
func TestBuild(t *testing.T) {
	// The page's text is under test here, not its drawing (see
	// TestReportFromCampaigns): a stand-in library keeps it small.
	stub := filepath.Join(t.TempDir(), "echarts.min.js")
	if err := os.WriteFile(stub, []byte("window.echarts = {};"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := charts.ReadLibrary(stub)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		variants []string
		rows     []dataset.Row
		recs     map[string]*weftlog.Recording
		want     []string // substrings of the page
		absent   []string // substrings the page must not have
		traces   int
	}{
		{
			name:     "no violations",
			variants: []string{"a", "b"},
			rows:     []dataset.Row{row("a", 0, dataset.Holds, ""), row("b", 0, dataset.Holds, "")},
			want:     []string{"No run violated an invariant.", "no failure to trace", "rate(a) &gt; rate(b) [α=0.05]"},
			absent:   []string{`data-weft-chart="invariants"`, `data-weft-chart="timeline"`},
		},
		{
			name:     "lowest readable seed is traced",
			variants: []string{"orig", "fix"},
			rows: []dataset.Row{row("orig", 1, dataset.Violated, "recordings/orig-1.weftlog"), row("orig", 3, dataset.Violated, "recordings/orig-3.weftlog"),
				row("orig", 5, dataset.Violated, "recordings/orig-5.weftlog"), row("fix", 1, dataset.Holds, "")},
			recs: map[string]*weftlog.Recording{"recordings/orig-3.weftlog": recording("orig", 3), "recordings/orig-5.weftlog": recording("orig", 5)},
			want: []string{`data-variant="orig" data-seed="3"`, "n0.x = 7", "CRASH n0", "weft replay DIR/recordings/orig-3.weftlog",
				"weft trace DIR/recordings/orig-3.weftlog --from 0 --to 3", "weft run targets/m/m.model --variant orig --seed 3",
				`<tr data-variant="orig"><td>orig</td><td class="num">3</td><td class="num">3</td><td class="num">0</td><td class="num">3</td>`},
			absent: []string{"n0.x = 8", `data-seed="5"`},
			traces: 1,
		},
		{
			name:     "a run judged in its end state is traced to it",
			variants: []string{"orig", "fix"},
			rows:     []dataset.Row{row("orig", 3, dataset.Violated, "recordings/orig-3.weftlog"), row("fix", 1, dataset.Holds, "")},
			recs:     map[string]*weftlog.Recording{"recordings/orig-3.weftlog": recordingOf("orig", 3, 5)},
			want: []string{"Violated <strong>safe</strong> in the end state (step 5; check = final", "transiently, at step 3",
				"n0.x = 8", "weft trace DIR/recordings/orig-3.weftlog --from 0 --to 5", "violated in the end state (step 5): safe"},
			absent: []string{"first at step 3", "first violation: safe"},
			traces: 1,
		},
		{
			name:     "no readable recording",
			variants: []string{"orig", "fix"},
			rows:     []dataset.Row{row("orig", 1, dataset.Violated, "recordings/orig-1.weftlog"), row("fix", 1, dataset.Holds, "")},
			want:     []string{"Not traced: no readable recording"},
		},
		{
			name:     "variant without valid runs",
			variants: []string{"a", "b", "c"},
			rows: []dataset.Row{row("a", 0, dataset.Violated, ""), row("b", 0, dataset.Invalid, ""), row("c", 0, dataset.Holds, ""),
				row("c", 1, dataset.Error, "")},
			want: []string{"rate(a) &gt; rate(c) [α=0.05]", `<td class="num">—</td><td class="num">—</td></tr>`,
				"Not traced: no violating run with a recording", "Runs that ended in an error", "node 1 exited with status 139"},
			absent: []string{"rate(b)"},
		},
		{
			name:     "one variant",
			variants: []string{"a"},
			rows:     []dataset.Row{row("a", 0, dataset.Holds, "")},
			want:     []string{"no ordering claim: fewer than two variants have valid runs", "No claim was evaluated."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeDataset(t, filepath.Join(t.TempDir(), "DIR"), tc.variants, tc.rows, tc.recs)
			r, err := Build([]string{dir}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Traces) != tc.traces {
				t.Errorf("%d traces, want %d", len(r.Traces), tc.traces)
			}
			page := strings.ReplaceAll(string(r.Render(lib)), dir, "DIR")
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %q", w)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(page, a) {
					t.Errorf("the page has %q", a)
				}
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	tmp := t.TempDir()
	ds := writeDataset(t, filepath.Join(tmp, "ds"), []string{"a", "b"}, []dataset.Row{row("a", 0, dataset.Holds, ""), row("b", 0, dataset.Holds, "")}, nil)
	empty := writeDataset(t, filepath.Join(tmp, "empty"), []string{"a"}, nil, nil)
	unknown, err := analysis.ParseClaim("rate(nosuch) < 5%")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		dirs []string
		opt  Options
		want string
	}{
		{"no dataset", nil, Options{}, "no dataset"},
		{"missing directory", []string{filepath.Join(tmp, "nosuch")}, Options{}, "nosuch"},
		{"dataset twice", []string{ds, ds}, Options{}, "a dataset given twice?"},
		{"no rows", []string{empty}, Options{}, "hold no rows"},
		{"unknown variant in a claim", []string{ds}, Options{Claims: []analysis.Claim{unknown}}, `unknown variant "nosuch"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(tc.dirs, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"datasets/chord/recordings/orig-17.weftlog", "datasets/chord/recordings/orig-17.weftlog"},
		{"my runs/x.weftlog", "'my runs/x.weftlog'"},
		{"it's", `'it'\''s'`},
		{"", "''"},
		{"a;rm -rf", "'a;rm -rf'"},
	}
	for _, tc := range tests {
		if got := shellQuote(tc.in); got != tc.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestTraceWindow(t *testing.T) {
	evs := recording("bug", 1).Events
	tests := []struct {
		name      string
		step, n   int
		wantSteps []int
	}{
		{"up to the violation", 3, 40, []int{0, 0, 1, 2, 3}},
		{"last two state changes and the crash", 3, 2, []int{1, 2, 3}},
		{"the crash before the last state change is kept", 3, 1, []int{2, 3}},
		{"no violation step", -1, 40, []int{0, 0, 1, 2, 3, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for _, e := range recentChanges(evs, tc.step, tc.n) {
				got = append(got, e.Step)
			}
			if !slices.Equal(got, tc.wantSteps) {
				t.Errorf("steps %v, want %v", got, tc.wantSteps)
			}
		})
	}
	var kinds []string
	for _, e := range timelineEvents(evs, 3) {
		kinds = append(kinds, e.Kind+"@"+e.Node)
	}
	// The timer is left out; both deliveries changed state at their step.
	want := "state@n0 state@n1 deliver@n1 state@n1 crash@n0 deliver@n0 state@n0"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("timeline events %s, want %s", got, want)
	}
}
