//go:build linux

package kernel

import (
	"context"
	"fmt"
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
	out := filepath.Join(t.TempDir(), "ds")
	code := fmt.Sprintf(`
import (
	"github.com/weft-mc/weft/mcsdk"
	"github.com/weft-mc/weft/mcsdk/model"
)
m, err := model.Load(%q)
if err != nil {
	panic(err)
}
p := display.NewProgress("campaign", 2000)
_, err = mcsdk.Campaign(display.Context(), m, mcsdk.CampaignOptions{Seeds: 1000, Jobs: 1, Out: %q,
	Progress: func(pr mcsdk.CampaignProgress) { p.Set(pr.Done) }})
if err != nil {
	panic(err)
}
`, model, out)
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
	// The campaign returns after its run in flight; wait for the dataset.
	var rows []dataset.Row
	for i := 0; i < 300; i++ {
		if rows, err = dataset.ReadRows(out); err == nil && len(rows) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(rows) == 0 {
		t.Fatalf("no completed run was kept: %v", err)
	}
	if len(rows) >= 2000 {
		t.Fatalf("the campaign ran to completion (%d rows) despite the interrupt", len(rows))
	}
	t.Logf("interrupted after %d of 2000 runs; the dataset kept them", len(rows))
}
