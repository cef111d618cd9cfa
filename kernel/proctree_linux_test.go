//go:build linux

package kernel

import (
	"os"
	osexec "os/exec"
	"runtime"
	"slices"
	"syscall"
	"testing"
)

// TestKillDescendants starts a traced child (as node processes are: this
// process traces it) and an untraced one (as the Go checks helper is):
// killing the nodes only kills the traced one, killing all kills both.
func TestKillDescendants(t *testing.T) {
	runtime.LockOSThread() // the tracer is the thread that starts the child
	defer runtime.UnlockOSThread()
	traced := osexec.Command("sleep", "60")
	traced.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	helper := osexec.Command("sleep", "60")
	for _, c := range []*osexec.Cmd{traced, helper} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer c.Wait()
		defer c.Process.Kill()
	}
	alive := func(c *osexec.Cmd) bool { return slices.Contains(descendants(os.Getpid()), c.Process.Pid) }
	if !alive(traced) || !alive(helper) {
		t.Fatalf("descendants %v lack %d or %d", descendants(os.Getpid()), traced.Process.Pid, helper.Process.Pid)
	}
	if n := killDescendants(true); n < 1 || alive(traced) || !alive(helper) {
		t.Fatalf("nodes only: signalled %d; traced alive %v (want false), untraced alive %v (want true)", n, alive(traced), alive(helper))
	}
	if killDescendants(false); alive(helper) {
		t.Fatal("the untraced child outlived killDescendants(false)")
	}
}
