//go:build linux && amd64

package supervisor

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// TestStatusFilesFollowTheThread checks that a kept status descriptor
// reads the thread's current state, and that once the thread is gone the
// read fails as a fresh open does instead of returning the old text.
func TestStatusFilesFollowTheThread(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if _, err := taskStatus(pid, pid); err != nil {
		t.Fatalf("status of live pid %d: %v", pid, err)
	}
	statusFiles.Lock()
	_, kept := statusFiles.fds[[2]int{pid, pid}]
	statusFiles.Unlock()
	if !kept {
		t.Fatalf("no descriptor kept for pid %d", pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if _, err := taskStatus(pid, pid); err == nil {
		t.Fatalf("status of reaped pid %d read without error (stale descriptor)", pid)
	}
	if _, err := readKernelSig(pid, pid); err == nil {
		t.Fatalf("signals of reaped pid %d read without error (stale descriptor)", pid)
	}
}

// TestSigLines checks that the signal lines alone parse to the signal sets
// of the whole file, for this process's real status file and for layouts
// sigLines does not expect.
func TestSigLines(t *testing.T) {
	real, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		status []byte
	}{
		{"real", real},
		{"set values", []byte("Name:\tx\nSigQ:\t0/1\nSigPnd:\t0000000000000100\nShdPnd:\t0000000000004000\nSigBlk:\t0000000000010000\nSigIgn:\t0000000000001000\nSigCgt:\t0000000180004002\nCapInh:\t0\n")},
		{"last line unterminated", []byte("Name:\tx\nSigPnd:\t1\nShdPnd:\t2\nSigBlk:\t4\nSigIgn:\t8\nSigCgt:\t10")},
		{"reordered", []byte("Name:\tx\nSigCgt:\t10\nSigPnd:\t1\nShdPnd:\t2\nSigBlk:\t4\nSigIgn:\t8\n")},
		{"no signal lines", []byte("Name:\tx\nUid:\t0\t0\t0\t0\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole, err1 := vkernel.ParseTaskStatus(tt.status)
			part, err2 := vkernel.ParseTaskStatus(sigLines(tt.status))
			if err1 != nil || err2 != nil {
				t.Fatalf("parse: %v, %v", err1, err2)
			}
			if whole.Sig != part.Sig {
				t.Fatalf("signal lines parse to %+v, the whole file to %+v", part.Sig, whole.Sig)
			}
			if tt.name == "real" && !bytes.HasPrefix(sigLines(tt.status), []byte("SigPnd:")) {
				t.Fatalf("sigLines of the real file starts %q", sigLines(tt.status)[:10])
			}
		})
	}
}
