package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goTestJSON runs go test -json on a module of two packages: good (a
// passing test that logs and a skipped one) and bad (a test
// that fails with a subtest and a log, and one that passes). It returns
// go test's output (stdout and stderr) and its error.
func goTestJSON(t *testing.T) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"good/good_test.go": `package good

import "testing"

func TestQuiet(t *testing.T) { t.Log("quiet-log") }

func TestSkipped(t *testing.T) { t.Skip("skip-log") }
`,
		"bad/bad_test.go": `package bad

import "testing"

func TestBroken(t *testing.T) {
	t.Run("sub", func(t *testing.T) { t.Error("broken-log") })
}

func TestFine(t *testing.T) { t.Log("fine-log") }
`,
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-json", "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	return cmd.CombinedOutput()
}

// TestFilterAndSlowest feeds a real go test -json run, with a line that
// is no event in front, to filter and to the summary.
func TestFilterAndSlowest(t *testing.T) {
	out, err := goTestJSON(t)
	if err == nil {
		t.Fatalf("go test passed a package with a failing test:\n%s", out)
	}
	in := "# a line that is no event\n" + string(out)

	var shown bytes.Buffer
	if err := filter(strings.NewReader(in), &shown); err != nil {
		t.Fatal(err)
	}
	s := shown.String()
	for _, want := range []string{
		"# a line that is no event\n",
		"--- FAIL: TestBroken",
		"--- FAIL: TestBroken/sub",
		"broken-log",
		"FAIL\texample.com/m/bad",
		"ok  \texample.com/m/good",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("filtered output lacks %q:\n%s", want, s)
		}
	}
	for _, not := range []string{"quiet-log", "fine-log", "skip-log", "=== RUN", "\"Action\""} {
		if strings.Contains(s, not) {
			t.Errorf("filtered output has %q (a passing or skipped test's output, or an event):\n%s", not, s)
		}
	}

	r, err := readTimes(strings.NewReader(in), "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.tests) != 4 || len(r.pkgs) != 2 {
		t.Fatalf("read %d tests and %d packages, want 4 (top-level only) and 2: %+v", len(r.tests), len(r.pkgs), r)
	}
	for _, tt := range r.tests {
		if want := map[string]string{"TestQuiet": "pass", "TestSkipped": "skip", "TestBroken": "fail", "TestFine": "pass"}[tt.test]; tt.action != want {
			t.Errorf("%s: %s, want %s", tt.test, tt.action, want)
		}
	}
}

// TestWriteSlowest: the n longest tests across runs, longest first, each
// named with its run when there are several, then every package run.
func TestWriteSlowest(t *testing.T) {
	runs := []run{
		{label: "test",
			tests: []timed{{"p", "TestA", "pass", 1}, {"p", "TestB", "fail", 30}, {"q", "TestC", "pass", 2}},
			pkgs:  []timed{{"p", "", "fail", 31}, {"q", "", "pass", 2}, {"r", "", "skip", 0}}},
		{label: "test-weftverify",
			tests: []timed{{"p", "TestA", "pass", 5}},
			pkgs:  []timed{{"p", "", "pass", 5}}},
	}
	var b bytes.Buffer
	writeSlowest(&b, runs, 3)
	want := `The 3 slowest of 4 tests (38 s in all):
    30.0 s  fail  TestB  p (test)
     5.0 s  pass  TestA  p (test-weftverify)
     2.0 s  pass  TestC  q (test)
Packages:
    31.0 s  fail  p (test)
     5.0 s  pass  p (test-weftverify)
     2.0 s  pass  q (test)
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	writeSlowest(&b, runs[:1], 10)
	if !strings.HasPrefix(b.String(), "The 3 slowest of 3 tests (33 s in all):\n    30.0 s  fail  TestB  p\n") {
		t.Errorf("one run, n beyond the tests:\n%s", b.String())
	}
}
