package supervisor

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// objdumpStarts returns the file offsets at which GNU objdump decodes an
// instruction in the executable sections of path, and those it decodes as
// rdtsc or rdtscp.
func objdumpStarts(t *testing.T, path string) (starts map[int64]bool, tsc map[int64]bool) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toOff := func(vaddr uint64) (int64, bool) {
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && vaddr >= p.Vaddr && vaddr < p.Vaddr+p.Filesz {
				return int64(vaddr - p.Vaddr + p.Off), true
			}
		}
		return 0, false
	}
	cmd := exec.Command("objdump", "-d", "-w", "--insn-width=15", path)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("objdump -d %s: %v", path, err)
	}
	starts, tsc = map[int64]bool{}, map[int64]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		a, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(f[0], ":")), 16, 64)
		if err != nil {
			continue
		}
		off, ok := toOff(a)
		if !ok {
			continue
		}
		starts[off] = true
		if m := strings.Fields(f[2]); len(m) > 0 && (m[len(m)-1] == "rdtsc" || m[len(m)-1] == "rdtscp" || m[0] == "rdtsc" || m[0] == "rdtscp") {
			tsc[off] = true
		}
	}
	return starts, tsc
}

// TestX86LenObjdump sweeps real binaries and compares every instruction
// start and every TSC read with GNU objdump's disassembly.
func TestX86LenObjdump(t *testing.T) {
	if _, err := exec.LookPath("objdump"); err != nil {
		t.Fatal("objdump (binutils) is needed: scripts/setup.sh installs it")
	}
	self, _ := os.Executable()
	for _, path := range []string{"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libm.so.6", "/usr/bin/redis-server", self} {
		t.Run(path, func(t *testing.T) {
			want, wantTSC := objdumpStarts(t, path)
			sections := execSections(t, path)
			sc := scanPath(t, path)
			if sc.ambiguous != "" {
				t.Errorf("ambiguous: %s", sc.ambiguous)
			}
			got := map[int64]bool{}
			for _, s := range sc.sites {
				got[s.off] = true
			}
			if len(got) != len(wantTSC) {
				t.Errorf("%d TSC reads, objdump %d", len(got), len(wantTSC))
			}
			for off := range wantTSC {
				if !got[off] {
					t.Errorf("objdump's TSC read at %#x not found", off)
				}
			}
			// instruction starts
			ours := sweepStarts(t, path)
			raw, _ := os.ReadFile(path)
			var missing, extra []int64
			for off := range want {
				if !ours[off] {
					missing = append(missing, off)
				}
			}
			for off := range ours {
				// objdump shows fwait (9B) and the x87 instruction after it
				// as one (fstcw for fwait; fnstcw): two instructions.
				if !want[off] && inSections(sections, off) && !(raw[off-1] == 0x9b && want[off-1]) {
					extra = append(extra, off)
				}
			}
			sort.Slice(missing, func(i, j int) bool { return missing[i] < missing[j] })
			sort.Slice(extra, func(i, j int) bool { return extra[i] < extra[j] })
			if len(missing) > 0 || len(extra) > 0 {
				t.Errorf("%d instructions, objdump %d: %d starts missing (first %x), %d extra (first %x)", len(ours), len(want), len(missing), head(missing), len(extra), head(extra))
			}
		})
	}
}

func head(s []int64) []int64 {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// execSections are the file ranges of path's executable sections, which
// objdump disassembles (not the padding between them).
func execSections(t *testing.T, path string) [][2]int64 {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][2]int64
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS {
			out = append(out, [2]int64{int64(s.Offset), int64(s.Offset + s.Size)})
		}
	}
	return out
}

func inSections(secs [][2]int64, off int64) bool {
	for _, s := range secs {
		if off >= s[0] && off < s[1] {
			return true
		}
	}
	return false
}

// TestScanAmbiguous: OpenSSL's libcrypto keeps tables inside its code
// (perlasm), where no sweep can tell code from data, and some of those
// bytes are an rdtsc's: the image is ambiguous, so weft traps the TSC of
// a process that maps it rather than patch it.
func TestScanAmbiguous(t *testing.T) {
	const path = "/lib/x86_64-linux-gnu/libcrypto.so.3" // scripts/setup.sh installs it with redis-server
	if sc := scanPath(t, path); sc.ambiguous == "" {
		t.Fatalf("%s: not ambiguous (%d sites)", path, len(sc.sites))
	}
}

// scanPath is scanELF of the file at path.
func scanPath(t *testing.T, path string) *tscScan {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scanELF(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// sweepStarts repeats scanELF's sweep and returns every instruction start.
func sweepStarts(t *testing.T, path string) map[int64]bool {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int64]bool{}
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	syms = append(syms, dyn...)
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_X == 0 {
			continue
		}
		seg := make([]byte, p.Filesz)
		p.ReadAt(seg, 0)
		for q, k := range sweepSegment(&tscScan{}, seg, int64(p.Off), elfStarts(f, p, syms)) {
			if k == 1 {
				out[int64(p.Off)+int64(q)] = true
			}
		}
	}
	return out
}

// TestLooseBytes: a TSC read's bytes that the sweep of the executable
// segments did not judge (outside them, or running past a segment's end)
// are loose; weft refuses to patch a mapping that shows them.
func TestLooseBytes(t *testing.T) {
	img := make([]byte, 64)
	copy(img[4:], insnRdtsc)                 // inside the covered range [0, 16)
	copy(img[15:], insnRdtsc)                // running past its end
	copy(img[30:], insnRdtscp)               // outside
	copy(img[8:], []byte{0x0f, 0xa2})        // a cpuid inside
	copy(img[40:], []byte{0x0f, 0xc7, 0xf0}) // an rdrand outside
	got, cpu, err := looseBytes(bytes.NewReader(img), int64(len(img)), [][2]int64{{0, 16}})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	if fmt.Sprint(got) != "[15 30]" {
		t.Fatalf("loose at %v, want [15 30]", got)
	}
	if fmt.Sprint(cpu) != "[40]" {
		t.Fatalf("CPU opcodes loose at %v, want [40]", cpu)
	}
}
