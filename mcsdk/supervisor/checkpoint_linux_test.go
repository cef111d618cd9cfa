//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk/sched"
	"golang.org/x/sys/unix"
)

// checkpointTargets are real C targets the checkpoints serve, with the
// configuration their models give them.
var checkpointTargets = []struct {
	name, src string
	nodes     int
	client    []ClientRequest
	dataDirs  bool // crashes (losing unsynced writes) and restarts, with data directories
}{
	{"repl", "../../targets/repl/repl.c", 2, []ClientRequest{{Node: 0, Data: []byte("WRITE 5\n")}}, false},
	{"quorum", "../../targets/quorum/quorum.c", 3, []ClientRequest{{Node: 0, Data: []byte("WRITE 7\n")}}, false},
	{"election", "../../targets/election/election.c", 3, nil, true},
	// paxos keeps its acceptor file open: reopened in each copy.
	{"paxos", "../../targets/paxos/paxos.c", 3, []ClientRequest{{Node: 0, Data: []byte("PUT 0 1 0 0\n")}, {Node: 2, Data: []byte("PUT 0 2 1 0\n")}}, true},
}

func checkpointConfig(t *testing.T, src string, nodes int, client []ClientRequest, dataDirs bool) Config {
	bin := buildC(t, src)
	cfg := Config{BasePort: 7400, Client: client, DataDirs: dataDirs, LoseUnsynced: dataDirs}
	for i := 0; i < nodes; i++ {
		cfg.Nodes = append(cfg.Nodes, NodeSpec{Path: bin, Args: []string{fmt.Sprint(i), fmt.Sprint(nodes), "7400"}, Env: []string{"PATH=/usr/bin:/bin"}})
	}
	return cfg
}

// TestCheckpointHashes walks random paths through real targets and, at
// every state, takes a checkpoint and restores it twice: each restored
// world hashes (memory included) as the world it was taken from and as a
// fresh world that replayed the path, and stays so after the same next
// action is applied to all of them. The frozen processes serve every
// restore (one checkpoint, many siblings). With data directories the walk
// crashes and restarts nodes too, so restarted nodes read the copies.
func TestCheckpointHashes(t *testing.T) {
	for _, tc := range checkpointTargets {
		t.Run(tc.name, func(t *testing.T) {
			cfg := checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs)
			rng := rand.New(rand.NewPCG(1, 2))
			states, files := 0, 0
			for walk := 0; walk < 3; walk++ {
				s, f := checkpointWalk(t, cfg, rng, 8)
				states, files = states+s, files+f
			}
			if states < 10 {
				t.Fatalf("only %d states compared", states)
			}
			if tc.name == "paxos" && files == 0 {
				t.Fatal("no checkpoint had a host file to reopen")
			}
		})
	}
}

// checkpointWalk follows one random path of up to depth actions and
// compares the worlds at each state; it returns how many states it
// compared and how many host files the checkpoints reopened.
func checkpointWalk(t *testing.T, cfg Config, rng *rand.Rand, depth int) (int, int) {
	t.Helper()
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var path []sched.Action
	compared, files := 0, 0
	for len(path) < depth {
		acts := walkActions(w, cfg)
		if len(acts) == 0 {
			break
		}
		cp, err := w.Checkpoint()
		if err != nil {
			t.Fatalf("after %v: checkpoint: %v", path, err)
		}
		for _, fs := range cp.files {
			files += len(fs)
		}
		want := mustHash(t, w)
		a := acts[rng.IntN(len(acts))]
		for k := 0; k < 2; k++ {
			r, err := cp.Restore()
			if err != nil {
				cp.Close()
				t.Fatalf("after %v: restore %d: %v", path, k, err)
			}
			if got := mustHash(t, r); got != want {
				t.Errorf("after %v: restore %d hashes %x, the original %x", path, k, got[:6], want[:6])
			}
			if err := r.Apply(a); err != nil {
				t.Fatal(err)
			}
			replayed := replayWorld(t, cfg, append(path[:len(path):len(path)], a))
			if got, rep := mustHash(t, r), mustHash(t, replayed); got != rep {
				t.Errorf("after %v %v: restore %d hashes %x, the replayed world %x", path, a, k, got[:6], rep[:6])
			}
			replayed.Close()
			r.Close()
		}
		cp.Close()
		if got := mustHash(t, w); got != want {
			t.Errorf("after %v: taking the checkpoint changed the world's hash", path)
		}
		if err := w.Apply(a); err != nil {
			t.Fatal(err)
		}
		if f := w.Failure(); f != nil {
			t.Fatalf("after %v %v: %v", path, a, f)
		}
		path = append(path, a)
		compared++
	}
	return compared, files
}

// walkActions is what a random walk may do next in w: its enabled
// actions and, with data directories, a crash of each live node and a
// restart of each killed one.
func walkActions(w *World, cfg Config) []sched.Action {
	acts := w.Enabled()
	if cfg.DataDirs {
		for i := range cfg.Nodes {
			switch st := w.Status(i); {
			case st.Alive:
				acts = append(acts, sched.Action{Kind: sched.Crash, Node: i})
			case st.Killed:
				acts = append(acts, sched.Action{Kind: sched.Restart, Node: i})
			}
		}
	}
	return acts
}

func mustHash(t *testing.T, w *World) [32]byte {
	t.Helper()
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	h, err := w.Hash(HashMemory, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func replayWorld(t *testing.T, cfg Config, path []sched.Action) *World {
	t.Helper()
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range path {
		if err := w.Apply(a); err != nil {
			w.Close()
			t.Fatal(err)
		}
	}
	return w
}

// TestCheckpointRefusals checks that what a fork cannot copy is refused
// with a reason (the explorer replays instead) and leaves the world as
// it was.
func TestCheckpointRefusals(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(Config) Config
		want string
	}{
		{"survey", func(c Config) Config { c.Survey = true; return c }, "survey"},
		{"native TSC", func(c Config) Config { c.NativeTSC = true; return c }, "native TSC"},
	}
	base := checkpointConfig(t, "../../targets/repl/repl.c", 2, nil, false)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Start(tc.cfg(base))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			before := mustHash(t, w)
			_, err = w.Checkpoint()
			if !errors.Is(err, ErrNoCheckpoint) {
				t.Fatalf("checkpoint: %v, want a refusal", err)
			}
			if !containsStr(err.Error(), tc.want) {
				t.Errorf("refusal %q does not say %q", err, tc.want)
			}
			if mustHash(t, w) != before {
				t.Error("a refused checkpoint changed the world")
			}
		})
	}
}

func containsStr(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// BenchmarkCheckpoint measures, on quorum after its client request, a
// checkpoint, a restore, and what a restore replaces: a fresh world
// replaying the one step.
func BenchmarkCheckpoint(b *testing.B) {
	bin := buildProbeC(b, "../../targets/quorum/quorum.c")
	cfg := Config{BasePort: 7400, Client: []ClientRequest{{Node: 0, Data: []byte("WRITE 7\n")}}}
	for i := 0; i < 3; i++ {
		cfg.Nodes = append(cfg.Nodes, NodeSpec{Path: bin, Args: []string{fmt.Sprint(i), "3", "7400"}, Env: []string{"PATH=/usr/bin:/bin"}})
	}
	step := sched.Action{Kind: sched.Client, Req: 0}
	w, err := Start(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if err := w.Apply(step); err != nil {
		b.Fatal(err)
	}
	b.Run("checkpoint", func(b *testing.B) {
		for range b.N {
			cp, err := w.Checkpoint()
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			cp.Close()
			b.StartTimer()
		}
	})
	b.Run("restore", func(b *testing.B) {
		cp, err := w.Checkpoint()
		if err != nil {
			b.Fatal(err)
		}
		defer cp.Close()
		for range b.N {
			r, err := cp.Restore()
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			r.Close()
			b.StartTimer()
		}
	})
	b.Run("replay", func(b *testing.B) {
		for range b.N {
			r, err := Start(cfg)
			if err != nil {
				b.Fatal(err)
			}
			if err := r.Apply(step); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			r.Close()
			b.StartTimer()
		}
	})
}

func buildProbeC(b *testing.B, src string) string {
	out := b.TempDir() + "/quorum"
	if msg, err := exec.Command("cc", "-O1", "-Wall", "-o", out, src).CombinedOutput(); err != nil {
		b.Fatalf("cc %s: %v\n%s", src, err, msg)
	}
	return out
}

// TestCheckpointInterruptProbe is the probe the checkpoints build on, on
// this kernel: a node parked in a notification weft has received is
// taken out of it by PTRACE_INTERRUPT followed by an answer (the wait is
// killable only, SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, so on 6.18 the
// interrupt alone does not end it; the test reports which happened, and
// freeze handles both, an answer finding no notification being ENOENT);
// it then stops
// with the parked call's number in orig_rax and its instruction pointer
// after a syscall instruction; put back there, it issues the call again
// under a new notification id with the same arguments, and the world
// goes on as if nothing happened (its hash, and after one more action the
// hash of a world that replayed it).
func TestCheckpointInterruptProbe(t *testing.T) {
	cfg := checkpointConfig(t, "../../targets/repl/repl.c", 2, []ClientRequest{{Node: 0, Data: []byte("WRITE 5\n")}}, false)
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	before := mustHash(t, w)
	n := w.nodes[0]
	c := n.tasks[0].call
	if c == nil {
		t.Fatal("node 0 is not parked")
	}
	old := c.req
	var alone bool
	var regs unix.PtraceRegs
	err = onLauncher(n.tracer, func() error {
		if err := ptraceInterrupt(n.pid); err != nil {
			return err
		}
		deadline := time.Now().Add(100 * time.Millisecond)
		for !alone && time.Now().Before(deadline) {
			got, _, err := wait4(n.pid, unix.WNOHANG)
			if err != nil {
				return err
			}
			alone = got == n.pid
			time.Sleep(time.Millisecond)
		}
		if !alone {
			r := notifResp{ID: c.req.ID, Val: -1, Error: -int32(unix.EINTR)}
			if err := sendResp(n.listener, &r); err != nil {
				return fmt.Errorf("answering: %v", err)
			}
			if _, err := awaitStop(n.pid, nil); err != nil {
				return err
			}
		}
		return unix.PtraceGetRegs(n.pid, &regs)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("PTRACE_INTERRUPT alone ended the notification wait: %v", alone)
	insn := make([]byte, 2)
	if k, _ := readMem(n.pid, uintptr(old.Data.InstructionPointer-2), insn); k != 2 || insn[0] != 0x0f || insn[1] != 0x05 {
		t.Fatalf("no syscall instruction before %#x: % x", old.Data.InstructionPointer, insn)
	}
	if regs.Orig_rax != uint64(old.Data.Nr) || regs.Rip != old.Data.InstructionPointer {
		t.Fatalf("stopped with orig_rax %d at %#x, the call was %d at %#x", regs.Orig_rax, regs.Rip, old.Data.Nr, old.Data.InstructionPointer)
	}
	regs.Rax = regs.Orig_rax
	if err := onLauncher(n.tracer, func() error { return reissue(n.pid, regs, old.Data.InstructionPointer-2) }); err != nil {
		t.Fatal(err)
	}
	if err := receiveReissued(n); err != nil {
		t.Fatal(err)
	}
	if c.req.ID == old.ID || c.req.Data != old.Data {
		t.Errorf("issued again as id %d %+v, was id %d %+v: want a new id, the same call", c.req.ID, c.req.Data, old.ID, old.Data)
	}
	if mustHash(t, w) != before {
		t.Error("the world hashes differently after the probe")
	}
	a := w.Enabled()[0]
	if err := w.Apply(a); err != nil {
		t.Fatal(err)
	}
	r := replayWorld(t, cfg, []sched.Action{a})
	defer r.Close()
	if mustHash(t, w) != mustHash(t, r) {
		t.Errorf("after %v the probed world and a replayed one differ", a)
	}
}

// TestCheckpointTSC restores testdata/tsc.c parked in its one-second
// sleep: the copy's rdtsc still traps and reads the virtual counter, so
// the restored node prints what the original prints.
func TestCheckpointTSC(t *testing.T) {
	bin := buildC(t, "testdata/tsc.c")
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Env: []string{"PATH=/usr/bin:/bin"}}}, BasePort: 7400})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cp, err := w.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	r, err := cp.Restore()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, x := range []*World{w, r} {
		for acts := x.Enabled(); len(acts) > 0; acts = x.Enabled() {
			if err := x.Apply(acts[0]); err != nil {
				t.Fatal(err)
			}
		}
		if f := x.Failure(); f != nil {
			t.Fatal(f)
		}
	}
	want, got := string(w.Output(0)), string(r.Output(0))
	if !containsStr(want, "increasing 1") || got != want {
		t.Errorf("restored node printed %q, the original %q", got, want)
	}
}
