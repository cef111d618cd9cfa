//go:build linux && amd64

package supervisor

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// TestTSCUnpatchableLibrary runs a program linked with a library whose TSC
// reads weft cannot patch: testdata/tscbadlib.c's own, found through the
// run path $ORIGIN, which weft first meets at the loader's mmap, and the
// system's libcrypto (Debian's holds such bytes; skipped where it does
// not), which weft finds before the launch (imagePatchable). On a machine
// that traps the TSC the process traps it, as ever. On one that cannot
// (TSCTraps false) the process stays patched: the program's own TSC and
// CPU-identity reads, and the dynamic loader's, are weft's virtual ones
// (two runs start in the same memory and print the same), and the run's
// refusals name the library alone as reading the host's counter. A
// second library the loader maps after the first (origin) reads the
// virtual counter too: weft went on following the process's code.
func TestTSCUnpatchableLibrary(t *testing.T) {
	traps, err := TSCTraps(Toolchain{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("this machine traps the TSC: %v", traps)
	dir := t.TempDir()
	cc := func(args ...string) {
		t.Helper()
		if msg, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
			t.Fatalf("cc %v: %v\n%s", args, err, msg)
		}
	}
	tests := []struct {
		name, lib string
		patchable bool // imagePatchable: weft meets the library only once the loader maps it
		build     func(bin, lib string)
	}{
		{"origin", filepath.Join(dir, "libtscbad.so"), true, func(bin, lib string) {
			cc("-O1", "-shared", "-fPIC", "-DTSCBAD_LIB", "-o", lib, "testdata/tscbadlib.c")
			cc("-O1", "-shared", "-fPIC", "-DTSCGOOD_LIB", "-o", filepath.Join(dir, "libtscgood.so"), "testdata/tscbadlib.c")
			cc("-O1", "-o", bin, "testdata/tscbadlib.c", "-L"+dir, "-Wl,--no-as-needed", "-ltscbad", "-ltscgood", "-Wl,-rpath,$ORIGIN")
		}},
		{"libcrypto", findLibrary("libcrypto.so.3"), false, func(bin, lib string) {
			cc("-O1", "-DTSCBAD_NOLIB", "-o", bin, "testdata/tscbadlib.c", "-Wl,--no-as-needed", lib)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.lib == "" {
				t.Skip("no libcrypto.so.3 here")
			}
			bin := filepath.Join(dir, tc.name)
			tc.build(bin, tc.lib)
			lib, err := filepath.EvalSymlinks(tc.lib)
			if err != nil {
				t.Fatal(err)
			}
			if scan, err := scanFileCached(lib, inodeOf(t, lib)); err != nil || scan.ambiguous == "" {
				if tc.name == "libcrypto" {
					t.Skipf("%s: its TSC reads can be patched here (%v)", lib, err)
				}
				t.Fatalf("the library's sweep: %v, ambiguous %q: the probe does not hold an unpatchable TSC read", err, scan.ambiguous)
			}
			if got := imagePatchable(bin); got != tc.patchable {
				t.Fatalf("imagePatchable: %v", got)
			}
			var outs, hashes [2]string
			for k := range outs {
				cfg := Config{Nodes: []NodeSpec{{Path: bin}}}
				w, err := Start(cfg)
				if err != nil {
					t.Fatal(err)
				}
				h, err := w.Hash(HashMemory, nil)
				w.Close()
				if err != nil {
					t.Fatal(err)
				}
				hashes[k] = string(h[:])
				w, _ = runThreads(t, cfg, first)
				if f := w.Failure(); f != nil {
					t.Fatal(f)
				}
				if st := w.Status(0); !st.Exited || st.ExitCode != 0 || st.Signal != "" {
					t.Fatalf("status %+v\n%s", st, w.Output(0))
				}
				if got := w.nodes[0].trapTSC; got != traps {
					t.Fatalf("the process traps the TSC: %v, want %v", got, traps)
				}
				outs[k] = string(w.Output(0))
				if !strings.Contains(outs[k], "rdtsc 1000") || !strings.Contains(outs[k], "aux 0") || !regexp.MustCompile(`later 1000000000[0-9]{3} `).MatchString(outs[k]) || !strings.Contains(outs[k], "brand "+vkernel.CPUBrand) {
					t.Fatalf("not the virtual counter and CPU:\n%s", outs[k])
				}
				if traps {
					continue
				}
				native := 0
				for _, r := range w.Refusals() {
					switch {
					case r.Rule == ruleTSCTrap:
						t.Errorf("refusal %+v: the process trapped the TSC", r)
					case r.Call == "cpuid" && strings.Contains(r.What, "traps the TSC"):
						t.Errorf("refusal %+v: weft stopped following the process's code", r)
					case r.Rule == ruleTSCNative:
						native++
						if !strings.Contains(r.What, "/"+filepath.Base(lib)) || strings.Count(r.What, "cannot be patched") != 1 || strings.Contains(r.What, ";") {
							t.Errorf("refusal %+v: want one that names %s alone", r, filepath.Base(lib))
						}
					}
				}
				if native != 1 {
					t.Errorf("%d refusals say the TSC is native, want 1: %+v", native, w.Refusals())
				}
			}
			if outs[0] != outs[1] || hashes[0] != hashes[1] {
				t.Fatalf("two runs differ: hashes %x, %x\n%s--\n%s", hashes[0], hashes[1], outs[0], outs[1])
			}
			t.Logf("%s", outs[0])
		})
	}
}

// inodeOf is the inode number of the file at path.
func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	key, st, err := versionKey(path)
	if err != nil || key == "" {
		t.Fatal(err)
	}
	return st.Ino
}
