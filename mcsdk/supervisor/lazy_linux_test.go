//go:build linux && amd64

package supervisor

import (
	"math/rand/v2"
	"testing"
)

// TestLazyRestoreHashes restores each checkpoint of random walks through
// real targets three times lazily and once with every node given its
// processes at once (materialiseAll), continues all four along the same
// random actions and compares their hashes (HashMemory) at every step:
// the first lazy restore gives the nodes it hashes unrun their processes
// and records what the hash read of them, the later ones hash those
// nodes unforked from the records. It checks that some hashed node was
// never forked: its host pid is -1 and it is still pending (with -tags
// weftverify every node is forked before a hash, and the records are
// checked against what it reads).
func TestLazyRestoreHashes(t *testing.T) {
	for _, tc := range checkpointTargets {
		t.Run(tc.name, func(t *testing.T) {
			cfg := checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs)
			rng := rand.New(rand.NewPCG(38, 18))
			w, err := Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			unforked := 0
			for step := 0; step < 6; step++ {
				acts := walkActions(w, cfg)
				if len(acts) == 0 {
					break
				}
				live := mustHash(t, w) // as a search does before checkpointing: the checkpoint records the hash's reads
				cp, err := w.Checkpoint()
				if err != nil {
					t.Fatal(err)
				}
				var ws []*World
				for k := 0; k < 4; k++ {
					r, err := cp.Restore()
					if err == nil && k == 3 {
						err = r.materialiseAll()
					}
					if err != nil {
						t.Fatalf("step %d: restore %d: %v", step, k, err)
					}
					ws = append(ws, r)
				}
				for s := 0; s < 3; s++ {
					if s == 0 && !verifyDigests {
						// The records made at the checkpoint serve the
						// first restore's first hash: it forks no node.
						got := mustHash(t, ws[0])
						for _, n := range ws[0].nodes {
							if !n.exited && !ws[0].pending(n) {
								t.Fatalf("step %d: the first restore's first hash forked node %d", step, n.id)
							}
						}
						if got != live {
							t.Fatalf("step %d: a restore hashes %x, the world it was checkpointed from %x", step, got[:6], live[:6])
						}
					}
					want := mustHash(t, ws[3])
					for k, r := range ws[:3] {
						if got := mustHash(t, r); got != want {
							t.Fatalf("step %d, %d steps on: lazy restore %d hashes %x, the eager one %x", step, s, k, got[:6], want[:6])
						}
						for _, n := range r.nodes {
							if r.pending(n) && n.pid == -1 && s > 0 && k > 0 {
								unforked++
							}
						}
					}
					as := walkActions(ws[3], cfg)
					if len(as) == 0 {
						break
					}
					a := as[rng.IntN(len(as))]
					for _, r := range ws {
						if err := r.Apply(a); err != nil {
							t.Fatal(err)
						}
					}
				}
				for _, r := range ws {
					r.Close()
				}
				cp.Close()
				if err := w.Apply(acts[rng.IntN(len(acts))]); err != nil {
					t.Fatal(err)
				}
			}
			if unforked == 0 && !verifyDigests { // weftverify forks every node to check the records
				t.Fatal("every node of every restore hashed was forked")
			}
			t.Logf("%d hashes of nodes not forked", unforked)
		})
	}
}
