//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunTransientUnderFinalCheck: under [campaign] check = "final" a
// required invariant that failed at an intermediate state does not decide
// the verdict, so `weft run` shows it as transient, not as "first
// violation"; with check = "always" the same failure is the violation.
// --json keeps the first violation's fields either way. The model is
// targets/redis (replica_linked fails at step 0, before the replica's
// link is up).
func TestRunTransientUnderFinalCheck(t *testing.T) {
	src, err := os.ReadFile("../../targets/redis/redis.model")
	if err != nil {
		t.Fatal(err)
	}
	always := filepath.Join(t.TempDir(), "redis-always.model")
	text := strings.Replace(string(src), `check    = "final"`, `check    = "always"`, 1)
	if text == string(src) {
		t.Fatal(`targets/redis/redis.model has no check = "final" line to replace`)
	}
	if err := os.WriteFile(always, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		model, verdict, want, not string
		code                      int
	}{
		{"targets/redis/redis.model", "holds", "\n  (transient, not judged: check = final) replica_linked failed first at step 0 (0s): node[1] is up", "first violation", 0},
		{always, "violated", "\n  first violation at step 0 (0s): replica_linked: node[1] is up", "transient", 1},
	}
	for _, tc := range cases {
		t.Run(tc.verdict, func(t *testing.T) {
			out, errOut, code := weft(t, "run", "--quiet", "--seed", "1", tc.model)
			if code != tc.code || !strings.Contains(out, "\n"+tc.verdict) {
				t.Fatalf("exit %d, want %d and %s:\n%s%s", code, tc.code, tc.verdict, out, errOut)
			}
			if !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) {
				t.Errorf("output lacks %q or has %q:\n%s", tc.want, tc.not, out)
			}
			js, _, _ := weft(t, "run", "--json", "--seed", "1", tc.model)
			var res struct {
				FirstViolationStep int
				FirstViolation     *struct{ Invariant string }
			}
			if err := json.Unmarshal([]byte(js), &res); err != nil {
				t.Fatalf("--json: %v\n%s", err, js)
			}
			if res.FirstViolationStep != 0 || res.FirstViolation == nil || res.FirstViolation.Invariant != "replica_linked" {
				t.Errorf("--json first violation: step %d, %+v; want step 0, replica_linked", res.FirstViolationStep, res.FirstViolation)
			}
		})
	}
}
