//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRunSealProbe is issue 13's Must-show through the CLI: the probe of
// mcsdk/supervisor/testdata/seal.c under `weft run --seed 1 -- BINARY`
// twice gives byte-identical output; kill(getpid(), 0) is 0; kill of a
// host pid is EPERM and the host process lives; ptrace fails; a write
// outside the run directory is refused; abort() is reported as SIGABRT.
func TestRunSealProbe(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "seal")
	if out, err := exec.Command("cc", "-O1", "-o", bin, "../../mcsdk/supervisor/testdata/seal.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	// The binary's directory: in the node's view, read-only (a directory
	// the view does not show would be ENOENT, not a refused write).
	outside := filepath.Join(dir, "outside")
	args := []string{"run", "--seed", "1", "--", bin, strconv.Itoa(sleeper.Process.Pid), outside}

	first, stderr, code := weft(t, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (violated: the node crashed)\n%s%s", code, first, stderr)
	}
	second, _, _ := weft(t, args...)
	if first != second {
		t.Errorf("two runs of seed 1 differ:\n%s\n---\n%s", first, second)
	}
	for _, want := range []string{
		"n0| kill(getpid(), 0) = 0\n", "n0| kill(host, SIGTERM) = -1 EPERM\n",
		"n0| ptrace(PTRACE_ATTACH, host) = -1 EPERM\n", "n0| open(outside, O_CREAT) = -1 EACCES\n",
		"n0| /proc/uptime: 1002.00 0.00\n", "node 0 was killed by SIGABRT",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("output lacks %q:\n%s", want, first)
		}
	}
	if err := sleeper.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the host process did not survive: %v", err)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("a file was created outside the run directory (stat: %v)", err)
	}
}
