package report

import (
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/dataset"
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
