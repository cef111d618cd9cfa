//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk"
)

// TestCheckInterruptKeepsVerdictHonest: a long exhaustive check shows its
// progress, and SIGINT stops it with the partial counts, no verdict
// (exit 130, "no violation within what was explored") and no node process
// left behind.
func TestCheckInterruptKeepsVerdictHonest(t *testing.T) {
	// A progress line comes after 64 new states and 2 s: far sooner than
	// the search ends (over a minute).
	r := startUntil(t, budgetCheck, "distinct states")
	tree := processTree(r.cmd.Process.Pid)
	if len(tree) == 0 {
		t.Fatal("no node processes while checking")
	}
	code, stderr := r.interrupt(t)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitInterrupted, r.stdout.String(), stderr)
	}
	if !strings.Contains(r.stdout.String(), "interrupted: no violation within what was explored") {
		t.Errorf("stdout:\n%s", r.stdout.String())
	}
	time.Sleep(200 * time.Millisecond)
	for _, p := range tree {
		if syscall.Kill(p, 0) == nil && !strings.Contains(procStatState(p), "Z") {
			t.Errorf("process %d outlived weft check", p)
		}
	}
}

// running is a weft command started by startUntil.
type running struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	errs   io.Reader
	line   string // the stderr line it waited for
}

// startUntil starts weft with args from the repository root and waits for
// a line of its stderr containing want; the test fails if weft ends first.
func startUntil(t *testing.T, args []string, want string) *running {
	t.Helper()
	r := &running{cmd: exec.Command(weftBin, args...)}
	r.cmd.Dir = "../.."
	r.cmd.Stdout = &r.stdout
	errs, err := r.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(errs)
	for lines.Scan() {
		if strings.Contains(lines.Text(), want) {
			r.line, r.errs = lines.Text(), errs
			return r
		}
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	t.Fatalf("weft %s ended before a line with %q:\n%s", strings.Join(args, " "), want, r.stdout.String())
	return nil
}

// interrupt sends SIGINT and waits for the exit: its code and the rest
// of stderr.
func (r *running) interrupt(t *testing.T) (int, string) {
	t.Helper()
	r.cmd.Process.Signal(syscall.SIGINT)
	rest, _ := io.ReadAll(r.errs)
	err := r.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(rest)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(rest)
}

// procStatState is the state letter of process pid ("" if gone).
func procStatState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// budgetCheck is a check that cannot finish in seconds (over a minute).
var budgetCheck = []string{"check", "targets/quorum/register.model", "--variant", "fixed", "--depth", "10"}

// TestCheckTimeBudget: --time stops a long check with its summary (the
// depth fully covered, the deepest reached, the counts and rate) and exit
// 0, as documented: the invariants hold up to the depth covered. --json
// prints the same summary as JSON.
func TestCheckTimeBudget(t *testing.T) {
	out, stderr, code := weft(t, append(budgetCheck, "--time", "3s")...)
	if code != exitHolds {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitHolds, out, stderr)
	}
	for _, want := range []string{"time budget of 3s reached: no violation within what was explored; the depth bound 10 was not covered",
		"depth", "distinct states", "states/s", "the search deepened"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "holds over") || strings.Contains(out, "within depth 10") {
		t.Errorf("a stopped check claims the whole bound:\n%s", out)
	}
	out, stderr, code = weft(t, append(budgetCheck, "--time", "3s", "--json")...)
	if code != exitHolds {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitHolds, out, stderr)
	}
	res := decodeCheck(t, out)
	if !res.Interrupted || res.StoppedBy != "time" || !res.Deepened || res.Verdict != "" || res.Covered >= res.Depth || res.Reached < res.Covered {
		t.Errorf("summary %+v", res)
	}
}

// TestCheckInterruptSummary: SIGINT after the first progress line of a
// check with a time budget prints the same summary, with the depth the
// line said was covered, and exits 130; with --json as JSON.
func TestCheckInterruptSummary(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		args := append(budgetCheck, "--time", "10m")
		if asJSON {
			args = append(args, "--json")
		}
		r := startUntil(t, args, "fully covered")
		first, stdout := r.line, &r.stdout
		code, rest := r.interrupt(t)
		if code != exitInterrupted {
			t.Fatalf("exit %d, want %d\n%s\n%s", code, exitInterrupted, stdout.String(), rest)
		}
		if !asJSON {
			for _, want := range []string{"interrupted: no violation within what was explored", "holds up to depth", "distinct states"} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("after %q, no %q in\n%s", first, want, stdout.String())
				}
			}
			continue
		}
		res := decodeCheck(t, stdout.String())
		if !res.Interrupted || res.StoppedBy != "interrupt" || res.Covered < 1 || res.Covered >= res.Depth {
			t.Errorf("after %q: summary %+v", first, res)
		}
	}
}

func decodeCheck(t *testing.T, out string) *mcsdk.CheckResult {
	t.Helper()
	var res mcsdk.CheckResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	return &res
}

// TestCheckInterruptedShortestSearch: SIGINT while weft check searches
// below the violation it found for a shorter one (after the stderr line
// that says so; quorum4's search within 8 actions takes minutes) keeps
// the violation (exit 1, the path saved) but no longer calls the path a
// shortest one: the text says the search for a shorter one was
// interrupted, the JSON has Shortest false, Interrupted true and StoppedBy
// "interrupt". The same check of quorum, whose search below completes,
// says shortest in both.
func TestCheckInterruptedShortestSearch(t *testing.T) {
	const line = "searching within 8 for a shorter one"
	for _, asJSON := range []bool{false, true} {
		args := []string{"check", "targets/quorum/quorum4.model", "--variant", "bug", "--save", filepath.Join(t.TempDir(), "p.weftpath")}
		if asJSON {
			args = append(args, "--json")
		}
		r := startUntil(t, args, line)
		code, rest := r.interrupt(t)
		out := r.stdout.String()
		if code != exitViolated {
			t.Fatalf("exit %d, want %d\n%s\n%s", code, exitViolated, out, rest)
		}
		if !asJSON {
			want := "path (9 actions; not known to be a shortest: the search for a shorter one was interrupted)"
			if !strings.Contains(out, want) || strings.Contains(out, "shortest: no violation") {
				t.Errorf("no %q in\n%s", want, out)
			}
			continue
		}
		res := decodeCheck(t, out)
		if res.Verdict != mcsdk.Violated || res.Shortest || !res.Interrupted || res.StoppedBy != "interrupt" || len(res.Violation.Path) != 9 {
			t.Errorf("verdict %s, shortest %v, interrupted %v (%q), path %v", res.Verdict, res.Shortest, res.Interrupted, res.StoppedBy, res.Violation)
		}
	}
	out, stderr, code := weft(t, "check", "targets/quorum/quorum.model", "--variant", "bug", "--save", os.DevNull)
	if code != exitViolated || !strings.Contains(out, "path (6 actions; shortest: no violation within 5)") || !strings.Contains(stderr, "searching within 5 for a shorter one") {
		t.Errorf("exit %d:\n%s\n%s", code, out, stderr)
	}
	out, _, _ = weft(t, "check", "targets/quorum/quorum.model", "--variant", "bug", "--save", os.DevNull, "--json")
	if res := decodeCheck(t, out); !res.Shortest || res.Interrupted || res.StoppedBy != "" {
		t.Errorf("shortest %v, interrupted %v (%q)", res.Shortest, res.Interrupted, res.StoppedBy)
	}
}
