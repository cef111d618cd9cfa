//go:build linux && amd64

package supervisor

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
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
// memory to h. With ASLR off and AT_RANDOM seeded, equal histories give
// equal bytes.
func (w *World) hashMemory(n *node, h io.Writer) error {
	sps, err := n.stackPointers()
	if err != nil {
		return err
	}
	_, err = memoryDigest(h, n.memPid(), sps, w.cfg.NativeTSC, true)
	return err
}

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
	d := &memDigest{h: h, pid: pid, buf: make([]byte, 256<<10)}
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
