//go:build linux && amd64

package supervisor

import (
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// TestStateQuery runs testdata/kv.c with a state query: the reply is read
// at the start and after every transition, its traffic is not a client
// reply and takes no step or virtual time, a crashed node keeps its last
// reply, and two worlds given the same actions hash the same.
func TestStateQuery(t *testing.T) {
	bin := buildC(t, "testdata/kv.c")
	cfg := Config{
		Nodes:    []NodeSpec{{Path: bin, Args: []string{"7000"}, Env: []string{"PATH=/usr/bin:/bin"}}},
		BasePort: 7000,
		Client:   []ClientRequest{{Node: 0, Data: []byte("SET 5\n")}},
		Queries:  []StateQuery{{Node: 0, Data: []byte("GET\n")}},
	}
	start := func() *World {
		w, err := Start(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	reply := func(w *World) string {
		t.Helper()
		qs := w.QueryReplies()
		if len(qs) != 1 || qs[0].Err != "" {
			t.Fatalf("query replies = %+v, want one without error", qs)
		}
		return string(qs[0].Data)
	}
	w := start()
	defer w.Close()
	if got := reply(w); got != "VAL 0\n" {
		t.Errorf("first reply %q, want %q", got, "VAL 0\n")
	}
	if err := w.Apply(sched.Action{Kind: sched.Client, Req: 0}); err != nil {
		t.Fatal(err)
	}
	if got := reply(w); got != "VAL 5\n" {
		t.Errorf("reply after SET 5: %q, want %q", got, "VAL 5\n")
	}
	if rs := w.Replies(); len(rs) != 1 || rs[0].Line != "OK" {
		t.Errorf("client replies = %+v, want only the client's OK (the query's VAL lines are not replies)", rs)
	}
	if w.Steps() != 1 || w.Now() != Epoch {
		t.Errorf("steps %d, time %d: the queries must take neither steps nor virtual time", w.Steps(), w.Now()-Epoch)
	}
	h1, err := w.Hash(HashMemory, nil)
	if err != nil {
		t.Fatal(err)
	}
	w2 := start()
	defer w2.Close()
	if err := w2.Apply(sched.Action{Kind: sched.Client, Req: 0}); err != nil {
		t.Fatal(err)
	}
	if h2, err := w2.Hash(HashMemory, nil); err != nil || h1 != h2 {
		t.Errorf("the same actions with queries hash differently: %x vs %x (%v)", h1, h2, err)
	}
	if err := w.Apply(sched.Action{Kind: sched.Crash, Node: 0}); err != nil {
		t.Fatal(err)
	}
	if got := reply(w); got != "VAL 5\n" {
		t.Errorf("a crashed node must keep its last reply, got %q", got)
	}
}

// TestStateQueryRefused: a query to a port nobody listens on reports the
// refusal instead of a reply.
func TestStateQueryRefused(t *testing.T) {
	bin := buildC(t, "testdata/kv.c")
	w, err := Start(Config{
		Nodes:    []NodeSpec{{Path: bin, Args: []string{"7005"}, Env: []string{"PATH=/usr/bin:/bin"}}},
		BasePort: 7000,
		Queries:  []StateQuery{{Node: 0, Data: []byte("GET\n")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if qs := w.QueryReplies(); len(qs) != 1 || qs[0].Err == "" || len(qs[0].Data) != 0 {
		t.Errorf("query replies = %+v, want a refused connection", qs)
	}
}

// TestStateQueryWaitsForQuiescence: a node whose threads wait for a Run
// choice is not at a quiescent point and is not queried; once the
// scheduler has run them and the node parks, the query is answered.
func TestStateQueryWaitsForQuiescence(t *testing.T) {
	bin := buildC(t, "testdata/kv.c")
	w, err := Start(Config{
		Nodes:    []NodeSpec{{Path: bin, Args: []string{"7000"}, Env: []string{"PATH=/usr/bin:/bin", "KV_THREAD=1"}}},
		BasePort: 7000,
		Queries:  []StateQuery{{Node: 0, Data: []byte("GET\n")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if len(w.Ready()) == 0 {
		t.Fatal("the node's two threads should wait for a Run choice after the clone")
	}
	if qs := w.QueryReplies(); len(qs) != 1 || len(qs[0].Data) != 0 || qs[0].Err != "" {
		t.Fatalf("query replies %+v before quiescence, want none sent", qs)
	}
	for steps := 0; len(w.Ready()) > 0; steps++ {
		if steps > 100 {
			t.Fatal("threads still ready after 100 Run choices")
		}
		if err := w.Apply(w.Ready()[0]); err != nil {
			t.Fatal(err)
		}
	}
	if qs := w.QueryReplies(); string(qs[0].Data) != "VAL 0\n" {
		t.Errorf("reply at quiescence %q, want %q", qs[0].Data, "VAL 0\n")
	}
}
