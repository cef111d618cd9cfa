package supervisor

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"sort"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Finding a program's TSC reads. weft keeps the TSC deterministic either
// by trapping every rdtsc and rdtscp (prctl PR_SET_TSC, which on some
// virtual machines costs microseconds on every context switch into or out
// of the node) or, by default, by patching each of those instructions in
// the node's code into a trap of weft's own before the code can run
// (tscpatch_linux.go). Patching is sound only if every TSC read is found:
// this file finds them in an ELF image by a linear sweep of its executable
// segments with insnLen, restarted at every function symbol and at the
// entry point, and checks the answer against the bytes: every occurrence
// of the bytes of rdtsc (0F 31) or rdtscp (0F 01 F9) in executable code
// must be either such an instruction or strictly inside another decoded
// instruction. An occurrence in bytes the sweep could not decode makes the
// image ambiguous, and weft does not patch it (the run ends with an error
// that says to trap the TSC instead).

// The instructions weft emulates.
var (
	insnRdtsc  = []byte{0x0f, 0x31}
	insnRdtscp = []byte{0x0f, 0x01, 0xf9}
)

// A tscSite is one TSC read in an image: the file offset of the
// instruction (with its prefixes), its length, and whether it is rdtscp.
type tscSite struct {
	off    int64
	length uint8
	rdtscp bool
}

// tscScan is what a sweep of one image found: the sites, the file ranges
// it covered (the executable segments), and the first ambiguity, if any.
type tscScan struct {
	sites     []tscSite
	covered   [][2]int64 // [start, end) file offsets
	loose     []int64    // offsets of the instructions' bytes outside covered (a mapping may show them executable)
	ambiguous string     // why the image cannot be patched; "" if it can
	interp    string     // the program interpreter (PT_INTERP), if any
	needed    []string   // the libraries it needs (DT_NEEDED)
	syscallAt int64      // the file offset of a syscall instruction, -1 none

	// The CPU-identity instructions (cpuid, rdrand, rdseed, rdpid, lsl),
	// found by the same sweep and judged apart: an image whose TSC reads
	// are all found may hold an lsl from memory, and the reverse.
	cpuSites     []cpuSite
	cpuLoose     []int64 // as loose, for their opcode bytes
	cpuAmbiguous string  // why its CPU-identity instructions cannot be patched; "" if they can
}

// A cpuSite is one CPU-identity instruction in an image: the file offset
// of the instruction (with its prefixes) and what it is.
type cpuSite struct {
	off  int64
	insn vkernel.CPUInsn
}

// scanELF sweeps the executable segments of the ELF image r, of size
// bytes, and finds the instructions' bytes in the rest of it.
func scanELF(r io.ReaderAt, size int64) (*tscScan, error) {
	out, err := sweepELF(r)
	if err != nil {
		return nil, err
	}
	if out.ambiguous == "" || out.cpuAmbiguous == "" {
		out.loose, out.cpuLoose, err = looseBytes(r, size, out.covered)
	}
	return out, err
}

// sweepELF sweeps the executable segments of the ELF image r.
func sweepELF(r io.ReaderAt) (*tscScan, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return scanSegmentsOnly(r, err)
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 || f.Class != elf.ELFCLASS64 {
		return nil, fmt.Errorf("not an x86-64 ELF image (%v, %v)", f.Machine, f.Class)
	}
	var syms []elf.Symbol
	if s, err := f.Symbols(); err == nil {
		syms = append(syms, s...)
	}
	if s, err := f.DynamicSymbols(); err == nil {
		syms = append(syms, s...)
	}
	out := &tscScan{syscallAt: -1}
	out.needed, _ = f.ImportedLibraries()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err == nil {
				out.interp = string(bytes.TrimRight(b, "\x00"))
			}
		}
	}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_X == 0 || p.Filesz == 0 {
			continue
		}
		if err := out.sweepLoad(r, int64(p.Off), int64(p.Filesz), elfStarts(f, p, syms)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sweepLoad sweeps the executable segment at file offset off, filesz
// bytes, from starts (offsets in it).
func (out *tscScan) sweepLoad(r io.ReaderAt, off, filesz int64, starts []int) error {
	seg := make([]byte, filesz)
	if _, err := r.ReadAt(seg, off); err != nil && err != io.EOF {
		return fmt.Errorf("reading a segment: %v", err)
	}
	sweepSegment(out, seg, off, starts)
	out.covered = append(out.covered, [2]int64{off, off + filesz})
	return nil
}

// looseBytes finds the instructions' bytes in image r that the sweep of
// the covered ranges did not judge: each occurrence not wholly inside one
// covered range, of a TSC read's bytes (loose) and of a CPU-identity
// instruction's opcode (cpu).
func looseBytes(r io.ReaderAt, size int64, covered [][2]int64) (loose, cpu []int64, err error) {
	all := make([]byte, size)
	n, err := r.ReadAt(all, 0)
	if err != nil && err != io.EOF {
		return nil, nil, err
	}
	all = all[:n]
	outside := func(q, n int64) bool {
		for _, c := range covered {
			if q >= c[0] && q+n <= c[1] {
				return false
			}
		}
		return true
	}
	for _, pat := range [][]byte{insnRdtsc, insnRdtscp} {
		for from := 0; ; {
			j := bytes.Index(all[from:], pat)
			if j < 0 {
				break
			}
			q := int64(from + j)
			from += j + 1
			if outside(q, int64(len(pat))) {
				loose = append(loose, q)
			}
		}
	}
	for _, q := range cpuOpcodes(all) {
		if outside(int64(q), 2) {
			cpu = append(cpu, int64(q))
		}
	}
	return loose, cpu, nil
}

// cpuOpcodes are the offsets in b at which a CPU-identity instruction's
// opcode bytes start (vkernel.CPUOpcodeAt).
func cpuOpcodes(b []byte) []int {
	var at []int
	for from := 0; ; {
		j := bytes.IndexByte(b[from:], 0x0f)
		if j < 0 {
			return at
		}
		q := from + j
		from = q + 1
		if vkernel.CPUOpcodeAt(b[q:]) {
			at = append(at, q)
		}
	}
}

// elfStarts are the offsets in segment p at which a sweep (re)starts: the
// segment's start, the entry point, every executable section's start and
// every function symbol.
func elfStarts(f *elf.File, p *elf.Prog, syms []elf.Symbol) []int {
	starts := []int{0}
	add := func(vaddr uint64) {
		if vaddr >= p.Vaddr && vaddr < p.Vaddr+p.Filesz {
			starts = append(starts, int(vaddr-p.Vaddr))
		}
	}
	add(f.Entry)
	for _, sec := range f.Sections {
		if sec.Flags&elf.SHF_EXECINSTR != 0 && sec.Type == elf.SHT_PROGBITS {
			add(sec.Addr)
		}
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF && s.Value != 0 {
			add(s.Value)
		}
	}
	return starts
}

// scanSegmentsOnly sweeps an image whose section headers debug/elf
// rejects (an image in memory, such as a vDSO, need not carry them): the
// program headers alone, from each executable segment's start and the
// entry point.
func scanSegmentsOnly(r io.ReaderAt, why error) (*tscScan, error) {
	var eh [64]byte
	if _, err := r.ReadAt(eh[:], 0); err != nil || string(eh[:4]) != elf.ELFMAG || eh[elf.EI_CLASS] != byte(elf.ELFCLASS64) || eh[elf.EI_DATA] != byte(elf.ELFDATA2LSB) {
		return nil, why
	}
	le := binary.LittleEndian
	if elf.Machine(le.Uint16(eh[18:])) != elf.EM_X86_64 {
		return nil, why
	}
	entry, phoff, phentsize, phnum := le.Uint64(eh[24:]), int64(le.Uint64(eh[32:])), int64(le.Uint16(eh[54:])), int(le.Uint16(eh[56:]))
	if phentsize < 56 || phnum > 256 {
		return nil, why
	}
	out := &tscScan{syscallAt: -1}
	for k := 0; k < phnum; k++ {
		var ph [56]byte
		if _, err := r.ReadAt(ph[:], phoff+int64(k)*phentsize); err != nil {
			return nil, fmt.Errorf("program header %d: %v", k, err)
		}
		typ, flags := elf.ProgType(le.Uint32(ph[0:])), elf.ProgFlag(le.Uint32(ph[4:]))
		off, vaddr, filesz := le.Uint64(ph[8:]), le.Uint64(ph[16:]), le.Uint64(ph[32:])
		if typ != elf.PT_LOAD || flags&elf.PF_X == 0 || filesz == 0 || filesz > 1<<30 {
			continue
		}
		starts := []int{0}
		if entry >= vaddr && entry < vaddr+filesz {
			starts = append(starts, int(entry-vaddr))
		}
		if err := out.sweepLoad(r, int64(off), int64(filesz), starts); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sweepSegment decodes seg (at file offset base) from each start to the
// next and records the TSC reads and any ambiguous occurrence in out. It
// returns, per byte, 1 where an instruction starts, 2 inside one and 0
// where nothing was decoded.
func sweepSegment(out *tscScan, seg []byte, base int64, starts []int) []byte {
	sort.Ints(starts)
	// kind per byte: 0 undecoded, 1 instruction start, 2 inside an instruction
	kind := make([]byte, len(seg))
	for k, s := range starts {
		if k > 0 && s == starts[k-1] {
			continue
		}
		stop := len(seg)
		for _, t := range starts[k+1:] {
			if t > s {
				stop = t
				break
			}
		}
		for p := s; p < stop; {
			if kind[p] == 1 {
				break // joined a sweep from an earlier start
			}
			n := insnLen(seg[p:])
			if n == 0 {
				break // undecodable: [p, stop) stays undecoded
			}
			kind[p] = 1
			for q := p + 1; q < p+n && q < len(seg); q++ {
				kind[q] = 2
			}
			if site, ok := tscInsn(seg[p:p+n], base+int64(p)); ok {
				out.sites = append(out.sites, site)
			}
			out.cpuInsn(seg[p:p+n], base+int64(p))
			if out.syscallAt < 0 && n == 2 && seg[p] == 0x0f && seg[p+1] == 0x05 {
				out.syscallAt = base + int64(p)
			}
			p += n
		}
	}
	// Every occurrence of the instructions' bytes must be explained.
	for _, pat := range [][]byte{insnRdtsc, insnRdtscp} {
		for from := 0; ; {
			j := bytes.Index(seg[from:], pat)
			if j < 0 {
				break
			}
			q := from + j
			from = q + 1
			if out.ambiguous != "" {
				continue
			}
			// Where an instruction starts, it is the TSC read itself
			// (recorded above); inside one, no TSC read.
			if kind[q] == 0 {
				out.ambiguous = fmt.Sprintf("the bytes % x at file offset %#x are in code the sweep could not decode", pat, base+int64(q))
			}
		}
	}
	for _, q := range cpuOpcodes(seg) {
		if kind[q] == 0 && out.cpuAmbiguous == "" {
			out.cpuAmbiguous = fmt.Sprintf("the opcode bytes % x at file offset %#x are in code the sweep could not decode", seg[q:min(q+3, len(seg))], base+int64(q))
		}
	}
	return kind
}

// cpuInsn records the decoded instruction in (at file offset off) if it
// is a CPU-identity instruction; an lsl from memory, which weft does not
// emulate, makes the image's CPU identity unpatchable.
func (out *tscScan) cpuInsn(in []byte, off int64) {
	if len(in) < 2 || bytes.IndexByte(in, 0x0f) < 0 {
		return
	}
	ci, ok := vkernel.DecodeCPUInsn(in)
	switch {
	case !ok:
	case ci.Op == vkernel.OpLSLMem:
		if out.cpuAmbiguous == "" {
			out.cpuAmbiguous = fmt.Sprintf("an lsl from memory at file offset %#x", off)
		}
	default:
		out.cpuSites = append(out.cpuSites, cpuSite{off: off, insn: ci})
	}
}

// tscInsn recognises a decoded instruction (prefixes allowed) that is
// rdtsc or rdtscp.
func tscInsn(in []byte, off int64) (tscSite, bool) {
	i := 0
	for i < len(in) && (isLegacyPrefix(in[i]) || in[i] >= 0x40 && in[i] <= 0x4f) {
		i++
	}
	switch {
	case bytes.Equal(in[i:], insnRdtsc):
		return tscSite{off: off, length: uint8(len(in))}, true
	case bytes.Equal(in[i:], insnRdtscp):
		return tscSite{off: off, length: uint8(len(in)), rdtscp: true}, true
	}
	return tscSite{}, false
}

// scanCPUBytes is scanBytes for the CPU-identity instructions' opcodes.
func scanCPUBytes(code []byte) string {
	if at := cpuOpcodes(code); len(at) > 0 {
		return fmt.Sprintf("the opcode bytes % x at offset %#x of executable memory that is no ELF image", code[at[0]:min(at[0]+3, len(code))], at[0])
	}
	return ""
}

// scanBytes checks code that is no ELF image (an anonymous executable
// mapping, a file that is not ELF): it can be patched only if it holds no
// occurrence of the instructions' bytes at all.
func scanBytes(code []byte) string {
	for _, pat := range [][]byte{insnRdtsc, insnRdtscp} {
		if j := bytes.Index(code, pat); j >= 0 {
			return fmt.Sprintf("the bytes % x at offset %#x of executable memory that is no ELF image", pat, j)
		}
	}
	return ""
}
