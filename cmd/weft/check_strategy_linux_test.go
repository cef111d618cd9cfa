//go:build linux

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckStrategyFlags: a bad --strategy, or a flag that belongs to
// another strategy, is a usage error (exit 2) saying why, before any
// node starts.
func TestCheckStrategyFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--strategy", "random"}, `unknown strategy "random" (dfs, bfs, pct, guided)`},
		{[]string{"--strategy", ""}, "want dfs, bfs, pct or guided"},
		{[]string{"--pct-depth", "3"}, "--pct-depth applies to --strategy pct"},
		{[]string{"--strategy", "bfs", "--seed", "4"}, "--seed and --runs apply to --strategy pct and guided"},
		{[]string{"--strategy", "dfs", "--runs", "4"}, "--seed and --runs apply to --strategy pct and guided"},
		{[]string{"--strategy", "pct", "-j", "2"}, "-j applies to --strategy dfs"},
		{[]string{"--strategy", "guided", "--checkpoints"}, "--checkpoints applies to --strategy dfs"},
		{[]string{"--strategy", "bfs", "--compare"}, "--compare applies to --strategy dfs"},
		{[]string{"--strategy", "pct", "--pct-depth", "0"}, "pct-depth"},
		{[]string{"--strategy", "pct", "--runs", "0"}, "runs"},
	} {
		_, stderr, code := weft(t, append([]string{"check", "targets/quorum/quorum.model"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestCheckStrategies runs each strategy through the CLI: pct finds the
// quorum register's bug and states its bound (exit 1); guided finds it
// in a seeded run and saves that run as a recording, which weft replay
// re-executes (exit 0, the same violation); pct and guided
// stopped by their runs say they claim no coverage (exit 0), as JSON
// too; bfs stopped by --time says the depth it fully covered.
func TestCheckStrategies(t *testing.T) {
	out, stderr, code := weft(t, "check", "targets/quorum/quorum.model", "--variant", "bug", "--strategy", "pct", "--seed", "5", "--save", "/dev/null")
	if code != exitViolated || !strings.Contains(out, "violated: acked_on_majority") ||
		!strings.Contains(out, "strategy pct, seed 5, pct-depth 2") || !strings.Contains(out, "finds any depth-2 bug with probability >= 1/(n k^(d-1))") {
		t.Errorf("pct: exit %d\n%s\n%s", code, out, stderr)
	}
	rec := filepath.Join(t.TempDir(), "bug.weftlog")
	out, stderr, code = weft(t, "check", "targets/quorum/quorum.model", "--variant", "bug", "--strategy", "guided", "--seed", "3", "--save", rec)
	if code != exitViolated || !strings.Contains(out, "violated: acked_on_majority") || !strings.Contains(out, "strategy guided, seed 3") ||
		!strings.Contains(out, "a seeded run of") || !strings.Contains(out, "re-execute: weft replay "+rec) {
		t.Errorf("guided: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = weft(t, "replay", rec)
	if code != exitHolds || !strings.Contains(out, "verdict violated (acked_on_majority)") {
		t.Errorf("weft replay of guided's run: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, s := range []string{"pct", "guided"} {
		args := []string{"check", "targets/quorum/quorum.model", "--variant", "fixed", "--depth", "6", "--strategy", s, "--runs", "3"}
		out, stderr, code := weft(t, args...)
		want := "3 executions run: no violation found in 3 executions of up to 6 actions; pct claims no coverage"
		if s == "guided" { // seeded runs, as long as the model's duration makes them
			want = "; guided claims no coverage"
			if !strings.Contains(out, "3 executions run: no violation found in 3 seeded runs of up to ") {
				t.Errorf("guided: %s", out)
			}
		}
		if code != exitHolds || !strings.Contains(out, want) || strings.Contains(out, "holds") {
			t.Errorf("%s: exit %d\n%s\n%s", s, code, out, stderr)
		}
		out, _, code = weft(t, append(args, "--json")...)
		res := decodeCheck(t, out)
		if code != exitHolds || !res.Interrupted || res.StoppedBy != "runs" || res.Verdict != "" || res.Executions != 3 {
			t.Errorf("%s --json: exit %d, %+v", s, code, res)
		}
	}
	out, stderr, code = weft(t, append(budgetCheck, "--strategy", "bfs", "--time", "3s")...)
	if code != exitHolds || !strings.Contains(out, "strategy bfs") || !strings.Contains(out, "the depth bound 10 was not covered") ||
		!strings.Contains(out, "holds up to depth") && !strings.Contains(out, "depth fully covered: 0 (the initial state only)\n") {
		t.Errorf("bfs --time: exit %d\n%s\n%s", code, out, stderr)
	}
}
