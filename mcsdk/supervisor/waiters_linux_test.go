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

// TestSettleSparesDescriptorWaits runs the waiters probe: nine threads
// of one node park on their own objects (a read on a pipe, a recv on an
// AF_UNIX stream socket, an accept on an AF_UNIX listener, a read on an
// eventfd, an epoll wait on a pipe and an eventfd, a poll and a select on
// pipes, an rt_sigsuspend for SIGUSR1, a wait4 for a child it forked,
// which reads a pipe) while the main thread sleeps 1 ms
// at a time, each wake-up of which would retry them all. Their waits are
// declared (waiters_linux.go), so settle must spare those retries, each
// kind at least once per sleep; then the main thread wakes each waiter by
// writing to its object (the sigsuspend by pthread_kill, the wait4 by
// writing to its child's pipe), and
// each must wake and report what it got (a spared retry that should have
// completed leaves its thread parked for ever: the run ends with the node
// blocked, not exited). go test -tags weftverify dispatches every spared
// retry anyway and fails the run unless it parks unchanged.
func TestSettleSparesDescriptorWaits(t *testing.T) {
	bin := buildProbe(t, "waiters", "-O1", "-pthread")
	const sleeps = 40
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{strconv.Itoa(sleeps)}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	steps := 0
	for acts := w.Enabled(); len(acts) > 0 && steps < 100000; acts = w.Enabled() {
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
		steps++
	}
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	want := "pipe read 1\nunix recv 1\nunix accept 1\neventfd read 1\nepoll events 2\npoll 1\nselect 1\nsigsuspend 1\nwait4 7\ndone\n"
	if got := string(w.Output(0)); got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if st := w.Status(0); !st.Exited || st.ExitCode != 0 {
		t.Errorf("status %+v, want exit 0", st)
	}
	t.Logf("%d retries spared by declared waits (%v), %d skipped in all, in %d steps", w.spared, w.sparedBy, w.skipped, steps)
	for _, names := range [][]string{{"read"}, {"recvfrom"}, {"accept", "accept4"}, {"epoll_wait", "epoll_pwait"}, {"poll", "ppoll"}, {"select", "pselect6"}, {"rt_sigsuspend"}, {"wait4"}} {
		n := 0
		for _, name := range names {
			n += w.sparedBy[name]
		}
		want := sleeps * 9 / 10 // a waiter may park after the first sleeps began
		if names[0] == "read" {
			want *= 3 // the pipe's reader, the eventfd's and the wait4's child
		}
		if n < want {
			t.Errorf("settle spared %d retries of %v, want at least %d (about one per sleep of each waiter)", n, names, want)
		}
	}
}
