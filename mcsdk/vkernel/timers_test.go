package vkernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// sigevent is a struct sigevent's first 20 bytes.
func sigevent(value uint64, signo, notify, tid int32) []byte {
	b := binary.LittleEndian.AppendUint64(nil, value)
	b = binary.LittleEndian.AppendUint32(b, uint32(signo))
	b = binary.LittleEndian.AppendUint32(b, uint32(notify))
	return binary.LittleEndian.AppendUint32(b, uint32(tid))
}

// TestTimerCreate checks timer_create(2)'s rules: the clocks a timer may
// use (one with no timers is EOPNOTSUPP, an unknown one EINVAL: Linux's
// do_timer_create; testdata/diff/timers.c in the supervisor compares), the notifications, the signal's range, SIGEV_THREAD_ID naming a
// thread of the caller, and the default of a NULL sevp (SIGEV_SIGNAL,
// SIGALRM, sigev_value the timer's id).
func TestTimerCreate(t *testing.T) {
	const self = 42 // the one thread a SIGEV_THREAD_ID may name here
	cases := []struct {
		name   string
		clock  uint64
		sev    []byte
		err    error
		notify int
		signo  int
		value  uint64
		tid    int64
	}{
		{"NULL sevp: SIGALRM, value the id", ClockMonotonic, nil, nil, SigevSignal, SIGALRM, 1, 0},
		{"SIGEV_SIGNAL", ClockRealtime, sigevent(7, SIGUSR1, SigevSignal, 99), nil, SigevSignal, SIGUSR1, 7, 0},
		{"SIGEV_THREAD is SIGEV_SIGNAL to the kernel", ClockBoottime, sigevent(8, SIGRTMIN, SigevThread, 5), nil, SigevSignal, SIGRTMIN, 8, 0},
		{"SIGEV_NONE needs no signal", ClockMonotonic, sigevent(9, 0, SigevNone, 0), nil, SigevNone, 0, 9, 0},
		{"SIGEV_THREAD_ID of a thread of the caller", ClockRealtime, sigevent(1, SIGUSR2, SigevThreadID, self), nil, SigevThreadID, SIGUSR2, 1, self},
		{"SIGEV_THREAD_ID of another thread", ClockRealtime, sigevent(1, SIGUSR2, SigevThreadID, self+1), EINVAL, 0, 0, 0, 0},
		{"unknown notification", ClockRealtime, sigevent(1, SIGUSR2, 3, 0), EINVAL, 0, 0, 0, 0},
		{"signal 0", ClockRealtime, sigevent(1, 0, SigevSignal, 0), EINVAL, 0, 0, 0, 0},
		{"signal past _NSIG", ClockRealtime, sigevent(1, MaxSignal+1, SigevSignal, 0), EINVAL, 0, 0, 0, 0},
		{"negative signal", ClockRealtime, sigevent(1, -1, SigevSignal, 0), EINVAL, 0, 0, 0, 0},
		{"short sigevent", ClockRealtime, make([]byte, 12), EINVAL, 0, 0, 0, 0},
		{"CLOCK_REALTIME_ALARM", ClockRealtimeAlarm, nil, nil, SigevSignal, SIGALRM, 1, 0},
		{"CLOCK_BOOTTIME_ALARM", ClockBoottimeAlarm, nil, nil, SigevSignal, SIGALRM, 1, 0},
		{"CLOCK_TAI", ClockTAI, nil, nil, SigevSignal, SIGALRM, 1, 0},
		{"CLOCK_MONOTONIC_RAW has no timers", ClockMonotonicRaw, nil, EOPNOTSUPP, 0, 0, 0, 0},
		{"CLOCK_REALTIME_COARSE has no timers", ClockRealtimeCoarse, nil, EOPNOTSUPP, 0, 0, 0, 0},
		{"CLOCK_MONOTONIC_COARSE has no timers", ClockMonotonicCoarse, nil, EOPNOTSUPP, 0, 0, 0, 0},
		{"CPU time is refused: weft has none", ClockProcessCPUTimeID, nil, EINVAL, 0, 0, 0, 0},
		{"thread CPU time is refused", ClockThreadCPUTimeID, nil, EINVAL, 0, 0, 0, 0},
		{"unknown clock", 10, nil, EINVAL, 0, 0, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s SigTimers
			s.Add(&SigTimer{}) // id 0 is taken: the new one is 1
			tm, err := s.NewTimer(tc.clock, tc.sev, func(tid int64) bool { return tid == self })
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if tm.Clock != tc.clock || tm.Notify != tc.notify || tm.Signo != tc.signo || tm.Value != tc.value || tm.Tid != tc.tid || tm.Deadline != 0 {
				t.Errorf("timer %+v, want clock %d notify %d signo %d value %d tid %d, disarmed", *tm, tc.clock, tc.notify, tc.signo, tc.value, tc.tid)
			}
		})
	}
}

// TestTimerIDs checks the ids: each timer_create takes the next, a
// deleted id is not reused and is EINVAL to every call after
// timer_delete(2), as is an id never made.
func TestTimerIDs(t *testing.T) {
	var s SigTimers
	for want := range 3 {
		tm, err := s.NewTimer(ClockMonotonic, nil, nil)
		if err != nil || s.NextID() != want {
			t.Fatalf("timer %d: %v, next id %d", want, err, s.NextID())
		}
		s.Add(tm)
	}
	if err := s.Delete(1); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{1, 3, -1} {
		if s.Timer(id) != nil || !errors.Is(s.Delete(id), EINVAL) {
			t.Errorf("id %d: still there, or deleting it is not EINVAL", id)
		}
	}
	if s.NextID() != 3 || s.Timer(0) == nil || s.Timer(2) == nil {
		t.Errorf("next id %d; timers 0 and 2 must remain", s.NextID())
	}
	if s.ByTask(TimerTask(2)) != s.Timer(2) || s.ByTask(RealTimerTask) != &s.Real || s.ByTask(TimerTask(1)) != nil {
		t.Error("ByTask does not name the timers by their event's task")
	}
}

// TestTimersExec checks execve(2)'s effect: "the timers are disarmed and
// deleted during an execve" (timer_create(2)), their ids not reused,
// while "interval timers are preserved across execve" (setitimer(2)).
func TestTimersExec(t *testing.T) {
	var s SigTimers
	s.Real.ArmAfter(nil, 200e9, 7e9, Epoch)
	for range 2 {
		tm, _ := s.NewTimer(ClockMonotonic, nil, nil)
		tm.ArmAfter(nil, 100e9, 0, Epoch)
		s.Add(tm)
	}
	s.Exec()
	if s.Timer(0) != nil || s.Timer(1) != nil || !errors.Is(s.Delete(0), EINVAL) {
		t.Error("a POSIX timer outlived execve")
	}
	if s.Real.Deadline != Epoch+200e9 || s.Real.Interval != 7e9 {
		t.Errorf("ITIMER_REAL after execve: deadline %d interval %d", s.Real.Deadline-Epoch, s.Real.Interval)
	}
	if ev := s.Events(0); len(ev) != 1 || ev[0].Task != RealTimerTask {
		t.Errorf("events after execve %v, want ITIMER_REAL's alone", ev)
	}
	if s.NextID() != 2 {
		t.Errorf("next id %d after execve, want 2", s.NextID())
	}
}

// itimerspec is a struct itimerspec.
func itimerspec(interval, value int64) []byte {
	return append(TimespecBytes(interval), TimespecBytes(value)...)
}

// TestTimerSettime checks timer_settime(2) and timer_gettime(2) on a
// perfect clock: a relative value counts from now, TIMER_ABSTIME names
// the clock's reading (one already passed expires at once), a zero value
// disarms, it_interval re-arms, and timer_gettime reads the time left
// (never zero while armed) and the interval.
func TestTimerSettime(t *testing.T) {
	const now = Epoch + 10e9
	mono := now - Epoch + MonotonicOffset
	cases := []struct {
		name      string
		clock     uint64
		flags     uint64
		value     int64
		interval  int64
		deadline  int64 // world time; 0 disarmed
		afterFire int64 // the deadline after the first expiry
	}{
		{"relative one-shot", ClockMonotonic, 0, 3e9, 0, now + 3e9, 0},
		{"relative periodic", ClockRealtime, 0, 3e9, 1e9, now + 3e9, now + 4e9},
		{"absolute monotonic", ClockMonotonic, TimerAbstime, mono + 2e9, 0, now + 2e9, 0},
		{"absolute realtime", ClockRealtime, TimerAbstime, now + 5e9, 5e8, now + 5e9, now + 55e8},
		{"absolute boottime, passed: at once", ClockBoottime, TimerAbstime, mono - 1e9, 0, now, 0},
		{"absolute realtime, passed: at once", ClockRealtime, TimerAbstime, Epoch, 0, now, 0},
		{"zero value disarms", ClockRealtime, 0, 0, 1e9, 0, 0},
		{"zero absolute value disarms", ClockRealtime, TimerAbstime, 0, 1e9, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tm := &SigTimer{Clock: tc.clock, Notify: SigevSignal, Signo: SIGALRM, Overrun: 3}
			tm.ArmAfter(nil, 7e9, 0, now-1) // armed before: settime replaces it
			interval, value, ok := ParseItimerspec(itimerspec(tc.interval, tc.value))
			if !ok {
				t.Fatal("a normalised itimerspec refused")
			}
			tm.Settime(nil, tc.flags, value, interval, now)
			if tm.Deadline != tc.deadline || tm.Overrun != 0 {
				t.Fatalf("deadline %d overrun %d, want %d and 0", tm.Deadline, tm.Overrun, tc.deadline)
			}
			want := itimerspec(tc.interval, max(tc.deadline-now, 1))
			if tc.deadline == 0 {
				want = itimerspec(tc.interval, 0)
			}
			if got := tm.Itimerspec(now); !bytes.Equal(got, want) {
				t.Errorf("timer_gettime %x, want %x", got, want)
			}
			if tc.deadline == 0 {
				return
			}
			if k := tm.Forward(tc.deadline); k != 1 || tm.Deadline != tc.afterFire {
				t.Errorf("expiry: %d counted, next deadline %d, want 1 and %d", k, tm.Deadline, tc.afterFire)
			}
		})
	}
	for _, bad := range [][]byte{itimerspec(0, 0)[:8], append(TimespecBytes(0), binary.LittleEndian.AppendUint64(TimespecBytes(1e9)[:8], 1e9)...),
		append(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 0), ^uint64(0)), TimespecBytes(1)...)} {
		if _, _, ok := ParseItimerspec(bad); ok {
			t.Errorf("itimerspec %x accepted: tv_nsec must be in [0, 999999999]", bad)
		}
	}
}

// TestTimerOverrun checks the overrun count of timer_getoverrun(2): a
// timer whose signal is still pending counts its expiries instead of
// queuing another signal; the next signal carries them (LastOverrun,
// what timer_getoverrun reads until then), and late expiries of a
// periodic timer count as overruns of that signal.
func TestTimerOverrun(t *testing.T) {
	steps := []struct {
		k           int64 // expiries this event (Forward)
		pending     bool
		raise       bool
		overrun     int
		lastOverrun int
	}{
		{1, false, true, 0, 0}, // first signal
		{1, true, false, 1, 0}, // still pending: counted
		{2, true, false, 3, 0}, // a late event counting two
		{1, false, true, 0, 3}, // delivered: this signal carries 3
		{3, false, true, 0, 2}, // three at once: one signal, two overruns
		{1, false, true, 0, 0}, // on time again
		{1, true, false, 1, 0}, // pending, and
		{1, true, false, 2, 0}, // pending
		{1, false, true, 0, 2}, // delivered
		{4, true, false, 4, 2}, // counted; the last signal's count stays
		{1, false, true, 0, 4}, // delivered
		{1, false, true, 0, 0}, // on time
		{5, false, true, 0, 4}, // late by four intervals
		{1, true, false, 1, 4}, // pending: the last signal's count stays
		{1, false, true, 0, 1}, // delivered
	}
	tm := &SigTimer{Notify: SigevSignal, Signo: SIGRTMIN}
	for i, s := range steps {
		if got := tm.Fired(s.k, s.pending); got != s.raise || tm.Overrun != s.overrun || tm.LastOverrun != s.lastOverrun {
			t.Fatalf("step %d: raise %v overrun %d last %d, want %v %d %d", i, got, tm.Overrun, tm.LastOverrun, s.raise, s.overrun, s.lastOverrun)
		}
	}
	tm.ArmAfter(nil, 1e9, 1e9, Epoch)
	tm.Settime(nil, 0, 1e9, 0, Epoch)
	if tm.Overrun != 0 {
		t.Error("timer_settime must restart the overrun count")
	}
	info := TimerSiginfo(SIGRTMIN, 3, tm.LastOverrun, 77)
	if Code(info) != SITimer || binary.LittleEndian.Uint32(info[SiOverrunOff:]) != uint32(tm.LastOverrun) || binary.LittleEndian.Uint64(info[SiValueOff:]) != 77 {
		t.Errorf("a timer's siginfo %x lacks SI_TIMER, its overrun or its value", info)
	}
}

// TestTimerEvents checks which timers are events of the world: armed
// ones that signal (ITIMER_REAL first, then the POSIX timers by id); a
// SIGEV_NONE timer signals nothing and expires only as it is read
// (timer_gettime(2) shows it running on).
func TestTimerEvents(t *testing.T) {
	var s SigTimers
	s.Real.ArmAfter(nil, 5e9, 0, Epoch)
	for _, notify := range []int{SigevSignal, SigevNone, SigevThreadID, SigevSignal} {
		s.Add(&SigTimer{Clock: ClockMonotonic, Notify: notify, Signo: SIGUSR1})
	}
	for id := range 3 {
		s.Posix[id].ArmAfter(nil, int64(id+1)*1e9, 1e9, Epoch)
	}
	want := []TimerEvent{{RealTimerTask, Epoch + 5e9}, {TimerTask(0), Epoch + 1e9}, {TimerTask(2), Epoch + 3e9}}
	got := s.Events(0)
	if len(got) != len(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
	none := s.Posix[1]
	if b := none.Itimerspec(Epoch + 45e8); !bytes.Equal(b, itimerspec(1e9, 5e8)) {
		t.Errorf("SIGEV_NONE timer reads %x, want 0.5 s left of its 1 s interval", b)
	}
}

// TestItimers checks setitimer(2) and getitimer(2): ITIMER_REAL is
// virtual; ITIMER_VIRTUAL and ITIMER_PROF may only be disarmed (weft has
// no CPU time) and read zero; an unknown timer or a timeval out of range
// is EINVAL; a NULL new value disarms; a time left under a microsecond
// reads as one.
func TestItimers(t *testing.T) {
	itv := func(interval, value int64) []byte { return append(TimevalBytes(interval), TimevalBytes(value)...) }
	cases := []struct {
		name            string
		which           uint64
		newVal          []byte
		value, interval int64
		real            bool
		err             error
	}{
		{"ITIMER_REAL", ItimerReal, itv(1e8, 25e7), 25e7, 1e8, true, nil},
		{"ITIMER_REAL, NULL disarms", ItimerReal, nil, 0, 0, true, nil},
		{"ITIMER_VIRTUAL disarmed", ItimerVirtual, itv(0, 0), 0, 0, false, nil},
		{"ITIMER_PROF, interval only", ItimerProf, itv(1e6, 0), 0, 0, false, nil},
		{"ITIMER_VIRTUAL armed", ItimerVirtual, itv(0, 1e6), 0, 0, false, EINVAL},
		{"ITIMER_PROF armed", ItimerProf, itv(0, 1e6), 0, 0, false, EINVAL},
		{"unknown which", 3, itv(0, 1e6), 0, 0, false, EINVAL},
		{"tv_usec out of range", ItimerReal, append(TimevalBytes(0), binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 1), 1e6)...), 0, 0, false, EINVAL},
		{"negative tv_sec", ItimerReal, append(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, ^uint64(0)), 0), TimevalBytes(0)...), 0, 0, false, EINVAL},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			value, interval, real, err := Setitimer(tc.which, tc.newVal)
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) || value != tc.value || interval != tc.interval || real != tc.real {
				t.Errorf("got value %d interval %d real %v err %v, want %d %d %v %v", value, interval, real, err, tc.value, tc.interval, tc.real, tc.err)
			}
		})
	}
	var s SigTimers
	s.Real.ArmAfter(nil, 1e9, 1e8, Epoch)
	for _, c := range []struct {
		which uint64
		at    int64
		want  []byte
		err   error
	}{
		{ItimerReal, Epoch + 4e8, itv(1e8, 6e8), nil},
		{ItimerReal, Epoch + 1e9 - 10, itv(1e8, 1e3), nil}, // 10 ns left reads 1 µs
		{ItimerVirtual, Epoch, make([]byte, 32), nil},
		{ItimerProf, Epoch, make([]byte, 32), nil},
		{7, Epoch, nil, EINVAL},
	} {
		got, err := s.Getitimer(c.which, c.at)
		if !bytes.Equal(got, c.want) || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
			t.Errorf("getitimer(%d) at %d = %x, %v; want %x, %v", c.which, c.at-Epoch, got, err, c.want, c.err)
		}
	}
}

// TestAlarm checks alarm(2): it answers the seconds left on the previous
// alarm, rounded to the nearest, and 1 rather than 0 while one is armed;
// alarm(0) disarms; alarm shares ITIMER_REAL with setitimer(2).
func TestAlarm(t *testing.T) {
	cases := []struct {
		name      string
		armed     int64 // ns left on ITIMER_REAL before the call; 0 disarmed
		secs      uint32
		want      int64
		nextLeft  int64
		nextArmed bool
	}{
		{"none before", 0, 3, 0, 3e9, true},
		{"whole seconds", 2e9, 5, 2, 5e9, true},
		{"rounds up at half", 15e8, 1, 2, 1e9, true},
		{"rounds down below half", 1_499_999_999, 1, 1, 1e9, true},
		{"never 0 while armed", 1, 1, 1, 1e9, true},
		{"under half a second", 3e8, 0, 1, 0, false},
		{"alarm(0) disarms", 4e9, 0, 4, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s SigTimers
			if tc.armed > 0 {
				s.Real.ArmAfter(nil, tc.armed, 0, Epoch)
			}
			if got := s.Alarm(nil, tc.secs, Epoch); got != tc.want {
				t.Errorf("alarm = %d, want %d", got, tc.want)
			}
			if (s.Real.Deadline != 0) != tc.nextArmed || s.Real.Left(Epoch) != tc.nextLeft {
				t.Errorf("ITIMER_REAL left %d (deadline %d), want %d", s.Real.Left(Epoch), s.Real.Deadline, tc.nextLeft)
			}
		})
	}
}

// TestSigTimerHash checks that each field of a signal timer, and a
// deleted one, changes the hash.
func TestSigTimerHash(t *testing.T) {
	sum := func(s *SigTimers) string {
		var b []byte
		s.Hash(func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) })
		return string(b)
	}
	make1 := func() *SigTimers {
		s := &SigTimers{}
		s.Real.ArmAfter(nil, 1e9, 0, Epoch)
		s.Add(&SigTimer{Clock: ClockRealtime, Notify: SigevSignal, Signo: SIGUSR1, Value: 5, Tid: 0, Overrun: 1, LastOverrun: 2})
		s.Posix[0].ArmAfter(&sched.Clock{PPM: 100}, 2e9, 1e9, Epoch)
		return s
	}
	base := sum(make1())
	muts := map[string]func(*SigTimers){
		"real deadline": func(s *SigTimers) { s.Real.Deadline++ },
		"clock":         func(s *SigTimers) { s.Posix[0].Clock = ClockMonotonic },
		"interval":      func(s *SigTimers) { s.Posix[0].Interval++ },
		"notify":        func(s *SigTimers) { s.Posix[0].Notify = SigevNone },
		"signo":         func(s *SigTimers) { s.Posix[0].Signo++ },
		"value":         func(s *SigTimers) { s.Posix[0].Value++ },
		"tid":           func(s *SigTimers) { s.Posix[0].Tid++ },
		"overrun":       func(s *SigTimers) { s.Posix[0].Overrun++ },
		"last overrun":  func(s *SigTimers) { s.Posix[0].LastOverrun++ },
		"node reading":  func(s *SigTimers) { s.Posix[0].At++ },
		"deleted":       func(s *SigTimers) { _ = s.Delete(0) },
		"another":       func(s *SigTimers) { s.Add(&SigTimer{}) },
	}
	for name, m := range muts {
		s := make1()
		m(s)
		if sum(s) == base {
			t.Errorf("%s: hash unchanged", name)
		}
	}
}
