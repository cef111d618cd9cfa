package kernel_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

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
	// Every program of the corpus: identical, none refused, none different.
	cases, err := filepath.Glob("testdata/diff/*.go")
	if err != nil || len(cases) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	want := fmt.Sprintf("kernel differential: %d of %d identical (0 refused, 0 different)", len(cases), len(cases))
	if last != want {
		t.Fatalf("last line %q, want %q", last, want)
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
		if r.Result != "identical" {
			t.Errorf("%s: %s %s", r.Case, r.Result, r.Detail)
		}
	}
	for _, c := range cases {
		if name := strings.TrimSuffix(filepath.Base(c), ".go"); got[name] != "identical" {
			t.Errorf("%s: %s, want identical", name, got[name])
		}
	}
}
