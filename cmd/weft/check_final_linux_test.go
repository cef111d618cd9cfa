//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckFinalJudgesEndStates: under [campaign] check = "final" the
// exhaustive check judges the invariants only in the states where a run
// ends (nothing left enabled), as weft run judges a run's last state. The
// model is targets/repl with an invariant false in the initial state
// (node 1 has stored nothing yet): with check = "final" it holds, and an
// invariant false at the end is violated by a path of actions, not at the
// initial state; with check = "always" the initial state violates it.
// Before the fix the first case failed at the initial state.
func TestCheckFinalJudgesEndStates(t *testing.T) {
	src, err := os.ReadFile("../../targets/repl/repl.model")
	if err != nil {
		t.Fatal(err)
	}
	c, err := os.ReadFile("../../targets/repl/repl.c")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "repl.c"), c, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, check, invariant string
		code                   int
		want, not              string
	}{
		{"final holds", "final", `replicated = "node[1].stored == 5"`, 0,
			"replicated holds over", "path ("},
		{"final violated at the end", "final", `replicated = "node[1].stored == 7"`, 1,
			"violated: replicated\n  node[1].stored = 5 != 7", "path (0 actions)"},
		{"always violated at the start", "always", `replicated = "node[1].stored == 5"`, 1,
			"violated: replicated\n  node[1].stored = 0 != 5\n  state: node[0].stored=0, node[1].stored=0, replies=[]\n  path (0 actions)", "end states reached"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(string(src), `agree_on_ack = "all r in replies : r.val in node[1]"`, tc.invariant, 1)
			if text == string(src) {
				t.Fatal("targets/repl/repl.model has no agree_on_ack line to replace")
			}
			text += "\n[campaign]\ncheck = \"" + tc.check + "\"\n"
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".model")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := weft(t, "check", path, "--variant", "correct", "--save", filepath.Join(dir, "p"+string(rune('0'+i))+".weftpath"))
			if code != tc.code || !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) {
				t.Fatalf("exit %d (want %d); output lacks %q or has %q:\n%s%s", code, tc.code, tc.want, tc.not, out, errOut)
			}
			if tc.check == "final" && !strings.Contains(out, "check = final: invariants judged only where a run ends (nothing left enabled); end states reached: ") {
				t.Errorf("the output does not say that only end states were judged:\n%s", out)
			}
		})
	}
}
