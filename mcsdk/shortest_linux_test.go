//go:build linux

package mcsdk_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// TestStoppedResearchClaimsNoShortest: quorum's bug is first found along
// a path that the check then searches below for a shorter one (a second
// search with the bound one action less). A Context cancelled during
// that search, from the search's own Stop hook at a chosen expansion (not
// by wall-clock time), leaves the violation found, but the path is no
// longer claimed a shortest one: Shortest is false, and the result says
// the check was interrupted. When the search below completes, the path is
// a shortest one. Counting Stop's calls is deterministic: one worker, the
// same model, the same order.
func TestStoppedResearchClaimsNoShortest(t *testing.T) {
	m := loadTarget(t, "quorum/quorum.model")
	// calls checks with opts, counting Stop's calls.
	calls := func(opts mcsdk.CheckOptions) (*mcsdk.CheckResult, int) {
		t.Helper()
		n := 0
		opts.Variant, opts.Stop = "bug", func() bool { n++; return false }
		res, err := mcsdk.Check(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res, n
	}
	full, total := calls(mcsdk.CheckOptions{})
	if full.Verdict != mcsdk.Violated || full.Researches != 1 || !full.Shortest || full.Interrupted || full.StoppedBy != "" {
		t.Fatalf("the completed check: %s, %d searches below, shortest %v, interrupted %v (%q); want one search below, a shortest path",
			full.Verdict, full.Researches, full.Shortest, full.Interrupted, full.StoppedBy)
	}
	n := len(full.Violation.Path)
	first, k := calls(mcsdk.CheckOptions{FirstFound: true}) // the first search alone
	below, r := calls(mcsdk.CheckOptions{Depth: n - 1})     // the search below, alone
	_, c := calls(mcsdk.CheckOptions{Depth: n, FirstFound: true})
	if first.Verdict != mcsdk.Violated || below.Verdict != mcsdk.Holds || k+r+c != total || r < 3 {
		t.Fatalf("first search %s asked Stop %d times, the search below %s %d times, the search at the path's length %d times: want %d in all, and a search below to stop",
			first.Verdict, k, below.Verdict, r, c, total)
	}
	for _, tc := range []struct {
		cancel   int // the call of Stop that cancels the Context
		shortest bool
	}{
		{k + 1, false},     // the search below's first expansion
		{k + r/2, false},   // its middle
		{k + r - 1, false}, // its last expansion is refused
		{k + r, true},      // it completed: only the last search, for the reported path's order, is stopped
	} {
		t.Run(fmt.Sprint("cancel", tc.cancel-k), func(t *testing.T) {
			res, researching := cancelAt(t, m, tc.cancel)
			if researching != n-1 {
				t.Fatalf("searched below %d actions, want %d", researching, n-1)
			}
			if res.Verdict != mcsdk.Violated || res.Violation == nil {
				t.Fatalf("verdict %s: the violation found before the stop is lost", res.Verdict)
			}
			if res.Shortest != tc.shortest {
				t.Errorf("Context cancelled at the search below's expansion %d of %d: shortest %v, want %v", tc.cancel-k, r, res.Shortest, tc.shortest)
			}
			if stopped := !tc.shortest; res.Interrupted != stopped || stopped && res.StoppedBy != "interrupt" {
				t.Errorf("interrupted %v, stopped by %q, want interrupted %v", res.Interrupted, res.StoppedBy, stopped)
			}
			if len(res.Violation.Path) != n {
				t.Errorf("path of %d actions, want %d", len(res.Violation.Path), n)
			}
		})
	}
}

// cancelAt checks quorum's bug with a Context that Stop's call at
// cancels, returning the result and the bound of the search below the
// violation (0 if none began).
func cancelAt(t *testing.T, m *model.Model, at int) (*mcsdk.CheckResult, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n, bound := 0, 0
	res, err := mcsdk.Check(m, mcsdk.CheckOptions{Variant: "bug", Context: ctx,
		Researching: func(b int) { bound = b },
		Stop: func() bool {
			if n++; n == at {
				cancel()
			}
			return false
		}})
	if err != nil {
		t.Fatal(err)
	}
	if n != at {
		t.Fatalf("Stop asked %d times, want the search stopped after call %d", n, at)
	}
	return res, bound
}
