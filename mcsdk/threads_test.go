//go:build linux

package mcsdk_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/supervisor"
)

// TestBankCheck checks targets/bank exhaustively: the lost update of the
// variant without the mutex is found along a path of thread switches that
// names the threads; the fixed variant holds.
func TestBankCheck(t *testing.T) {
	m := loadTarget(t, "bank/bank.model")
	tests := []struct {
		variant string
		verdict mcsdk.Verdict
	}{
		{"bug", mcsdk.Violated},
		{"fixed", mcsdk.Holds},
	}
	for _, tc := range tests {
		t.Run(tc.variant, func(t *testing.T) {
			r, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: tc.variant})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tc.verdict {
				t.Fatalf("verdict %s, want %s (%s)", r.Verdict, tc.verdict, r.Failure)
			}
			if r.States < 10 || r.Executions < 2 {
				t.Errorf("only %d states, %d executions", r.States, r.Executions)
			}
			if tc.verdict != mcsdk.Violated {
				return
			}
			if r.Violation.Invariant != "conserved" {
				t.Errorf("violated %s, want conserved", r.Violation.Invariant)
			}
			threads := map[int]bool{}
			for _, a := range r.Violation.Path {
				if a.Kind != supervisor.Run {
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
