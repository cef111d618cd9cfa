//go:build linux

package mcsdk_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/sched"
)

// TestBankCheck checks targets/bank exhaustively: the lost update of the
// variant without the mutex is found along a path of thread switches that
// names the threads, the same path and state count every time; the fixed
// variant holds. The first check of each variant is the default search
// TestReductionKeepsVerdicts' dpor side makes (sharedCheck); the bug's
// second check is a fresh search compared with it. CI searches the fixed
// variant to bankFixedDepth (WEFT_FULL=1: the model's depth).
func TestBankCheck(t *testing.T) {
	m := loadTarget(t, "bank/bank.model")
	tests := []struct {
		variant string
		verdict mcsdk.Verdict
		depth   int // 0: the model's
	}{
		{"bug", mcsdk.Violated, 0},
		{"fixed", mcsdk.Holds, bankFixedDepth()},
	}
	for _, tc := range tests {
		t.Run(tc.variant, func(t *testing.T) {
			r := sharedCheck(t, "bank/bank.model", mcsdk.CheckOptions{Variant: tc.variant, Depth: tc.depth})
			if r.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s (%s)", r.Verdict, tc.verdict, r.Failure)
			}
			if r.States < 10 || r.Executions < 2 {
				t.Errorf("only %d states, %d executions", r.States, r.Executions)
			}
			if tc.verdict != mcsdk.Violated {
				return
			}
			again, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: tc.variant})
			if err != nil {
				t.Fatal(err)
			}
			if again.States != r.States || again.Executions != r.Executions || !reflect.DeepEqual(again.Violation.Path, r.Violation.Path) {
				t.Errorf("a second check differs: %d states, %d executions, path %v; first %d, %d, %v",
					again.States, again.Executions, again.Violation.Path, r.States, r.Executions, r.Violation.Path)
			}
			if r.Violation.Invariant != "conserved" {
				t.Errorf("violated %s, want conserved", r.Violation.Invariant)
			}
			threads := map[int]bool{}
			for _, a := range r.Violation.Path {
				if a.Kind != sched.Run {
					t.Errorf("path has %s, want only thread switches", a)
				}
				threads[a.Task] = true
			}
			steps := strings.Join(r.Violation.Steps, "\n")
			if len(threads) < 3 || !strings.Contains(steps, "n0/t1 runs") || !strings.Contains(steps, "n0/t2 runs") {
				t.Errorf("the path does not name the threads:\n%s", steps)
			}
		})
	}
}

// TestBankSeeded runs seeded runs of the bank's bug twice each: the
// interleaving is drawn from the seed, so recordings are byte-identical,
// and some seed loses money.
func TestBankSeeded(t *testing.T) {
	m := loadTarget(t, "bank/bank.model")
	violated := 0
	for seed := uint64(1); seed <= 6; seed++ {
		var recs [2][]byte
		for k := range recs {
			r, err := mcsdk.Run(m, mcsdk.RunOptions{Variant: "bug", Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict == mcsdk.Violated {
				violated++
			}
			switches := 0
			for _, c := range r.Choices {
				if strings.HasPrefix(c.Action, "run 0.") {
					switches++
				}
			}
			if switches < 4 {
				t.Fatalf("seed %d: %d thread switches recorded: %v", seed, switches, r.Choices)
			}
			b, err := r.Recording(m).Bytes()
			if err != nil {
				t.Fatal(err)
			}
			recs[k] = b
		}
		if !bytes.Equal(recs[0], recs[1]) {
			t.Errorf("seed %d: two runs recorded different bytes", seed)
		}
	}
	if violated == 0 {
		t.Errorf("no seed found the lost update")
	}
}

// loadGoThreads builds targets/gothreads into a temporary directory
// beside a copy of its model, and loads that model.
func loadGoThreads(t *testing.T) *model.Model {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "gothreads")
	if out, err := exec.Command("go", "build", "-o", bin, "../targets/gothreads").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src, err := os.ReadFile("../targets/gothreads/gothreads.model")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gothreads.model"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(filepath.Join(dir, "gothreads.model"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGoThreadsSeeded builds targets/gothreads (goroutines on several OS
// threads, mutex, channels, sleeps, a ticker, GC) and runs seeds twice
// each: the recordings are byte-identical, the node has at least four
// threads, and the output order differs between seeds (it depends on the
// scheduling, drawn from the seed).
func TestGoThreadsSeeded(t *testing.T) {
	m := loadGoThreads(t)
	orders := map[string]bool{}
	for seed := uint64(1); seed <= 12; seed++ {
		var recs [2][]byte
		for k := range recs {
			var out bytes.Buffer
			r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed, OnOutput: func(_ int, b []byte) { out.Write(b) }})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != mcsdk.Holds {
				t.Fatalf("seed %d: %s %s\n%s", seed, r.Verdict, r.Detail, out.String())
			}
			threads := ""
			for _, p := range r.Params {
				if p.Name == "threads" {
					threads = p.Value
				}
			}
			var n int
			if _, err := fmt.Sscanf(threads, "n0=%d", &n); err != nil || n < 4 {
				t.Errorf("seed %d: threads %q, want at least 4", seed, threads)
			}
			for _, line := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(line, "order ") {
					orders[line] = true
				}
			}
			if recs[k], err = r.Recording(m).Bytes(); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(recs[0], recs[1]) {
			t.Errorf("seed %d: two runs recorded different bytes", seed)
		}
	}
	if len(orders) < 2 {
		t.Errorf("every seed printed the same order: %v", orders)
	}
}
