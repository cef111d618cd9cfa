//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

var weftBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "weft-cli-test")
	if err != nil {
		panic(err)
	}
	weftBin = filepath.Join(dir, "weft")
	if out, err := exec.Command("go", "build", "-o", weftBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building weft: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// weft runs the built CLI from the repository root.
func weft(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(weftBin, args...)
	cmd.Dir = "../.."
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// withTemp replaces "{tmp}" in args by a fresh temporary file path.
func withTemp(t *testing.T, args []string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "{tmp}" {
			out[i] = filepath.Join(t.TempDir(), "saved.weftpath")
		}
	}
	return out
}

// TestSaveToDeviceKeepsDevice: --save /dev/null must not replace the
// device with a regular file.
func TestSaveToDeviceKeepsDevice(t *testing.T) {
	weft(t, "check", "--variant", "bug", "targets/repl/repl.model", "--save", os.DevNull)
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, st.Mode(), err)
	}
}

var timing = regexp.MustCompile(`in [0-9.]+s \([0-9]+ states/s\)`)

func TestCheckRepl(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", "targets/repl/repl.model"}, 0, "agree_on_ack holds over 4 distinct states"},
		{[]string{"check", "--variant", "bug", "targets/repl/repl.model", "--save", "{tmp}"}, 1, "node[0].stored=5, node[1].stored=0, replies=[{src: 0, val: 5}]"},
		{[]string{"check", "targets/repl/repl.model", "--variant=bug", "--save", "{tmp}"}, 1, "violated: agree_on_ack"},
		{[]string{"check", "--variant", "fixed", "targets/quorum/quorum.model", "--depth", "6"}, 0, "acked_on_majority holds over"},
		{[]string{"check", "--variant", "nosuch", "targets/repl/repl.model"}, 2, ""},
		{[]string{"check"}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := weft(t, withTemp(t, tc.args)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("stdout lacks %q:\n%s", tc.want, out)
			}
			if tc.code == 2 && errOut == "" {
				t.Errorf("a usage error must explain itself on stderr")
			}
		})
	}
}

// TestCheckOutputIsIdentical: ten runs print the same report, byte for
// byte, apart from the wall-clock timing.
func TestCheckOutputIsIdentical(t *testing.T) {
	save := filepath.Join(t.TempDir(), "p.weftpath")
	for _, variant := range []string{"correct", "bug"} {
		var first string
		for i := 0; i < 10; i++ {
			out, _, _ := weft(t, "check", "--variant", variant, "targets/repl/repl.model", "--save", save)
			out = timing.ReplaceAllString(out, "in Xs")
			if i == 0 {
				first = out
			} else if out != first {
				t.Fatalf("%s run %d differs:\n%s\nfirst:\n%s", variant, i, out, first)
			}
		}
	}
}

func TestMalformedModelNamesPosition(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.model")
	os.WriteFile(bad, []byte("[target]\nnodes = 2\n[invariants]\nx = \"all r in replies : r.val in\"\n"), 0o644)
	_, errOut, code := weft(t, "check", bad)
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !regexp.MustCompile(regexp.QuoteMeta(bad) + `:4:\d+: `).MatchString(errOut) {
		t.Errorf("stderr %q does not name %s:4:col", errOut, bad)
	}
}

func TestHelpEverywhere(t *testing.T) {
	out, _, code := weft(t, "--help")
	if code != 0 || !strings.Contains(out, "check") {
		t.Fatalf("weft --help: exit %d\n%s", code, out)
	}
	for name := range commands {
		out, _, code := weft(t, name, "--help")
		if code != 0 || !strings.Contains(out, "usage: weft "+name) {
			t.Errorf("weft %s --help: exit %d\n%s", name, code, out)
		}
	}
	_, errOut, code := weft(t, "frobnicate")
	if code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: exit %d, stderr %q", code, errOut)
	}
}

// TestNoOrphans kills weft mid-check (SIGKILL, SIGTERM, SIGINT) and
// asserts that none of its node processes survives.
func TestNoOrphans(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(weftBin, "check", "--variant", "fixed", "targets/quorum/quorum.model", "--depth", "30")
			cmd.Dir = "../.."
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var nodes []int
			deadline := time.Now().Add(20 * time.Second)
			for len(nodes) < 2 && time.Now().Before(deadline) {
				nodes = descendants(cmd.Process.Pid)
				time.Sleep(5 * time.Millisecond)
			}
			if len(nodes) < 2 {
				cmd.Process.Kill()
				t.Fatalf("never saw weft's node processes")
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			time.Sleep(100 * time.Millisecond)
			for _, pid := range nodes {
				if alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("node process %d survived weft's %v", pid, sig)
				}
			}
		})
	}
}

// descendants lists the live children of pid.
func descendants(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var child int
		if _, err := fmt.Sscan(e.Name(), &child); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		var ppid int
		if len(f) > 1 {
			fmt.Sscan(f[1], &ppid)
		}
		if ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
