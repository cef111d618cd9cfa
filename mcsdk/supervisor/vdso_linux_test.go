//go:build linux && amd64

package supervisor

import (
	"debug/elf"
	"fmt"
	"math/rand/v2"
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
// the intercepted syscall answers) and make the same choices (no
// scheduling point is lost), and with the vDSO exactly the reads made
// while no other task of the node was ready, of a clock weft answers, must
// be missing from the intercepted calls: a read beside a ready task stays
// the syscall, and the preemption point, it was.
func TestVDSO(t *testing.T) {
	bin := buildProbe(t, "vdso", "-O1", "-pthread")
	clock := NodeClock{OffsetNS: 1_234_567, PPM: 2500, Jumps: []sched.ClockJump{{AtUS: 700_000, DeltaNS: -300_000_000}}}
	// Per round of reads: clock ids -1 to 12 (14 clock_gettime, of which
	// -1, 10 and 12 are not clocks weft answers), one gettimeofday, one
	// time. Answered by the vDSO, a round leaves those three syscalls. In
	// "thread" and "fork", picking the first choice, the first task reads
	// the round "beside" ("parent") while the new one is ready (held at
	// its clone), and the new one reads "worker" ("child") while the first
	// waits in pthread_join (waitpid), parked, not ready; picking the last,
	// the new task runs first and naps, so no round is read beside a ready
	// task.
	tests := []struct {
		mode   string
		pick   func([]sched.Action, int) sched.Action
		name   string
		rounds int // rounds of reads printed
		ready  int // of them, made while another task was ready
	}{
		{"alone", first, "first", 2, 0},
		{"thread", first, "first", 5, 1},
		{"thread", last, "last", 5, 0},
		{"fork", first, "first", 5, 1},
		{"fork", last, "last", 5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.mode+"/"+tc.name, func(t *testing.T) {
			var outs [2]string
			var calls [2]map[string]int
			var acts [2][]sched.Action
			for k, noVDSO := range []bool{true, false} {
				cfg := Config{Nodes: []NodeSpec{{Path: bin, Args: []string{tc.mode}}}, Clocks: []NodeClock{clock}, Survey: true, NoVDSO: noVDSO}
				w, applied := runThreads(t, cfg, tc.pick)
				if f := w.Failure(); f != nil {
					t.Fatalf("NoVDSO %v: %v", noVDSO, f)
				}
				outs[k], calls[k], acts[k] = string(w.Output(0)), clockCalls(w), applied
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
			if !slices.Equal(acts[0], acts[1]) {
				t.Errorf("the choices differ with weft's vDSO:\n%v\n--- without:\n%v", acts[1], acts[0])
			}
			if tc.ready > 0 && !slices.ContainsFunc(acts[0], func(a sched.Action) bool { return a.Kind == sched.Run }) {
				t.Errorf("no thread choice in %v: the reads beside a ready task were no scheduling point", acts[0])
			}
			want := [2]map[string]int{
				{"clock_gettime": tc.rounds * 14, "gettimeofday": tc.rounds, "time": tc.rounds},
				{"clock_gettime": (tc.rounds-tc.ready)*3 + tc.ready*14, "gettimeofday": tc.ready, "time": tc.ready},
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
	v, err := vdsoImage(Toolchain{})
	if err != nil {
		t.Fatal(err)
	}
	image, clock := v.image, v.clock
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
	f, err := elf.Open(v.path)
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

// TestVDSOGo runs a Go program of two nodes (net TCP, a goroutine per
// connection, the runtime's threads) under seeded choices among every
// enabled action, with and without weft's vDSO: the choices, the output
// and the calls other than clock reads must be the same, and some clock
// reads (those made while no other thread of the node was ready) must be
// answered without a stop. Go's runtime finds the vDSO from the auxiliary
// vector and calls its clock_gettime directly.
func TestVDSOGo(t *testing.T) {
	bin := buildGoEcho(t)
	for _, seed := range []uint64{1, 2, 3} {
		var acts [2][]sched.Action
		var outs [2]string
		var calls [2]map[string]int
		for k, noVDSO := range []bool{true, false} {
			var specs []NodeSpec
			for i := range 2 {
				specs = append(specs, NodeSpec{Path: bin, Args: []string{fmt.Sprint(i), "7460", "pingpong", "3"}})
			}
			rng := rand.New(rand.NewPCG(seed, 7))
			pick := func(a []sched.Action, _ int) sched.Action { return a[rng.IntN(len(a))] }
			w, applied := runThreads(t, Config{Nodes: specs, BasePort: 7460, Survey: true, NoVDSO: noVDSO}, pick)
			if f := w.Failure(); f != nil {
				t.Fatalf("seed %d, NoVDSO %v: %v", seed, noVDSO, f)
			}
			acts[k], outs[k], calls[k] = applied, string(w.Output(0))+"|"+string(w.Output(1)), clockCalls(w)
			w.Close()
		}
		if !slices.Equal(acts[0], acts[1]) {
			t.Errorf("seed %d: %d choices without the vDSO, %d with, or different ones", seed, len(acts[0]), len(acts[1]))
		}
		if outs[0] != outs[1] {
			t.Errorf("seed %d: output differs:\n%s\n---\n%s", seed, outs[0], outs[1])
		}
		if calls[1]["clock_gettime"] >= calls[0]["clock_gettime"] {
			t.Errorf("seed %d: %d clock_gettime calls intercepted with the vDSO, %d without", seed, calls[1]["clock_gettime"], calls[0]["clock_gettime"])
		}
		for name, n := range calls[0] {
			if name != "clock_gettime" && calls[1][name] != n {
				t.Errorf("seed %d: %d %s calls with the vDSO, %d without", seed, calls[1][name], name, n)
			}
		}
		t.Logf("seed %d: %d choices; clock_gettime intercepted %d without the vDSO, %d with", seed, len(acts[0]), calls[0]["clock_gettime"], calls[1]["clock_gettime"])
	}
}
