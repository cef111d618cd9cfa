//go:build linux && amd64

package supervisor

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestSealProbe is issue 13's Must-show probe (testdata/seal.c): two runs
// of seed 1 print byte-identical output; kill(getpid(), 0) is 0; a signal
// to a host process is EPERM and the process lives; ptrace fails; a write
// outside the run directory is refused and counted, and the file is not
// created; abort() ends the node with SIGABRT.
func TestSealProbe(t *testing.T) {
	bin := buildC(t, "testdata/seal.c")
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	host := strconv.Itoa(sleeper.Process.Pid)
	outside := filepath.Join(filepath.Dir(bin), "outside") // read-only in the node's view

	var outs [2][]byte
	for i := range outs {
		out, w := runAlone(t, bin, 1, host, outside)
		outs[i] = out
		st := w.Status(0)
		refused := w.RefusedWrites(0)
		w.Close()
		if !st.Exited || st.Signal != "SIGABRT" {
			t.Errorf("run %d: node status %+v, want killed by SIGABRT", i, st)
		}
		if refused != 1 {
			t.Errorf("run %d: %d refused writes, want 1", i, refused)
		}
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("two runs of seed 1 differ:\n%s\n---\n%s", outs[0], outs[1])
	}
	out := string(outs[0])
	t.Logf("probe output:\n%s", out)
	for _, want := range []string{
		"stat /: size ", "mtime 1767139200.000000000", // a host file: fileEpoch
		"stat data: size 4 mtime 1767225600.000000000",
		"stat data after 2 s: size 8 mtime 1767225602.000000000",
		"/proc/uptime: 1002.00 0.00\n",
		"rusage: utime 0.000000 stime 0.000000 maxrss 0\n",
		"kill(getpid(), 0) = 0\n", "raise(SIGUSR1) = 0\n", "handler saw signal 10\n",
		"kill(host, 0) = -1 EPERM\n", "kill(host, SIGTERM) = -1 EPERM\n",
		"ptrace(PTRACE_ATTACH, host) = -1 EPERM\n", "ptrace(PTRACE_TRACEME) = -1 EPERM\n",
		"open(outside, O_CREAT) = -1 EACCES\n", "open(outside, O_RDONLY) = 3\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if err := sleeper.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the host process did not survive: %v", err)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("the refused file exists outside the run directory (stat: %v)", err)
	}
}

// TestSelfSignalEndsNode checks that a node killed by a signal it sent
// itself is reported with that signal, whether the signal is fatal at
// once (SIGTERM, SIGKILL) or dumps core (SIGABRT, SIGSEGV).
func TestSelfSignalEndsNode(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"raise-SIGTERM", "raise(SIGTERM);", "SIGTERM"},
		{"kill-SIGKILL", "kill(getpid(), SIGKILL);", "SIGKILL"},
		{"abort", "abort();", "SIGABRT"},
		{"tgkill-SIGSEGV", "syscall(SYS_tgkill, getpid(), gettid(), SIGSEGV);", "SIGSEGV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "p.c")
			prog := "#define _GNU_SOURCE\n#include <signal.h>\n#include <stdlib.h>\n#include <sys/syscall.h>\n#include <unistd.h>\n" +
				"int main(void) { " + tc.body + " return 3; }\n"
			if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
				t.Fatal(err)
			}
			_, w := runAlone(t, buildC(t, src), 1)
			defer w.Close()
			if st := w.Status(0); !st.Exited || st.Signal != tc.want {
				t.Errorf("status %+v, want killed by %s", st, tc.want)
			}
		})
	}
}
