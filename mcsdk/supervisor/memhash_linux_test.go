//go:build linux && amd64

package supervisor

import (
	"crypto/sha256"
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
		read, err := memoryDigest(h, pid, nil, false, pagemap)
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
