//go:build linux && amd64

package supervisor

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// TestSigchldInterruptsParent runs testdata/sigtree.c under real seccomp
// and ptrace: a parent parked in read, poll, nanosleep or accept when its
// child ends gets EINTR with a SIGCHLD handler, has read and accept
// restarted under SA_RESTART, and is left parked when SIGCHLD is
// ignored, as Linux does (the same probe natively prints the same lines).
// Only the schedule that ends the first child first is checked: in the
// other, the second child's byte or connection comes first.
func TestSigchldInterruptsParent(t *testing.T) {
	cases := []struct{ mode, want string }{
		{"read", "read: -1 errno EINTR, sigchld 1\n"},
		{"readrestart", "readrestart: 1 errno 0, sigchld "},
		{"readignored", "readignored: 1 errno 0, sigchld 0\n"},
		{"poll", "poll: -1 errno EINTR, sigchld 1\n"},
		{"sleep", "sleep: remaining 4.990 s\nsleep: -1 errno EINTR, sigchld 1\n"},
		{"accept", "accept: -1 errno EINTR, sigchld 1\n"},
		{"acceptrestart", "acceptrestart: 4 errno 0, sigchld "},
	}
	runSigtree(t, cases, first)
}

// TestSignalsWithinTree sends signals between a parent and its child by
// virtual pid and tid (kill, tkill, tgkill, sigqueue, rt_tgsigqueueinfo):
// each interrupts the target's parked read as in-process signals do, with
// the sender's virtual pid; signals aimed outside the tree are refused
// and reach no host process.
func TestSignalsWithinTree(t *testing.T) {
	runSigtree(t, []struct{ mode, want string }{
		{"tree", "parent: kill 0\n"},
		{"tree", "child: read -1 errno EINTR, usr1 1 code -1 from 100 value 0\n"},
		{"tree", "child: read -1 errno EINTR, usr1 2 code -1 from 100 value 0\n"},
		{"tree", "child: read -1 errno EINTR, usr1 3 code -1 from 100 value 0\n"},
		{"tree", "child: read -1 errno EINTR, usr1 4 code -1 from 100 value 42\n"},
		{"tree", "parent: rt_tgsigqueueinfo 0\n"},
		{"tree", "child: read -1 errno EINTR, usr1 5 code -1 from 100 value 43\n"},
		{"tree", "parent: read -1 errno EINTR, usr2 1\n"},
		{"tree", "child: tkill(parent) 0\n"},
		{"tree", "parent: child exit 5\n"},
		{"tree", "tgkill(child, wrong tid) -1 ESRCH\n"},
		{"tree", "tkill(reaped child) -1 ESRCH\n"},
		{"tree", "tkill(99999) -1 ESRCH\n"},
		{"tree", "tgkill(99999) -1 EPERM\n"},
		{"tree", "kill(1, 0) -1 EPERM\n"},
	}, first, last)
}

// runSigtree runs each mode of the probe with each of picks choosing at
// every step, twice (runTwice), and checks its output holds want.
func runSigtree(t *testing.T, cases []struct{ mode, want string }, picks ...func([]sched.Action, int) sched.Action) {
	bin := buildProbe(t, "sigtree", "-O1", "-Wall")
	outs := map[string]string{}
	for _, tc := range cases {
		for i, pick := range picks {
			key := fmt.Sprintf("%s/%d", tc.mode, i)
			out, ok := outs[key]
			if !ok {
				out = runTwice(t, key, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{tc.mode}}}}, pick)
				outs[key] = out
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("%s: output lacks %q:\n%s", key, tc.want, out)
			}
		}
	}
}

// runTwice runs cfg twice with pick choosing, checks that the node ended
// well and that both runs had the same output and the same state hashes
// (memory included) at every step, and returns the output.
func runTwice(t *testing.T, name string, cfg Config, pick func([]sched.Action, int) sched.Action) string {
	t.Helper()
	return runTwiceHashed(t, name, cfg, HashMemory, pick, nil)
}

// runTwiceHashed is runTwice with the hashes taken in mode, and check (if
// non-nil) called on each ended world before it closes.
func runTwiceHashed(t *testing.T, name string, cfg Config, mode HashMode, pick func([]sched.Action, int) sched.Action, check func(*World)) string {
	t.Helper()
	var outs [2]string
	var hashes [2][][32]byte
	for k := range outs {
		w, err := Start(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; step < 10000 && w.Failure() == nil; step++ {
			h, err := w.Hash(mode, nil)
			if err != nil {
				t.Fatalf("%s: hash: %v", name, err)
			}
			hashes[k] = append(hashes[k], h)
			acts := w.Enabled()
			if len(acts) == 0 {
				break
			}
			if err := w.Apply(pick(acts, step)); err != nil {
				break
			}
		}
		outs[k] = string(w.Output(0))
		if f := w.Failure(); f != nil {
			t.Errorf("%s: %v\n%s", name, f, outs[k])
		}
		if st := w.Status(0); !st.Exited || st.ExitCode != 0 {
			t.Errorf("%s: status %+v\n%s", name, st, outs[k])
		}
		if check != nil {
			check(w)
		}
		w.Close()
	}
	if outs[0] != outs[1] || !slices.Equal(hashes[0], hashes[1]) {
		first := -1
		for i := range min(len(hashes[0]), len(hashes[1])) {
			if hashes[0][i] != hashes[1][i] {
				first = i
				break
			}
		}
		t.Errorf("%s: two runs differ (%d and %d steps, first at step %d):\n%s\n----\n%s", name, len(hashes[0]), len(hashes[1]), first, outs[0], outs[1])
	}
	return outs[0]
}
