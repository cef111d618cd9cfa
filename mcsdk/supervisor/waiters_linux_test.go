//go:build linux && amd64

package supervisor

import (
	"strconv"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// TestSettleSkipsUnwokenRetries runs the bench ping-pong with a third node
// whose connection node 1 never accepts, so that it stays parked in recv
// while the other two exchange messages (until node 1's exit resets it):
// settle must spare its retries after the first of each action (nothing it
// waits for changes). go test -tags weftverify dispatches every skipped
// retry anyway and fails the run unless it parks unchanged.
func TestSettleSkipsUnwokenRetries(t *testing.T) {
	bin := buildBench(t)
	const rounds = 50
	var specs []NodeSpec
	for i := 0; i < 3; i++ {
		specs = append(specs, NodeSpec{Path: bin, Args: []string{strconv.Itoa(i), "7400", "pingpong", strconv.Itoa(rounds)}})
	}
	w, err := Start(Config{Nodes: specs, BasePort: 7400})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	delivered := 0
	for {
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if acts[0].Kind == sched.Deliver {
			delivered++
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	if w.skipped < 2*rounds {
		t.Errorf("settle skipped %d retries in %d deliveries, want at least %d (node 2's parked recv, once per message)", w.skipped, delivered, 2*rounds)
	}
	t.Logf("%d retries skipped in %d deliveries", w.skipped, delivered)
}

// TestSettleSparesDeclaredWaits runs the Go ping-pong (two nodes, each a
// Go runtime whose idle threads wait in futex while another thread of the
// node runs): a futex wait that has queued itself declares that only its
// own events end it, so settle must spare its retries even though the
// world changed (a node ran). go test -tags weftverify dispatches every
// spared retry anyway and fails the run unless it parks unchanged.
func TestSettleSparesDeclaredWaits(t *testing.T) {
	bin := buildGoEcho(t)
	const rounds = 20
	var specs []NodeSpec
	for i := 0; i < 2; i++ {
		specs = append(specs, NodeSpec{Path: bin, Args: []string{strconv.Itoa(i), "7400", "pingpong", strconv.Itoa(rounds)}})
	}
	w, err := Start(Config{Nodes: specs, BasePort: 7400})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	steps := 0
	for acts := w.Enabled(); len(acts) > 0; acts = w.Enabled() {
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
		steps++
	}
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	if w.spared < rounds {
		t.Errorf("settle spared %d retries of calls that declared their waits in %d steps, want at least %d", w.spared, steps, rounds)
	}
	t.Logf("%d retries spared by declared waits, %d skipped in all, in %d steps", w.spared, w.skipped, steps)
}
