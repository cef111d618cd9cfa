//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// TestCPUVirtual runs a C probe of the CPU-identity instructions (cpuid,
// rdrand, rdseed, rdpid, lsl, rdtscp's aux) and of the [vvar] page under
// weft, patched, and natively: under weft it sees weft's virtual CPU
// (vendor, brand, signature, one thread, CPU 0), feature bits that are a
// subset of the host's, random numbers that are the same in two runs of
// a seed and differ with the seed, and a [vvar] gone from its maps whose
// page faults with SIGSEGV; natively it sees the host's.
func TestCPUVirtual(t *testing.T) {
	bin := buildProbe(t, "cpuid", "-O1", "-mrdrnd", "-mrdseed")
	run := func(seed uint64) string {
		w, _ := runThreads(t, Config{Seed: seed, Nodes: []NodeSpec{{Path: bin, Args: []string{"vvar"}}}}, first)
		if f := w.Failure(); f != nil {
			t.Fatalf("seed %d: %v", seed, f)
		}
		if st := w.Status(0); !st.Exited || st.ExitCode != 0 {
			t.Fatalf("seed %d: status %+v\n%s", seed, st, w.Output(0))
		}
		for _, r := range w.Refusals() {
			if r.Rule == ruleCPU {
				t.Errorf("seed %d: a CPU-identity refusal: %+v", seed, r)
			}
		}
		return string(w.Output(0))
	}
	a, b, c := run(1), run(1), run(2)
	t.Logf("under weft:\n%s", a)
	if a != b {
		t.Fatalf("two runs of seed 1 differ:\n%s\n--\n%s", a, b)
	}
	for _, want := range []string{
		"vendor " + vkernel.CPUVendor + " max 13\n", "brand " + vkernel.CPUBrand + "\n",
		"leafb.1 00000000 00000001 00000201 00000000\n", "rdrand64 1 ", "rdrand32 1 ", "rdseed16 1 ",
		"rdpid 0\n", "lsl 0\n", "rdtscp aux 0\n", "vvar in maps 0\n", "vvar read faults with SIGSEGV\n",
	} {
		if !strings.Contains(a, want) {
			t.Errorf("under weft: no %q", want)
		}
	}
	if field(a, "rdrand64") == field(c, "rdrand64") || field(a, "rdrand32") == field(c, "rdrand32") {
		t.Errorf("rdrand is the same under seeds 1 and 2:\n%s\n--\n%s", a, c)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("native: %v", err)
	}
	native := string(out)
	t.Logf("native:\n%s", native)
	if field(native, "vendor") == field(a, "vendor") || field(native, "rdrand64") == field(a, "rdrand64") {
		t.Errorf("the host's values under weft:\n%s", a)
	}
	// Feature bits: never one the host lacks.
	for _, leaf := range []string{"leaf1", "leaf7"} {
		v, h := words(t, a, leaf), words(t, native, leaf)
		for k := 2; k < 4; k++ {
			if v[k]&^h[k] != 0 {
				t.Errorf("%s register %d: %#x offers %#x the host lacks (%#x)", leaf, k, v[k], v[k]&^h[k], h[k])
			}
		}
	}
	if v := words(t, a, "leaf1"); v[0] != 0x600 || v[1] != 0x10800 {
		t.Errorf("leaf 1 eax/ebx %#x %#x, want the virtual signature and one thread", v[0], v[1])
	}
}

// field is the rest of the line of out that starts with name.
func field(out, name string) string {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (.*)$`).FindStringSubmatch(out)
	if m == nil {
		return ""
	}
	return m[1]
}

// words parses the four hex words of a leaf line.
func words(t *testing.T, out, leaf string) [4]uint32 {
	var w [4]uint32
	f := strings.Fields(field(out, leaf))
	if len(f) != 4 {
		t.Fatalf("no %s line in:\n%s", leaf, out)
	}
	for k, s := range f {
		v, err := strconv.ParseUint(s, 16, 32)
		if err != nil {
			t.Fatal(fmt.Errorf("%s: %v", leaf, err))
		}
		w[k] = uint32(v)
	}
	return w
}
