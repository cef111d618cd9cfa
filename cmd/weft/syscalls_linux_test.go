//go:build linux

package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
)

// buildSurvey compiles the supervisor's survey program (known numbers of
// calls of every kind of answer).
func buildSurvey(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "survey")
	if msg, err := exec.Command("cc", "-O1", "-o", out, "../../mcsdk/supervisor/testdata/survey.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, msg)
	}
	return out
}

// TestRunSyscalls runs `weft run --syscalls` on the survey program: the
// table has a row per syscall with exact counts, says that passthrough
// calls are not counted, counts them with --syscalls=all, and --json
// carries the same rows.
func TestRunSyscalls(t *testing.T) {
	bin := buildSurvey(t)
	tests := []struct {
		name string
		args []string
		want []string // regular expressions, each matching a line
		not  []string
	}{
		{"notified", []string{"run", "--seed", "1", "--quiet", "--syscalls", "--", bin}, []string{
			`^syscalls \(the calls weft sees; passthrough calls are allowed by the filter unseen and not counted,$`,
			`^nor the clock reads weft's vDSO answers without a stop: --syscalls=all counts them\)$`,
			`^n0:$`,
			`^  getrandom +served +5 +5 +0 +0 +0  -$`,
			`^  kill +served +3 +0 +0 +0 +0  EPERM×3$`,
			`^  mincore +refused +2 +0 +0 +0 +0  ENOSYS×2$`,
			`^  nanosleep +served +1 +1 +0 +0 +0  -$`,
			`^  mincore: page residency is host state$`,
		}, []string{`getuid`}},
		{"all", []string{"run", "--seed", "1", "--quiet", "--syscalls=all", "--", bin}, []string{
			`^syscalls \(every call notified`,
			`^  getuid +passthrough +4 +0 +4 +0 +0  -$`,
			`^  getrandom +served +5 +5 +0 +0 +0  -$`,
		}, nil},
		{"stop", []string{"run", "--seed", "1", "--quiet", "--syscalls", "--", bin, "stop"}, []string{
			`^error: node 0: unsupported or failed syscall io_uring_setup`,
			`^  io_uring_setup +unsupported +1 +0 +0 +1 +0  -$`,
			`^  io_uring_setup: io_uring is not modelled`,
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, _ := weft(t, tc.args...)
			for _, w := range tc.want {
				if !regexp.MustCompile(`(?m)` + w).MatchString(out) {
					t.Errorf("no line matches %s in\n%s%s", w, out, errOut)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("%q appears in\n%s", n, out)
				}
			}
		})
	}
	out, _, code := weft(t, "run", "--seed", "1", "--json", "--syscalls", "--", bin)
	var res mcsdk.RunResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	found := false
	for _, u := range res.Syscalls {
		found = found || u.Name == "getrandom" && u.Count == 5 && u.Served == 5 && u.Decision == "served"
	}
	if !found {
		t.Errorf("--json syscalls lack getrandom ×5: %+v", res.Syscalls)
	}
	if _, errOut, code := weft(t, "run", "--seed", "1", "--syscalls=some", "--", bin); code != 2 || !strings.Contains(errOut, "--syscalls=all") {
		t.Errorf("--syscalls=some: exit %d, %q; want 2 and the choices", code, errOut)
	}
}

// TestRunRolesAndQueries runs a model of roles and a state query from the
// command line: the violation shows the query's values, the survey names
// nodes by role, and check finds the same violation.
func TestRunRolesAndQueries(t *testing.T) {
	out, errOut, code := weft(t, "run", "--seed", "1", "--syscalls", "cmd/weft/testdata/roles.model")
	for _, w := range []string{
		`^violated: replicas after \d+ steps`,
		`node\[1\]\.val = 0`,
		`^n0 \(primary\):$`,
		`^n1 \(replica\):$`,
		`^n0\| mark in \.: created$`,
	} {
		if !regexp.MustCompile(`(?m)` + w).MatchString(out) {
			t.Errorf("no match for %s (exit %d) in\n%s%s", w, code, out, errOut)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1 (violated)", code)
	}
	out, errOut, code = weft(t, withTemp(t, []string{"check", "cmd/weft/testdata/roles.model", "--save", "{tmp}"})...)
	if code != 1 || !strings.Contains(out, "violated: replicas") {
		t.Errorf("check: exit %d\n%s%s", code, out, errOut)
	}
	ds := filepath.Join(t.TempDir(), "ds")
	if out, errOut, code := weft(t, "campaign", "cmd/weft/testdata/roles.model", "--seeds", "1", "--out", ds, "--record", "all"); code != 0 {
		t.Fatalf("campaign: exit %d\n%s%s", code, out, errOut)
	}
	recs, _ := filepath.Glob(filepath.Join(ds, "recordings", "default-*.weftlog"))
	if len(recs) != 1 {
		t.Fatalf("recordings %v, want one", recs)
	}
	rec := recs[0]
	out, _, _ = weft(t, "trace", rec)
	for _, w := range []string{`(?m)^# roles n0 primary, n1 replica$`, `(?m)^ +0 +0\.000  n1\.val = 0$`, `(?m)^ +1 +[0-9.]+  n0\.val = 5 +← first violation$`} {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("trace: no match for %s in\n%s", w, out)
		}
	}
	if out, errOut, code := weft(t, "replay", rec); code != 0 || !strings.Contains(out, "verdict violated (replicas)") {
		t.Errorf("replay (the queries repeat with the path): exit %d\n%s%s", code, out, errOut)
	}
}
