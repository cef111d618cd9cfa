//go:build linux

package mcsdk_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
)

// raftVariants are targets/raft's models (etcd's raft v3.7.0; the kv
// binary is built by scripts/test.sh), each with the seeds 1..seeds it
// runs (seedsRun; the first twiceSeeds and the known seed twice; the 500-seed
// campaigns are scripts/raft-campaigns.sh)
// and the invariant it must violate on its known seed at the known step
// ("" for holds on every seed). lease-unsafe runs only its known seed:
// one of its runs (etcd's 100 ms tick, a 2.4 s partition) costs as much
// as 30 of the others.
var raftVariants = []struct {
	model     string
	seeds     uint64
	invariant string
	seed      uint64
	step      int
}{
	{"raft/kv/raft-correct.model", 10, "", 0, 0},
	{"raft/kv/raft-lease-unsafe.model", 0, "linearizable", 21, 30955},
	{"raft/kv/raft-persist-late.model", 10, "lost_committed", 42, 2007},
}

// seedsRun is how many of tc's first seeds TestRaftTargets runs. A
// variant with a known violation asserts nothing of its other seeds but
// that they agree run to run (the first twiceSeeds) and complete
// operations, so CI runs only its first twiceSeeds (persist-late: seeds
// 1-3 twice and seed 42 twice, 8 runs instead of 15); WEFT_FULL=1 runs
// all tc.seeds. A variant that must hold runs all of them.
func seedsRun(seeds uint64, invariant string) uint64 {
	if invariant != "" && os.Getenv("WEFT_FULL") != "1" {
		return min(seeds, twiceSeeds)
	}
	return seeds
}

// twiceSeeds is how many of a variant's first seeds TestRaftTargets runs
// twice (a run of raft-correct costs about 5 s of CI's time).
const twiceSeeds = 3

// TestRaftTargets: a Raft variant's seeds run twice (the first
// twiceSeeds and its known seed) give byte-identical recordings; correct
// holds on all of its seeds with operations completing and both of kv's
// snapshot paths taken (a restarted node loads its own snapshot, a
// follower behind is sent the leader's: kv logs each); persist-late
// violates lost_committed and lease-unsafe linearizable (a stale read by
// the deposed leader's lease) on their known seeds at the known steps.
// Both variants' shrunk recordings are replayed by
// TestStoredRecordingsReplay, with every stored recording.
func TestRaftTargets(t *testing.T) {
	t.Parallel() // as TestConsensusTargets (whose comment says why)
	for _, tc := range raftVariants {
		t.Run(tc.model, func(t *testing.T) {
			m := loadTarget(t, tc.model)
			var out strings.Builder
			run := func(seed uint64) (*mcsdk.RunResult, []byte) {
				r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed, OnOutput: func(_ int, b []byte) { out.Write(b) }})
				if err != nil {
					t.Fatal(err)
				}
				b, err := r.Recording(m).Bytes()
				if err != nil {
					t.Fatal(err)
				}
				return r, b
			}
			seeds := []uint64{}
			n := seedsRun(tc.seeds, tc.invariant)
			for s := uint64(1); s <= n; s++ {
				seeds = append(seeds, s)
			}
			if tc.seed > n {
				seeds = append(seeds, tc.seed)
			}
			ops := 0
			for _, seed := range seeds {
				r, rec := run(seed)
				if seed <= twiceSeeds || seed == tc.seed {
					if _, again := run(seed); !bytes.Equal(rec, again) {
						t.Errorf("seed %d: two runs gave different recordings", seed)
					}
				}
				switch {
				case seed == tc.seed:
					if r.Verdict != mcsdk.Violated || len(r.Violated) == 0 || r.Violated[0] != tc.invariant || r.FirstViolationStep != tc.step {
						t.Errorf("seed %d: %s %v at step %d (%s), want %s at step %d", seed, r.Verdict, r.Violated, r.FirstViolationStep, r.Detail, tc.invariant, tc.step)
					}
				case tc.invariant == "" && r.Verdict != mcsdk.Holds:
					t.Errorf("seed %d: %s %v (%s), want holds", seed, r.Verdict, r.Violated, r.Detail)
				}
				ops += r.Ops - r.OpsIndeterminate
			}
			if ops == 0 {
				t.Error("no client operation completed")
			}
			if tc.invariant == "" {
				for _, line := range []string{"kv: restarted from the snapshot at index", "kv: applied the leader's snapshot at index"} {
					if !strings.Contains(out.String(), line) {
						t.Errorf("seeds 1-%d: no node logged %q", tc.seeds, line)
					}
				}
			}
		})
	}
}
