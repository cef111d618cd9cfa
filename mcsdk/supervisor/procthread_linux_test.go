//go:build linux && amd64

package supervisor

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestProcThreadDirectory runs the procthread probe natively and under
// weft: a thread that names itself and blocks a signal reads its own
// directory by every spelling (/proc/thread-self, /proc/PID/task/TID,
// /proc/TID) and sees its id first in stat, its id as status's Pid, its
// process's as Tgid, its own name and signal mask; /proc/self shows the
// process's. Before vkernel's snapshot knew the thread, weft showed a
// thread its process's id, name and mask there.
func TestProcThreadDirectory(t *testing.T) {
	bin := buildC(t, "testdata/diff/procthread.c")
	cmd := exec.Command(bin)
	cmd.Dir = t.TempDir()
	native, err := cmd.Output()
	if err != nil {
		t.Fatalf("native run: %v\n%s", err, native)
	}
	first, w1 := runAlone(t, bin, 1)
	w1.Close()
	second, w2 := runAlone(t, bin, 1)
	w2.Close()
	if !bytes.Equal(first, second) {
		t.Errorf("two runs of seed 1 differ:\n%s\n---\n%s", first, second)
	}
	n, s := sameLines(native), sameLines(first)
	if len(s) != 9 || strings.Join(n, "\n") != strings.Join(s, "\n") {
		t.Errorf("differs from the native run:\nnative:\n%s\nweft:\n%s", strings.Join(n, "\n"), strings.Join(s, "\n"))
	}
	for _, want := range []string{"= thread-self/stat: first field is the id, name (worker-1)\n",
		"= thread-self/status: Pid the id, Tgid the pid, Name:\tworker-1, SigBlk:\t0000000000000200\n"} {
		if !bytes.Contains(first, []byte(want)) {
			t.Errorf("weft output lacks %q:\n%s", want, first)
		}
	}
}
