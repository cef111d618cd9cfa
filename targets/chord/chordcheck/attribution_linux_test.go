//go:build linux

package chordcheck_test

import (
	"fmt"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
	"github.com/weft-mc/weft/mcsdk/weftlog"
	"github.com/weft-mc/weft/targets/chord/chordcheck"
)

func runChord(t *testing.T, m *model.Model, variant string, seed uint64) *mcsdk.RunResult {
	t.Helper()
	r, err := mcsdk.Run(m, mcsdk.RunOptions{Variant: variant, Seed: seed, Registry: chordcheck.Registry(),
		Preconditions: map[string]mcsdk.FaultPrecondition{"CrashPrecondition": chordcheck.CrashPrecondition}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict == mcsdk.Error {
		t.Fatalf("%s seed %d: error %s", variant, seed, r.Detail)
	}
	return r
}

func loadModel(t *testing.T, path string) *model.Model {
	t.Helper()
	m, err := model.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMaskLevelEquivalence: the masks of levels 0, 1 and 2 (c00, c01, c15
// of chord-attribution.model) build the same binaries as the old variants
// (orig, fix1, fix2 of chord.model) and give the same verdict, step count,
// first violation and detail on seeds chosen for their differing verdicts
// (5: orig violated; 20: invalid at every level; 55: fix2 violated; chosen
// again after connects took a network delay).
func TestMaskLevelEquivalence(t *testing.T) {
	old, masks := loadModel(t, "../chord.model"), loadModel(t, "../chord-attribution.model")
	verdicts := map[string]bool{}
	for _, pair := range [][2]string{{"orig", "c00"}, {"fix1", "c01"}, {"fix2", "c15"}} {
		for _, seed := range []uint64{5, 20, 55} {
			a, b := runChord(t, old, pair[0], seed), runChord(t, masks, pair[1], seed)
			if a.Binary.Hash != b.Binary.Hash {
				t.Errorf("%s and %s build different binaries", pair[0], pair[1])
			}
			sa := fmt.Sprint(a.Verdict, a.Violated, a.Steps, a.FirstViolationStep, a.Detail)
			sb := fmt.Sprint(b.Verdict, b.Violated, b.Steps, b.FirstViolationStep, b.Detail)
			if sa != sb {
				t.Errorf("seed %d: %s gives %s, %s gives %s", seed, pair[0], sa, pair[1], sb)
			}
			verdicts[string(a.Verdict)] = true
		}
	}
	for _, v := range []mcsdk.Verdict{mcsdk.Holds, mcsdk.Violated, mcsdk.Invalid} {
		if !verdicts[string(v)] {
			t.Errorf("no seed ended %s: the seeds no longer cover the verdicts", v)
		}
	}
}

// TestExplainInvalidRun: level 1's seed 476 is invalid because 22's
// reconcile adopted 46, known dead (seed 21 of the README's trace before
// connects took a network delay, the same mechanism); ExplainInvalid
// finds that from the encoded recording alone. The same seed at c03 (level
// 1 plus the reconcile check) is valid.
func TestExplainInvalidRun(t *testing.T) {
	m := loadModel(t, "../chord-attribution.model")
	r := runChord(t, m, "c01", 476)
	if r.Verdict != mcsdk.Invalid {
		t.Fatalf("c01 seed 476: %s, want invalid", r.Verdict)
	}
	b, err := r.Recording(m).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := weftlog.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chordcheck.ExplainInvalid(rec)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Adoption
	if c.Crash != 25 || c.Stranded != 22 || c.Dead != 46 || a == nil || a.Op != chordcheck.OpReconcile || !a.Known ||
		c.Refused() != chordcheck.CheckReconcile || c.Category() != chordcheck.CauseRefusable {
		t.Errorf("cause: %s", c)
	}
	if r := runChord(t, m, "c03", 476); r.Verdict == mcsdk.Invalid {
		t.Errorf("c03 seed 476 is invalid too: %s", r.Detail)
	}
}
