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
//
// CI runs every lang_ program (the language, no module) and the mod_
// programs of ciModCases (WEFT_FULL=1 and scripts/kernel-diff.sh: all 32):
// each is the same comparison of one whole program, and the six modules
// cover %go get of a module with generics, reflection, a golang.org/x
// module with large tables and a module with its own dependency.
// All 50 took 193 s in CI's 2026-12-05 rehearsal (each case starts a
// kernel and builds its program twice).
func TestKernelDifferential(t *testing.T) {
	requireJupyter(t)
	if testing.Short() {
		t.Skip("runs every program of testdata/diff twice (minutes)")
	}
	cases, err := filepath.Glob("testdata/diff/*.go")
	if err != nil || len(cases) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	var args []string // none: every case
	if os.Getenv("WEFT_FULL") != "1" {
		var some []string
		for _, c := range cases {
			name := strings.TrimSuffix(filepath.Base(c), ".go")
			if strings.HasPrefix(name, "lang_") || ciModCases[name] {
				some = append(some, c)
				args = append(args, name)
			}
		}
		if len(some) != 18+len(ciModCases) {
			t.Fatalf("CI's cases: %d of the corpus's programs, want the 18 lang_ ones and %d mod_ ones", len(some), len(ciModCases))
		}
		cases = some
	}
	// The package's shared weft binary (buildAndInstall): the script
	// would otherwise link its own.
	weft, _ := buildAndInstall(t, "weft-kdiff")
	results := filepath.Join(t.TempDir(), "results.json")
	cmd := exec.Command("../scripts/kernel-diff.sh", args...)
	cmd.Env = append(os.Environ(), "KDIFF_JSON="+results, "WEFT_TEST_BIN="+weft)
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
	// Every program run: identical, none refused, none different.
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

// ciModCases are the mod_ programs CI's TestKernelDifferential runs.
var ciModCases = map[string]bool{
	"mod_lo":           true, // generics throughout
	"mod_mapstructure": true, // reflection
	"mod_uuid":         true, // a small module, crypto/rand
	"mod_xtext":        true, // golang.org/x/text: large tables
	"mod_runewidth":    true, // a module with its own dependency (rivo/uniseg)
	"mod_gocmp":        true, // go-cmp: reflection and options
}
