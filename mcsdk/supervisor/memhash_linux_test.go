//go:build linux && amd64

package supervisor

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stoppedMapper starts a python3 process that maps 64 MiB of anonymous
// memory, writes 7 into its page 100, prints the mapping's address and
// stops itself; it returns the pid and the address.
func stoppedMapper(t *testing.T) (int, uint64) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	cmd := exec.Command(py, "-c", `
import ctypes, mmap, os, signal, sys
m = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m[4096 * 100] = 7
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
sys.stdout.write("%d\n" % addr)
sys.stdout.flush()
os.kill(os.getpid(), signal.SIGSTOP)
`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var line []byte
	b := make([]byte, 1)
	for {
		if _, err := out.Read(b); err != nil {
			t.Fatalf("reading the mapper's address: %v", err)
		}
		if b[0] == '\n' {
			break
		}
		line = append(line, b[0])
	}
	addr, err := strconv.ParseUint(string(line), 10, 64)
	if err != nil {
		t.Fatalf("the mapper printed %q: %v", line, err)
	}
	for { // until it has stopped itself (state T)
		st, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 && f[0] == "T" {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return cmd.Process.Pid, addr
}

// TestMemoryDigestSparse: the sparse memory digest (memhash_linux.go)
// reads only the pages a process touched of a large anonymous mapping,
// yet means what the full image does: it is the same whether pages are
// skipped by their presence or all read, it changes with one byte in a
// page never touched, and it comes back when that byte is zero again
// (the page now present, and zero).
func TestMemoryDigestSparse(t *testing.T) {
	pid, addr := stoppedMapper(t)
	digest := func(pagemap bool) ([32]byte, int) {
		t.Helper()
		h := sha256.New()
		read, err := memoryDigest(h, pid, nil, false, pagemap, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return [32]byte(h.Sum(nil)), read
	}
	sparse, read := digest(true)
	full, all := digest(false)
	if sparse != full {
		t.Fatalf("the digest depends on which pages were read: %x with the page table, %x reading all", sparse[:6], full[:6])
	}
	// Of the mapping's 16384 pages one was written: even with its
	// transparent huge page (512 pages) present, most are not read.
	if mapping := 64 << 20 / memPage; all < mapping || read > all-mapping/2 {
		t.Errorf("read %d of %d pages: the 64 MiB mapping's untouched pages were read", read, all)
	}
	poke := func(v byte) {
		t.Helper()
		if n, err := writeMem(pid, uintptr(addr+4096*2000+5), []byte{v}); n != 1 {
			t.Fatalf("writing the mapper's memory: %d, %v", n, err)
		}
	}
	poke(1)
	if d, _ := digest(true); d == sparse {
		t.Fatal("a byte written in an untouched page did not change the digest")
	}
	if d, _ := digest(false); d == sparse {
		t.Fatal("a byte written in an untouched page did not change the full digest")
	}
	poke(0)
	if d, r := digest(true); d != sparse || r <= read {
		t.Fatalf("zero again: digest %x (first %x), %d pages read (first %d)", d[:6], sparse[:6], r, read)
	}
	// The touched page 100 is in the digest: zeroing it changes it.
	if n, err := writeMem(pid, uintptr(addr+4096*100), []byte{0}); n != 1 {
		t.Fatalf("writing the mapper's memory: %d, %v", n, err)
	}
	if d, _ := digest(true); d == sparse {
		t.Fatal("zeroing the only written byte of the mapping did not change the digest")
	}
}

// TestMemoryDigestKept walks random paths through real targets, taking a
// checkpoint at every other state, and at every state compares the
// world's hash, which reuses the memory digest kept for each node that
// cannot have changed (memMemo), with the hash computed afresh: a digest
// kept past a change (a node that ran, a call weft answered or wrote
// into, a freeze that disturbed it) would differ. It also checks that
// kept digests were reused at all.
func TestMemoryDigestKept(t *testing.T) {
	for _, tc := range checkpointTargets[:2] {
		t.Run(tc.name, func(t *testing.T) {
			cfg := checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs)
			rng := rand.New(rand.NewPCG(3, 4))
			reused, states := 0, 0
			for walk := 0; walk < 3; walk++ {
				w, err := Start(cfg)
				if err != nil {
					t.Fatal(err)
				}
				for step := 0; step < 10; step++ {
					for _, n := range w.nodes {
						if !n.exited && n.memo.ok && n.memo.ran == n.cpuTime() {
							reused++
						}
					}
					kept := mustHash(t, w)
					for _, n := range w.nodes {
						n.forgetMemory()
					}
					if fresh := mustHash(t, w); fresh != kept {
						t.Fatalf("walk %d step %d: hash with kept digests %x, afresh %x", walk, step, kept[:6], fresh[:6])
					}
					states++
					if step%2 == 1 {
						cp, err := w.Checkpoint()
						if err != nil {
							t.Fatal(err)
						}
						cp.Close()
					}
					acts := w.Enabled()
					if len(acts) == 0 {
						break
					}
					if err := w.Apply(acts[rng.IntN(len(acts))]); err != nil {
						t.Fatal(err)
					}
				}
				w.Close()
			}
			if reused == 0 {
				t.Fatalf("no kept digest was reused in %d states", states)
			}
			t.Logf("%d states, %d kept digests reused", states, reused)
		})
	}
}

// TestMemoryDigestCarried restores each checkpoint of random walks
// through real targets several times and compares each restored world's
// hash, which takes the memory digest of the checkpoint's frozen process
// carried from an earlier restore (memMemo.slot), with the hash computed
// afresh, right after the restore, after weft writes into a node that
// has not run, and after the next action: a digest carried to a process
// whose memory is not the frozen one's, or kept past a write or a run,
// would differ. The targets with data directories move each copy with an
// injected chdir, which writes onto the stack and puts it back. It also
// checks that carried digests were used at all.
func TestMemoryDigestCarried(t *testing.T) {
	for _, tc := range checkpointTargets {
		t.Run(tc.name, func(t *testing.T) {
			cfg := checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs)
			rng := rand.New(rand.NewPCG(5, 6))
			w, err := Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			carried, states := 0, 0
			for step := 0; step < 6; step++ {
				acts := walkActions(w, cfg)
				if len(acts) == 0 {
					break
				}
				cp, err := w.Checkpoint()
				if err != nil {
					t.Fatal(err)
				}
				a := acts[rng.IntN(len(acts))]
				for k := 0; k < 3; k++ {
					r, err := cp.Restore()
					if err == nil {
						err = r.materialiseAll() // the processes are read here (lazy_linux.go)
					}
					if err != nil {
						cp.Close()
						t.Fatalf("step %d: restore %d: %v", step, k, err)
					}
					for _, n := range r.nodes {
						if !n.exited && n.memo.slot != nil && n.memo.slot.ok {
							carried++
						}
					}
					got := mustHash(t, r)
					if f := freshHash(t, r); got != f {
						t.Fatalf("step %d restore %d: hash with carried digests %x, afresh %x", step, k, got[:6], f[:6])
					}
					if k == 1 {
						changedByWeft(t, r)
					}
					if err := r.Apply(a); err != nil {
						t.Fatal(err)
					}
					got = mustHash(t, r)
					if f := freshHash(t, r); got != f {
						t.Fatalf("step %d restore %d after %v: hash with kept digests %x, afresh %x", step, k, a, got[:6], f[:6])
					}
					states++
					r.Close()
				}
				cp.Close()
				if err := w.Apply(a); err != nil {
					t.Fatal(err)
				}
			}
			if carried == 0 {
				t.Fatalf("no carried digest was used in %d restores", states)
			}
			t.Logf("%d restores compared, %d carried digests used", states, carried)
		})
	}
}

// changedByWeft writes, as weft answering a call does (call.write), a
// changed byte into the first page of a writable private mapping (not
// the stack, whose low part is dead) of the first live node of r that
// holds a byte other than zero, and checks that r's hash, digests
// kept or carried, follows the change: before the write, the node's
// digest was its checkpoint's.
func changedByWeft(t *testing.T, r *World) {
	t.Helper()
	before := mustHash(t, r)
	for _, n := range r.nodes {
		if n.exited {
			continue
		}
		ms, err := readMaps(n.memPid())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if len(m.perms) < 4 || m.perms[1] != 'w' || m.perms[3] != 'p' || m.name == "[stack]" {
				continue // not digested, or partly dead
			}
			b := make([]byte, memPage)
			k, _ := readMem(n.memPid(), uintptr(m.start), b)
			i := bytes.IndexFunc(b[:max(k, 0)], func(r rune) bool { return r != 0 })
			if i < 0 {
				continue
			}
			c := &call{n: n}
			if err := c.write(m.start+uint64(i), []byte{b[i] ^ 0xff}); err != nil {
				t.Fatal(err)
			}
			got := mustHash(t, r)
			if f := freshHash(t, r); got != f || got == before {
				t.Fatalf("after weft wrote into node %d at %#x: hash %x, afresh %x, before %x", n.id, m.start+uint64(i), got[:6], f[:6], before[:6])
			}
			if err := c.write(m.start+uint64(i), b[i:i+1]); err != nil {
				t.Fatal(err)
			}
			if got := mustHash(t, r); got != before {
				t.Fatalf("after weft wrote back node %d's byte: hash %x, before %x", n.id, got[:6], before[:6])
			}
			return
		}
	}
	t.Fatal("no live node with a written page")
}

// freshHash is w's hash with every node's memory read afresh; the kept
// and carried digests (memMemo) are left as they were, as a search that
// did not compare would have them.
func freshHash(t *testing.T, w *World) [32]byte {
	t.Helper()
	if err := w.materialiseAll(); err != nil { // nothing carried (lazy_linux.go)
		t.Fatal(err)
	}
	saved := make([]memMemo, len(w.nodes))
	for i, n := range w.nodes {
		saved[i], n.memo = n.memo, memMemo{}
	}
	h := mustHash(t, w)
	for i, n := range w.nodes {
		n.memo = saved[i]
	}
	return h
}

// TestMemoryDigestBase restores checkpoints of walks through real
// targets, lets each restore take a step, and digests every live node's
// memory with its base (memBase: the pages it still shares with its
// checkpoint's frozen process are not read) and without: the digests
// must be equal, and with the base fewer pages must be read. Without the
// page frame numbers (no CAP_SYS_ADMIN) nothing is shared and it skips.
func TestMemoryDigestBase(t *testing.T) {
	for _, tc := range checkpointTargets[:2] {
		t.Run(tc.name, func(t *testing.T) {
			cfg := checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs)
			rng := rand.New(rand.NewPCG(7, 8))
			w, err := Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			fewer, digests := 0, 0
			for step := 0; step < 4; step++ {
				acts := walkActions(w, cfg)
				if len(acts) == 0 {
					break
				}
				mustHash(t, w)
				cp, err := w.Checkpoint()
				if err != nil {
					t.Fatal(err)
				}
				a := acts[rng.IntN(len(acts))]
				for k := 0; k < 2; k++ {
					r, err := cp.Restore()
					if err == nil {
						err = r.materialiseAll() // the processes are read here (lazy_linux.go)
					}
					if err != nil {
						cp.Close()
						t.Fatalf("step %d: restore %d: %v", step, k, err)
					}
					mustHash(t, r) // fills the base
					if err := r.Apply(a); err != nil {
						t.Fatal(err)
					}
					for _, n := range r.nodes {
						if n.exited || n.memo.base == nil {
							continue
						}
						sps, err := n.stackPointers()
						if err != nil {
							t.Fatal(err)
						}
						with, without := sha256.New(), sha256.New()
						rw, err := memoryDigest(with, n.memPid(), sps, false, true, n.memo.base, nil)
						if err != nil {
							t.Fatal(err)
						}
						ro, err := memoryDigest(without, n.memPid(), sps, false, true, nil, nil)
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(with.Sum(nil), without.Sum(nil)) {
							t.Fatalf("step %d restore %d node %d: the digest with the checkpoint's page sums differs from the one read afresh", step, k, n.id)
						}
						digests++
						if rw < ro {
							fewer++
						}
					}
					r.Close()
				}
				cp.Close()
				if err := w.Apply(a); err != nil {
					t.Fatal(err)
				}
			}
			if digests == 0 {
				t.Fatal("no restored node had a base")
			}
			if fewer == 0 && verifyDigests {
				t.Logf("%d digests equal; weftverify reads every page a base would give", digests)
				return
			}
			if fewer == 0 {
				t.Skipf("no digest of %d read fewer pages with its base: page frame numbers hidden?", digests)
			}
			t.Logf("%d of %d digests read fewer pages with their base", fewer, digests)
		})
	}
}

// TestMapsRange checks memoryDigest's parse of a maps line's range
// against what it replaced, fmt.Sscanf's "%x-%x", on this process's maps
// and malformed ranges.
func TestMapsRange(t *testing.T) {
	real, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	var ranges []string
	for line := range strings.Lines(string(real)) {
		if f := strings.Fields(line); len(f) > 0 {
			ranges = append(ranges, f[0])
		}
	}
	ranges = append(ranges, "7f00-7f10", "7f00", "-7f10", "7f00-", "zz-10", "ffffffffffffffffff-1")
	for _, r := range ranges {
		var lo, hi uint64
		_, err := fmt.Sscanf(r, "%x-%x", &lo, &hi)
		glo, ghi, ok := mapsRange(r)
		if ok != (err == nil) || ok && (glo != lo || ghi != hi) {
			t.Errorf("mapsRange(%q) = %x, %x, %v; Sscanf %x, %x, %v", r, glo, ghi, ok, lo, hi, err)
		}
	}
}
