//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// preforkConfig runs testdata/prefork.c on two nodes with data
// directories (each master's log lies in its own).
func preforkConfig(tb testing.TB) Config {
	bin := buildProbe(tb, "prefork", "-O1", "-Wall")
	cfg := Config{BasePort: 7640, DataDirs: true}
	for i := 0; i < 2; i++ {
		cfg.Nodes = append(cfg.Nodes, NodeSpec{Path: bin, Args: []string{string(rune('0' + i)), "2", "7640"}, Env: []string{"PATH=/usr/bin:/bin"}})
	}
	return cfg
}

// TestCheckpointProcTree checkpoints a pre-forking server (a master and
// two forked workers per node, talking over an in-node pipe and
// socketpair and over the network, sharing a log file's description)
// at random branch points of random runs where node 0 has live workers,
// and continues each restored world, twice, along a random path next to
// a world that replayed the prefix, to the end of the run
// (checkpointBranchFor, as TestCheckpointThreads): the same hash (every process's memory and
// registers, the virtual tree) and actions at every step, and
// byte-identical outputs at the end, which print the workers' reports,
// their virtual parent pids, their exit statuses as the master's wait
// saw them, the SIGCHLDs the master's handler counted and the shared log
// (written through one offset by all three processes).
func TestCheckpointProcTree(t *testing.T) {
	cfg := preforkConfig(t)
	points := branchPoints(t, 10)
	rng := rand.New(rand.NewPCG(38, 1))
	done, most := 0, 0
	for try := 0; done < points && try < 8*points; try++ {
		b := checkpointBranchFor(t, cfg, rng, rng.IntN(200), 400) // each continued to the run's end
		if b.procs > 1 {
			done++
			most = max(most, b.procs)
		}
	}
	t.Logf("%d branch points with workers, at most %d processes in node 0", done, most)
	if done < points {
		t.Fatalf("only %d of %d branch points had node 0's workers and could be checkpointed", done, points)
	}
	if os.Getenv("WEFT_CHECKPOINT_POINTS") == "" && most < 3 {
		t.Errorf("no branch point had both workers of node 0 live")
	}
}

// TestCheckpointAdopts checkpoints the pre-forking server where node 0's
// master and both workers are live and checks what the copy's host side
// must be (checkpoint_tree_linux.go): every frozen and restored process
// is weft's child on the host, the workers keep no zombie of the fork
// that adopted their frozen copies, the log file the three processes
// share is one description in the checkpoint and in each restored world
// (kcmp), and the restored world hashes as the original.
func TestCheckpointAdopts(t *testing.T) {
	w, err := Start(preforkConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var cp *Checkpoint
	for step := 0; cp == nil; step++ {
		acts := w.Enabled()
		if len(acts) == 0 || w.Failure() != nil {
			t.Fatalf("the run ended after %d steps with no checkpoint of three processes", step)
		}
		if len(w.LiveProcs(0)) == 3 {
			if cp, err = w.Checkpoint(); err != nil && !errors.Is(err, ErrNoCheckpoint) {
				t.Fatal(err)
			}
		}
		if cp == nil {
			if err := w.Apply(acts[0]); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer cp.Close()
	for _, fp := range cp.frozenAll() {
		if pp := hostPPid(t, fp.pid); pp != os.Getpid() {
			t.Errorf("frozen process %d has host parent %d, not weft (%d)", fp.pid, pp, os.Getpid())
		}
	}
	live := w.LiveProcs(0)
	for _, pid := range live {
		for _, k := range hostChildren(t, pid) {
			if !slices.Contains(live, k) {
				t.Errorf("process %d of the original has host child %d, not a process of the node", pid, k)
			}
		}
	}
	shared := sharedLog(t, cp.files[0])
	if len(shared) < 3 {
		t.Fatalf("the checkpoint's host files %+v: the log is not one description in three processes", cp.files[0])
	}
	r, err := cp.Restore()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, want := mustHash(t, r), mustHash(t, w); got != want {
		t.Errorf("the restored world hashes %x, the original %x", got[:6], want[:6])
	}
	pids := r.LiveProcs(0)
	if len(pids) != 3 {
		t.Fatalf("the restored node 0 has processes %v", pids)
	}
	for _, pid := range pids {
		if pp := hostPPid(t, pid); pp != os.Getpid() {
			t.Errorf("restored process %d has host parent %d, not weft (%d)", pid, pp, os.Getpid())
		}
	}
	n := r.nodes[0]
	first := shared[0]
	for _, f := range shared[1:] {
		if !sameFile(n.procs[first.proc].pid, first.fd, n.procs[f.proc].pid, f.fd) {
			t.Errorf("restored: descriptor %d of process %d and %d of process %d are not one description", first.fd, first.proc, f.fd, f.proc)
		}
	}
}

// sharedLog lists the host files of fs that are the first shared
// description's (the log).
func sharedLog(t *testing.T, fs []hostFile) []hostFile {
	t.Helper()
	var out []hostFile
	for _, f := range fs {
		if strings.HasSuffix(f.path, "/log") && (len(out) == 0 || f.desc == out[0].desc) {
			out = append(out, f)
		}
	}
	return out
}

// hostPPid is process pid's parent on the host.
func hostPPid(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "\nPPid:\t")
	pp, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]))
	return pp
}

// hostChildren lists process pid's host children (those of each of its
// threads).
func hostChildren(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range strings.Fields(string(b)) {
			k, _ := strconv.Atoi(f)
			out = append(out, k)
		}
	}
	return out
}
