//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// buildSignals compiles testdata/signals.c once per test binary.
func buildSignals(tb testing.TB) string { return buildProbe(tb, "signals", "-O1", "-pthread") }

// TestSignals runs the signal probes under weft, twice each: signals
// interrupt parked calls with EINTR or are restarted (SA_RESTART) as
// Linux does, timers fire at their virtual deadlines (the world's
// virtual clock ends at the sum of the waits the probe makes, no later),
// and both runs are identical. The quick modes print the same natively.
func TestSignals(t *testing.T) {
	bin := buildSignals(t)
	cases := []struct {
		args   []string
		out    string // the node's whole output must contain it
		native bool   // and the output equals the native one
		signal string // the node's ending signal
		fail   string // the run's failure, "" none
		// virt is the virtual clock at the run's end (Now - Epoch): the
		// probe's timers and sleeps, each ending at its deadline.
		virt time.Duration
	}{
		{args: []string{"read", "norestart"}, native: true, out: "read no SA_RESTART: rc=-1 errno=EINTR handled=1\nthen read rc=4\n", virt: 100 * time.Millisecond},
		{args: []string{"read", "restart"}, native: true, out: "read SA_RESTART: rc=4 errno=0 handled=1\n", virt: 100 * time.Millisecond},
		{args: []string{"futex", "norestart"}, native: true, out: "futex no SA_RESTART: first wait EINTR=1 handled=1 in the waiter=1\n", virt: time.Millisecond},
		{args: []string{"futex", "restart"}, native: true, out: "futex SA_RESTART: first wait EINTR=0 handled=1 in the waiter=1\n", virt: time.Millisecond},
		{args: []string{"accept"}, out: "accept rc=-1 errno=EINTR handled=1 after 2000ms\n", virt: 2 * time.Second},
		{args: []string{"itimer"}, out: "itimer: 5 signals in 500ms, interval 100000us\n", virt: 500 * time.Millisecond},
		{args: []string{"threadtimer"}, native: true, out: "target: pause rc=-1 errno=EINTR\nthreadtimer: armed=1 handled=1 in the target=1 overrun=0 disarmed=1\n", virt: 50 * time.Millisecond},
		{args: []string{"altstack"}, native: true, out: "altstack: old disabled=1 ENOMEM=1 EINVAL=1 handler on alt stack=1 EPERM+ONSTACK inside=2 disabled after=1\n"},
		// alarm(1) ends sigtimedwait, a 100 ms timeout passes, alarm(1) ends sigsuspend.
		{args: []string{"sigwait"}, out: "sigtimedwait: got SIGALRM after 1000ms; then rc=-1 errno=EAGAIN\nsigsuspend: rc=-1 errno=EINTR handled=1 mask restored=1\n", virt: 2100 * time.Millisecond},
		{args: []string{"suspendpending"}, native: true, out: "raise: pending 1, sigsuspend rc=-1 errno=EINTR handled=1 still blocked=1\nkill: pending 1, sigsuspend rc=-1 errno=EINTR handled=1 still blocked=1\n"},
		{args: []string{"nanosleep"}, out: "nanosleep: rc=-1 errno=EINTR handled=1 left about 600ms\n", virt: 300 * time.Millisecond},
		{args: []string{"poll"}, out: "poll: rc=-1 errno=EINTR handled=1\n", virt: time.Second},
		{args: []string{"alarmkill"}, out: "waiting for SIGALRM\n", signal: "SIGALRM", virt: time.Second},
		{args: []string{"stop"}, out: "stopping\n", fail: "SIGSTOP would stop the node"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, "-"), func(t *testing.T) {
			var outs []string
			var paths [][]sched.Action
			for run := 0; run < 2; run++ {
				w, path := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: tc.args}}}, first)
				out := string(w.Output(0))
				if f := w.Failure(); tc.fail == "" && f != nil || tc.fail != "" && (f == nil || !strings.Contains(f.Error(), tc.fail)) {
					t.Fatalf("failure: %v, want %q\noutput:\n%s", f, tc.fail, out)
				}
				if tc.fail != "" {
					w.Close()
					outs, paths = append(outs, out), append(paths, path)
					continue
				}
				if !strings.Contains(out, tc.out) {
					t.Errorf("output:\n%s\nwant it to contain:\n%s", out, tc.out)
				}
				if strings.Contains(out, "still alive") {
					t.Errorf("the node outlived its fatal signal:\n%s", out)
				}
				if st := w.Status(0); !st.Exited || st.Signal != tc.signal || tc.signal == "" && st.ExitCode != 0 {
					t.Errorf("status %+v, want signal %q", st, tc.signal)
				}
				if got := time.Duration(w.Now() - Epoch); got != tc.virt {
					t.Errorf("the virtual clock ended at %v, want %v: a timer did not fire at its virtual deadline", got, tc.virt)
				}
				outs, paths = append(outs, out), append(paths, path)
			}
			if outs[0] != outs[1] || !slices.Equal(paths[0], paths[1]) {
				t.Errorf("two runs differ:\n%s\n%v\n---\n%s\n%v", outs[0], paths[0], outs[1], paths[1])
			}
			if tc.native {
				nat, err := exec.Command(bin, tc.args...).CombinedOutput()
				if err != nil {
					t.Fatalf("native: %v\n%s", err, nat)
				}
				if string(nat) != outs[0] {
					t.Errorf("under weft:\n%s\nnatively:\n%s", outs[0], nat)
				}
			}
		})
	}
}

// TestSignalTimerEvents checks that armed signal timers are timer events
// of the world (Task -1 for ITIMER_REAL), that their actions round-trip
// through the text form, and that two runs of the periodic-timer probe
// give the same world hash (memory and signal state) at every step.
func TestSignalTimerEvents(t *testing.T) {
	bin := buildSignals(t)
	var runs [][][32]byte
	for run := 0; run < 2; run++ {
		w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"itimer"}}}})
		if err != nil {
			t.Fatal(err)
		}
		var hashes [][32]byte
		fired := 0
		for step := 0; step < 100 && w.Failure() == nil; step++ {
			h, err := w.Hash(HashMemory, nil)
			if err != nil {
				t.Fatal(err)
			}
			hashes = append(hashes, h)
			acts := w.Enabled()
			if len(acts) == 0 {
				break
			}
			a := acts[0]
			if a.Kind == sched.Timer && a.Task == realTimerTask {
				fired++
				back, err := sched.ParseAction(a.String())
				if err != nil || back != a {
					t.Fatalf("%v reads back as %v (%v)", a, back, err)
				}
				if d := w.Describe(a); d != "ITIMER_REAL (SIGALRM) timer fires on n0" {
					t.Errorf("described as %q", d)
				}
			}
			if err := w.Apply(a); err != nil {
				t.Fatal(err)
			}
		}
		if f := w.Failure(); f != nil {
			t.Fatal(f)
		}
		if fired != 5 {
			t.Errorf("the ITIMER_REAL event fired %d times, want 5", fired)
		}
		w.Close()
		runs = append(runs, hashes)
	}
	if !slices.Equal(runs[0], runs[1]) {
		t.Errorf("two runs hash differently:\n%x\n%x", runs[0], runs[1])
	}
}

// TestTSCVirtual runs a probe that reads rdtsc and rdtscp, sleeps a
// virtual second and reads again: under weft the counter follows the
// virtual clock (a second is 1e9 ticks), increases, and two runs print
// the same values and hash the same at every quiescent point, the
// dynamic loader's memory included (it times its start-up with rdtsc).
func TestTSCVirtual(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tsc")
	if msg, err := exec.Command("cc", "-O1", "-o", out, "testdata/tsc.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, msg)
	}
	var outs []string
	var hashes [][][32]byte
	for run := 0; run < 2; run++ {
		w, err := Start(Config{Nodes: []NodeSpec{{Path: out}}})
		if err != nil {
			t.Fatal(err)
		}
		var hs [][32]byte
		for step := 0; step < 10 && w.Failure() == nil; step++ {
			h, err := w.Hash(HashMemory, nil)
			if err != nil {
				t.Fatal(err)
			}
			hs = append(hs, h)
			acts := w.Enabled()
			if len(acts) == 0 {
				break
			}
			if err := w.Apply(acts[0]); err != nil {
				t.Fatal(err)
			}
		}
		if f := w.Failure(); f != nil {
			t.Fatal(f)
		}
		if st := w.Status(0); !st.Exited || st.ExitCode != 0 || st.Signal != "" {
			t.Fatalf("status %+v\n%s", st, w.Output(0))
		}
		outs, hashes = append(outs, string(w.Output(0))), append(hashes, hs)
		w.Close()
	}
	// The monotonic clock starts at 1000 s; the dynamic loader's reads
	// come before the probe's, each one tick.
	var a, b, aux, c, d uint64
	var inc int
	if _, err := fmt.Sscanf(outs[0], "rdtsc %d rdtscp %d aux %d\nafter a 1 s sleep: %d, +%d ticks, increasing %d\n", &a, &b, &aux, &c, &d, &inc); err != nil ||
		a < 1000e9 || a > 1000e9+100 || b != a+1 || aux != 0 || c != 1001e9 || inc != 1 {
		t.Errorf("output (%v):\n%s", err, outs[0])
	}
	if outs[0] != outs[1] {
		t.Errorf("two runs read different counters:\n%s---\n%s", outs[0], outs[1])
	}
	if len(hashes[0]) < 2 || !slices.Equal(hashes[0], hashes[1]) {
		t.Errorf("two runs hash differently:\n%x\n%x", hashes[0], hashes[1])
	}
}

// TestThreadProbesTwice runs the thread probes that the threads issue's
// "must show" names twice each and expects identical output and paths:
// pthread_cond_timedwait for 10 virtual seconds (well under a second of
// wall time) and abort() in a non-main thread (SIGABRT).
func TestThreadProbesTwice(t *testing.T) {
	bin := buildThreads(t)
	for _, mode := range []string{"condwait", "abort"} {
		var outs []string
		var paths [][]sched.Action
		for run := 0; run < 2; run++ {
			start := time.Now()
			w, path := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{mode}}}}, first)
			if f := w.Failure(); f != nil {
				t.Fatalf("%s: %v", mode, f)
			}
			if mode == "condwait" && time.Since(start) > time.Second {
				t.Errorf("condwait took %v of wall time", time.Since(start))
			}
			if st := w.Status(0); mode == "abort" && st.Signal != "SIGABRT" {
				t.Errorf("abort: status %+v", st)
			}
			outs, paths = append(outs, string(w.Output(0))), append(paths, path)
		}
		if outs[0] != outs[1] || !slices.Equal(paths[0], paths[1]) {
			t.Errorf("%s: two runs differ:\n%s %v\n%s %v", mode, outs[0], paths[0], outs[1], paths[1])
		}
	}
}

// TestOneShotHandlerHashed: two states that differ only in whether a
// SA_RESETHAND handler has fired (testdata/oneshot.c, "fire" or "hold",
// then asleep in the same call) have different futures (a second
// SIGUSR1 kills the one and runs the handler in the other), so their
// world hashes must differ in both modes: the kernel resets the action
// to SIG_DFL at delivery, and weft's recorded actions, which every mode
// hashes, follow it (World.oneShot). Each run ends as the probe checks
// the action it reads back.
func TestOneShotHandlerHashed(t *testing.T) {
	bin := buildProbe(t, "oneshot", "-O1", "-Wall")
	for _, mode := range []HashMode{HashGlobals, HashMemory} {
		var hashes [2][32]byte
		for i, arg := range []string{"fire", "hold"} {
			w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{arg}}}})
			if err != nil {
				t.Fatal(err)
			}
			if hashes[i], err = w.Hash(mode, nil); err != nil {
				t.Fatal(err)
			}
			for step := 0; step < 100 && w.Failure() == nil; step++ {
				acts := w.Enabled()
				if len(acts) == 0 || w.Apply(acts[0]) != nil {
					break
				}
			}
			if st := w.Status(0); w.Failure() != nil || !st.Exited || st.ExitCode != 0 {
				t.Errorf("%s: failure %v, status %+v", arg, w.Failure(), st)
			}
			w.Close()
		}
		if hashes[0] == hashes[1] {
			t.Errorf("hash mode %d: a fired one-shot handler and an unfired one hash alike", mode)
		}
	}
}
