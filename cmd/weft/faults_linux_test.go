//go:build linux

package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestChronoVirtualTimeAndRandomness: every clock, sleeps and random
// source are functions of the seed: identical output for the same seed
// (dynamic and static binaries, and one second of real time apart),
// different random bytes for another seed, and minutes of sleep that end
// at the same virtual instant.
func TestChronoVirtualTimeAndRandomness(t *testing.T) {
	run := func(args ...string) string {
		out, errOut, code := weft(t, append([]string{"run"}, args...)...)
		if code != 0 {
			t.Fatalf("weft run %v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		return out
	}
	nodeOutput := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "n0| ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	a := run("--seed", "1", "targets/chrono/chrono.model")
	time.Sleep(1100 * time.Millisecond) // the host clock moves; the nodes' must not
	b := run("targets/chrono/chrono.model", "--seed", "1")
	if a != b {
		t.Fatalf("same seed, different output:\n%s\n---\n%s", a, b)
	}
	static := run("--seed", "1", "--variant", "static", "targets/chrono/chrono.model")
	if nodeOutput(static) != nodeOutput(a) {
		t.Fatalf("the static binary sees different time or randomness:\n%s\n---\n%s", nodeOutput(static), nodeOutput(a))
	}
	c := run("--seed", "2", "targets/chrono/chrono.model")
	randLine := regexp.MustCompile(`(?m)^n0\| (getrandom|/dev/urandom) +([0-9a-f]{16})$`)
	ra, rc := randLine.FindAllStringSubmatch(a, -1), randLine.FindAllStringSubmatch(c, -1)
	if len(ra) != 2 || len(rc) != 2 {
		t.Fatalf("random lines missing:\n%s", a)
	}
	for i := range ra {
		if ra[i][2] == rc[i][2] {
			t.Errorf("%s gave the same bytes for seeds 1 and 2", ra[i][1])
		}
	}
	for _, want := range []string{
		"n0| start REALTIME           1767225600.000000000",
		"n0| end   time               2026-01-01T00:09:10Z",
		"n0| timerfd     1 expiration after 5 s",
		"n0| timerfd     3 expirations during 3 s of sleep",
		"n0| timerfd     1 expiration by poll",
		"n0| slept 550500 ms of monotonic time",
		"holds after",
		"9m10.5s of virtual time",
	} {
		if !strings.Contains(a, want) {
			t.Errorf("output lacks %q:\n%s", want, a)
		}
	}
}

// TestRunProgram runs a bare program under virtual time with no model.
func TestRunProgram(t *testing.T) {
	out, errOut, code := weft(t, "run", "--seed", "3", "--", "/bin/date", "-u", "+%Y-%m-%dT%H:%M:%S")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "n0| 2026-01-01T00:00:00") {
		t.Errorf("date(1) under weft did not see the virtual clock:\n%s", out)
	}
}

// TestFaultVerdicts: a crash and restart exposes the election bug
// exhaustively; the fixed variant holds; a crash that breaks the Chord
// failure precondition makes the run invalid (exit 3) and says why.
func TestFaultVerdicts(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"check", "--variant", "bug", "targets/election/election.model", "--save", "{tmp}"}, 1,
			[]string{"violated: one_leader_per_term", "crash n2", "restart n2", "node 0 leads term 1", "node 1 leads term 1"}},
		{[]string{"check", "--variant", "fixed", "targets/election/election.model"}, 0,
			[]string{"one_leader_per_term holds over"}},
		{[]string{"run", "--quiet", "--seed", "20", "--variant", "orig", "targets/chord/chord.model"}, 3,
			[]string{"invalid: crash of node 5 at 637.870ms", "breaks the precondition go:CrashPrecondition", "crash    n5 at 637.870ms"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			out, errOut, code := weft(t, withTemp(t, tc.args)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
