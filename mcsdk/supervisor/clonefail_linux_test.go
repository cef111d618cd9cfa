//go:build linux && amd64

package supervisor

import (
	"os/exec"
	"testing"
	"time"
)

// TestCloneFailsInKernel runs testdata/clonefail.c natively and under
// weft: thread clones the kernel refuses after weft let them through
// (EPERM for their TLS base) answer the node as natively, and weft, which
// waits for the clone's ptrace event (awaitEvent), sees the thread's next
// call instead and serves it; a clone that succeeds then is served too.
func TestCloneFailsInKernel(t *testing.T) {
	bin := buildProbe(t, "clonefail", "-O1", "-Wall")
	native, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin}}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var out []byte
	go func() {
		defer close(done)
		applyFirst(w)
		out = w.Output(0)
		w.Close()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the node's run did not end within a minute")
	}
	if f := w.Failure(); f != nil {
		t.Fatalf("failure: %v\noutput:\n%s", f, out)
	}
	if got := string(out); got != string(native) {
		t.Errorf("under weft:\n%s\nnatively:\n%s", got, native)
	}
}
