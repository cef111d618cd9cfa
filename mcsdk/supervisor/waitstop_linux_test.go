//go:build linux && amd64

package supervisor

import (
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWaitStopNeverReaps checks the wait that pollThreads uses for a
// child process's leader: it collects a stop, and leaves an ended
// process unreaped, so that weft's SIGCHLD is queued before the reap
// that would send the kernel's, with the host pid (sys_sigchld.go).
func TestWaitStopNeverReaps(t *testing.T) {
	stopper := exec.Command("sleep", "30")
	if err := stopper.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopper.Process.Kill()
	pid := stopper.Process.Pid
	if got, _, err := waitStop(pid); err != nil || got != 0 {
		t.Fatalf("waitStop of a running process: %d, %v; want 0, nil", got, err)
	}
	if err := unix.Kill(pid, unix.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var got int
	var ws unix.WaitStatus
	for got == 0 {
		var err error
		if got, ws, err = waitStop(pid); err != nil {
			t.Fatal(err)
		}
	}
	if got != pid || !ws.Stopped() || ws.StopSignal() != unix.SIGSTOP {
		t.Fatalf("waitStop of a stopped process: %d %#x; want %d stopped by SIGSTOP", got, uint32(ws), pid)
	}
	if _, ended := exitSiginfo(pid, false); ended {
		t.Fatal("a stopped process reads as ended")
	}

	ender := exec.Command("true")
	if err := ender.Start(); err != nil {
		t.Fatal(err)
	}
	pid = ender.Process.Pid
	if _, ended := exitSiginfo(pid, true); !ended {
		t.Fatal("exitSiginfo did not see the end of true")
	}
	// An ended process is no candidate for a wait on stops: ECHILD.
	if got, ws, err := waitStop(pid); err != unix.ECHILD || got != 0 {
		t.Fatalf("waitStop of an ended process: %d %#x, %v; want 0, ECHILD", got, uint32(ws), err)
	}
	var st syscall.WaitStatus
	if got, err := syscall.Wait4(pid, &st, 0, nil); err != nil || got != pid || !st.Exited() {
		t.Fatalf("after waitStop, reaping true: %d %v %v; want its exit", got, st, err)
	}
}
