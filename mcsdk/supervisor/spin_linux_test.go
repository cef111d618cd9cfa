//go:build linux && amd64

package supervisor

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestSpinningLoopAdvancesTime runs testdata/spin.c, libev's loop with a
// zero-delay timer, over each poll call: every poll has a zero timeout and
// finds nothing, and the loop ends only when its 20 ms timer has fired ten
// times. Without the spinning-poll rule (spin.go) the virtual clock never
// moves and the watchdog ends the run; with it the loop reaches its end,
// SpinPolls polls per SpinQuantum of virtual time, and two runs make the
// same choices, hashes and output.
func TestSpinningLoopAdvancesTime(t *testing.T) {
	bin := buildProbe(t, "spin", "-O1", "-Wall")
	re := regexp.MustCompile(`tick fired 10 times, zero-delay timer ran (\d+) times, (\d+) polls, 0\.2\d\d s passed`)
	for _, how := range []string{"epoll", "poll", "ppoll", "select", "pselect"} {
		t.Run(how, func(t *testing.T) {
			var runs [2]string
			for r := range runs {
				runs[r] = spinRun(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{how}}}, MaxCalls: 100000, Seed: 3})
			}
			if runs[0] != runs[1] {
				t.Errorf("two runs differ:\n%s\n---\n%s", runs[0], runs[1])
			}
			m := re.FindStringSubmatch(runs[0])
			if m == nil {
				t.Fatalf("output lacks the loop's end:\n%s", runs[0])
			}
			var polls int
			fmt.Sscan(m[2], &polls)
			if polls < 200*SpinPolls || polls > 202*SpinPolls {
				t.Errorf("%d polls for 200 ms, want about %d (SpinPolls per SpinQuantum)", polls, 200*SpinPolls)
			}
		})
	}
}

// spinRun runs cfg taking the first enabled action at each step, and
// returns its output, every action and every state hash, one per line.
func spinRun(t *testing.T, cfg Config) string {
	t.Helper()
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var b strings.Builder
	for step := 0; step < 100000 && w.Failure() == nil; step++ {
		h, err := w.Hash(HashMemory, nil)
		if err != nil {
			t.Fatal(err)
		}
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		fmt.Fprintf(&b, "%x %s\n", h[:8], w.Describe(acts[0]))
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if f := w.Failure(); f != nil {
		t.Fatalf("failure: %v\n%s", f, w.Output(0))
	}
	if st := w.Status(0); !st.Exited || st.ExitCode != 0 {
		t.Fatalf("status %+v\n%s", st, w.Output(0))
	}
	return string(w.Output(0)) + b.String()
}
