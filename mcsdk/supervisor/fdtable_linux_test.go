//go:build linux && amd64

package supervisor

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestFdTableRules runs testdata/diff/fdtable.c natively and under weft:
// the descriptor table's rules on served descriptors (in-node pipes) —
// dup3 onto itself and with a bad flag refused, a refused dup2 or
// close_range leaving the descriptor served, F_DUPFD's argument checked,
// FD_CLOEXEC per descriptor, O_NONBLOCK shared by duplicates, fork's
// copies — must print what Linux prints (vkernel.FDTable's rules).
func TestFdTableRules(t *testing.T) {
	bin := buildC(t, "testdata/diff/fdtable.c")
	ctx, cancel := context.WithTimeout(context.Background(), nativeLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = t.TempDir()
	cmd.WaitDelay = 5 * time.Second
	native, err := cmd.Output()
	if err != nil {
		t.Fatalf("native run: %v\n%s", err, native)
	}
	out, w := runAlone(t, bin, 1)
	w.Close()
	n, s := sameLines(native), sameLines(out)
	if len(n) < 30 {
		t.Fatalf("the native run printed %d checked lines:\n%s", len(n), native)
	}
	if strings.Join(n, "\n") != strings.Join(s, "\n") {
		t.Errorf("weft differs from the native run:\nnative:\n%s\nweft:\n%s", strings.Join(n, "\n"), strings.Join(s, "\n"))
	}
	again, w2 := runAlone(t, bin, 1)
	w2.Close()
	if !bytes.Equal(out, again) {
		t.Errorf("two runs of seed 1 differ:\n%s\n---\n%s", out, again)
	}
}
