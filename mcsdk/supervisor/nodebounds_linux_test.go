//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// runBounded runs the bounds probe in mode under cfg (its one node's spec
// filled in) to its end or failure, and returns the world, closed, and
// every host process of the node seen during the run.
func runBounded(t *testing.T, cfg Config, mode string) (*World, []int) {
	t.Helper()
	cfg.Nodes = []NodeSpec{{Path: buildBounds(t), Args: []string{mode}}}
	var pids []int
	w, _ := runThreadsChecking(t, cfg, first, func(w *World, _ []sched.Action, _ int) {
		pids = appendNew(pids, w.LiveProcs(0))
	})
	if pid := w.nodes[0].pid; pid > 0 { // a bomb may end the run before its first choice
		pids = appendNew(pids, []int{pid})
	}
	return w, pids
}

// checkReaped fails the test if a process of pids outlived its world.
func checkReaped(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("process %d outlived its world", pid)
		}
	}
}

// TestDescriptorBound: a node that makes descriptors forever, by open, dup
// or pipe, ignoring every error, ends the run with a failure naming the
// node and the bound (Config.MaxFDs) instead of meeting the host's limit,
// and no process of it outlives the world.
func TestDescriptorBound(t *testing.T) {
	for _, mode := range []string{"fdbomb-open", "fdbomb-dup", "fdbomb-pipe"} {
		t.Run(mode, func(t *testing.T) {
			w, pids := runBounded(t, Config{MaxFDs: 100}, mode)
			f := w.Failure()
			if f == nil || f.Node != 0 || !strings.Contains(f.Msg, "bound: node 0 reached its bound of 100 open descriptors in one process") {
				t.Fatalf("failure %v, want the descriptor bound's\n%s", f, w.Output(0))
			}
			if len(pids) == 0 {
				t.Fatal("the node's process was never seen")
			}
			checkReaped(t, pids)
		})
	}
}

// TestNodeUserDescriptorLimit: a node of weft's own user and one that
// runs as nobody (NodeSpec.User) both start with their host
// RLIMIT_NOFILE at the bound, soft and hard, as the host sees it in
// /proc/PID/limits: the native launcher sets it as root before it becomes
// nobody, so no prlimit on another user's process is needed (none is
// allowed without CAP_SYS_RESOURCE, which CI's container withholds: run
// this test under `capsh --drop=cap_sys_resource --` to see it hold
// there). The nobody node then makes descriptors forever and meets the
// bound as weft's own would.
func TestNodeUserDescriptorLimit(t *testing.T) {
	bin := exposed(t, buildBounds(t))
	nobody := &User{Name: "nobody", UID: 65534, GID: 65534, Groups: []uint32{65534}}
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"fdbomb-open"}}, {Path: bin, Args: []string{"fdbomb-open"}, User: nobody}},
		MaxFDs: 100, DataDirs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i, n := range w.nodes {
		limits, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", n.pid))
		status, err2 := os.ReadFile(fmt.Sprintf("/proc/%d/status", n.pid))
		if err != nil || err2 != nil {
			t.Fatalf("node %d: %v %v", i, err, err2)
		}
		if got := strings.Fields(lineOf(string(limits), "Max open files")); len(got) < 5 || got[3] != "100" || got[4] != "100" {
			t.Errorf("node %d: /proc/PID/limits says %q, want the bound, 100 soft and hard", i, got)
		}
		uid := map[int]string{0: "0", 1: "65534"}[i]
		if got := strings.Fields(lineOf(string(status), "Uid:")); len(got) != 5 || got[1] != uid || got[4] != uid {
			t.Errorf("node %d: uids %q, want %s", i, got, uid)
		}
	}
	for step := 0; step < 5000 && w.Failure() == nil; step++ {
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if f := w.Failure(); f == nil || !strings.Contains(f.Msg, "reached its bound of 100 open descriptors in one process") {
		t.Fatalf("failure %v, want the descriptor bound's", f)
	}
}

// lineOf returns the line of text that begins with prefix ("" none).
func lineOf(text, prefix string) string {
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

// TestOwnDescriptorLimit: a node that lowers its own RLIMIT_NOFILE below
// weft's bound meets EMFILE there, as on Linux, and the run goes on.
func TestOwnDescriptorLimit(t *testing.T) {
	w, _ := runBounded(t, Config{MaxFDs: 100}, "ownlimit")
	if f := w.Failure(); f != nil {
		t.Fatalf("failure: %v", f)
	}
	if out := string(w.Output(0)); out != "opened 61, then EMFILE\n" {
		t.Errorf("output %q, want 61 opens (fds 3 to 63) and EMFILE", out)
	}
}

// TestMemoryBound: a node that allocates and touches memory forever, or
// whose child process does, ends the run with a failure naming the node
// and its memory bound (Config.MaxMemory): its memory cgroup, not the
// host, killed it. No process of it outlives the world, nor does its
// cgroup.
func TestMemoryBound(t *testing.T) {
	if _, err := ownMemCgroup(); err != nil {
		t.Fatalf("no memory cgroup here, so no memory bound: %v", err)
	}
	for _, mode := range []string{"membomb", "membomb-child"} {
		t.Run(mode, func(t *testing.T) {
			w, pids := runBounded(t, Config{MaxMemory: 64 << 20}, mode)
			f := w.Failure()
			if f == nil || f.Node != 0 || !strings.Contains(f.Msg, "bound: node 0 reached its bound of 64 MiB of memory") {
				t.Fatalf("failure %v, want the memory bound's\n%s", f, w.Output(0))
			}
			checkReaped(t, pids)
			g := w.nodes[0].memcg
			if g == nil {
				t.Fatal("the node had no memory cgroup")
			}
			if _, err := os.Stat(g.dir); err == nil {
				t.Errorf("its memory cgroup %s outlived the world", g.dir)
			}
		})
	}
}

// TestMemCgroupKeepsFrozen: a world's node cgroups outlive the world while
// a checkpoint's frozen processes are in them (they are not moved out, a
// migration that waits for an RCU grace period, memCgroup.remove), and go
// when the checkpoint closes.
func TestMemCgroupKeepsFrozen(t *testing.T) {
	if _, err := ownMemCgroup(); err != nil {
		t.Fatalf("no memory cgroup here, so no memory bound: %v", err)
	}
	tc := checkpointTargets[0]
	w, err := Start(checkpointConfig(t, tc.src, tc.nodes, tc.client, tc.dataDirs))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Apply(w.Enabled()[0]); err != nil {
		t.Fatal(err)
	}
	cp, err := w.Checkpoint()
	if err != nil {
		w.Close()
		t.Fatal(err)
	}
	defer cp.Close()
	var dirs []string
	for _, n := range w.nodes {
		if n.memcg == nil {
			t.Fatalf("node %d has no memory cgroup", n.id)
		}
		dirs = append(dirs, n.memcg.dir)
	}
	w.Close()
	for i, fp := range cp.frozen {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", fp.pid))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), filepath.Base(dirs[i])+"\n") {
			t.Errorf("node %d's frozen process left its cgroup %s: %s", i, dirs[i], b)
		}
	}
	cp.Close()
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("cgroup %s outlived its checkpoint", d)
		}
	}
}

// TestReleaseHost: weft's last call removes a lingering node cgroup
// whose process is still running when it starts (killed a moment later,
// as a killed process still dying), and names one whose process does
// not end instead of waiting for it.
func TestReleaseHost(t *testing.T) {
	if _, err := ownMemCgroup(); err != nil {
		t.Fatalf("no memory cgroup here, so no memory bound: %v", err)
	}
	for _, tc := range []struct {
		name string
		ends bool // the process is killed while ReleaseHost waits
	}{{"dying", true}, {"stuck", false}} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := newMemCgroup(0, 64<<20)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("sleep", "60")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			defer func() {
				cmd.Process.Kill()
				<-done
				lingering.retry()
			}()
			if err := g.add(cmd.Process.Pid); err != nil {
				t.Fatal(err)
			}
			g.remove()
			if _, err := os.Stat(g.dir); err != nil {
				t.Fatalf("the cgroup went with its process in it: %v", err)
			}
			go func() {
				if tc.ends {
					time.Sleep(100 * time.Millisecond)
					cmd.Process.Kill()
				}
				cmd.Wait()
				close(done)
			}()
			err = ReleaseHost()
			_, statErr := os.Stat(g.dir)
			if tc.ends && (statErr == nil || err != nil && strings.Contains(err.Error(), g.dir)) {
				t.Errorf("cgroup %s left (stat: %v), ReleaseHost: %v", g.dir, statErr, err)
			}
			if !tc.ends && (statErr != nil || err == nil || !strings.Contains(err.Error(), g.dir) || !strings.Contains(err.Error(), strconv.Itoa(cmd.Process.Pid))) {
				t.Errorf("cgroup %s (stat: %v) not reported with its process %d: %v", g.dir, statErr, cmd.Process.Pid, err)
			}
		})
	}
}
