//go:build linux && amd64

package supervisor

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"

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

// TestSchedstatFilesFollowTheThread checks that a kept schedstat
// descriptor (node.cpuTime's) reads a busy thread's CPU time as it grows,
// not the first read's, and fails once the thread is gone.
func TestSchedstatFilesFollowTheThread(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	ran := func() (uint64, error) {
		schedstatFiles.Lock()
		defer schedstatFiles.Unlock()
		b, err := schedstatFiles.read(pid, pid)
		if err != nil {
			return 0, err
		}
		ns, ok := leadingUint(b)
		if !ok {
			t.Fatalf("schedstat %q does not start with a number", b)
		}
		return ns, nil
	}
	first, err := ran()
	if err != nil {
		t.Fatal(err)
	}
	schedstatFiles.Lock()
	_, kept := schedstatFiles.fds[[2]int{pid, pid}]
	schedstatFiles.Unlock()
	if !kept {
		t.Fatalf("no descriptor kept for pid %d", pid)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		now, err := ran()
		if err != nil {
			t.Fatal(err)
		}
		if now > first {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a busy thread's CPU time read through the kept descriptor stayed %d ns for 10 s", first)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := ran(); err == nil {
		t.Fatalf("schedstat of reaped pid %d read without error (stale descriptor)", pid)
	}
}

// TestLeadingUint checks the parse of schedstat's first field.
func TestLeadingUint(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"123 456 7\n", 123, true},
		{"0 0 0\n", 0, true},
		{"18446744073709551615\n", 1<<64 - 1, true},
		{"18446744073709551616 1 1\n", 0, false},
		{"", 0, false},
		{" 12 3\n", 0, false},
		{"12", 0, false},
		{"1x2 3\n", 0, false},
	}
	for _, tt := range tests {
		if got, ok := leadingUint([]byte(tt.in)); got != tt.want || ok != tt.ok {
			t.Errorf("leadingUint(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
