//go:build linux && amd64

package supervisor

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden/*.golden from this run (TestGoldenWorldHash)")

// goldenModes are testdata/golden.c's workloads, one world each.
var goldenModes = []string{"forkwait", "threads", "signals", "unix", "inet", "pipes", "epoll", "fdkinds", "sysv", "netlink", "proc"}

// goldenHeader opens every golden file.
const goldenHeader = `# World hashes of testdata/golden.c, one line per quiescent point of a
# fixed schedule (each point's first enabled action), written by
# TestGoldenWorldHash -update. "full" is World.Hash(HashGlobals, nil);
# the other fields are the parts it is made of (n0.* node 0's), each
# hashed alone, so that a change names the part that moved.
#
# A changed line means the world hash changed: states that merged before
# may no longer merge, or the other way round. Moving code (into vkernel)
# must change nothing here. Every intended change is rewritten with
# -update and explained in the commit that makes it.
#
# The probe is linked statically and its sha256 is recorded below: the
# hashes hold addresses in the target (call arguments, handlers, futex
# words), so they are comparable only for the same binary. A machine whose
# compiler or libc builds another one skips the comparison (the test says
# so); rewrite the goldens there only together with a hash change.
`

// goldenPart is one part of the world hash, as World.Hash composes it.
type goldenPart struct {
	name string
	sum  [32]byte
}

// goldenParts hashes each part of w's hash alone (World.hashParts,
// HashGlobals, no extra bytes), after Hash's own result, "full".
func goldenParts(t *testing.T, w *World) []goldenPart {
	t.Helper()
	full, err := w.Hash(HashGlobals, nil)
	if err != nil {
		t.Fatal(err)
	}
	parts := []goldenPart{{"full", full}}
	for _, p := range w.hashParts(HashGlobals, nil) {
		h := sha256.New()
		var b [8]byte
		put := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
		if err := p.write(h, put); err != nil {
			t.Fatalf("hashing %s: %v", p.name, err)
		}
		var sum [32]byte
		copy(sum[:], h.Sum(nil))
		parts = append(parts, goldenPart{p.name, sum})
	}
	return parts
}

// goldenLine is one step's line of a golden file.
func goldenLine(step int, act string, parts []goldenPart) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", step)
	for _, p := range parts {
		fmt.Fprintf(&b, " %s=%s", p.name, hex.EncodeToString(p.sum[:6]))
	}
	if act != "" {
		fmt.Fprintf(&b, " then %q", act)
	}
	return b.String()
}

// buildGoldenProbe links testdata/golden.c statically (its libc's code
// is then part of the binary, whose sha256 the goldens record) and
// returns its path and that sha256.
func buildGoldenProbe(t *testing.T) (string, string) {
	t.Helper()
	out := filepath.Join(probeDir, "golden")
	if _, err := os.Stat(out); err != nil {
		cmd := exec.Command("cc", "-static", "-O1", "-Wall", "-pthread", "-o", out, "golden.c")
		cmd.Dir = "testdata" // no path of this checkout in the binary
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cc -static golden.c: %v\n%s", err, msg)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return out, hex.EncodeToString(sum[:])
}

// runGolden runs the probe in mode under the fixed schedule (each
// quiescent point's first action) and returns one line per point.
func runGolden(t *testing.T, bin, mode string) []string {
	t.Helper()
	w, err := Start(Config{
		Nodes:    []NodeSpec{{Path: bin, Args: []string{mode}, Env: []string{"PATH=/usr/bin:/bin"}}},
		BasePort: 7000, Seed: 12, DataDirs: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var lines []string
	for step := 0; ; step++ {
		if f := w.Failure(); f != nil {
			t.Fatalf("step %d: failure: %v\noutput:\n%s", step, f, w.Output(0))
		}
		parts := goldenParts(t, w)
		acts := w.Enabled()
		if len(acts) == 0 || step == 400 {
			lines = append(lines, goldenLine(step, "", parts))
			break
		}
		lines = append(lines, goldenLine(step, acts[0].String(), parts))
		if err := w.Apply(acts[0]); err != nil {
			t.Fatalf("step %d: %s: %v", step, acts[0], err)
		}
	}
	lines = append(lines, "output "+strings.ReplaceAll(string(w.Output(0)), "\n", "|"))
	return lines
}

// readGolden returns a golden file's probe sha256 and its step lines.
func readGolden(path string) (string, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	var sum string
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if s, ok := strings.CutPrefix(line, "# probe sha256 "); ok {
			sum = s
		}
		if line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	if sum == "" {
		return "", nil, fmt.Errorf("%s: no \"# probe sha256\" line", path)
	}
	return sum, lines, nil
}

// TestGoldenWorldHash runs testdata/golden.c's workloads (fork and wait,
// threads, signals and timers, unix and inet sockets, pipes, epoll,
// timerfd, eventfd and signalfd, SysV IPC, netlink, /proc reads) under a
// fixed schedule and compares the world hash at every quiescent point,
// and each of its parts, with testdata/golden/MODE.golden: moving kernel
// objects (into vkernel) must leave it unchanged. -update rewrites the
// files.
//
// The hash is HashGlobals': no memory digest, so the libc's and the
// program's writable data are not in it. It still holds addresses in the
// target (a parked call's arguments and instruction pointer, signal
// handlers, futex words), so the goldens hold for one binary: the probe
// is linked statically (no shared libc whose version moves them) and
// built in testdata by a relative name (no checkout path in it), and a
// node sees its binary at a virtual path, so the run does not depend on
// where the repository is. A different compiler or libc gives a
// different binary: the test then skips, naming both sha256s.
func TestGoldenWorldHash(t *testing.T) {
	bin, sum := buildGoldenProbe(t)
	for _, mode := range goldenModes {
		t.Run(mode, func(t *testing.T) {
			got := runGolden(t, bin, mode)
			path := filepath.Join("testdata", "golden", mode+".golden")
			if *updateGolden {
				var b strings.Builder
				b.WriteString(goldenHeader)
				fmt.Fprintf(&b, "# probe sha256 %s\n", sum)
				for _, l := range got {
					b.WriteString(l + "\n")
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantSum, want, err := readGolden(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if wantSum != sum {
				t.Skipf("the probe built here (sha256 %s) is not the one %s was recorded with (%s): another compiler or libc; its addresses differ", sum, path, wantSum)
			}
			for i := range max(len(got), len(want)) {
				var g, w string
				if i < len(got) {
					g = got[i]
				}
				if i < len(want) {
					w = want[i]
				}
				if g != w {
					t.Errorf("%s line %d:\n got  %s\n want %s%s", path, i+1, g, w, partsDiff(g, w))
					if len(got) != len(want) {
						t.Fatalf("%d lines, want %d", len(got), len(want))
					}
				}
			}
		})
	}
}

// partsDiff names the fields of two golden lines that differ.
func partsDiff(got, want string) string {
	gf, wf := strings.Fields(got), strings.Fields(want)
	var names []string
	for i := range min(len(gf), len(wf)) {
		if gf[i] != wf[i] {
			name, _, _ := strings.Cut(wf[i], "=")
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "\n differ: " + strings.Join(names, " ")
}
