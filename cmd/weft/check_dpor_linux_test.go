//go:build linux

package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCheckCompareAndWorkers runs weft check --compare and -j 2 on quorum
// and repl: the comparison prints both reductions' counts with the same
// verdict and the reduction factor, and -j 2 prints the same verdict and
// path as -j 1; bad values are usage errors. CI compares -j 1 and -j 2
// on repl only (the CLI's path through the parallel search, which is the
// same for both models); WEFT_FULL=1 on quorum too, whose two searches
// took about 40 s of the test's 53 s in CI's 2026-12-05 rehearsal and
// which mcsdk's TestParallelCheck compares with one and two workers.
func TestCheckCompareAndWorkers(t *testing.T) {
	out, _, code := weft(t, "check", "targets/quorum/quorum.model", "--variant", "bug", "--compare", "--save", "/dev/null")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (violated):\n%s", code, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^dpor +\d+ +\d+ +\d+ +\d+ `),
		regexp.MustCompile(`(?m)^none +\d+ +\d+ +0 +\d+ `),
		regexp.MustCompile(`reduction factor: \d+\.\d\d× fewer executions`),
		regexp.MustCompile(`reduction dpor: \d+ executions pruned \(sleep-set blocked\)`),
	} {
		if !want.MatchString(out) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	models := []string{"targets/repl/repl.model"}
	if os.Getenv("WEFT_FULL") == "1" {
		models = append(models, "targets/quorum/quorum.model")
	}
	for _, model := range models {
		path := func(j string) (string, int) {
			out, _, code := weft(t, "check", model, "--variant", "bug", "-j", j, "--save", "/dev/null")
			i, k := strings.Index(out, "path ("), strings.Index(out, "saved to")
			if i < 0 || k < i {
				t.Fatalf("-j %s: no path in:\n%s", j, out)
			}
			return out[i:k], code
		}
		one, c1 := path("1")
		two, c2 := path("2")
		if one != two || c1 != c2 {
			t.Errorf("%s: -j 1 (exit %d):\n%s-j 2 (exit %d):\n%s", model, c1, one, c2, two)
		}
	}
	for _, args := range [][]string{{"--reduction", "some"}, {"-j", "0"}} {
		_, stderr, code := weft(t, append([]string{"check", "targets/repl/repl.model"}, args...)...)
		if code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want a usage error", args, code, stderr)
		}
	}
}
