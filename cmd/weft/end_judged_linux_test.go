//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestViolatedInTheEndState: a run violated only in its end state
// ([campaign] check = "final") names the end state as where its verdict
// was judged, in every view, and the step at which a required invariant
// failed first as transient, never as the first violation. The model is
// targets/repl with replicated = "node[1].stored == 7": false at step 0
// (nothing stored yet), and still false at the end (node 1 stored 5).
// Before the fix weft run said "first violation at step 0", weft trace's
// header "(first at step 0)", and the sequence diagram and the report's
// traced failure stopped at step 0, before any message; the report's
// runs table (--all) said "step 0" where the traced failure said "end
// state". The campaign's summary names the invariants it checked.
func TestViolatedInTheEndState(t *testing.T) {
	dir := t.TempDir()
	copyTarget(t, dir, "repl", "repl.model", "repl.c")
	mod := filepath.Join(dir, "repl.model")
	src, err := os.ReadFile(mod)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `agree_on_ack = "all r in replies : r.val in node[1]"`, `replicated = "node[1].stored == 7"`, 1)
	if text == string(src) {
		t.Fatal("targets/repl/repl.model has no agree_on_ack line to replace")
	}
	if err := os.WriteFile(mod, []byte(text+"\n[campaign]\ncheck = \"final\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := weft(t, "run", mod, "--variant", "correct", "--seed", "1", "--quiet")
	if code != 1 || !strings.Contains(out, "\nviolated: replicated after 4 steps") {
		t.Fatalf("weft run: exit %d, want 1 and violated after 4 steps:\n%s%s", code, out, errOut)
	}
	ds := filepath.Join(dir, "ds")
	if out, errOut, code := weft(t, "campaign", mod, "--variants", "correct", "--first-seed", "1", "--seeds", "1", "--record", "all", "--out", ds); code != 0 || !strings.Contains(out, "replicated=1") || !strings.Contains(out, "\ninvariants checked: replicated\n") {
		t.Fatalf("weft campaign: exit %d, want 0, one run violating replicated, and the invariants checked named\n%s%s", code, out, errOut)
	}
	rec := filepath.Join(ds, "recordings", "correct-1.weftlog")
	trace, _, _ := weft(t, "trace", rec)
	svg, _, _ := weft(t, "trace", rec, "--svg", "-")
	html := filepath.Join(dir, "r.html")
	if out, errOut, code := weft(t, "report", ds, "--all", "-o", html); code != 0 {
		t.Fatalf("weft report: exit %d\n%s%s", code, out, errOut)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	views := []struct {
		name, out  string
		want, lack []string
	}{
		{"run", out, []string{
			"\n  violated in the end state (step 4, 50.464ms): replicated: node[1].stored = 5 != 7\n",
			"\n  (transient, not judged: check = final) replicated failed first at step 0 (0s): node[1].stored = 0 != 7\n",
		}, []string{"first violation"}},
		{"trace", trace, []string{
			"; violated replicated in the end state (step 4; check = final: a required invariant failed first, transiently, at step 0)\n",
			"n0.stored = 5   ← end state: violated\n",
			"n1.stored = 0   ← a required invariant fails (transient: check = final judges the end state)\n",
		}, []string{"first at step", "first violation"}},
		{"diagram", svg, []string{"violated in the end state (step 4): replicated", "client → n0 WRITE 5", "(step 4)</title>"}, []string{"first violation"}},
		{"report", string(page), []string{
			"Violated <strong>replicated</strong> in the end state (step 4; check = final",
			"declared state up to the end state (step 4)",
			"<td>end state: step 4, 50.464ms (check = final; failed transiently at step 0)</td>", // the runs table (--all)
		}, []string{"first at step 0", "<td>step 0, "}},
	}
	for _, v := range views {
		for _, w := range v.want {
			if !strings.Contains(v.out, w) {
				t.Errorf("%s lacks %q:\n%s", v.name, w, clip(v.out))
			}
		}
		for _, l := range v.lack {
			if strings.Contains(v.out, l) {
				t.Errorf("%s has %q:\n%s", v.name, l, clip(v.out))
			}
		}
	}
}

// clip shortens a long output for a failure message.
func clip(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}
