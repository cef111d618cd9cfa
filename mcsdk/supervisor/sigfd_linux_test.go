//go:build linux && amd64

package supervisor

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// TestChildSignalInfo runs testdata/sigfd.c under real seccomp and
// ptrace: a child's SIGCHLD reaches an SA_SIGINFO handler in the
// kernel's form (CLD_EXITED or CLD_KILLED, the status) with the child's
// virtual pid and zero CPU times, and a signalfd reads the node's own
// signals and its children's ends (in poll, epoll, non-blocking, after a
// mask update, and parked in a blocking read) with virtual pids. A
// child's end reads as the kernel's (CLD_EXITED, the status in
// ssi_status) when the parent's leader could queue it itself
// (queueKernelForm), and SI_QUEUE with the status in ssi_int when the
// parent was still held at its fork as the child ended (the last-action
// schedule runs the first child to its end first).
func TestChildSignalInfo(t *testing.T) {
	bin := buildProbe(t, "sigfd", "-O1", "-Wall")
	uid := os.Getuid()
	kernelChld := fmt.Sprintf("chld: signo 17 code 1 pid other(1001) uid %d status 3 int 0 utime 0 stime 0\n", uid)
	queuedChld := fmt.Sprintf("chld: signo 17 code -1 pid other(1001) uid %d status 0 int 3 utime 0 stime 0\n", uid)
	cases := []struct {
		mode   string
		want   []string
		byPick [2][]string // more lines wanted under first, last
	}{
		{"chldinfo", []string{
			fmt.Sprintf("chldinfo: got 1 code 1 pid child status 5 uid %d utime 0 stime 0\n", uid),
			"chldinfo: got 2 code 2 pid child status 11\n",
		}, [2][]string{}},
		{"signalfd", []string{
			"empty: read -1 EAGAIN\n", "poll before: 0\n", "poll after kill: 1 revents 0x1\n",
			fmt.Sprintf("kill: signo 10 code -1 pid self(100) uid %d status 0 int 0", uid),
			fmt.Sprintf("sigqueue: signo 10 code -1 pid self(100) uid %d status 0 int 42", uid),
			fmt.Sprintf("tgkill: signo 10 code -1 pid self(100) uid %d", uid),
			"chld not in mask: read -1 EAGAIN\n", "update: 1\n", "epoll: 1 data 7\n",
			"child was 1001\n",
			fmt.Sprintf("blocking chld: signo 17 code 1 pid other(1002) uid %d status 4 int 0 utime 0 stime 0\n", uid),
		}, [2][]string{{kernelChld}, {queuedChld}}},
	}
	for _, tc := range cases {
		for i, pick := range []func([]sched.Action, int) sched.Action{first, last} {
			t.Run(fmt.Sprintf("%s/%d", tc.mode, i), func(t *testing.T) {
				out := runTwice(t, tc.mode, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{tc.mode}}}}, pick)
				for _, s := range append(tc.want, tc.byPick[i]...) {
					if !strings.Contains(out, s) {
						t.Errorf("output lacks %q:\n%s", s, out)
					}
				}
			})
		}
	}
}

// TestChildSignalfdAdopted: a signalfd made natively is weft's to serve
// from its maker's next call on, whichever process of the node makes a
// call first. A child makes a signalfd for SIGURG while its parent keeps
// calling, then waits on it in epoll and in a blocking read, six rounds;
// the parent sends SIGURG only once the child waits. Each wait must end
// by the parent's signal and only then (the signal is pending when epoll
// answers), under every order of the two processes' calls tried, while
// weft's own threads are flooded with SIGURG. weft once scanned for new
// signalfds in whichever process called next (the parent), then polled
// the child's from its own thread, where a signalfd reports weft's own
// pending signals: the child slept through the parent's signal, or woke
// on one of weft's (postgres's runs parted under load so).
func TestChildSignalfdAdopted(t *testing.T) {
	bin := buildProbe(t, "sigfd", "-O1", "-Wall")
	var want strings.Builder
	for i := range 6 {
		if i%2 == 1 {
			fmt.Fprintf(&want, "round %d: epoll 1 data 9 pending 1\n", i)
		}
		fmt.Fprintf(&want, "round %d: read 128 signo 23 from parent\n", i)
	}
	want.WriteString("child exited 0\n")
	picks := map[string]func([]sched.Action, int) sched.Action{"first": first, "last": last}
	for seed := range uint64(8) {
		picks[fmt.Sprintf("random%d", seed)] = func(acts []sched.Action, step int) sched.Action {
			return acts[rand.New(rand.NewPCG(seed, uint64(step))).IntN(len(acts))]
		}
	}
	stop := floodSignals(t)
	defer stop()
	for name, pick := range picks {
		t.Run(name, func(t *testing.T) {
			out := runTwice(t, "kidfd", Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"kidfd"}}}}, pick)
			if out != want.String() {
				t.Errorf("output:\n%s\nwant:\n%s", out, want.String())
			}
		})
	}
}

// TestKernelFormSignalsTwice runs the probes whose signals weft queues in
// the kernel's own form (testdata/diff/chldinfo.c, timersig.c) twice
// under each of the first-action and last-action schedules: the output
// and every state's hash must repeat (the injected call and the parked
// call issued again leave nothing that differs), and every reader gets
// the kernel's form under both schedules.
func TestKernelFormSignalsTwice(t *testing.T) {
	cases := []struct {
		probe string
		want  []string
	}{
		{"chldinfo", []string{
			"= signalfd e: signo 17 errno 0 code 1 pid is the child's 1 uid is mine 1 status 3 int 0\n",
			"= sigwaitinfo e: signo 17 errno 0 code 1 pid is the child's 1 uid is mine 1 status 4\n",
			"= signalfd k: signo 17 errno 0 code 2 pid is the child's 1 uid is mine 1 status 9 int 0\n",
			"= sigwaitinfo k: signo 17 errno 0 code 2 pid is the child's 1 uid is mine 1 status 9\n",
		}},
		{"timersig", []string{
			"= ITIMER_REAL handler: code 128 pid 0 uid 0\n",
			"= ITIMER_REAL unblocked handler: code 128 pid 0 uid 0\n",
			"= ITIMER_REAL sigwaitinfo: code 128 pid 0 uid 0\n",
			"= ITIMER_REAL signalfd: signo 14 errno 0 code 128 pid 0 uid 0 ptr 0\n",
		}},
	}
	for _, tc := range cases {
		bin := buildC(t, fmt.Sprintf("testdata/diff/%s.c", tc.probe))
		for i, pick := range []func([]sched.Action, int) sched.Action{first, last} {
			t.Run(fmt.Sprintf("%s/%d", tc.probe, i), func(t *testing.T) {
				out := runTwiceHashed(t, tc.probe, Config{Nodes: []NodeSpec{{Path: bin}}}, HashMemory, pick, nil)
				for _, s := range tc.want {
					if !strings.Contains(out, s) {
						t.Errorf("output lacks %q:\n%s", s, out)
					}
				}
			})
		}
	}
}
