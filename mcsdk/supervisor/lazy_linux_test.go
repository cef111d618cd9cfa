//go:build linux && amd64

package supervisor

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/sched"
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
// checked against what it reads). One step on, it checkpoints a lazy
// restore and the eager one (checkRestoredCheckpoint), and all four
// restores go on as before: checkpointing a restored world changes
// nothing of it.
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
			unforked, shared, files := 0, 0, 0
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
						if k == 1 && s == 1 {
							s, f := checkRestoredCheckpoint(t, cfg, rng, r, ws[3], fmt.Sprintf("step %d", step))
							shared, files = shared+s, files+f
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
			if shared == 0 && !verifyDigests {
				t.Fatal("no checkpoint of a restored world shared a frozen process")
			}
			if tc.name == "paxos" && files == 0 && !verifyDigests {
				t.Fatal("no shared node had a host file to reopen")
			}
			t.Logf("%d hashes of nodes not forked, %d nodes' frozen processes shared (%d host files)", unforked, shared, files)
		})
	}
}

// sameFreeze says how what checkpoint a took of node i differs from
// what b, of a world in the same state, froze of it: the description
// states, the host files (paths relative to each one's data root, their
// flags, offsets and sharing), each frozen process's threads, and the
// hash records (the memory digest if both have it).
func sameFreeze(a, b *Checkpoint, i int) error {
	for k, st := range b.flags {
		if k.node == i && !reflect.DeepEqual(a.flags[k], st) {
			return fmt.Errorf("process %d's description states %v, the eager freeze's %v", k.idx, a.flags[k], st)
		}
	}
	rel := func(cp *Checkpoint) []hostFile {
		var out []hostFile
		for _, f := range cp.files[i] {
			if r := cp.w.dataRoot; r != "" {
				f.path = strings.TrimPrefix(f.path, r+"/")
			}
			f.pid = 0
			out = append(out, f)
		}
		return out
	}
	if fa, fb := rel(a), rel(b); !reflect.DeepEqual(fa, fb) {
		return fmt.Errorf("host files %+v, the eager freeze's %+v", fa, fb)
	}
	procs := func(cp *Checkpoint) []*frozenProc { return append([]*frozenProc{cp.frozen[i]}, cp.kids[i]...) }
	pa, pb := procs(a), procs(b)
	if len(pa) != len(pb) {
		return fmt.Errorf("%d frozen processes, the eager freeze %d", len(pa), len(pb))
	}
	for j := range pa {
		if (pa[j] == nil) != (pb[j] == nil) {
			return fmt.Errorf("process %d frozen %v, by the eager freeze %v", j, pa[j] != nil, pb[j] != nil)
		}
		if pa[j] != nil && (!reflect.DeepEqual(pa[j].threads, pb[j].threads) || pa[j].fk != pb[j].fk || pa[j].sysIP != pb[j].sysIP) {
			return fmt.Errorf("process %d's threads differ from the eager freeze's", j)
		}
	}
	if ra, rb := a.procs[i], b.procs[i]; ra != nil && rb != nil && ra.mode == rb.mode && !reflect.DeepEqual(ra, rb) {
		return fmt.Errorf("hash records %+v, the eager freeze's %+v", ra, rb)
	}
	if ma, mb := a.mem[i], b.mem[i]; ma != nil && mb != nil && ma.ok && mb.ok && ma.sum != mb.sum {
		return fmt.Errorf("memory digest %x, the eager freeze's %x", ma.sum[:6], mb.sum[:6])
	}
	return nil
}

// checkRestoredCheckpoint checkpoints lazy, a lazy restore just hashed,
// and eager, an eager one in the same state, and compares restores of
// the two checkpoints (of lazy's: two lazy, one eager; of eager's: one
// eager) along the same random actions, hash by hash (HashMemory): the
// nodes lazy had not forked keep their frozen processes, shared with its
// checkpoint (sharePending), which must serve as a fresh freeze of
// them. It returns how many nodes were shared, each checked to be the
// old checkpoint's frozen process, held by both, and to carry what the
// eager world's freeze read of it (sameFreeze), and their host files.
func checkRestoredCheckpoint(t *testing.T, cfg Config, rng *rand.Rand, lazy, eager *World, at string) (shared, files int) {
	t.Helper()
	var old *Checkpoint
	if lazy.lazy != nil {
		old = lazy.lazy.cp
	}
	pending := make([]bool, len(lazy.nodes))
	for i, n := range lazy.nodes {
		pending[i] = lazy.pending(n)
	}
	cpL, err := lazy.Checkpoint()
	if err != nil {
		t.Fatalf("%s: checkpoint of a lazy restore: %v", at, err)
	}
	defer cpL.Close()
	cpE, err := eager.Checkpoint()
	if err != nil {
		t.Fatalf("%s: checkpoint of an eager restore: %v", at, err)
	}
	defer cpE.Close()
	for i, fp := range cpL.frozen {
		switch {
		case fp == nil:
		case pending[i] && !lazy.pending(lazy.nodes[i]): // given its processes: a shareable node must not be
			t.Errorf("%s: node %d given its processes by the checkpoint", at, i)
		case pending[i]:
			if fp != old.frozen[i] || fp.holders < 2 {
				t.Fatalf("%s: node %d, unforked, frozen anew (%p, old %p, %d holders)", at, i, fp, old.frozen[i], fp.holders)
			}
			shared++
			files += len(cpL.files[i])
			if err := sameFreeze(cpL, cpE, i); err != nil {
				t.Fatalf("%s: node %d, shared: %v", at, i, err)
			}
		case old != nil && fp == old.frozen[i]:
			t.Fatalf("%s: node %d, forked, shares the old frozen process", at, i)
		}
	}
	var rs []*World
	for k, cp := range []*Checkpoint{cpL, cpL, cpL, cpE} {
		r, err := cp.Restore()
		if err == nil && k >= 2 {
			err = r.materialiseAll()
		}
		if err != nil {
			t.Fatalf("%s: restore %d of the restored world's checkpoint: %v", at, k, err)
		}
		defer r.Close()
		rs = append(rs, r)
	}
	for s := 0; s < 3; s++ {
		if s == 0 && !verifyDigests {
			// The records, the shared nodes' carried from the old
			// checkpoint, serve the first restore's first hash.
			mustHash(t, rs[0])
			for _, n := range rs[0].nodes {
				if !n.exited && !rs[0].pending(n) {
					t.Fatalf("%s: the first hash of a restore of the lazy world's checkpoint forked node %d", at, n.id)
				}
			}
		}
		want := mustHash(t, rs[3])
		for k, r := range rs[:3] {
			if got := mustHash(t, r); got != want {
				t.Fatalf("%s, %d steps on: restore %d of the lazy world's checkpoint hashes %x, the eager world's %x", at, s, k, got[:6], want[:6])
			}
		}
		as := walkActions(rs[3], cfg)
		if len(as) == 0 {
			break
		}
		a := as[rng.IntN(len(as))]
		for _, r := range rs {
			if err := r.Apply(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	return shared, files
}

// TestLazySharedOutlivesOld checkpoints a world restored lazily, one
// action after its checkpoint, whose nodes not forked the new checkpoint
// shares with the old one (sharePending), then closes the worlds and the
// old checkpoint first, as a search's drop or fitMemory's eviction of
// the older one does, and restores the newer one. The old checkpoint's
// Close must kill the frozen processes it held alone and leave the
// shared ones; the newer one's restores, lazy and eager, must hash as
// the world replayed along the same path, step after step, the shared
// nodes among those that run. With the worlds closed, the two
// checkpoints' Memory must count each shared frozen process once. With
// -tags weftverify the restored world is checkpointed as restored (an
// action or a hash would fork every node).
func TestLazySharedOutlivesOld(t *testing.T) {
	for _, tc := range checkpointTargets {
		t.Run(tc.name, func(t *testing.T) {
			cfg := checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs)
			rng := rand.New(rand.NewPCG(38, 20))
			var shared, ran, files int
			for walk := 0; walk < 4; walk++ {
				s, r, f := sharedOutlivesWalk(t, cfg, rng)
				shared, ran, files = shared+s, ran+r, files+f
			}
			t.Logf("%d nodes shared, %d of them ran after the old checkpoint's close, %d host files", shared, ran, files)
			switch {
			case shared == 0:
				t.Fatal("no checkpoint of a restored world shared a frozen process")
			case ran == 0:
				t.Fatal("no shared node ran after the old checkpoint's close")
			case tc.name == "paxos" && files == 0:
				t.Fatal("no shared node had a host file to reopen")
			}
		})
	}
}

// sharedOutlivesWalk is one walk of TestLazySharedOutlivesOld: it
// returns how many nodes the newer checkpoint shared, how many of them
// its lazy restore forked to run, and the shared nodes' host files.
func sharedOutlivesWalk(t *testing.T, cfg Config, rng *rand.Rand) (shared, ran, files int) {
	t.Helper()
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var path []sched.Action
	step := func(ws ...*World) bool {
		acts := walkActions(ws[0], cfg)
		if len(acts) == 0 {
			return false
		}
		a := acts[rng.IntN(len(acts))]
		for _, x := range ws {
			if err := x.Apply(a); err != nil {
				t.Fatal(err)
			}
		}
		path = append(path, a)
		return true
	}
	for k := rng.IntN(3); k > 0 && step(w); k-- {
	}
	mustHash(t, w)
	old, err := w.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	r, err := old.Restore()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !verifyDigests {
		// One action on, hashed as a search does before checkpointing.
		// With -tags weftverify an action or a hash forks every node,
		// which would leave none to share: the restored world is
		// checkpointed as restored, and its restores' hashes check the
		// shared records against what they read.
		if !step(r) {
			return 0, 0, 0
		}
		mustHash(t, r)
	}
	cp, err := r.Checkpoint()
	if err != nil {
		t.Fatalf("after %v: checkpoint of the restored world: %v", path, err)
	}
	defer cp.Close()
	var sharedNodes []int
	for i, fp := range cp.frozen {
		if fp != nil && fp == old.frozen[i] {
			sharedNodes = append(sharedNodes, i)
			files += len(cp.files[i])
		}
	}
	held := map[int]bool{}
	for _, fp := range cp.frozenAll() {
		held[fp.pid] = true
	}
	r.Close()
	w.Close()
	// Each frozen process now holds its pages alone: counted once.
	var want int64
	seen := map[int]bool{}
	for _, c := range []*Checkpoint{old, cp} {
		for _, fp := range c.frozenAll() {
			if !seen[fp.pid] {
				seen[fp.pid] = true
				want += privateDirty(fp.pid)
			}
		}
	}
	if got := old.Memory() + cp.Memory(); got != want {
		t.Errorf("after %v: the checkpoints' Memory sums to %d bytes, their distinct frozen processes hold %d", path, got, want)
	}
	oldPids := old.frozenAll()
	old.Close()
	for _, fp := range oldPids {
		alive := unix.Kill(fp.pid, 0) == nil
		if alive != held[fp.pid] {
			t.Fatalf("after %v: the old checkpoint's frozen process %d alive %v after its Close, held by the newer: %v", path, fp.pid, alive, held[fp.pid])
		}
	}
	var rs []*World
	for k := 0; k < 2; k++ {
		x, err := cp.Restore()
		if err == nil && k == 1 {
			err = x.materialiseAll()
		}
		if err != nil {
			t.Fatalf("after %v: restore %d of the newer checkpoint, the older closed: %v", path, k, err)
		}
		defer x.Close()
		rs = append(rs, x)
	}
	forked := map[int]bool{}
	for s := 0; ; s++ {
		rep := replayWorld(t, cfg, path)
		want := mustHash(t, rep)
		rep.Close()
		for k, x := range rs {
			if got := mustHash(t, x); got != want {
				t.Fatalf("after %v: restore %d of the newer checkpoint hashes %x, the replayed world %x", path, k, got[:6], want[:6])
			}
		}
		for _, i := range sharedNodes {
			if !rs[0].pending(rs[0].nodes[i]) && !forked[i] {
				forked[i] = true
				ran++
			}
		}
		if s == 4 || !step(rs...) {
			break
		}
	}
	return len(sharedNodes), ran, files
}
