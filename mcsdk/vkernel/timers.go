package vkernel

import (
	"encoding/binary"

	"github.com/weft-mc/weft/mcsdk/sched"
)

// Signal timers on virtual time: alarm(2), setitimer(2)/getitimer(2)
// (ITIMER_REAL) and the POSIX timers (timer_create(2) …) on the
// realtime, monotonic and boot clocks. They are each process's own
// (SigTimers, in its record of the process table: Process.Timers): a
// forked child has none (fork(2)), exec keeps ITIMER_REAL and deletes
// the POSIX timers, and they end with the process. Each armed timer is a
// timer event of the world, named by a task number that says whose timer
// it is (ProcTimerTask: RealTimerTask for the main process's ITIMER_REAL,
// TimerTask(id) for its POSIX timer id, and the same shifted by the
// process's place in the table for the others); when the scheduler fires
// it, the timer raises its signal in its process and re-arms if periodic.
// ITIMER_VIRTUAL and ITIMER_PROF, and timers on CPU-time clocks, are
// refused: weft has no virtual CPU time.

// SigTimer is one signal timer in virtual time.
type SigTimer struct {
	Clock uint64
	NodeTimer
	Notify      int    // SigevSignal, SigevNone or SigevThreadID
	Signo       int    // the signal it raises
	Value       uint64 // sigev_value
	Tid         int64  // SigevThreadID: the virtual tid signalled
	Overrun     int    // expiries while its signal was still pending
	LastOverrun int    // timer_getoverrun: the count at its last signal
}

// SigTimers is a process's signal timers: ITIMER_REAL (shared by alarm
// and setitimer) and the POSIX timers by id (nil once deleted). The zero
// value is a process's at its start, and a forked child's (fork(2): "The
// child does not inherit timers from its parent").
type SigTimers struct {
	Real  SigTimer
	Posix []*SigTimer
}

// sigevent notifications (asm-generic/siginfo.h) and setitimer's timers
// (linux/time.h).
const (
	SigevSignal   = 0
	SigevNone     = 1
	SigevThread   = 2 // glibc turns it into SIGEV_THREAD_ID; the kernel treats it as SIGEV_SIGNAL
	SigevThreadID = 4

	ItimerReal    = 0
	ItimerVirtual = 1
	ItimerProf    = 2
)

// RealTimerTask is the task number of the main process's ITIMER_REAL's
// timer event.
const RealTimerTask = -1

// TimerTask is the task number of the main process's POSIX timer id's
// timer event.
func TimerTask(id int) int { return -2 - id }

// procTimerShift places a process's timer task numbers: those of the
// process proc places in its node's table (0 the main process) are its
// own (RealTimerTask, TimerTask(id): -1 and below, above -2^32, as a
// timer id is a C int) less proc<<procTimerShift. The main process's
// are thus the numbers they always were, which recordings hold.
const procTimerShift = 32

// ProcTimerTask is the task number of the timer event of the timer own
// (RealTimerTask or TimerTask(id)) of the process at place proc of its
// node's process table (0: the main process, whose numbers are own).
func ProcTimerTask(proc, own int) int { return own - proc<<procTimerShift }

// SplitTimerTask is ProcTimerTask's inverse: the process's place and its
// own timer's task number, for a negative task (ok false otherwise).
func SplitTimerTask(task int) (proc, own int, ok bool) {
	if task >= 0 {
		return 0, 0, false
	}
	proc = (-1 - task) >> procTimerShift
	return proc, task + proc<<procTimerShift, true
}

// TimerEvent is an armed signal timer's event.
type TimerEvent struct {
	Task     int   // ProcTimerTask(proc, RealTimerTask or TimerTask(id))
	Deadline int64 // world time of its next expiry
}

// Events lists the armed timers' events, for the process at place proc
// of its node's table: ITIMER_REAL, then the POSIX timers by id (none
// for a timer armed past the clock's range: it never expires). A
// SIGEV_NONE timer has none: it signals nothing, and runs on by itself
// (Itimerspec counts its expiries when read).
func (s *SigTimers) Events(proc int) []TimerEvent {
	var ts []TimerEvent
	if s.Real.Pending() {
		ts = append(ts, TimerEvent{Task: ProcTimerTask(proc, RealTimerTask), Deadline: s.Real.Deadline})
	}
	for id, t := range s.Posix {
		if t != nil && t.Pending() && t.Notify != SigevNone {
			ts = append(ts, TimerEvent{Task: ProcTimerTask(proc, TimerTask(id)), Deadline: t.Deadline})
		}
	}
	return ts
}

// ByTask is the timer of a process's own timer task number
// (RealTimerTask or TimerTask(id)), or nil.
func (s *SigTimers) ByTask(own int) *SigTimer {
	if own == RealTimerTask {
		return &s.Real
	}
	return s.Timer(-2 - own)
}

// Used reports whether the timers differ from a process's at its start:
// ITIMER_REAL armed or given an interval, or a POSIX timer ever created.
// Unused timers hash as nothing where a table hashes its children's.
func (s *SigTimers) Used() bool {
	return s.Real.Deadline != 0 || s.Real.Interval != 0 || len(s.Posix) > 0
}

// Timer is POSIX timer id, or nil (never created, or deleted).
func (s *SigTimers) Timer(id int) *SigTimer {
	if id < 0 || id >= len(s.Posix) {
		return nil
	}
	return s.Posix[id]
}

// Alarm is alarm(2) at world time now on the node with clock fault k:
// ITIMER_REAL is re-armed for secs seconds (0 disarms) and the answer is
// the seconds that were left on it, rounded to the nearest and at least
// 1 while it was armed (as Linux's alarm_setitimer).
func (s *SigTimers) Alarm(k *sched.Clock, secs uint32, now int64) int64 {
	left := s.Real.Left(now)
	old := left / 1e9
	if left%1e9 >= 5e8 || old == 0 && left > 0 {
		old++
	}
	s.Real.ArmAfter(k, int64(secs)*1e9, 0, now)
	return old
}

// Itimerval is the timer's struct itimerval at world time now (a
// remaining time below a microsecond reads as one: getitimer(2) never
// shows an armed timer as disarmed).
func (t *SigTimer) Itimerval(now int64) []byte {
	left := t.Left(now)
	if left > 0 && left < 1e3 {
		left = 1e3
	}
	return append(TimevalBytes(t.Interval), TimevalBytes(left)...)
}

// Getitimer is getitimer(2)'s struct itimerval for which: ITIMER_REAL is
// virtual; the CPU-time timers can never be armed, so they read zero;
// another which is EINVAL.
func (s *SigTimers) Getitimer(which uint64, now int64) ([]byte, error) {
	switch which {
	case ItimerReal:
		return s.Real.Itimerval(now), nil
	case ItimerVirtual, ItimerProf:
		return make([]byte, 32), nil
	}
	return nil, EINVAL
}

// Setitimer checks setitimer(2)'s arguments: which, and the new struct
// itimerval (nil: none, which disarms). A timeval out of range is
// EINVAL; so is an unknown which, or arming ITIMER_VIRTUAL or ITIMER_PROF
// (they count CPU time, which weft does not model: disarming them is
// allowed, and real is then false). For ITIMER_REAL the caller writes the
// old value (Itimerval) and arms Real with value and interval.
func Setitimer(which uint64, newVal []byte) (value, interval int64, real bool, err error) {
	if newVal != nil {
		var ok1, ok2 bool
		interval, ok1 = Timeval(newVal)
		value, ok2 = Timeval(newVal[min(16, len(newVal)):])
		if !ok1 || !ok2 {
			return 0, 0, false, EINVAL
		}
	}
	switch which {
	case ItimerReal:
		return value, interval, true, nil
	case ItimerVirtual, ItimerProf:
		if value != 0 {
			return 0, 0, false, EINVAL
		}
		return 0, 0, false, nil
	}
	return 0, 0, false, EINVAL
}

// timerClock is whether POSIX timers may use clock (timer_create(2)):
// the realtime, monotonic, boot and TAI clocks may; MONOTONIC_RAW and
// the coarse clocks have no timers (EOPNOTSUPP, as Linux's
// do_timer_create); the CPU-time clocks are refused with EINVAL (Linux
// has timers on them; weft has no CPU time), as is an unknown clock.
func timerClock(clock uint64) error {
	switch clock {
	case ClockRealtime, ClockMonotonic, ClockBoottime, ClockRealtimeAlarm, ClockBoottimeAlarm, ClockTAI:
		return nil
	case ClockMonotonicRaw, ClockRealtimeCoarse, ClockMonotonicCoarse:
		return EOPNOTSUPP
	}
	return EINVAL
}

// SigeventSize is the bytes of a struct sigevent timer_create reads:
// sigev_value, sigev_signo, sigev_notify and sigev_notify_thread_id.
const SigeventSize = 20

// NewTimer is timer_create(2)'s new timer on clock, to be POSIX timer
// NextID: sev is its struct sigevent (nil: none, which is SIGEV_SIGNAL
// with SIGALRM and the timer's id as its value); thread reports whether a
// SIGEV_THREAD_ID tid is a thread of the calling process (of its thread
// group: Linux's good_sigevent refuses any other). A clock it may
// not use is EINVAL or EOPNOTSUPP (timerClock); an unknown notification,
// a signal out of range or a foreign thread is EINVAL.
func (s *SigTimers) NewTimer(clock uint64, sev []byte, thread func(tid int64) bool) (*SigTimer, error) {
	if err := timerClock(clock); err != nil {
		return nil, err
	}
	t := &SigTimer{Clock: clock, Notify: SigevSignal, Signo: SIGALRM, Value: uint64(s.NextID())}
	if sev == nil {
		return t, nil
	}
	if len(sev) < SigeventSize {
		return nil, EINVAL
	}
	t.Value = binary.LittleEndian.Uint64(sev)
	t.Signo = int(int32(binary.LittleEndian.Uint32(sev[8:])))
	t.Notify = int(int32(binary.LittleEndian.Uint32(sev[12:])))
	t.Tid = int64(int32(binary.LittleEndian.Uint32(sev[16:])))
	switch t.Notify {
	case SigevNone:
	case SigevSignal, SigevThread:
		t.Notify, t.Tid = SigevSignal, 0
	case SigevThreadID:
		if !thread(t.Tid) {
			return nil, EINVAL
		}
	default:
		return nil, EINVAL
	}
	if t.Notify != SigevNone && (t.Signo < 1 || !ValidSignal(t.Signo)) {
		return nil, EINVAL
	}
	return t, nil
}

// Exec is execve(2)'s effect on the process's timers: the POSIX timers
// are disarmed and deleted (timer_create(2)); their ids are not reused.
// ITIMER_REAL is preserved across execve (setitimer(2)).
func (s *SigTimers) Exec() {
	for id := range s.Posix {
		s.Posix[id] = nil
	}
}

// NextID is the id the next timer created gets: ids are never reused.
func (s *SigTimers) NextID() int { return len(s.Posix) }

// Add installs t as POSIX timer NextID (once its id was written out).
func (s *SigTimers) Add(t *SigTimer) { s.Posix = append(s.Posix, t) }

// Delete is timer_delete(2): an unknown id is EINVAL.
func (s *SigTimers) Delete(id int) error {
	if s.Timer(id) == nil {
		return EINVAL
	}
	s.Posix[id] = nil
	return nil
}

// Itimerspec is the timer's struct itimerspec at world time now
// (timer_gettime(2), and timer_settime's old value). A SIGEV_NONE timer
// has no event to fire it, so it counts its expiries here.
func (t *SigTimer) Itimerspec(now int64) []byte {
	if t.Notify == SigevNone {
		t.Forward(now)
	}
	return append(TimespecBytes(t.Interval), TimespecBytes(t.Left(now))...)
}

// ParseItimerspec decodes a struct itimerspec (interval, then value),
// each normalised (timer_settime(2), timerfd_settime(2): else EINVAL).
func ParseItimerspec(b []byte) (interval, value int64, ok bool) {
	interval, ok1 := Timespec(b)
	value, ok2 := Timespec(b[min(16, len(b)):])
	return interval, value, ok1 && ok2
}

// Settime is timer_settime(2) at world time now on the node with clock
// fault k: the overrun count restarts, and the timer expires value ns
// from now (flags without TIMER_ABSTIME) or when its clock reads value
// (TIMER_ABSTIME), then every interval ns; a zero value disarms.
func (t *SigTimer) Settime(k *sched.Clock, flags uint64, value, interval, now int64) {
	t.Overrun = 0
	if flags&TimerAbstime != 0 {
		t.ArmAt(k, t.Clock, value, interval, now)
	} else {
		t.ArmAfter(k, value, interval, now)
	}
}

// Fired counts a timer event's k expiries (NodeTimer.Forward) against a
// POSIX timer whose signal is still pending (pending) or not. Linux
// queues a timer's signal once: while it is pending, expiries add to the
// overrun; otherwise the signal goes, carrying the overruns since the
// last one (timer_getoverrun(2) reads them until the next). It reports
// whether to raise the signal.
func (t *SigTimer) Fired(k int64, pending bool) bool {
	if pending {
		t.Overrun += int(k)
		return false
	}
	t.LastOverrun, t.Overrun = t.Overrun+int(k)-1, 0
	return true
}

// Hash writes the timers for the world hash: ITIMER_REAL, then the
// number of POSIX ids and each timer (0 for a deleted one).
func (s *SigTimers) Hash(put func(uint64)) {
	s.Real.Hash(put)
	put(uint64(len(s.Posix)))
	for _, t := range s.Posix {
		if t == nil {
			put(0)
			continue
		}
		put(1)
		t.Hash(put)
	}
}

// Hash writes the timer for the world hash.
func (t *SigTimer) Hash(put func(uint64)) {
	put(t.Clock)
	put(uint64(t.Deadline))
	put(uint64(t.Interval))
	put(uint64(t.Notify))
	put(uint64(t.Signo))
	put(t.Value)
	put(uint64(t.Tid))
	put(uint64(t.Overrun))
	put(uint64(t.LastOverrun))
	t.HashLocal(put)
}
