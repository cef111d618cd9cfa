//go:build linux && amd64

package supervisor

import (
	"debug/elf"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// clockCalls counts node 0's intercepted calls by name.
func clockCalls(w *World) map[string]int {
	out := map[string]int{}
	for _, u := range w.Syscalls() {
		if u.Node == 0 {
			out[u.Name] += u.Count
		}
	}
	return out
}

// TestVDSO runs testdata/vdso.c, which reads every clock id, gettimeofday
// and time, alone, beside a thread and beside a child process, under a
// drifting clock with an offset and a jump, once with weft's vDSO and once
// without. Both runs must print the same readings (the vDSO answers what
// the intercepted syscall answers), and with the vDSO exactly the reads of
// a node's only task, of a clock weft answers, must be missing from the
// intercepted calls: with two tasks every read stays a syscall, so the
// reads remain the scheduling points they were.
func TestVDSO(t *testing.T) {
	bin := buildProbe(t, "vdso", "-O1", "-pthread")
	clock := NodeClock{OffsetNS: 1_234_567, PPM: 2500, Jumps: []sched.ClockJump{{AtUS: 700_000, DeltaNS: -300_000_000}}}
	// Per round of reads: clock ids -1 to 12 (14 clock_gettime, of which
	// -1, 10 and 12 are not clocks weft answers), one gettimeofday, one
	// time. Alone, each round leaves those three syscalls.
	tests := []struct {
		mode        string
		rounds      int // rounds of reads printed
		shared      int // of them, made while the node had two tasks
		intercepted int // clock_gettime calls intercepted with the vDSO
	}{
		{"alone", 2, 0, 2 * 3},
		{"thread", 5, 2, 3*3 + 2*14},
		{"fork", 5, 2, 3*3 + 2*14},
	}
	for _, tc := range tests {
		t.Run(tc.mode, func(t *testing.T) {
			var outs [2]string
			var calls [2]map[string]int
			for k, noVDSO := range []bool{true, false} {
				cfg := Config{Nodes: []NodeSpec{{Path: bin, Args: []string{tc.mode}}}, Clocks: []NodeClock{clock}, Survey: true, NoVDSO: noVDSO}
				w, _ := runThreads(t, cfg, first)
				if f := w.Failure(); f != nil {
					t.Fatalf("NoVDSO %v: %v", noVDSO, f)
				}
				outs[k], calls[k] = string(w.Output(0)), clockCalls(w)
				if k == 1 && w.nodes[0].vdso == 0 {
					t.Fatal("weft's vDSO was not installed (the kernel's [vdso] too small?)")
				}
				w.Close()
			}
			if lines := strings.Count(outs[0], "\n"); lines != tc.rounds*16 {
				t.Fatalf("%d lines of readings, want %d:\n%s", lines, tc.rounds*16, outs[0])
			}
			if outs[0] != outs[1] {
				t.Errorf("readings differ with weft's vDSO:\n%s\n--- without:\n%s", outs[1], outs[0])
			}
			want := [2]map[string]int{
				{"clock_gettime": tc.rounds * 14, "gettimeofday": tc.rounds, "time": tc.rounds},
				{"clock_gettime": tc.intercepted, "gettimeofday": tc.shared, "time": tc.shared},
			}
			for k := range calls {
				for name, n := range want[k] {
					if calls[k][name] != n {
						t.Errorf("NoVDSO %v: %d %s calls intercepted, want %d", k == 0, calls[k][name], name, n)
					}
				}
			}
		})
	}
}

// TestVDSOImage checks the built image: one segment at 0 that fits the
// kernel's [vdso] of this process, readings off, the three entries
// exported under LINUX_2.6 as glibc and Go's runtime look them up.
func TestVDSOImage(t *testing.T) {
	image, clock, err := vdsoImage()
	if err != nil {
		t.Fatal(err)
	}
	_, size, err := vdsoMapping(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if size < len(image) {
		t.Errorf("the image is %d bytes, this kernel's [vdso] %d", len(image), size)
	}
	if on := image[clock+vdsoOnOffset]; on != 0 {
		t.Errorf("the image's readings are on (%d)", on)
	}
	f, err := elf.Open(vdso.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"__vdso_clock_gettime", "__vdso_gettimeofday", "__vdso_time"} {
		if !slices.ContainsFunc(syms, func(s elf.Symbol) bool {
			return s.Name == name && s.Version == "LINUX_2.6" && elf.ST_TYPE(s.Info) == elf.STT_FUNC
		}) {
			t.Errorf("the image exports no function %s@LINUX_2.6", name)
		}
	}
	if sonames, err := f.DynString(elf.DT_SONAME); err != nil || len(sonames) != 1 || sonames[0] != "linux-vdso.so.1" {
		t.Errorf("soname %q (%v), want linux-vdso.so.1", sonames, err)
	}
}
