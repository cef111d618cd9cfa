package kernel_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// identicalCases are the programs of testdata/diff the kernel computes
// exactly as `go run` does; every other one must be refused with an error
// (never a different output: kdiff.py reports that as DIFFERENT and the
// script fails).
var identicalCases = []string{"lang_channels", "lang_consts", "lang_embedding", "lang_maps_slices",
	"lang_struct_compare", "mod_blackfriday", "mod_decimal", "mod_gjson", "mod_glob", "mod_godiff",
	"mod_govaluate", "mod_humanize", "mod_levenshtein", "mod_murmur3", "mod_pkgerrors", "mod_runewidth",
	"mod_semver", "mod_shellquote", "mod_stats", "mod_strcase", "mod_ulid", "mod_uuid", "mod_xid",
	"mod_xnethtml", "mod_xtext", "mod_xxhash"}

// TestKernelDifferential runs scripts/kernel-diff.sh: each program of
// testdata/diff with `go run` and in the kernel through jupyter_client.
// It needs the Go module proxy (or a module cache holding the corpus's
// modules).
func TestKernelDifferential(t *testing.T) {
	requireJupyter(t)
	if testing.Short() {
		t.Skip("runs every program of testdata/diff twice (minutes)")
	}
	results := filepath.Join(t.TempDir(), "results.json")
	cmd := exec.Command("../scripts/kernel-diff.sh")
	cmd.Env = append(os.Environ(), "KDIFF_JSON="+results)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kernel-diff.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	var last string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		last = sc.Text()
	}
	if !regexp.MustCompile(`^kernel differential: \d+ of \d+ identical \(\d+ refused, 0 different\)$`).MatchString(last) {
		t.Fatalf("last line %q", last)
	}
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	var rs []struct{ Case, Result, Detail string }
	if err := json.Unmarshal(b, &rs); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rs {
		got[r.Case] = r.Result
		if r.Result != "identical" && r.Result != "refused" {
			t.Errorf("%s: %s %s", r.Case, r.Result, r.Detail)
		}
	}
	for _, c := range identicalCases {
		if got[c] != "identical" {
			t.Errorf("%s: %s, want identical", c, got[c])
		}
	}
}
