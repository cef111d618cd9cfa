//go:build linux

package kernel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/weft-mc/weft/kernel/display"
	"github.com/weft-mc/weft/kernel/engine"
	"github.com/weft-mc/weft/mcsdk/dataset"
)

// updates counts the live progress updates a cell publishes.
type updates struct {
	discard
	mu sync.Mutex
	n  int
}

func (u *updates) Update(string, display.Data) error {
	u.mu.Lock()
	u.n++
	u.mu.Unlock()
	return nil
}

func (u *updates) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.n
}

// TestCampaignCellInterrupt starts a real campaign from a cell with a live
// progress display, interrupts the cell once some runs are done, and checks
// that the campaign stopped before finishing and kept every completed run
// in its dataset.
func TestCampaignCellInterrupt(t *testing.T) {
	eng, err := engine.New(DefaultOptions().Engine)
	if err != nil {
		t.Fatal(err)
	}
	model, err := filepath.Abs("../targets/election/election.model")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, done := filepath.Join(dir, "ds"), filepath.Join(dir, "returned")
	// The cell writes done once Campaign has returned: the interrupt ends
	// the cell at once, the campaign only after its run in flight, and
	// the test must not remove the dataset while it is still written.
	code := fmt.Sprintf(`
import (
	"os"

	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)
m, err := model.Load(%q)
if err != nil {
	panic(err)
}
p := display.NewProgress("campaign", 2000)
func() {
	defer os.WriteFile(%q, []byte("returned"), 0o644)
	mcsdk.Campaign(display.Context(), m, mcsdk.CampaignOptions{Seeds: 1000, Jobs: 1, Out: %q,
		Progress: func(pr mcsdk.CampaignProgress) { p.Set(pr.Done) }})
}()
`, model, done, out)
	pub := &updates{}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for pub.count() < 5 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	_, err = eng.Execute(ctx, code, pub)
	if err == nil {
		t.Fatal("the interrupted cell reported no error")
	}
	// The campaign returns after its run in flight; wait for it.
	for i := 0; i < 3000; i++ {
		if _, err := os.Stat(done); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(done); err != nil {
		t.Fatalf("Campaign did not return within 60 s of the interrupt: %v", err)
	}
	rows, err := dataset.ReadRows(out)
	if len(rows) == 0 {
		t.Fatalf("no completed run was kept: %v", err)
	}
	if len(rows) >= 2000 {
		t.Fatalf("the campaign ran to completion (%d rows) despite the interrupt", len(rows))
	}
	t.Logf("interrupted after %d of 2000 runs; the dataset kept them", len(rows))
}
