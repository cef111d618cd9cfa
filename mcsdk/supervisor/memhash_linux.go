//go:build linux && amd64

package supervisor

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// Memory hashing (HashMemory) writes a node's writable memory to the
// state's hash. A Go node maps about 70 MiB writable (its heap arena,
// span and GC metadata, a 32 MiB bss) of which a few MiB were ever
// touched; reading and hashing every byte of three such nodes took about
// 0.4 s per state of the raft target, 93 % of weft's time in a check.
//
// The digest is therefore a sparse one, with the same meaning:
//   - the writable private mappings' address ranges, adjacent ones
//     coalesced (how the kernel splits a range into VMAs is its own
//     business: a replayed and a restored node may split alike memory
//     differently), each range starting above its dead stack (liveFrom);
//   - every page of those ranges that holds a byte other than zero, as
//     its address and its bytes (the first page of a range may be
//     partial: it starts where the range does).
//
// Given the ranges, the pages left out are exactly the zero ones, so two
// nodes get one digest exactly when their writable memory is the same
// byte for byte in the same places: the full image hashed before this
// scheme, which also merged images with equal bytes in different places.
// Which pages are zero is found without reading most of them: in an
// anonymous mapping a page the process never touched is not present in
// its page table (/proc/PID/pagemap; no swap is in use, and a swapped-out
// page is read all the same), and reads as zero. Present pages, and every
// page of a file-backed mapping (an absent one holds the file's bytes),
// are read and compared with zero. Presence only decides what is read,
// never what is hashed, so a node whose untouched pages became present
// (a read of them, a restore) hashes the same.

// memPage is the granule of the sparse digest: the page size.
const memPage = 4096

// digestBufs holds the buffers memoryDigest reads memory into (256 KiB
// each), reused: one a digest was most of a check's garbage.
var digestBufs = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// zeroPage is a page of zeros to compare with.
var zeroPage [memPage]byte

// Pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst).
const (
	pagePresent = 1 << 63
	pageSwapped = 1 << 62
)

// memDigest writes the sparse digest of one process's memory.
type memDigest struct {
	h      io.Writer
	pid    int
	pm     *os.File // the process's pagemap, or nil: every page is read
	buf    []byte
	ents   []byte
	num    [8]byte
	lo, hi uint64 // the open range (coalesced), hi == 0: none yet
	read   int    // pages that may hold a byte other than zero (read)
}

func (d *memDigest) put(tag byte, vs ...uint64) {
	d.h.Write([]byte{tag})
	for _, v := range vs {
		binary.LittleEndian.PutUint64(d.num[:], v)
		d.h.Write(d.num[:])
	}
}

// span adds [lo, hi) to the ranges, closing the open one if it does not
// end at lo.
func (d *memDigest) span(lo, hi uint64) {
	if d.hi != 0 && d.hi == lo {
		d.hi = hi
		return
	}
	d.end()
	d.lo, d.hi = lo, hi
}

// end writes the open range, if any.
func (d *memDigest) end() {
	if d.hi != 0 {
		d.put('R', d.lo, d.hi)
	}
	d.hi = 0
}

// present reports, for the pages from the one holding lo up to hi, which
// may hold a byte other than zero: with anon, those present or swapped
// in the page table; otherwise (or when the page table cannot be read)
// all of them.
func (d *memDigest) present(lo, hi uint64, anon bool, out []bool) []bool {
	first := lo / memPage
	n := int((hi - first*memPage + memPage - 1) / memPage)
	out = out[:0]
	for range n {
		out = append(out, true)
	}
	if !anon || d.pm == nil {
		return out
	}
	const batch = 4096 // entries a read: 16 MiB of address space
	if cap(d.ents) < batch*8 {
		d.ents = make([]byte, batch*8)
	}
	for i := 0; i < n; i += batch {
		k := min(batch, n-i)
		got, err := d.pm.ReadAt(d.ents[:k*8], int64(first+uint64(i))*8)
		if err != nil && got < k*8 {
			return out // unknown: read them
		}
		for j := range k {
			e := binary.LittleEndian.Uint64(d.ents[j*8:])
			out[i+j] = e&(pagePresent|pageSwapped) != 0
		}
	}
	return out
}

// pages writes the pages of [lo, hi) that hold a byte other than zero,
// reading runs of those that may (present) at once. A read that fails
// ends the range there, as a short read did before.
func (d *memDigest) pages(lo, hi uint64, present []bool) {
	first := lo / memPage
	for a := lo; a < hi; {
		p := a/memPage - first
		if !present[p] {
			a = (a/memPage + 1) * memPage
			continue
		}
		// The run of present pages from a, at most len(d.buf) bytes,
		// ending at a page's end (or hi): a record is always the part of
		// one page within the range, wherever a run starts.
		end := min((a/memPage+1)*memPage, hi)
		for end < hi && present[end/memPage-first] && end+memPage-a <= uint64(len(d.buf)) {
			end = min(end+memPage, hi)
		}
		got, _ := readMem(d.pid, uintptr(a), d.buf[:end-a])
		if got <= 0 {
			return
		}
		for off := 0; off < got; {
			pa := a + uint64(off)
			k := min(int((pa/memPage+1)*memPage-pa), got-off)
			if pg := d.buf[off : off+k]; !bytes.Equal(pg, zeroPage[:k]) {
				d.put('P', pa, uint64(k))
				d.h.Write(pg)
			}
			off += k
		}
		if got < int(end-a) {
			return
		}
		a = end
	}
}

// anonymousMapping reports whether a /proc/PID/maps line's fields f
// describe anonymous memory: no inode, and no path or a bracketed name
// ([heap], [stack], [anon:NAME]).
func anonymousMapping(f []string) bool {
	return len(f) >= 5 && f[4] == "0" && (len(f) < 6 || strings.HasPrefix(f[5], "["))
}

// hashMemory writes the sparse digest (above) of node n's writable
// memory to h, as the SHA-256 of the digest. With ASLR off and AT_RANDOM
// seeded, equal histories give equal bytes.
//
// The main process's sum is kept (memMemo) until the node may have
// changed it, and written again from there: a node's memory changes only
// while one of its threads runs or when weft writes into it, and both
// forget the sum (forgetMemory). A node that did not run in a step, the
// rule for every node but the one a step delivers to, is not read again.
//
// A node restored from a checkpoint holds, until it runs or weft writes
// into it, the memory of the checkpoint's frozen process, the same for
// every restore of that checkpoint: the restore runs no code of the
// node's and puts back every byte it writes (the injected chdir's path,
// the tid words of a clone issued again), and maps nothing. Its digest is
// therefore read once per checkpoint, at the first restore hashed before
// it ran, and carried to the later ones (memSlot). With -tags weftverify
// every kept or carried sum is checked against a fresh one.
func (w *World) hashMemory(n *node, h io.Writer) error {
	main := n.self == nil
	pid := n.memPid()
	var ran uint64
	unrun := false // the process has not run since its memo was made
	if main {
		ran = n.cpuTime()
		unrun = n.memo.pid == pid && n.memo.ran == ran && ran != 0
		if unrun && !n.memo.ok && n.memo.slot != nil && n.memo.slot.ok {
			n.memo.ok, n.memo.sum = true, n.memo.slot.sum
		}
		if unrun && n.memo.ok && !verifyDigests {
			h.Write(n.memo.sum[:])
			return nil
		}
	}
	sps, err := n.stackPointers()
	if err != nil {
		return err
	}
	d := sha256.New()
	if _, err = memoryDigest(d, pid, sps, w.cfg.NativeTSC, true); err != nil {
		return err
	}
	var sum [32]byte
	d.Sum(sum[:0])
	if main {
		if unrun && n.memo.ok && n.memo.sum != sum {
			return fmt.Errorf("weftverify: node %d's kept memory digest is not its memory's (carried from a checkpoint: %v)", n.id, n.memo.slot != nil)
		}
		if unrun && n.memo.slot != nil && !n.memo.slot.ok {
			n.memo.slot.ok, n.memo.slot.sum = true, sum
		}
		n.memo = memMemo{ok: true, pid: pid, ran: ran, sum: sum, slot: n.memo.slot}
		if !unrun {
			n.memo.slot = nil
		}
	}
	h.Write(sum[:])
	return nil
}

// memMemo is a node's main process's memory digest (hashMemory), kept
// while the process cannot have changed: ok says it is, pid which
// process it is of, ran the CPU time its threads had used (cpuTime).
// Besides the paths that forget it, a kept sum is used only if the
// threads' CPU time is what it was: a thread that ran since, by any
// path, has used some.
//
// A process restored from a checkpoint starts with slot, the
// checkpoint's digest of its frozen process (Checkpoint.mem), and pid
// and ran as the restore left them: while they hold, the process's
// memory is the frozen one's, whose digest slot gives or, if not known
// yet, receives.
type memMemo struct {
	ok   bool
	pid  int
	ran  uint64
	sum  [32]byte
	slot *memSlot
}

// memSlot is the memory digest of a checkpoint's frozen main process,
// once known (ok).
type memSlot struct {
	ok  bool
	sum [32]byte
}

// cpuTime is the CPU time, in nanoseconds, that the live threads of n's
// main process have used (each thread's /proc/PID/task/TID/schedstat),
// plus their count; 0 if one cannot be read.
func (n *node) cpuTime() uint64 {
	var total uint64
	buf := make([]byte, 64)
	for _, t := range n.tasks {
		if t.exited || t.p != nil {
			continue
		}
		f, err := os.Open(fmt.Sprintf("/proc/%d/task/%d/schedstat", n.memPid(), t.tid))
		if err != nil {
			return 0
		}
		k, _ := f.Read(buf)
		f.Close()
		var ns uint64
		if _, err := fmt.Sscan(string(buf[:k]), &ns); err != nil {
			return 0
		}
		total += ns + 1
	}
	return total
}

// forgetMemory drops n's kept memory digest and its link to a
// checkpoint's (memMemo.slot): one of its threads is about to run, or
// weft writes into its memory, or it ended. Every path that answers a
// node's call, resumes a held thread, writes its memory or reaps it calls
// it; a copy of the world (copyState: checkpoints and their restores)
// starts without one, and a restore then links it to the checkpoint's
// (Checkpoint.start).
func (n *node) forgetMemory() { n.memo = memMemo{} }

// memoryDigest writes the sparse digest of process pid's writable memory
// to h: the part of each thread's stack below its stack pointer in sps
// left out, the dynamic loader's data too with skipLoader, and with
// pagemap the untouched pages of anonymous mappings not read (the digest
// is the same without). It returns how many pages it read.
func memoryDigest(h io.Writer, pid int, sps []uint64, skipLoader, pagemap bool) (int, error) {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0, err
	}
	buf := digestBufs.Get().(*[]byte)
	defer digestBufs.Put(buf)
	d := &memDigest{h: h, pid: pid, buf: *buf}
	if pagemap {
		if pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid)); err == nil {
			d.pm = pm
			defer pm.Close()
		}
	}
	var present []bool
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || len(f[1]) < 4 || f[1][1] != 'w' || f[1][3] != 'p' {
			continue
		}
		// With a native TSC the dynamic loader's own data holds start-up
		// statistics timed with rdtsc: loader state, not program state.
		if skipLoader && len(f) >= 6 && strings.Contains(f[5], "/ld-linux") {
			continue
		}
		var lo, hi uint64
		if _, err := fmt.Sscanf(f[0], "%x-%x", &lo, &hi); err != nil || hi <= lo {
			continue
		}
		lo = liveFrom(lo, hi, sps) // skip dead stack (deadstack_linux.go)
		if lo >= hi {
			continue
		}
		d.span(lo, hi)
		present = d.present(lo, hi, anonymousMapping(f), present)
		d.read += countTrue(present)
		d.pages(lo, hi, present)
	}
	d.end()
	return d.read, nil
}

// countTrue counts the true values of b.
func countTrue(b []bool) int {
	k := 0
	for _, v := range b {
		if v {
			k++
		}
	}
	return k
}
