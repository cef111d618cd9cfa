//go:build linux

package supervisor

import (
	"testing"
)

func TestSmokeRepl(t *testing.T) {
	specs := []NodeSpec{
		{Path: "/tmp/repl", Args: []string{"0", "2", "7000"}},
		{Path: "/tmp/repl", Args: []string{"1", "2", "7000"}},
	}
	w, err := Start(Config{Nodes: specs, BasePort: 7000, Client: []ClientRequest{{Node: 0, Data: []byte("WRITE 5\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for step := 0; step < 10; step++ {
		acts := w.Enabled()
		t.Logf("step %d: status0=%+v status1=%+v acts=%v failure=%v", step, w.Status(0), w.Status(1), acts, w.Failure())
		if len(acts) == 0 {
			break
		}
		t.Logf("apply %s", w.Describe(acts[0]))
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("replies %+v", w.Replies())
}
