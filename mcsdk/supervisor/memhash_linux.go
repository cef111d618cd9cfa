//go:build linux && amd64

package supervisor

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
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
//     its address, its length and the SHA-256 of its bytes (the first
//     page of a range may be partial: it starts where the range does).
//     A page's sum, not its bytes, so that a page known to hold the
//     bytes of one already summed is not read again (memBase).
//
// Given the ranges, the pages left out are exactly the zero ones, so two
// nodes get one digest exactly when their writable memory is the same
// byte for byte in the same places (up to SHA-256's collisions, as
// before): the full image hashed before this scheme, which also merged
// images with equal bytes in different places.
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
	base   *memBase // the checkpoint's frozen process it was forked from, or nil
	buf    []byte
	ents   []byte // the process's pagemap entries, a batch
	bents  []byte // the base's, the same batch
	aents  []byte // an ancestor's of the base, the same batch (inherit)
	num    [8]byte
	lo, hi uint64    // the open range (coalesced), hi == 0: none yet
	read   int       // pages that may hold a byte other than zero (read)
	sums   *pageSums // the full pages' sums, collected; or nil
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

// What the digest does with one page (memDigest.classify).
const (
	pageRead   uint8 = iota // read it: it may hold a byte other than zero
	pageAbsent              // skip it: an untouched anonymous page, zero
	pageBase                // the base's page: its sum is the base's (memBase)
)

// classify reports, for the pages from the one holding lo up to hi, what
// the digest does with each: with anon, pages neither present nor
// swapped in the page table are absent; with a base, a page on the same
// physical anonymous page as the base's at that address is the base's;
// every other page, or all of them when the page table cannot be read,
// is read.
func (d *memDigest) classify(lo, hi uint64, anon bool, out []uint8) []uint8 {
	first := lo / memPage
	n := int((hi - first*memPage + memPage - 1) / memPage)
	out = out[:0]
	for range n {
		out = append(out, pageRead)
	}
	if d.pm == nil || (!anon && d.base == nil) {
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
		lo, hi := k, 0 // the pages not absent: [lo, hi)
		for j := range k {
			if e := binary.LittleEndian.Uint64(d.ents[j*8:]); anon && e&(pagePresent|pageSwapped) == 0 {
				out[i+j] = pageAbsent
			} else {
				lo, hi = min(lo, j), j+1
			}
		}
		if d.base == nil || lo >= hi || !d.base.entries(&d.bents, first+uint64(i+lo), hi-lo) {
			continue
		}
		missed := false
		for j := lo; j < hi; j++ {
			if out[i+j] == pageRead && samePage(binary.LittleEndian.Uint64(d.ents[j*8:]), binary.LittleEndian.Uint64(d.bents[(j-lo)*8:])) {
				out[i+j] = pageBase
				missed = missed || !d.base.known((first+uint64(i+j))*memPage)
			}
		}
		if missed && !verifyDigests {
			d.inherit(first+uint64(i+lo), out[i+lo:i+hi])
		}
	}
	return out
}

// inherit gives the base the sums its ancestors have of the pages of a
// batch from page number first (its pagemap entries in d.bents) that the
// digested process shares with it (kind pageBase) and whose sums it
// lacks: an ancestor's page on the same physical page as the base's, at
// the same address, holds the same bytes.
func (d *memDigest) inherit(first uint64, kind []uint8) {
	for anc, depth := d.base.parent, 0; anc != nil && depth < maxBaseChain; anc, depth = anc.parent, depth+1 {
		lo, hi := len(kind), 0 // the pages still missed: [lo, hi)
		for j, k := range kind {
			if k == pageBase && !d.base.known((first+uint64(j))*memPage) {
				lo, hi = min(lo, j), j+1
			}
		}
		if lo >= hi {
			return
		}
		if !anc.entries(&d.aents, first+uint64(lo), hi-lo) {
			continue // closed: its ancestors may still be open
		}
		for j := lo; j < hi; j++ {
			a := (first + uint64(j)) * memPage
			if kind[j] != pageBase || d.base.known(a) || !samePage(binary.LittleEndian.Uint64(d.bents[j*8:]), binary.LittleEndian.Uint64(d.aents[(j-lo)*8:])) {
				continue
			}
			if s, ok := anc.sum(a); ok {
				d.base.check(a, s)
			}
		}
	}
}

// pages writes the pages of [lo, hi) that hold a byte other than zero,
// as their address, length and SHA-256, reading runs of those that may
// (kind: classify) at once; a page that is the base's (pageBase) is
// written from the base's sum if it has one, and gives it one otherwise.
// A read that fails ends the range there, as a short read did before.
func (d *memDigest) pages(lo, hi uint64, kind []uint8) error {
	first := lo / memPage
	for a := lo; a < hi; {
		p := a/memPage - first
		if kind[p] == pageAbsent {
			a = (a/memPage + 1) * memPage
			continue
		}
		if kind[p] == pageBase && a%memPage == 0 && !verifyDigests {
			if s, ok := d.base.sum(a); ok {
				d.page(a, memPage, s)
				a += memPage
				continue
			}
		}
		// The run of pages to read from a, at most len(d.buf) bytes,
		// ending at a page's end (or hi): a record is always the part of
		// one page within the range, wherever a run starts.
		end := min((a/memPage+1)*memPage, hi)
		for end < hi && kind[end/memPage-first] != pageAbsent && end+memPage-a <= uint64(len(d.buf)) {
			if kind[end/memPage-first] == pageBase && !verifyDigests && d.base.known(end) {
				break
			}
			end = min(end+memPage, hi)
		}
		got, _ := readMem(d.pid, uintptr(a), d.buf[:end-a])
		if got <= 0 {
			return nil
		}
		d.read += (got + memPage - 1) / memPage
		for off := 0; off < got; {
			pa := a + uint64(off)
			k := min(int((pa/memPage+1)*memPage-pa), got-off)
			s := pageSum{zero: true}
			if pg := d.buf[off : off+k]; !bytes.Equal(pg, zeroPage[:k]) {
				s = pageSum{sum: sha256.Sum256(pg)}
			}
			if k == memPage && kind[pa/memPage-first] == pageBase {
				if err := d.base.check(pa, s); err != nil {
					return err
				}
			}
			d.page(pa, uint64(k), s)
			off += k
		}
		if got < int(end-a) {
			return nil
		}
		a = end
	}
	return nil
}

// page writes the record of the part [a, a+k) of a page whose bytes have
// sum s: none for zeros.
func (d *memDigest) page(a, k uint64, s pageSum) {
	if d.sums != nil && k == memPage {
		d.sums.at = append(d.sums.at, a)
		d.sums.sums = append(d.sums.sums, s)
	}
	if !s.zero {
		d.put('P', a, k)
		d.h.Write(s.sum[:])
	}
}

// pageSum is the digest of a page's bytes: zero, or their SHA-256.
type pageSum struct {
	zero bool
	sum  [32]byte
}

// pageSums are the sums of a process's full pages (not a partial first
// one) that a digest wrote, by address (at), as of that digest: a base
// made of a process that did not run since is given them (seed).
type pageSums struct {
	at   []uint64
	sums []pageSum
}

// Pagemap entry fields (Documentation/admin-guide/mm/pagemap.rst): the
// page frame number (shown to CAP_SYS_ADMIN only, 0 otherwise) and the
// bit of a file page or shared anonymous one.
const (
	pageFrame  = 1<<55 - 1
	pageFileSh = 1 << 61
)

// samePage reports whether two pagemap entries, of two processes at one
// address, show the same physical page, present and anonymous: then the
// two hold the same bytes there.
func samePage(e, b uint64) bool {
	const mask = pagePresent | pageFileSh | pageFrame // not the soft-dirty or exclusive bits, each process's own
	return e&mask == b&mask && e&pagePresent != 0 && e&pageFileSh == 0 && e&pageFrame != 0
}

// memBase lets a restored node's memory digest skip the pages it still
// shares with its checkpoint's frozen process (the base). A restore is a
// fork of the frozen process: every private page is shared with it,
// copy-on-write, until one of the two writes there; the frozen process
// never runs and weft never writes into it, so its bytes at an address
// never change (its page may move, migrated by the kernel, its bytes
// with it). A restored process's anonymous page on the same physical
// page as the frozen process's at the same address, both read from the
// page tables at the hash (the nodes are parked), therefore holds the
// frozen process's bytes, whose sum the base keeps once read (sums, by
// address): the node that ran in a step is read only where it wrote or
// mapped anew, and the nodes' restores share one table. File pages are
// always read (a file's page cache can be written), and so is every page
// when the page frame numbers are hidden (weft without CAP_SYS_ADMIN).
// The base's pagemap stays open while the checkpoint lives: the file
// reaches that process's memory only, never a later holder of its pid.
// With -tags weftverify every page the base would give is read and its
// sum checked against the base's.
//
// A checkpoint of a node forked from an earlier one's frozen process (a
// restore, or the node a checkpoint was taken of) shares most of its
// pages with that one: its base's parent, whose sums it takes for the
// pages the two share (memDigest.inherit), so that a new checkpoint's
// first digest reads no more than the one before it did.
type memBase struct {
	mu     sync.Mutex
	pm     *os.File // the frozen process's pagemap; nil once the checkpoint is closed
	sums   map[uint64]pageSum
	parent *memBase // the base of the process the frozen one was forked from, or nil
}

// maxBaseChain bounds how many ancestors of a base are searched
// (memDigest.inherit).
const maxBaseChain = 8

// newMemBase opens the pagemap of the frozen process pid, forked from a
// process with base parent (or nil); nil if it cannot (its restores are
// then read in full).
func newMemBase(pid int, parent *memBase) *memBase {
	pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		return nil
	}
	return &memBase{pm: pm, sums: map[uint64]pageSum{}, parent: parent}
}

// seed gives the base the sums of its frozen process's pages, known
// from a digest of the process it was forked from while it did not run
// between the two.
func (b *memBase) seed(ps *pageSums) {
	if b == nil || ps == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.sums) == 0 { // sized at once: a base is seeded with hundreds of sums
		b.sums = make(map[uint64]pageSum, len(ps.at))
	}
	for i, a := range ps.at {
		b.sums[a] = ps.sums[i]
	}
}

// size is how many page sums the base has; 0 for nil.
func (b *memBase) size() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.sums)
}

// entries reads the base's pagemap entries of k pages from page number
// first into *buf; false if it cannot.
func (b *memBase) entries(buf *[]byte, first uint64, k int) bool {
	if cap(*buf) < k*8 {
		*buf = make([]byte, k*8)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pm == nil {
		return false
	}
	got, err := b.pm.ReadAt((*buf)[:k*8], int64(first)*8)
	return err == nil || got == k*8
}

// sum is the base's page sum at a, if read.
func (b *memBase) sum(a uint64) (pageSum, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.sums[a]
	return s, ok
}

// known reports whether the base has the sum of its page at a.
func (b *memBase) known(a uint64) bool {
	_, ok := b.sum(a)
	return ok
}

// check records s as the sum of the base's page at a, read from a
// process that shares it; one already recorded must be s (it is, unless
// the base's bytes changed: weftverify reads every page to check it).
func (b *memBase) check(a uint64, s pageSum) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if old, ok := b.sums[a]; ok && old != s {
		return fmt.Errorf("memory digest: the checkpoint's page at %#x does not hold the bytes read there before", a)
	}
	b.sums[a] = s
	return nil
}

// close closes the base's pagemap: its checkpoint is closed, and its
// frozen process gone.
func (b *memBase) close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pm != nil {
		b.pm.Close()
		b.pm = nil
	}
}

// anonymousMapping reports whether a /proc/PID/maps line's fields f
// describe anonymous memory: no inode, and no path or a bracketed name
// ([heap], [stack], [anon:NAME]).
func anonymousMapping(f []string) bool {
	return len(f) >= 5 && f[4] == "0" && (len(f) < 6 || strings.HasPrefix(f[5], "["))
}

// mapsRange parses a maps line's address range, "lo-hi" in hex as the
// kernel prints it (%08lx-%08lx).
func mapsRange(s string) (lo, hi uint64, ok bool) {
	a, b, found := strings.Cut(s, "-")
	if !found {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	return lo, hi, err1 == nil && err2 == nil
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
	if sum, ok := w.carriedMemory(n); ok { // a node not given its processes yet (lazy_linux.go)
		h.Write(sum[:])
		return nil
	}
	main := n.self == nil
	pid := n.memPid()
	var ran uint64
	unrun := false // the process has not run since its memo was made
	if main {
		ran = n.cpuTime()
		unrun = n.memo.pid == pid && n.memo.ran == ran && ran != 0
		if unrun && !n.memo.ok && n.memo.slot != nil && n.memo.slot.ok {
			n.memo.ok, n.memo.sum, n.memo.pages = true, n.memo.slot.sum, n.memo.slot.pages
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
	// The base serves the node's other processes too: a page of any
	// process on the base's physical page at its address holds its bytes
	// (memBase), and a node's child processes are forks of its main one.
	base := n.memo.base
	var pages *pageSums
	if main {
		pages = &pageSums{}
		if k := n.memo.base.size(); k > 0 { // about as many as the base has: sized at once
			pages.at, pages.sums = make([]uint64, 0, k), make([]pageSum, 0, k)
		}
	}
	d := sha256.New()
	if _, err = memoryDigest(d, pid, sps, w.cfg.NativeTSC, true, base, pages); err != nil {
		return err
	}
	var sum [32]byte
	d.Sum(sum[:0])
	if main {
		if unrun && n.memo.ok && n.memo.sum != sum {
			return fmt.Errorf("weftverify: node %d's kept memory digest is not its memory's (carried from a checkpoint: %v)", n.id, n.memo.slot != nil)
		}
		if unrun && n.memo.slot != nil && !n.memo.slot.ok {
			n.memo.slot.ok, n.memo.slot.sum, n.memo.slot.pages = true, sum, pages
		}
		n.memo = memMemo{ok: true, pid: pid, ran: ran, sum: sum, pages: pages, slot: n.memo.slot, base: base}
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
//
// base, kept when the rest is forgotten, is the checkpoint's frozen
// process the node's main process was forked from at its restore
// (memBase): while the process lives, its pages still on the frozen
// process's are not read again. pages are the full pages' sums of the
// digest sum is (a checkpoint's base is given them: Checkpoint.freeze).
type memMemo struct {
	ok    bool
	pid   int
	ran   uint64
	sum   [32]byte
	pages *pageSums
	slot  *memSlot
	base  *memBase
}

// memSlot is the memory digest of a checkpoint's frozen main process,
// once known (ok).
type memSlot struct {
	ok    bool
	sum   [32]byte
	pages *pageSums
}

// cpuTime is the CPU time, in nanoseconds, that the live threads of n's
// main process have used (each thread's /proc/PID/task/TID/schedstat,
// read through schedstatFiles), plus their count; 0 if one cannot be
// read.
func (n *node) cpuTime() uint64 {
	var total uint64
	schedstatFiles.Lock()
	defer schedstatFiles.Unlock()
	for _, t := range n.tasks {
		if t.exited || t.p != nil {
			continue
		}
		b, err := schedstatFiles.read(n.memPid(), t.tid)
		if err != nil {
			return 0
		}
		ns, ok := leadingUint(b)
		if !ok {
			return 0
		}
		total += ns + 1
	}
	return total
}

// leadingUint parses the decimal number b starts with, ended by a space
// or newline (schedstat's first field).
func leadingUint(b []byte) (uint64, bool) {
	i := bytes.IndexAny(b, " \n")
	if i <= 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:i]), 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// forgetMemory drops n's kept memory digest and its link to a
// checkpoint's (memMemo.slot), but not its base: one of its threads is
// about to run, or weft writes into its memory, or it ended. Every path that answers a
// node's call, resumes a held thread, writes its memory or reaps it calls
// it; a copy of the world (copyState: checkpoints and their restores)
// starts without one, and a restore then links it to the checkpoint's
// (Checkpoint.start).
func (n *node) forgetMemory() { n.memo = memMemo{base: n.memo.base} }

// memoryDigest writes the sparse digest of process pid's writable memory
// to h: the part of each thread's stack below its stack pointer in sps
// left out, the dynamic loader's data too with skipLoader, and with
// pagemap the untouched pages of anonymous mappings not read, nor those
// the process shares with base (a checkpoint's frozen process it was
// forked from, or nil) whose sums base has (the digest is the same
// without), and with sums the full pages' sums collected into it. It
// returns how many pages it read.
func memoryDigest(h io.Writer, pid int, sps []uint64, skipLoader, pagemap bool, base *memBase, sums *pageSums) (int, error) {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0, err
	}
	buf := digestBufs.Get().(*[]byte)
	defer digestBufs.Put(buf)
	d := &memDigest{h: h, pid: pid, buf: *buf, sums: sums}
	if pagemap {
		if pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid)); err == nil {
			d.pm, d.base = pm, base
			defer pm.Close()
		}
	}
	var kind []uint8
	for line := range strings.Lines(string(maps)) {
		f := strings.Fields(line)
		if len(f) < 2 || len(f[1]) < 4 || f[1][1] != 'w' || f[1][3] != 'p' {
			continue
		}
		// With a native TSC the dynamic loader's own data holds start-up
		// statistics timed with rdtsc: loader state, not program state.
		if skipLoader && len(f) >= 6 && strings.Contains(f[5], "/ld-linux") {
			continue
		}
		lo, hi, ok := mapsRange(f[0])
		if !ok || hi <= lo {
			continue
		}
		lo = liveFrom(lo, hi, sps) // skip dead stack (deadstack_linux.go)
		if lo >= hi {
			continue
		}
		d.span(lo, hi)
		kind = d.classify(lo, hi, anonymousMapping(f), kind)
		if err := d.pages(lo, hi, kind); err != nil {
			return d.read, err
		}
	}
	d.end()
	return d.read, nil
}
