//go:build linux && amd64

package supervisor

import (
	"math/rand/v2"
	"os"
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
