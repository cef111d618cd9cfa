//go:build linux

package mcsdk_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// TestGoQuorumSeeded builds targets/goquorum (a Go service: net TCP, a
// goroutine per connection, a dial deadline, timers) and runs 20 seeds of
// each model twice: the two runs of a seed give the same verdict and
// byte-identical recordings; some seed of the bug model violates
// acked_on_majority and no seed of the fixed model does.
// scripts/goquorum-determinism.sh does the same for 200 seeds.
func TestGoQuorumSeeded(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "goquorum")
	if out, err := exec.Command("go", "build", "-o", bin, "../targets/goquorum").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		model string
		bug   bool
	}{{"goquorum.model", false}, {"goquorum-bug.model", true}} {
		t.Run(tc.model, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("../targets/goquorum", tc.model))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.model)
			if err := os.WriteFile(path, src, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := model.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			violated := 0
			for seed := uint64(1); seed <= 20; seed++ {
				var recs [2][]byte
				var verdicts [2]mcsdk.Verdict
				for k := range recs {
					r, err := mcsdk.Run(m, mcsdk.RunOptions{Seed: seed})
					if err != nil {
						t.Fatal(err)
					}
					if r.Verdict != mcsdk.Holds && r.Verdict != mcsdk.Violated {
						t.Fatalf("seed %d: %s %s", seed, r.Verdict, r.Detail)
					}
					verdicts[k] = r.Verdict
					if recs[k], err = r.Recording(m).Bytes(); err != nil {
						t.Fatal(err)
					}
				}
				if verdicts[0] != verdicts[1] || !bytes.Equal(recs[0], recs[1]) {
					t.Errorf("seed %d: two runs differ (%s, %s)", seed, verdicts[0], verdicts[1])
				}
				if verdicts[0] == mcsdk.Violated {
					violated++
				}
			}
			if tc.bug && violated == 0 {
				t.Error("no seed of the bug model violated acked_on_majority")
			}
			if !tc.bug && violated > 0 {
				t.Errorf("%d seeds of the fixed model violated acked_on_majority", violated)
			}
		})
	}
}
