//go:build linux && amd64

package supervisor

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestCheckpointKeepsHeldSignal checkpoints a node whose every thread is
// held in a ptrace stop (the heldsig probe's main thread at its clone's
// event, the thread it made at its birth) after a SIGUSR1 was queued for
// the new thread, which runs no code before it is resumed, as a kill(2)
// or a timer of the world queues it (raise). The checkpoint forks the
// node from that thread by an injected clone (pickForker: the first held
// outside a call), so the signal is pending when weft drives it through
// the clone; the thread must still take it when it first runs, as Linux
// delivers it at the thread's first return to user space: its handler
// writes "usr1" before the thread writes "child". (weft resumed the
// signal's delivery stop met during the injected clone with no signal,
// and the handler never ran.)
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
	cp, err := w.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
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
