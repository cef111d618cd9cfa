//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSaysClocksPerfect: weft check of a model with clock faults
// states in its bound that its clocks were perfect (exhaustive checks do
// not apply clock faults); without clock faults it says nothing of it.
func TestCheckSaysClocksPerfect(t *testing.T) {
	text, err := os.ReadFile("../../targets/election/election.model")
	if err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs("../../targets/election/election.c")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(text), `source = "election.c"`, `source = "`+src+`"`, 1)
	s = strings.Replace(s, "[faults]\n", "[faults]\nclock_drift_ppm = \"uniform:-500-500\"\n", 1)
	clocked := filepath.Join(t.TempDir(), "election-clocked.model")
	if err := os.WriteFile(clocked, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	const said = "abstraction memory, reduction dpor, clocks: perfect)\nthe model's clock faults apply to seeded runs (weft run, weft campaign) only: every clock here was perfect\n"
	for _, tc := range []struct {
		model string
		want  bool
	}{{clocked, true}, {"targets/election/election.model", false}} {
		out, errOut, code := weft(t, "check", "--variant", "fixed", "--depth", "3", tc.model)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", tc.model, code, out, errOut)
		}
		if strings.Contains(out, said) != tc.want {
			t.Errorf("%s: saying %q is %v, want %v:\n%s", tc.model, said, !tc.want, tc.want, out)
		}
	}
}
