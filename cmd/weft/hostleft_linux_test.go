//go:build linux && amd64

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckLeavesNoHostState: a checkpointed check, run to its end or
// interrupted (SIGINT) midway, leaves on the host no memory cgroup of its
// nodes (weft-<its pid>-*, below its own memory cgroup) and no data root
// (weft-data-* in its TMPDIR): not only the next weft's sweep removes
// them. redis's replica crashes and restarts, and worlds are restored
// from checkpoints, so nodes are restarted, killed and forked.
func TestCheckLeavesNoHostState(t *testing.T) {
	parent := ownMemCgroupDir(t)
	if _, err := os.Stat("/usr/bin/redis-server"); err != nil {
		t.Fatalf("targets/redis needs Debian's redis-server: %v", err)
	}
	for _, tc := range []struct {
		name      string
		args      []string
		interrupt bool // SIGINT once its checkpoints are being taken
	}{
		{"end", []string{"--depth", "4"}, false},
		{"interrupted", []string{"--depth", "12", "-j", "2"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			args := append([]string{"check", "targets/redis/redis.model", "--checkpoints", "--json", "--save", "/dev/null"}, tc.args...)
			cmd := exec.Command(weftBin, args...)
			cmd.Dir = "../.."
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var out bytes.Buffer
			cmd.Stdout = &out
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Progress lines come every two seconds; the search (minutes
			// to its depth) is interrupted at the first that counts a
			// second execution, which a restore began, however slow the
			// machine.
			var errs strings.Builder
			sent := false
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				errs.WriteString(sc.Text() + "\n")
				var states, execs int
				if _, err := fmt.Sscanf(sc.Text(), "weft check: %d distinct states, %d executions", &states, &execs); tc.interrupt && !sent && err == nil && execs >= 2 {
					sent = cmd.Process.Signal(syscall.SIGINT) == nil
				}
			}
			err = cmd.Wait()
			if tc.interrupt && !sent {
				t.Fatalf("weft %s ended before it was interrupted: %v\n%s", strings.Join(args, " "), err, errs.String())
			}
			if err != nil && !(sent && cmd.ProcessState.ExitCode() == exitInterrupted) {
				t.Fatalf("weft %s: %v\n%s\n%s", strings.Join(args, " "), err, out.String(), errs.String())
			}
			if strings.Contains(errs.String(), " is left") {
				t.Errorf("weft reports what it left:\n%s", errs.String())
			}
			if res := decodeCheck(t, out.String()); res.Checkpoints.Taken == 0 || res.Checkpoints.Restores == 0 {
				t.Errorf("no checkpoint taken and restored: %+v", res.Checkpoints)
			}
			cgs, _ := filepath.Glob(filepath.Join(parent, fmt.Sprintf("weft-%d-*", cmd.Process.Pid)))
			if len(cgs) > 0 {
				t.Errorf("%d memory cgroups left, such as %s", len(cgs), cgs[0])
			}
			roots, _ := filepath.Glob(filepath.Join(tmp, "weft-data-*"))
			if len(roots) > 0 {
				t.Errorf("data roots left: %v", roots)
			}
		})
	}
}

// ownMemCgroupDir is the test's memory cgroup (v1), weft's parent for
// its nodes' cgroups, once a cgroup can be made there; the test fails
// without one in CI and is skipped elsewhere.
func ownMemCgroupDir(t *testing.T) string {
	t.Helper()
	b, _ := os.ReadFile("/proc/self/cgroup")
	why := "no memory cgroup v1 in /proc/self/cgroup"
	for line := range strings.Lines(string(b)) {
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) != 3 || !strings.Contains(","+f[1]+",", ",memory,") {
			continue
		}
		dir := filepath.Join("/sys/fs/cgroup/memory", f[2])
		probe, err := os.MkdirTemp(dir, "weft-probe-")
		if err == nil {
			os.Remove(probe)
			return dir
		}
		why = fmt.Sprintf("cannot make a memory cgroup: %v", err)
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}
