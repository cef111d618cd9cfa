//go:build linux

package mcsdk_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/weftlog"
)

// TestShrink shrinks seed 119 of targets/paxos's bug variant (two values
// chosen in one slot) as weft shrink does: the result violates the same
// invariant with no more faults and no later end, the partition the seed
// drew is removed (not only crashes are), the progress says what each run
// kept, every run it made was
// reported (the original first), and it makes the same choices as the
// stored bug-119.shrunk.weftlog, which TestStoredRecordingsReplay
// replays: shrinking is as deterministic as the runs it is made of.
func TestShrink(t *testing.T) {
	m := loadTarget(t, "paxos/paxos.model")
	var tries []mcsdk.ShrinkTry
	sr, err := mcsdk.ShrinkWithProgress(m, "bug", 119, mcsdk.RunOptions{}, func(tr mcsdk.ShrinkTry) { tries = append(tries, tr) })
	if err != nil {
		t.Fatal(err)
	}
	o, s := sr.Original, sr.Shrunk
	if s.Verdict != mcsdk.Violated || len(s.Violated) == 0 || s.Violated[0] != o.Violated[0] {
		t.Fatalf("shrunk run: %s %v, the original violated %v", s.Verdict, s.Violated, o.Violated)
	}
	if len(sr.Faults) > len(o.Faults) || s.VirtualTime > o.VirtualTime || (len(sr.Faults) == len(o.Faults) && s.VirtualTime == o.VirtualTime) {
		t.Errorf("nothing shrunk: faults %d → %d, virtual time %v → %v", len(o.Faults), len(sr.Faults), o.VirtualTime, s.VirtualTime)
	}
	if len(tries) != sr.Tries+1 || !tries[0].Violated || tries[0].Try != 0 {
		t.Errorf("progress reported %d runs (%+v), the shrink made %d after the original", len(tries), tries, sr.Tries)
	}
	for i, tr := range tries {
		if tr.Try != i {
			t.Errorf("run %d reported as %d", i, tr.Try)
		}
	}
	if !reflect.DeepEqual(sr.Omit.Partitions, []int{0}) || sr.Remains != "1 crash, 1 restart, 0 of 1 partitions, at most 4 of 4 operations" {
		t.Errorf("shrunk omits %+v and keeps %q: want the partition removed, the crash kept", sr.Omit, sr.Remains)
	}
	if r := tries[0].Remains; r != "1 crash, 1 restart, 1 of 1 partitions, at most 4 of 4 operations" {
		t.Errorf("the original run's progress says %q", r)
	}
	data, err := os.ReadFile("../targets/paxos/bug-119.shrunk.weftlog")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := weftlog.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Recording(m)
	if !reflect.DeepEqual(got.Choices, stored.Choices) || got.Verdict.FirstViolationStep != stored.Verdict.FirstViolationStep {
		t.Errorf("shrunk to %d choices (first violation at step %d), the stored shrunk recording has %d (step %d)",
			len(got.Choices), got.Verdict.FirstViolationStep, len(stored.Choices), stored.Verdict.FirstViolationStep)
	}
}
