//go:build linux && amd64

package supervisor

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// dirwatchConfig runs testdata/dirwatch.c on two nodes with data
// directories, each looking at its own between network steps.
func dirwatchConfig(tb testing.TB) Config {
	bin := buildProbe(tb, "dirwatch", "-O1", "-Wall")
	cfg := Config{BasePort: 7660, DataDirs: true}
	for i := 0; i < 2; i++ {
		cfg.Nodes = append(cfg.Nodes, NodeSpec{Path: bin, Args: []string{strconv.Itoa(i), "2", "7660"}, Env: []string{"PATH=/usr/bin:/bin"}})
	}
	return cfg
}

// TestCheckpointDataDir checkpoints nodes that look at their data
// directories (testdata/dirwatch.c: stat's inode, links, size, blocks,
// mode, owner and times of every entry, and getdents64's order, d_ino,
// d_off and d_type, while files are made, written, linked, renamed and
// unlinked, a directory grows past a block and empties, and a file is
// sparse) at random branch points of random runs, and continues each
// restored world, twice, to the run's end next to a world that replayed
// the prefix (checkpointBranchFor): the same hash and actions at every
// step, and byte-identical outputs at the end. The restored nodes see
// their directories through copyTree's copy and the world's inode and
// time tables as the checkpoint moved them.
func TestCheckpointDataDir(t *testing.T) {
	cfg := dirwatchConfig(t)
	points := branchPoints(t, 8)
	rng := rand.New(rand.NewPCG(18, 1))
	done := 0
	for try := 0; done < points && try < 4*points; try++ {
		if b := checkpointBranchFor(t, cfg, rng, rng.IntN(60), 400); b.threads > 0 {
			done++
		}
	}
	if done < points {
		t.Fatalf("only %d of %d branch points could be checkpointed with node 0 live", done, points)
	}
}
