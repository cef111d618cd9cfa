package report

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk/dataset"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// TestRunPageNamesCheckedInvariants: a run page says which invariants
// the run checked (from the model in the dataset's manifest), not only
// which it violated, so a run that held over five says so.
func TestRunPageNamesCheckedInvariants(t *testing.T) {
	man := dataset.Manifest{ModelPath: "m.model", ModelText: `[target]
nodes = 2
binary = "/bin/true"
[invariants]
up = "all i in nodes : alive(i)"
small = "count i in nodes : alive(i) <= 2"
never = "true"
`}
	tests := []struct {
		name    string
		man     dataset.Manifest
		row     dataset.Row
		checked []string
		want    string
	}{
		{"held", man, dataset.Row{Variant: "v", Seed: 1, Verdict: dataset.Holds}, []string{"up", "small", "never"},
			"Invariants checked: up, small, never. Violated: none."},
		{"violated", man, dataset.Row{Variant: "v", Seed: 2, Verdict: dataset.Violated, ViolatedInvariants: []string{"up"}}, []string{"up", "small", "never"},
			"Invariants checked: up, small, never. Violated: up."},
		{"no model", dataset.Manifest{}, dataset.Row{Variant: "v", Seed: 3, Verdict: dataset.Holds}, nil,
			"Invariants checked: not recorded (the dataset&#39;s manifest holds no model)."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckedInvariants(tc.man)
			if strings.Join(got, ",") != strings.Join(tc.checked, ",") {
				t.Errorf("checked %v, want %v", got, tc.checked)
			}
			page := string(RunPage(&RunEntry{Row: tc.row, Run: "run1", Checked: got}, "/"))
			if !strings.Contains(page, tc.want) {
				t.Errorf("page lacks %q:\n%s", tc.want, page)
			}
		})
	}
}

// TestFaultModelRows: the fault and network model is a table of
// settings, a list of tables (partitions) one row per key.
func TestFaultModelRows(t *testing.T) {
	got := faultModelRows(`{"faults":{"crashes":1,"restart":true,"partition":[{"groups":[[0],[1,2]],"duration":"uniform:10000-60000"}]},"network":{"latency":"uniform:1000-15000","drop":0.05}}`)
	want := [][3]string{
		{"faults", "crashes", "1"},
		{"faults", "partition[0].duration", "uniform:10000-60000"},
		{"faults", "partition[0].groups", "[[0],[1,2]]"},
		{"faults", "restart", "true"},
		{"network", "drop", "0.05"},
		{"network", "latency", "uniform:1000-15000"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows\n%v\nwant\n%v", got, want)
	}
	if faultModelRows("not json") != nil {
		t.Error("rows of text that is not JSON")
	}
}

// TestRunPageHidesThreadSwitches: a run page lists the run's messages and
// state, not its thread switches, and says how many it left out.
func TestRunPageHidesThreadSwitches(t *testing.T) {
	e := &RunEntry{Row: dataset.Row{Variant: "v", Seed: 1, Verdict: dataset.Holds}, Run: "run1", Recording: "r.weftlog",
		Events: []weftlog.Event{
			{Step: 1, Kind: "run", Node: 1, Value: "n1/t2"},
			{Step: 2, Kind: "deliver", Node: 1, Peer: 0, Bytes: 5},
			{Step: 3, Kind: "run", Node: 0, Value: "n0/t1"},
		}}
	page := string(RunPage(e, "/"))
	if strings.Contains(page, "n1/t2") || !strings.Contains(page, "deliver n0→n1 5B") {
		t.Errorf("the events table lists thread switches or lacks the delivery:\n%s", page)
	}
	if !strings.Contains(page, "2 thread switches are not listed (<code>weft trace r.weftlog --threads</code>") {
		t.Errorf("the page does not say what it left out:\n%s", page)
	}
}

// TestViolationCell: the runs table's violation column names where the
// verdict was judged: the first violation's step and time, or, for a run
// judged in its end state (check = "final": it went on past a transient
// failure), the end state's step and time, as the traced failure does.
func TestViolationCell(t *testing.T) {
	step := func(n int64) *int64 { return &n }
	at := func(us int64) *time.Duration { d := time.Duration(us) * time.Microsecond; return &d }
	tests := []struct {
		name string
		row  dataset.Row
		want string
		end  bool
	}{
		{"held", dataset.Row{Verdict: dataset.Holds, Steps: 9}, "—", false},
		{"first violation", dataset.Row{Verdict: dataset.Violated, FirstViolationStep: step(7), FirstViolationTime: at(1500), Steps: 7}, "step 7, 1.500ms", false},
		{"no time", dataset.Row{Verdict: dataset.Violated, FirstViolationStep: step(7), Steps: 7}, "step 7", false},
		{"end state", dataset.Row{Verdict: dataset.Violated, FirstViolationStep: step(0), FirstViolationTime: at(0), Steps: 4, VirtualDuration: 50464 * time.Microsecond},
			"end state: step 4, 50.464ms (check = final; failed transiently at step 0)", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := violationCell(tc.row); got != tc.want {
				t.Errorf("cell %q, want %q", got, tc.want)
			}
			if got := RowEndJudged(tc.row); got != tc.end {
				t.Errorf("end judged %v, want %v", got, tc.end)
			}
		})
	}
}
