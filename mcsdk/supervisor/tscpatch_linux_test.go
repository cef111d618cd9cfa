//go:build linux && amd64

package supervisor

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTSCPatch runs a probe that reads the TSC from code of every kind
// TSC patching meets, patched (the default) and trapped (TrapTSC): the
// same values either way, and the process ends up trapping exactly when
// its code cannot be patched (on a machine that can trap the TSC;
// checkNoTSCTrap otherwise).
func TestTSCPatch(t *testing.T) {
	bin := buildProbe(t, "tscpatch", "-O1", "-pthread")
	tests := []struct {
		mode    string
		trapped bool   // the main process traps the TSC at the end, patched
		fails   string // the patched run's failure, "" none
		noVDSO  bool   // the kernel's vDSO, hidden, is patched instead of weft's
	}{
		{"code", false, "", false},
		{"code", false, "", true},
		{"jit", true, "", false},
		{"wx", true, "", false},
		{"rie", true, "", false},
		{"filejit", true, "", false},
		{"exec", false, "", false},
		{"thread", false, "WEFT_TSC=trap", false},
	}
	traps, err := TSCTraps(Toolchain{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("this machine traps the TSC: %v", traps)
	for _, tc := range tests {
		name := tc.mode
		if tc.noVDSO {
			name += "/noVDSO"
		}
		t.Run(name, func(t *testing.T) {
			if !traps {
				checkNoTSCTrap(t, bin, tc.mode, tc.trapped || tc.fails != "", tc.noVDSO)
				return
			}
			var outs [2]string
			for k, trap := range []bool{false, true} {
				w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{tc.mode}}}, TrapTSC: trap, NoVDSO: tc.noVDSO}, first)
				f := w.Failure()
				if !trap && tc.fails != "" {
					if f == nil || !strings.Contains(f.Error(), tc.fails) {
						t.Fatalf("patched: failure %v, want one that says %q", f, tc.fails)
					}
					continue
				}
				if f != nil {
					t.Fatalf("TrapTSC %v: %v", trap, f)
				}
				if st := w.Status(0); !st.Exited || st.ExitCode != 0 || st.Signal != "" {
					t.Fatalf("TrapTSC %v: status %+v\n%s", trap, st, w.Output(0))
				}
				want := tc.trapped || trap
				if got := w.nodes[0].trapTSC; got != want {
					t.Errorf("TrapTSC %v: the process traps the TSC: %v, want %v", trap, got, want)
				}
				outs[k] = string(w.Output(0))
			}
			if tc.fails != "" {
				return
			}
			if outs[0] != outs[1] {
				t.Fatalf("patched and trapped runs differ:\n%s\n--\n%s", outs[0], outs[1])
			}
			// Virtual values: the monotonic clock starts at 1000 s.
			// Every counter value printed is one (a native read would be
			// the host's, far from it).
			values := regexp.MustCompile(`\b[0-9]{10,}\b`).FindAllString(outs[0], -1)
			native := 0
			for _, v := range values {
				if !strings.HasPrefix(v, "100000000") || len(v) != 13 {
					native++
				}
			}
			if !strings.Contains(outs[0], "rdtsc 1000") || !strings.Contains(outs[0], "aux 0") || len(values) < 3 || native > 0 {
				t.Fatalf("not the virtual counter:\n%s", outs[0])
			}
			t.Logf("%s", outs[0])
		})
	}
}

// checkNoTSCTrap is TestTSCPatch on a machine whose rdtsc does not fault
// under PR_SET_TSC: a world that traps from the start runs on but says in
// the run's refusals that its TSC reads are the host's (ruleTSCTrap). A
// process whose code cannot all be patched (unpatchable) is not switched
// to trapping: it stays patched, even with a second thread alive, and the
// refusals name the code that reads the host's counter (ruleTSCNative);
// its patched code still reads the virtual counter.
func checkNoTSCTrap(t *testing.T, bin, mode string, unpatchable, noVDSO bool) {
	for _, trap := range []bool{false, true} {
		w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{mode}}}, TrapTSC: trap, NoVDSO: noVDSO}, first)
		if f := w.Failure(); f != nil {
			t.Fatalf("TrapTSC %v: %v", trap, f)
		}
		if st := w.Status(0); !st.Exited || st.ExitCode != 0 || st.Signal != "" {
			t.Fatalf("TrapTSC %v: status %+v\n%s", trap, st, w.Output(0))
		}
		if got := w.nodes[0].trapTSC; got != trap {
			t.Errorf("TrapTSC %v: the process traps the TSC: %v, want %v", trap, got, trap)
		}
		trapped, native := false, false
		for _, r := range w.Refusals() {
			trapped = trapped || r.Call == "rdtsc" && r.Rule == ruleTSCTrap
			native = native || r.Call == "rdtsc" && r.Rule == ruleTSCNative
		}
		if trapped != trap || native != (unpatchable && !trap) {
			t.Fatalf("TrapTSC %v: the run's refusals say the TSC is trapped: %v, native where unpatchable: %v; want %v, %v (%v)", trap, trapped, native, trap, unpatchable && !trap, w.Refusals())
		}
		if out := string(w.Output(0)); !trap && (!strings.Contains(out, "rdtsc 1000") || !strings.Contains(out, "aux 0")) {
			t.Fatalf("not the virtual counter:\n%s", out)
		}
	}
}

// TestTSCPatchBytes: every site becomes an int with a vector of weft's
// that says the instruction and its length, padded with NOPs.
func TestTSCPatchBytes(t *testing.T) {
	for _, s := range []tscSite{{length: 2}, {length: 3}, {length: 3, rdtscp: true}, {length: 5, rdtscp: true}} {
		p := tscPatch(s)
		if len(p) != int(s.length) {
			t.Fatalf("%+v: %d bytes", s, len(p))
		}
		k, rdtscp, ok := patchedTSC(p)
		if !ok || k != int(s.length) || rdtscp != s.rdtscp {
			t.Fatalf("%+v: patch % x decodes as %d %v %v", s, p, k, rdtscp, ok)
		}
		for _, b := range p[2:] {
			if b != 0x90 {
				t.Fatalf("%+v: padding % x", s, p)
			}
		}
	}
	for _, in := range [][]byte{{0xcd, 0x80}, {0xcd, 0x03}, {0xcd, 0xf2}, {0x0f, 0x31}} {
		if _, _, ok := patchedTSC(in); ok {
			t.Fatalf("% x taken for a patch", in)
		}
	}
}

// TestTSCPatchedMemory looks into a patched node once it is running: every
// TSC read of every file it has mapped executable (the program, the
// dynamic loader, libc, which the loader mapped with a traced mmap) is
// weft's patch in its memory, and so is every CPU-identity instruction
// (the loader's cpuid), and no other byte of those mappings changed.
func TestTSCPatchedMemory(t *testing.T) {
	bin := buildProbe(t, "tscpatch", "-O1", "-pthread")
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"park"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.nodes[0].trapTSC {
		t.Fatal("the node traps the TSC: not patched")
	}
	maps, err := readMaps(w.nodes[0].pid)
	if err != nil {
		t.Fatal(err)
	}
	files, sites, cpuSites := map[string]bool{}, 0, 0
	for _, m := range maps {
		if len(m.perms) < 3 || m.perms[2] != 'x' || !strings.HasPrefix(m.name, "/") {
			continue
		}
		scan, err := scanFileCached(m.name, m.ino)
		if err != nil {
			t.Fatal(err)
		}
		mem := make([]byte, m.end-m.start)
		if k, err := readMem(w.nodes[0].pid, uintptr(m.start), mem); k != len(mem) {
			t.Fatalf("reading %s: %v", m.name, err)
		}
		orig := make([]byte, len(mem))
		f, err := os.Open(m.name)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := f.ReadAt(orig, m.off)
		f.Close()
		orig = orig[:k]
		for _, s := range scan.sites {
			if s.off < m.off || s.off+int64(s.length) > m.off+int64(len(orig)) {
				continue
			}
			i := int(s.off - m.off)
			if !bytes.Equal(mem[i:i+int(s.length)], tscPatch(s)) {
				t.Errorf("%s: the TSC read at file offset %#x is % x in memory", m.name, s.off, mem[i:i+int(s.length)])
			}
			copy(mem[i:], orig[i:i+int(s.length)])
			sites++
		}
		for _, s := range scan.cpuSites {
			p := s.insn.Patch()
			if s.off < m.off || s.off+int64(len(p)) > m.off+int64(len(orig)) {
				continue
			}
			i := int(s.off - m.off)
			if !bytes.Equal(mem[i:i+len(p)], p) {
				t.Errorf("%s: the %v at file offset %#x is % x in memory", m.name, s.insn.Op, s.off, mem[i:i+len(p)])
			}
			copy(mem[i:], orig[i:i+len(p)])
			cpuSites++
		}
		if !bytes.Equal(mem[:len(orig)], orig) {
			t.Errorf("%s: bytes other than the TSC reads and CPU-identity instructions changed", m.name)
		}
		files[filepath.Base(m.name)] = true
	}
	for _, want := range []string{"tscpatch", "libc.so.6", "ld-linux-x86-64.so.2"} {
		if !files[want] {
			t.Errorf("%s not mapped executable: %v", want, files)
		}
	}
	if sites < 20 {
		t.Errorf("only %d TSC reads patched", sites)
	}
	if cpuSites < 10 { // the dynamic loader's cpuid (glibc's init_cpu_features)
		t.Errorf("only %d CPU-identity instructions patched", cpuSites)
	}
	t.Logf("%d TSC reads and %d CPU-identity instructions patched in %v", sites, cpuSites, files)
}

// TestImagePatchable: a program is launched patched unless it, its loader
// or a library it needs cannot be patched; redis-server needs OpenSSL's
// libcrypto (TestScanAmbiguous), so it traps the TSC from its start.
func TestImagePatchable(t *testing.T) {
	probe := buildProbe(t, "tscpatch", "-O1", "-pthread")
	for _, tc := range []struct {
		path string
		want bool
	}{{probe, true}, {"/usr/bin/redis-server", false}, {"/nonexistent", false}} {
		if got := imagePatchable(tc.path); got != tc.want {
			t.Errorf("imagePatchable(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// TestTSCGoLauncher starts the TSC probe with the Go launcher
// (Config.GoLauncher, WEFT_GO_LAUNCHER=1), which cannot patch: the
// process traps the TSC from its start. On a machine that cannot trap it
// (TSCTraps false) its TSC reads then read the host's counter, and the
// run's refusals must say so, as they do for WEFT_TSC=trap; on one that
// can, the reads are virtual and no refusal names the TSC.
func TestTSCGoLauncher(t *testing.T) {
	bin := buildProbe(t, "tscpatch", "-O1", "-pthread")
	traps, err := TSCTraps(Toolchain{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("this machine traps the TSC: %v", traps)
	// Launched several times: a launch by the Go launcher hung in
	// hideVvar about one in three here until a signal stop on the way to
	// a syscall stop was resumed with PTRACE_SYSCALL (awaitSyscallStop).
	for i := range 6 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"code"}}}, GoLauncher: true, NoTemplates: true}, first)
			if f := w.Failure(); f != nil {
				t.Fatal(f)
			}
			if st := w.Status(0); !st.Exited || st.ExitCode != 0 || st.Signal != "" {
				t.Fatalf("status %+v\n%s", st, w.Output(0))
			}
			if !w.nodes[0].trapTSC {
				t.Fatal("the Go launcher's process does not trap the TSC")
			}
			var named []Refusal
			for _, r := range w.Refusals() {
				if r.Call == "rdtsc" {
					named = append(named, r)
				}
			}
			switch {
			case traps && len(named) > 0:
				t.Fatalf("refusals name the TSC on a machine that traps it: %+v", named)
			case !traps && (len(named) != 1 || named[0].Rule != ruleTSCTrap || named[0].Node != 0 || !strings.Contains(named[0].What, "Go launcher")):
				t.Fatalf("on a machine that cannot trap the TSC, the run's refusals %+v: want one that says node 0 traps it (Go launcher)", w.Refusals())
			case traps && !strings.Contains(string(w.Output(0)), "rdtsc 1000"):
				t.Fatalf("not the virtual counter:\n%s", w.Output(0))
			}
		})
	}
}
