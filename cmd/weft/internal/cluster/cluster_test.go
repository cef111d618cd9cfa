package cluster

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

func TestCompactRange(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{[]int{1}, "1"},
		{[]int{1, 2, 3}, "1-3"},
		{[]int{1, 2, 3, 5}, "1-3,5"},
		{[]int{2, 4, 5, 6, 9, 10}, "2,4-6,9-10"},
		{nil, ""},
	}
	for _, tc := range tests {
		if got := compactRange(tc.in); got != tc.want {
			t.Errorf("compactRange(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/a/b-c_d.model", "/a/b-c_d.model"},
		{"--seeds=30", "--seeds=30"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
	}
	for _, tc := range tests {
		if got := ShellQuote(tc.in); got != tc.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestK8sName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"weft-election", "weft-election"},
		{"weft-My_Model.v2", "weft-my-model-v2"},
		{"___", "weft"},
		{"weft-" + strings.Repeat("x", 80), "weft-" + strings.Repeat("x", 45)},
	}
	for _, tc := range tests {
		if got := k8sName(tc.in); got != tc.want {
			t.Errorf("k8sName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseJobStates(t *testing.T) {
	q := slurmQueue{"12_1": "RUNNING"}
	parseJobStates(q, "12_1|COMPLETED\n12_2|PENDING\n13|CANCELLED by 0\n\ngarbage\n")
	want := slurmQueue{"12_1": "RUNNING", "12_2": "PENDING", "13": "CANCELLED"}
	if len(q) != len(want) {
		t.Fatalf("got %v, want %v", q, want)
	}
	for k, v := range want {
		if q[k] != v {
			t.Errorf("%s: %q, want %q", k, q[k], v)
		}
	}
	for st, active := range map[string]bool{"PENDING": true, "running": true, "COMPLETING": true, "REQUEUED": true,
		"COMPLETED": false, "CANCELLED": false, "FAILED": false, "TIMEOUT": false, "": false} {
		if activeJobState(st) != active {
			t.Errorf("activeJobState(%q) = %v", st, !active)
		}
	}
}

// TestClusterPlan: the campaign flags set on the command line reach every
// shard, except those each shard gets its own value of.
func TestClusterPlan(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Int("seeds", 0, "")
	fs.String("variants", "", "")
	fs.String("out", "", "")
	fs.String("run", "run1", "")
	fs.String("shard", "", "")
	fs.Int("j", 0, "")
	fs.Bool("json", false, "")
	fs.Bool("record-all", false, "")
	var o Options
	o.Declare(fs)
	args := []string{"--seeds", "30", "--variants", "bug", "--run", "run2", "-j", "4", "--json", "--record-all",
		"--slurm", "--array-size", "3", "--partition", "p", "--sbatch-opt=--qos=x", "--out", "d"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	c, err := o.plan("../../../../targets/election/election.model")
	if err != nil {
		t.Fatal(err)
	}
	wantArgs := []string{"--record-all=true", "--run=run2", "--variants=bug", "--seeds=30"}
	if !slices.Equal(c.Args, wantArgs) || c.Seeds != 30 || c.Shards != 3 || c.Jobs != 4 || c.Dir != "d" || c.Name != "weft-election" {
		t.Errorf("plan: %+v, want args %q", c, wantArgs)
	}
	if !slices.Equal(o.sbatchOpts, []string{"--qos=x"}) {
		t.Errorf("sbatch options %q", o.sbatchOpts)
	}
}
