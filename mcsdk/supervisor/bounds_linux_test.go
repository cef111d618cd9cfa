//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func buildBounds(tb testing.TB) string { return buildProbe(tb, "bounds", "-O1", "-Wall", "-pthread") }

// TestTaskBound runs a fork bomb and a thread bomb under a bound of 40
// live processes and threads: the run ends with a failure naming the node
// and the bound, and once the world is closed no process of the node is
// left on the host.
func TestTaskBound(t *testing.T) {
	bin := buildBounds(t)
	for _, mode := range []string{"forkbomb", "threadbomb"} {
		t.Run(mode, func(t *testing.T) {
			w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{mode}}}, MaxTasks: 40})
			if err != nil {
				t.Fatal(err)
			}
			var pids []int
			done := make(chan struct{})
			go func() {
				defer close(done)
				for step := 0; step < 100000 && w.Failure() == nil; step++ {
					pids = appendNew(pids, w.LiveProcs(0))
					acts := w.Enabled()
					if len(acts) == 0 {
						break
					}
					if w.Apply(acts[0]) != nil {
						break
					}
				}
				w.Close()
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Minute):
				t.Fatal("no verdict 5 minutes into a bomb")
			}
			f := w.Failure()
			if f == nil || f.Node != 0 || !strings.Contains(f.Msg, "bound: node 0 reached its bound of 40 live processes and threads") {
				t.Fatalf("failure %v, want the bound's", f)
			}
			if mode == "forkbomb" && len(pids) < 2 {
				t.Errorf("only %d processes seen", len(pids))
			}
			for _, pid := range pids {
				if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
					t.Errorf("process %d outlived its world", pid)
				}
			}
		})
	}
}

// TestUserfaultfdRefused: a node can make no userfaultfd, by the syscall
// (EPERM) or through /dev/userfaultfd (its one ioctl is not on the
// allow-list), so no page of a node can make weft's reads of its memory
// wait.
func TestUserfaultfdRefused(t *testing.T) {
	bin := buildBounds(t)
	w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"uffd"}}}}, first)
	out := string(w.Output(0))
	if f := w.Failure(); f != nil {
		t.Fatalf("failure: %v\n%s", f, out)
	}
	if !strings.Contains(out, "userfaultfd: -1 EPERM\n") {
		t.Errorf("userfaultfd(2) not refused:\n%s", out)
	}
	if !strings.Contains(out, "/dev/userfaultfd: open") && !strings.Contains(out, "/dev/userfaultfd: USERFAULTFD_IOC_NEW -1 ENOTTY\n") {
		t.Errorf("/dev/userfaultfd made a userfaultfd:\n%s", out)
	}
}

// TestNoInheritedFDs runs weft (this test binary, as a helper) with
// descriptors 3 to 7 open and not close-on-exec, as a shell or a CI
// runner may leave them: the node starts with 0, 1 and 2 only.
func TestNoInheritedFDs(t *testing.T) {
	if os.Getenv("WEFT_TEST_INHERITED_FDS") == "1" {
		return // the helper's work is TestInheritedFDsHelper's
	}
	var files []*os.File
	for range 5 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		files = append(files, r)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInheritedFDsHelper$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "WEFT_TEST_INHERITED_FDS=1")
	cmd.ExtraFiles = files // fds 3 to 7
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "helper saw fd 7 open in weft") {
		t.Fatalf("the helper did not inherit fd 7, so the test proves nothing:\n%s", out)
	}
	if !strings.Contains(string(out), "node output: fds checked\n") || strings.Contains(string(out), "open fd") {
		t.Errorf("the node started with more than fds 0, 1 and 2:\n%s", out)
	}
}

// TestInheritedFDsHelper is TestNoInheritedFDs's weft: it runs the fds
// probe and prints the node's output.
func TestInheritedFDsHelper(t *testing.T) {
	if os.Getenv("WEFT_TEST_INHERITED_FDS") != "1" {
		return // run by TestNoInheritedFDs only
	}
	if _, err := os.Stat("/proc/self/fd/7"); err == nil {
		fmt.Println("helper saw fd 7 open in weft")
	}
	bin := buildBounds(t)
	w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"fds"}}}}, first)
	if f := w.Failure(); f != nil {
		t.Fatalf("failure: %v", f)
	}
	fmt.Printf("node output: %s", w.Output(0))
}
