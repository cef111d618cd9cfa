//go:build linux && amd64

package supervisor

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// runClock runs testdata/clock.c alone under the clock fault k, firing
// its timers, and returns its output and the world time at its end.
func runClock(t *testing.T, bin string, k *NodeClock) (string, int64) {
	t.Helper()
	cfg := Config{Nodes: []NodeSpec{{Path: bin, Env: []string{"PATH=/usr/bin:/bin"}}}, BasePort: 7100, Seed: 1}
	if k != nil {
		cfg.Clocks = []NodeClock{*k}
	}
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for steps := 0; ; steps++ {
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if steps > 100 {
			t.Fatal("more than 100 steps")
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	return string(w.Output(0)), w.Now() - Epoch
}

// clockLine is the probe's line for a reading of realtime rt and
// monotonic mono (ns).
func clockLine(when string, rt, mono int64) string {
	return fmt.Sprintf("%s realtime %d monotonic %d tod %d.%06d time %d", when, rt, mono, rt/1e9, rt%1e9/1e3, rt/1e9)
}

// TestClockFaults runs a C probe under a perfect clock and under an
// offset, a drift and a jump: every reading and the world time each timer
// took are the exact values of the clock model (hand-computed below),
// and two runs are byte-identical.
func TestClockFaults(t *testing.T) {
	bin := buildC(t, "testdata/clock.c")
	const mono0 = monotonicOffset
	// A node's elapsed time at world elapsed e is
	// L(e) = e + ⌊e/10⁶⌋·ppm + trunc((e mod 10⁶)·ppm/10⁶), and a timer of d
	// ends at the first e with L(e) ≥ L(now) + d. Values computed with an
	// independent Python transcription of that formula:
	// +1000 ppm: sleep 1 s ends at e = 999001000 (L = 1000000001), the
	// 250 ms poll at 1248751250 (L = 1250000001), the absolute 2 s sleep
	// at 3246753248 (L = 3250000001); -20000 ppm: 1020408163 (L = 10⁹),
	// 1275510204 (L = 1.25·10⁹), 3316326530 (L = 3.25·10⁹). The jump at
	// 0.5 s adds 2 s to realtime readings after it; offsets always apply.
	drift := &NodeClock{OffsetNS: 50_000_000, PPM: 1000, Jumps: []sched.ClockJump{{AtUS: 500_000, DeltaNS: 2_000_000_000}}}
	slow := &NodeClock{OffsetNS: -3_000_000_000, PPM: -20_000}
	tests := []struct {
		name  string
		clock *NodeClock
		want  []string
		end   int64 // world ns at the end
	}{
		{"perfect", nil, []string{
			clockLine("start", Epoch, mono0),
			clockLine("slept", Epoch+1e9, mono0+1e9),
			clockLine("polled", Epoch+1_250_000_000, mono0+1_250_000_000),
			clockLine("until", Epoch+3_250_000_000, mono0+3_250_000_000),
		}, 3_250_000_000},
		{"offset, +1000ppm, +2s jump", drift, []string{
			clockLine("start", Epoch+50_000_000, mono0),
			clockLine("slept", Epoch+1_000_000_001+50_000_000+2e9, mono0+1_000_000_001),
			clockLine("polled", Epoch+1_250_000_001+50_000_000+2e9, mono0+1_250_000_001),
			clockLine("until", Epoch+3_250_000_001+50_000_000+2e9, mono0+3_250_000_001),
		}, 3_246_753_248},
		{"-3s, -20000ppm", slow, []string{
			clockLine("start", Epoch-3e9, mono0),
			clockLine("slept", Epoch+1e9-3e9, mono0+1e9),
			clockLine("polled", Epoch+1_250_000_000-3e9, mono0+1_250_000_000),
			clockLine("until", Epoch+3_250_000_000-3e9, mono0+3_250_000_000),
		}, 3_316_326_530},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, end := runClock(t, bin, tc.clock)
			got := strings.Split(strings.TrimSpace(out), "\n")
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("readings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if end != tc.end {
				t.Errorf("the run ended at world time %d ns, want %d", end, tc.end)
			}
			again, _ := runClock(t, bin, tc.clock)
			if !bytes.Equal([]byte(out), []byte(again)) {
				t.Errorf("two runs differ:\n%s\n---\n%s", out, again)
			}
		})
	}
}
