//go:build linux && amd64

package supervisor

import (
	"slices"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// hugeStates are the probes of testdata/hugestate.c, each parking a node
// with state only a timeout past the clock's range makes: a sleep's
// saturated end (call.sleepEnd), a ppoll's start (call.waitStart), a
// timer armed past the range (vkernel.Never, its base reading hashed by
// HashLocal), a negative SO_RCVTIMEO (kept as {-1, 0}). other, when set,
// is the same probe with only that state different: the two must hash
// apart without memory (HashGlobals), since nothing else tells them
// apart outside the node's memory.
var hugeStates = []struct {
	name        string
	args, other []string
}{
	{"sleepEnd", []string{"sleep", "9000000000"}, []string{"sleep", "9100000000"}},
	{"waitStart", []string{"ppoll", "9000000000"}, nil}, // the start is the clock's: it differs only with the time
	{"Never timer", []string{"timerfd", "9000000000"}, []string{"timerfd", "9100000000"}},
	{"negative SO_RCVTIMEO", []string{"rcvtimeo", "-1"}, []string{"rcvtimeo", "0"}},
}

// hugeRun is one run of a probe to its end, applying each quiescent
// point's first action: its hashes (memory included) before each action,
// the actions, their descriptions and the output.
type hugeRun struct {
	hashes []([32]byte)
	acts   []sched.Action
	desc   []string
	out    string
}

func runHuge(t *testing.T, cfg Config) hugeRun {
	t.Helper()
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var r hugeRun
	for step := 0; ; step++ {
		if step > 100 {
			t.Fatal("more than 100 steps")
		}
		r.hashes = append(r.hashes, mustHash(t, w))
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		r.acts = append(r.acts, acts[0])
		r.desc = append(r.desc, w.Describe(acts[0]))
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if st := w.Status(0); !st.Exited || st.ExitCode != 0 {
		t.Fatalf("status %+v\n%s", st, w.Output(0))
	}
	r.out = string(w.Output(0))
	return r
}

// TestHugeStateDeterminism runs each probe twice: identical hashes at
// every step, identical recordings (actions and what they did) and
// output. Then, at every step, a checkpoint of the first run's world,
// restored, continues exactly as the run did (the replayed branch): the
// same hash after each of the remaining actions and the same output. And
// the probe with only the state changed hashes apart from it at each
// step the node is parked with that state.
func TestHugeStateDeterminism(t *testing.T) {
	bin := buildProbe(t, "hugestate", "-O1", "-Wall")
	config := func(args []string) Config {
		return Config{Nodes: []NodeSpec{{Path: bin, Args: args, Env: []string{"PATH=/usr/bin:/bin"}}}, BasePort: 7000, Seed: 1}
	}
	for _, tc := range hugeStates {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(tc.args)
			a, b := runHuge(t, cfg), runHuge(t, cfg)
			if !slices.Equal(a.hashes, b.hashes) || !slices.Equal(a.desc, b.desc) || a.out != b.out {
				t.Fatalf("two runs differ:\n%q\n%s\n---\n%q\n%s", a.desc, a.out, b.desc, b.out)
			}
			t.Logf("%d steps %q: %s", len(a.acts), a.desc, a.out)
			checkpointsContinue(t, cfg, a)
			if tc.other != nil {
				hashesApart(t, cfg, config(tc.other), len(a.acts))
			}
		})
	}
}

// checkpointsContinue takes a checkpoint at every step of a replay of
// run and checks that its restore, given the remaining actions, hashes as
// run did after each and ends with the same output.
func checkpointsContinue(t *testing.T, cfg Config, run hugeRun) {
	t.Helper()
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range run.acts {
		cp, err := w.Checkpoint()
		if err != nil {
			t.Fatalf("step %d: checkpoint: %v", i, err)
		}
		r, err := cp.Restore()
		if err != nil {
			cp.Close()
			t.Fatalf("step %d: restore: %v", i, err)
		}
		for j := i; j < len(run.acts); j++ {
			if got := mustHash(t, r); got != run.hashes[j] {
				t.Errorf("restored at step %d: step %d hashes %x, the run %x", i, j, got[:6], run.hashes[j][:6])
			}
			if err := r.Apply(run.acts[j]); err != nil {
				t.Fatal(err)
			}
		}
		if got := string(r.Output(0)); got != run.out {
			t.Errorf("restored at step %d: output\n%s\nthe run's\n%s", i, got, run.out)
		}
		r.Close()
		cp.Close()
		if err := w.Apply(run.acts[i]); err != nil {
			t.Fatal(err)
		}
	}
}

// hashesApart runs cfg and other side by side for steps actions and
// checks that from the first step the node is parked on they hash apart
// (without memory, in which they differ anyway) at some step: the state
// they differ in is in the hash.
func hashesApart(t *testing.T, cfg, other Config, steps int) {
	t.Helper()
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	v, err := Start(other)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	apart := 0
	for i := 0; i < steps; i++ {
		hw, err := w.Hash(HashGlobals, nil)
		if err != nil {
			t.Fatal(err)
		}
		hv, err := v.Hash(HashGlobals, nil)
		if err != nil {
			t.Fatal(err)
		}
		if hw != hv {
			apart++
		}
		aw, av := w.Enabled(), v.Enabled()
		if len(aw) == 0 || len(av) == 0 {
			break
		}
		if err := w.Apply(aw[0]); err != nil {
			t.Fatal(err)
		}
		if err := v.Apply(av[0]); err != nil {
			t.Fatal(err)
		}
	}
	if apart == 0 {
		t.Errorf("%v and %v hash alike at every step without memory", cfg.Nodes[0].Args, other.Nodes[0].Args)
	}
}
