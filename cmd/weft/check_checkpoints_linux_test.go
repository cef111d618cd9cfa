//go:build linux

package main

import (
	"regexp"
	"testing"
)

// TestCheckCheckpoints runs weft check with and without --checkpoints on
// quorum at depth 4 (47 states, 23 siblings restored: the flags' whole
// path; mcsdk's TestCheckpointsKeepSearch compares the searches in
// detail): the same verdict, states and executions, the checkpoint line
// with restores, and bad bounds as usage errors.
func TestCheckCheckpoints(t *testing.T) {
	counts := regexp.MustCompile(`explored (\d+) distinct states, (\d+) executions`)
	run := func(args ...string) (string, []string) {
		out, _, code := weft(t, append([]string{"check", "targets/quorum/quorum.model", "--variant", "fixed", "--depth", "4"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d, want 0:\n%s", args, code, out)
		}
		m := counts.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%v: no counts in:\n%s", args, out)
		}
		return out, m[1:]
	}
	_, off := run()
	out, on := run("--checkpoints", "--max-checkpoints", "8")
	if off[0] != on[0] || off[1] != on[1] {
		t.Errorf("states and executions %v without checkpoints, %v with", off, on)
	}
	if want := regexp.MustCompile(`checkpoints: \d+ taken \(at most [1-8] alive\), [1-9]\d* sibling branches continued from one instead of replayed`); !want.MatchString(out) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	for _, args := range [][]string{{"--max-checkpoints", "0"}, {"--max-checkpoints", "x"}} {
		_, stderr, code := weft(t, append([]string{"check", "targets/repl/repl.model", "--checkpoints"}, args...)...)
		if code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
}
