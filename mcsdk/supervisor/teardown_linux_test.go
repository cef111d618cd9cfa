//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// orphanThreadsScript is issue 37's RabbitMQ reproducer: a shell forks a
// python3 that starts two sleeping threads, and waits for it. When the
// world is torn down the child's threads are still traced, and a
// teardown that waited for the child's leader before its threads hung
// in wait4.
const orphanThreadsScript = `/usr/bin/python3 -c 'import threading, time
for _ in range(2): threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
print("started", flush=True)
time.sleep(1000)' & wait`

// TestTeardownThreadedChild runs the reproducer for a few steps (or to
// its end, 10000), tears the world down, and checks that Close returns and
// that no process of the node is left on the host.
func TestTeardownThreadedChild(t *testing.T) {
	for _, steps := range []int{5, 20, 60, 10000} {
		t.Run(fmt.Sprint(steps), func(t *testing.T) {
			cfg := Config{Nodes: []NodeSpec{{Path: "/bin/sh", Args: []string{"-c", orphanThreadsScript},
				Env: []string{"PATH=/usr/bin:/bin"}}}}
			w, err := Start(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var pids []int
			for step := 0; step < steps && w.Failure() == nil; step++ {
				pids = appendNew(pids, w.LiveProcs(0))
				acts := w.Enabled()
				if len(acts) == 0 {
					break
				}
				if err := w.Apply(acts[0]); err != nil {
					break
				}
			}
			pids = appendNew(pids, w.LiveProcs(0))
			closed := make(chan struct{})
			go func() { w.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(60 * time.Second):
				t.Fatalf("World.Close has not returned 60 s after it was called (pids %v)", pids)
			}
			for _, pid := range pids {
				if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
					b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
					t.Errorf("process %d outlived its world:\n%s", pid, firstLines(string(b), 3))
				}
			}
			if f := w.Failure(); f != nil {
				t.Errorf("failure: %v\n%s", f, w.Output(0))
			}
			if st := w.Status(0); steps == 10000 && (!st.Exited || st.ExitCode != 0) {
				t.Errorf("run to its end: status %+v, want exit 0\n%s", st, w.Output(0))
			}
		})
	}
}

func appendNew(pids, more []int) []int {
	for _, p := range more {
		found := false
		for _, q := range pids {
			found = found || p == q
		}
		if !found {
			pids = append(pids, p)
		}
	}
	return pids
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
