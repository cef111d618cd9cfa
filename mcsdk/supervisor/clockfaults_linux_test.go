//go:build linux && amd64

package supervisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// runClockMode runs testdata/clockfaults.c in mode alone under clock
// fault k, firing its timers, and returns its output lines, each with
// " @E" appended: the world time (ns since the start) of the step that
// printed it.
func runClockMode(t *testing.T, mode string, k *NodeClock) []string {
	t.Helper()
	bin := buildProbe(t, "clockfaults", "-O1", "-Wall")
	cfg := Config{Nodes: []NodeSpec{{Path: bin, Args: []string{mode}, Env: []string{"PATH=/usr/bin:/bin"}}}, BasePort: 7200, Seed: 1}
	if k != nil {
		cfg.Clocks = []NodeClock{*k}
	}
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var lines []string
	took := func() {
		out := strings.Split(strings.TrimSuffix(string(w.Output(0)), "\n"), "\n")
		for _, l := range out[len(lines):] {
			if l != "" {
				lines = append(lines, fmt.Sprintf("%s @%d", l, w.Now()-Epoch))
			}
		}
	}
	took()
	for steps := 0; ; steps++ {
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if steps > 200 {
			t.Fatal("more than 200 steps")
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
		took()
	}
	if f := w.Failure(); f != nil {
		t.Fatal(f)
	}
	return lines
}

// clockModel is the tests' own transcription of a node's clocks at a
// rate of exactly +5 % (fast), -5 % (slow) or 0, where the clock model
// has closed forms: at ±50000 ppm a node's elapsed time at world elapsed
// e is e ± ⌊e/20⌋ (the ppm term rounds toward zero, and 10⁶/20 is whole).
type clockModel struct {
	rate   int // +1 fast, -1 slow, 0 perfect
	offset int64
	jumps  []sched.ClockJump
}

func (m clockModel) clock() *NodeClock {
	if m.rate == 0 && m.offset == 0 && m.jumps == nil {
		return nil
	}
	return &NodeClock{PPM: int64(m.rate) * 50000, OffsetNS: m.offset, Jumps: m.jumps}
}

// local is the node's monotonic elapsed time at world elapsed e.
func (m clockModel) local(e int64) int64 { return e + int64(m.rate)*(e/20) }

// world is the first world elapsed time at which local reaches l.
func (m clockModel) world(l int64) int64 {
	lo, hi := int64(0), 2*max(l, 0)+2
	for lo < hi {
		if mid := (lo + hi) / 2; m.local(mid) >= l {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// shift is the realtime offset plus the jumps passed at world elapsed e.
func (m clockModel) shift(e int64) int64 {
	s := m.offset
	for _, j := range m.jumps {
		if j.AtUS*1000 <= e {
			s += j.DeltaNS
		}
	}
	return s
}

// stepAfter is the world elapsed time of the first jump after e (-1:
// none).
func (m clockModel) stepAfter(e int64) int64 {
	for _, j := range m.jumps {
		if j.AtUS*1000 > e {
			return j.AtUS * 1000
		}
	}
	return -1
}

// real is the node's CLOCK_REALTIME at world elapsed e.
func (m clockModel) real(e int64) int64 { return Epoch + m.local(e) + m.shift(e) }

// realAt is the first world elapsed time from e on at which the node's
// realtime reads at least target: the end of the segment between jumps
// where it gets there, or the jump that steps it past.
func (m clockModel) realAt(e, target int64) int64 {
	starts := []int64{e}
	for _, j := range m.jumps {
		if j.AtUS*1000 > e {
			starts = append(starts, j.AtUS*1000)
		}
	}
	for i, s := range starts {
		c := max(s, m.world(target-Epoch-m.shift(s)))
		if i+1 == len(starts) || c < starts[i+1] {
			return c
		}
	}
	panic("unreachable")
}

// script is a mode's waits as the node sees them, run on a model: each
// wait moves the model's world time to where the node's timer ends and
// prints the probe's line.
type script struct {
	m     clockModel
	e     int64
	lines []string
}

func (s *script) mark(what string, extra int64) {
	s.lines = append(s.lines, fmt.Sprintf("%s %d mono %d real %d @%d", what, extra, monotonicOffset+s.m.local(s.e), s.m.real(s.e), s.e))
}
func (s *script) print(format string, v int64) {
	s.lines = append(s.lines, fmt.Sprintf(format+" @%d", v, s.e))
}
func (s *script) rel(d int64)              { s.e = s.m.world(s.m.local(s.e) + d) }
func (s *script) at(l int64)               { s.e = max(s.e, s.m.world(l)) }
func (s *script) realAbs(target int64)     { s.e = s.m.realAt(s.e, target) }
func (s *script) left(next int64) int64    { return next - s.m.local(s.e) }
func (s *script) realIn(d int64) (v int64) { return s.m.real(s.e) + d }

// clockScripts is what each mode of testdata/clockfaults.c does, in the
// node's time (ns): relative timeouts, periodic expiries counted from
// the arming, absolute deadlines on its clocks.
var clockScripts = map[string]func(s *script){
	"timerfd": func(s *script) {
		for k := int64(1); k <= 3; k++ { // relative 100 ms, every 100 ms
			s.at(k * 100_000_000)
			s.mark("timerfd", 1)
		}
		s.print("timerfd left %d", s.left(400_000_000))
		s.realAbs(s.realIn(1_000_000_000)) // TFD_TIMER_ABSTIME on CLOCK_REALTIME
		s.mark("timerfd-abs", 1)
	},
	"sockets": func(s *script) {
		s.rel(300_000_000) // UDP SO_RCVTIMEO
		s.mark("udp-rcvtimeo", 11)
		s.rel(200_000_000) // AF_UNIX SO_RCVTIMEO
		s.mark("unix-rcvtimeo", 11)
		s.rel(100_000_000) // AF_UNIX SO_SNDTIMEO, buffer full
		s.mark("unix-sndtimeo", 11)
	},
	"itimer": func(s *script) {
		for k := int64(1); k <= 3; k++ { // ITIMER_REAL 200 ms, every 200 ms
			s.at(k * 200_000_000)
			s.mark("itimer", k)
		}
		s.print("itimer left %d", s.left(800_000_000)/1000)
		s.rel(1_000_000_000) // alarm(1)
		s.mark("alarm", 4)
	},
	"posix": func(s *script) {
		for k := int64(1); k <= 2; k++ { // CLOCK_MONOTONIC 150 ms, every 150 ms
			s.at(k * 150_000_000)
			s.mark("posix", k)
		}
		s.print("posix left %d", s.left(450_000_000))
		s.realAbs(s.realIn(500_000_000)) // TIMER_ABSTIME on CLOCK_REALTIME
		s.mark("posix-abs", 3)
	},
	"rdtsc": func(s *script) {
		for range 2 { // nanosleep 1 s, then rdtsc: one tick per node ns
			s.rel(1_000_000_000)
			s.mark("rdtsc", monotonicOffset+s.m.local(s.e))
		}
	},
	"abstime": func(s *script) {
		s.realAbs(s.realIn(3_000_000_000))
		s.mark("abs-across-jump", 0)
		s.realAbs(s.realIn(1_000_000_000))
		s.mark("abs-after-jump", 0)
		s.realAbs(s.realIn(5_000_000_000))
		s.mark("abs-jumped-past", 0)
		s.at(s.m.local(s.e) + 1_000_000_000) // CLOCK_MONOTONIC, absolute
		s.mark("abs-monotonic", 0)
	},
	"cancel": func(s *script) {
		// Disarmed with TFD_TIMER_CANCEL_ON_SET, polled for 1 s: a step
		// makes it readable, its read fails with ECANCELED.
		timeout := s.m.world(s.m.local(s.e) + 1_000_000_000)
		if j := s.m.stepAfter(s.e); j >= 0 && j <= timeout {
			s.e = j
			s.mark("cancel-watch", 1)
			s.mark("cancel-watch-read", 125)
		} else {
			s.e = timeout
			s.mark("cancel-watch", 0)
		}
		for range 3 { // armed to realtime + 10 s, read: a step first cancels it
			expiry := s.m.realAt(s.e, s.realIn(10_000_000_000))
			if j := s.m.stepAfter(s.e); j >= 0 && j <= expiry {
				s.e = j
				s.mark("cancel-read", 125)
				continue
			}
			s.e = expiry
			s.mark("cancel-read", 1)
		}
	},
	"uptime": func(s *script) {
		s.rel(1_500_000_000) // nanosleep 1.5 s; every uptime is the node's CLOCK_BOOTTIME
		up := monotonicOffset + s.m.local(s.e)
		s.mark("uptime-boottime", up)
		s.mark("uptime-proc", up/1e7)
		s.mark("uptime-times", up/(1e9/userHZ))
		s.mark("uptime-sysinfo", up/1e9)
	},
	"remain": func(s *script) {
		for _, call := range []string{"nanosleep", "ppoll"} { // 1 s, interrupted by ITIMER_REAL 200 ms in
			end := s.m.local(s.e) + 1_000_000_000
			s.rel(200_000_000)
			s.print(call+" left %d", s.left(end))
		}
	},
	"futex": func(s *script) {
		s.rel(500_000_000) // FUTEX_WAIT, relative
		s.mark("futex-relative", 110)
		s.realAbs(s.realIn(1_000_000_000)) // WAIT_BITSET | FUTEX_CLOCK_REALTIME
		s.mark("futex-realtime", 110)
		s.at(s.m.local(s.e) + 250_000_000) // WAIT_BITSET, monotonic
		s.mark("futex-monotonic", 110)
	},
}

// TestClockFaultTimers runs every kind of timer of a real probe, and its
// uptime read four ways, on a perfect clock, at +5 % and -5 %, and with an offset and realtime jumps:
// each wait ends at the world time where the node's own clock reaches
// its timer (the drifted world time, exact to the nanosecond), what the
// node reads then is its own time, and a perfect clock's node time is
// the world's.
func TestClockFaultTimers(t *testing.T) {
	jumps := []sched.ClockJump{{AtUS: 500_000, DeltaNS: 2_000_000_000}, {AtUS: 3_000_000, DeltaNS: 10_000_000_000}}
	models := []struct {
		name string
		m    clockModel
	}{
		{"perfect", clockModel{}},
		{"+5%", clockModel{rate: 1}},
		{"-5%", clockModel{rate: -1}},
		{"+5%, -40ms, jumps", clockModel{rate: 1, offset: -40_000_000, jumps: jumps}},
		{"-5%, back 1s", clockModel{rate: -1, jumps: []sched.ClockJump{{AtUS: 200_000, DeltaNS: -1_000_000_000}}}},
	}
	for _, mode := range []string{"timerfd", "sockets", "itimer", "posix", "rdtsc", "abstime", "futex", "cancel", "uptime", "remain"} {
		for _, tc := range models {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				s := &script{m: tc.m}
				clockScripts[mode](s)
				got := runClockMode(t, mode, tc.m.clock())
				if strings.Join(got, "\n") != strings.Join(s.lines, "\n") {
					t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(s.lines, "\n"))
				}
			})
		}
	}
}

// TestClockFaultJumpsByHand checks the absolute realtime sleeps around
// two jumps against values worked out by hand, not by the model above:
// at +5 % a node's t ns take ⌈20t/21⌉ world ns. The node sleeps to
// realtime+3 s; the +2 s jump at 0.5 s brings that to node time 1 s,
// world 952380953. Then +1 s: node time 2 s, world 1904761905. Then +5 s:
// the +10 s jump at world 3 s steps past it, so it ends at the jump
// (node time 3.15 s). Then 1 s of the monotonic clock: node time 4.15 s,
// world ⌈20·4.15e9/21⌉ = 3952380953. Two runs are identical.
func TestClockFaultJumpsByHand(t *testing.T) {
	k := &NodeClock{PPM: 50000, Jumps: []sched.ClockJump{{AtUS: 500_000, DeltaNS: 2_000_000_000}, {AtUS: 3_000_000, DeltaNS: 10_000_000_000}}}
	want := []string{
		fmt.Sprintf("abs-across-jump 0 mono %d real %d @952380953", monotonicOffset+1_000_000_000, Epoch+3_000_000_000),
		fmt.Sprintf("abs-after-jump 0 mono %d real %d @1904761905", monotonicOffset+2_000_000_000, Epoch+4_000_000_000),
		fmt.Sprintf("abs-jumped-past 0 mono %d real %d @3000000000", monotonicOffset+3_150_000_000, Epoch+15_150_000_000),
		fmt.Sprintf("abs-monotonic 0 mono %d real %d @3952380953", monotonicOffset+4_150_000_000, Epoch+16_150_000_000),
	}
	first := runClockMode(t, "abstime", k)
	if strings.Join(first, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(first, "\n"), strings.Join(want, "\n"))
	}
	if again := runClockMode(t, "abstime", k); strings.Join(again, "\n") != strings.Join(first, "\n") {
		t.Errorf("two runs differ:\n%s\n---\n%s", strings.Join(first, "\n"), strings.Join(again, "\n"))
	}
}
