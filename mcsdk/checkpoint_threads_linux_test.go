//go:build linux

package mcsdk_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)

// TestCheckpointsThreadedSearch checks targets/gothreads (the Go
// runtime's threads, each switch a choice) to a small depth with and
// without checkpoints: the searches agree (checkBothWays), and threaded
// states were checkpointed and their siblings restored. A state may be
// refused (a thread held at its clone); that is counted, not an error.
func TestCheckpointsThreadedSearch(t *testing.T) {
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
	on, _ := checkBothWays(t, m, "", 4, mcsdk.DefaultCheckpoints)
	c := on.Checkpoints
	if c.Failed > 0 {
		t.Errorf("%d restores failed (%s)", c.Failed, c.FailedWhy)
	}
	if c.Taken == 0 || c.Restores == 0 {
		t.Errorf("%d checkpoints taken, %d restores (%d refused: %s)", c.Taken, c.Restores, c.Refused, c.Why)
	}
}
