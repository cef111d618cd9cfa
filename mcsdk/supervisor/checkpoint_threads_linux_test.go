//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// branchPoints is how many random branch points TestCheckpointThreads
// checks on a target: def (10 for C, fewer for Go, whose every replay
// starts a Go runtime), or WEFT_CHECKPOINT_POINTS for every target (issue
// 38 asks for 50: WEFT_CHECKPOINT_POINTS=50 go test -run
// TestCheckpointThreads -timeout 2h ./mcsdk/supervisor/).
func branchPoints(t *testing.T, def int) int {
	if s := os.Getenv("WEFT_CHECKPOINT_POINTS"); s != "" {
		k, err := strconv.Atoi(s)
		if err != nil || k <= 0 {
			t.Fatalf("WEFT_CHECKPOINT_POINTS=%q: want a positive count", s)
		}
		return k
	}
	return def
}

// buildGoThreads builds targets/gothreads once per test binary.
func buildGoThreads(tb testing.TB) string {
	tb.Helper()
	out := filepath.Join(probeDir, "gothreads")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	if msg, err := exec.Command("go", "build", "-o", out, "../../targets/gothreads").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, msg)
	}
	return out
}

// TestCheckpointThreads checkpoints threaded nodes (pthreads in C, and
// the Go runtime's threads) at random branch points of random runs and
// continues each restored world, twice, along a random path next to a
// world that replayed the prefix from the start: at the branch point and
// after every step both hash the same (memory, registers and every
// thread's state included) and offer the same actions, and at the end
// their outputs are byte-identical. The original world hashes as before
// the checkpoint was taken. A state that cannot be checkpointed is
// passed over; at least one branch point of each target has several
// live threads, and on the C targets one has a thread held at its clone
// (glibc's clone3, issued again in each copy).
func TestCheckpointThreads(t *testing.T) {
	threads := buildThreads(t)
	targets := []struct {
		name   string
		cfg    Config
		depth  int  // branch points are drawn from the first depth steps
		points int  // by default
		clone  bool // some default branch point has a thread held at its clone
	}{
		{"pthreads join", Config{Nodes: []NodeSpec{{Path: threads, Args: []string{"join"}}}}, 30, 10, true},
		{"pthreads pingpong", Config{Nodes: []NodeSpec{{Path: threads, Args: []string{"pingpong", "6"}}}}, 40, 10, true},
		{"gothreads", Config{Nodes: []NodeSpec{{Path: buildGoThreads(t), Env: []string{"PATH=/usr/bin:/bin"}}}}, 60, 4, false},
	}
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			points := branchPoints(t, tc.points)
			rng := rand.New(rand.NewPCG(38, uint64(len(tc.name))))
			done, maxThreads, atClone := 0, 0, 0
			for try := 0; done < points && try < 4*points; try++ {
				if k, cloned := checkpointBranch(t, tc.cfg, rng, rng.IntN(tc.depth)); k > 0 {
					done++
					maxThreads = max(maxThreads, k)
					if cloned {
						atClone++
					}
				}
			}
			t.Logf("%d branch points, %d with a thread held at its clone, at most %d threads", done, atClone, maxThreads)
			if done < points {
				t.Fatalf("only %d of %d branch points could be checkpointed", done, points)
			}
			if maxThreads < 2 {
				t.Fatalf("no branch point had more than one live thread")
			}
			if tc.clone && atClone == 0 && os.Getenv("WEFT_CHECKPOINT_POINTS") == "" {
				t.Errorf("no branch point had a thread held at its clone")
			}
		})
	}
}

// checkpointBranch walks a random path of depth steps, then on to the
// first state that can be checkpointed, checkpoints it and compares two
// restored continuations with replayed ones (TestCheckpointThreads). It
// returns the node's live threads at the branch point, 0 if the run
// ended first, and whether a thread was held at its clone there.
func checkpointBranch(t *testing.T, cfg Config, rng *rand.Rand, depth int) (int, bool) {
	t.Helper()
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var path []Action
	var cp *Checkpoint
	for cp == nil {
		acts := w.Enabled()
		if len(acts) == 0 || w.Failure() != nil {
			return 0, false
		}
		if len(path) >= depth {
			cp, err = w.Checkpoint()
			if err != nil && !errors.Is(err, ErrNoCheckpoint) {
				t.Fatalf("after %v: checkpoint: %v", path, err)
			}
			if cp != nil {
				break
			}
		}
		a := acts[rng.IntN(len(acts))]
		if err := w.Apply(a); err != nil {
			t.Fatal(err)
		}
		path = append(path, a)
	}
	defer cp.Close()
	want := mustHash(t, w)
	for k := 0; k < 2; k++ {
		r, err := cp.Restore()
		if err != nil {
			t.Fatalf("after %v: restore %d: %v", path, k, err)
		}
		if got := mustHash(t, r); got != want {
			t.Errorf("after %d steps: restore %d hashes %x, the original %x", len(path), k, got[:6], want[:6])
		}
		if got, orig := kernelThreads(t, r), kernelThreads(t, w); !slices.Equal(got, orig) {
			t.Errorf("after %d steps: restore %d's threads are %q, the original's %q", len(path), k, got, orig)
		}
		continueBoth(t, r, replayWorld(t, cfg, path), rng, len(path))
	}
	if got := mustHash(t, w); got != want {
		t.Errorf("after %d steps: taking the checkpoint changed the world's hash", len(path))
	}
	cloned := false
	for _, s := range cp.frozen[0].threads {
		cloned = cloned || s.cloned
	}
	return w.nodes[0].live(), cloned
}

// kernelThreads describes the kernel's state of each live thread of w's
// node 0 that the hash does not cover: its signal mask and its
// robust-futex list.
func kernelThreads(t *testing.T, w *World) []string {
	t.Helper()
	var out []string
	for _, tk := range w.nodes[0].tasks {
		if tk.exited {
			continue
		}
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/status", w.nodes[0].pid, tk.tid))
		if err != nil {
			t.Fatal(err)
		}
		mask := ""
		for _, line := range strings.Split(string(st), "\n") {
			if strings.HasPrefix(line, "SigBlk:") {
				mask = line
			}
		}
		var head, size uint64
		if _, _, e := unix.RawSyscall(unix.SYS_GET_ROBUST_LIST, uintptr(tk.tid), uintptr(unsafe.Pointer(&head)), uintptr(unsafe.Pointer(&size))); e != 0 {
			t.Fatalf("get_robust_list %d: %v", tk.tid, e)
		}
		out = append(out, fmt.Sprintf("t%d %s robust %#x/%d", tk.k, mask, head, size))
	}
	return out
}

// continueBoth runs restored world r and replayed world p along one
// random path of up to 25 steps and compares them at each step and at
// the end; it closes both.
func continueBoth(t *testing.T, r, p *World, rng *rand.Rand, at int) {
	t.Helper()
	defer r.Close()
	defer p.Close()
	for step := 0; step < 25; step++ {
		acts, racts := p.Enabled(), r.Enabled()
		if !slices.Equal(acts, racts) {
			t.Fatalf("branch at %d, step %d: restored world offers %v, replayed %v", at, step, racts, acts)
		}
		if len(acts) == 0 {
			break
		}
		a := acts[rng.IntN(len(acts))]
		if err := r.Apply(a); err != nil {
			t.Fatal(err)
		}
		if err := p.Apply(a); err != nil {
			t.Fatal(err)
		}
		if f, g := r.Failure(), p.Failure(); fmt.Sprint(f) != fmt.Sprint(g) {
			t.Fatalf("branch at %d, step %d %v: restored world failed with %v, replayed %v", at, step, a, f, g)
		} else if f != nil {
			break
		}
		if got, rep := mustHash(t, r), mustHash(t, p); got != rep {
			t.Fatalf("branch at %d, step %d %v: restored world hashes %x, replayed %x", at, step, a, got[:6], rep[:6])
		}
	}
	if got, rep := string(r.Output(0)), string(p.Output(0)); got != rep {
		t.Errorf("branch at %d: restored node printed %q, replayed %q", at, got, rep)
	}
}
