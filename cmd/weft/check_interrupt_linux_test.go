//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCheckInterruptKeepsVerdictHonest: a long exhaustive check shows its
// progress, and SIGINT stops it with the partial counts, no verdict
// (exit 130, "no violation within what was explored") and no node process
// left behind.
func TestCheckInterruptKeepsVerdictHonest(t *testing.T) {
	cmd := exec.Command(weftBin, "check", "targets/quorum/register.model", "--variant", "fixed", "--depth", "10")
	cmd.Dir = "../.."
	var stdout bytes.Buffer
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once a progress line (every 2 s) is out: the search takes
	// over a minute on an idle machine, and a loaded one only slows both.
	for deadline := time.Now().Add(3 * time.Minute); !strings.Contains(stderr.String(), "distinct states"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no progress line in 3 minutes:\n%s", stderr.String())
		}
	}
	tree := processTree(cmd.Process.Pid)
	if len(tree) == 0 {
		t.Fatal("no node processes while checking")
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d\n%s\n%s", err, exitInterrupted, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "interrupted: no violation within what was explored") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "distinct states") {
		t.Errorf("no progress on stderr:\n%s", stderr.String())
	}
	time.Sleep(200 * time.Millisecond)
	for _, p := range tree {
		if syscall.Kill(p, 0) == nil && !strings.Contains(procStatState(p), "Z") {
			t.Errorf("process %d outlived weft check", p)
		}
	}
}

// lockedBuffer is a bytes.Buffer a child process writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// procStatState is the state letter of process pid ("" if gone).
func procStatState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}
