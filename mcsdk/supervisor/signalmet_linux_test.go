//go:build linux && amd64

package supervisor

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCheckpointKeepsHeldSignal queues a SIGUSR1 for a thread held in a
// ptrace stop at its birth (the heldsig probe's new thread, which runs no
// code before it is resumed; its main thread is held at its clone's
// event), as a kill(2) or a timer of the world queues it (raise), then
// checkpoints the node. A fork does not copy pending signals, so a frozen
// copy of the node would lack it and a branch restored from it would run
// without the handler: the checkpoint is refused, naming the signal
// (pendingSignals), and the node goes on to take it when the thread first
// runs, as Linux delivers it at the thread's first return to user space:
// its handler writes "usr1" before the thread writes "child". (Before, the
// checkpoint forked from that thread by an injected clone and the signal
// was lost in the node as well: weft resumed the delivery stop met during
// the clone with no signal; sig18 blocked signals around injections,
// which kept it in the node but not in the copy.)
func TestCheckpointKeepsHeldSignal(t *testing.T) {
	bin := buildProbe(t, "heldsig", "-O1")
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for steps := 0; len(w.Ready()) < 2; steps++ {
		acts := w.Enabled()
		if len(acts) == 0 || steps > 100 {
			t.Fatalf("the probe's threads were never both held (output %q, failure %v)", w.Output(0), w.Failure())
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	n := w.nodes[0]
	var born *task
	for _, k := range n.tasks {
		if k.held && !k.cloned && k.k != 0 {
			born = k
		}
	}
	if born == nil {
		t.Fatal("no thread held at its birth")
	}
	if err := w.raise(n, born, int(unix.SIGUSR1), nil); err != nil {
		t.Fatal(err)
	}
	if cp, err := w.Checkpoint(); err == nil {
		cp.Close()
		t.Fatal("checkpointed a node with SIGUSR1 pending for a held thread: its copy lacks the signal")
	} else if !strings.Contains(err.Error(), "signal 10 pending") {
		t.Fatalf("checkpoint refused for another reason: %v", err)
	}
	for acts := w.Enabled(); len(acts) > 0; acts = w.Enabled() {
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	if got, want := string(w.Output(0)), "usr1\nchild\ndone\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	if st := w.Status(0); !st.Exited || st.ExitCode != 0 {
		t.Errorf("status %+v, want exit 0", st)
	}
}
