package vkernel

// Timerfd is a timerfd's own state (timerfd_create(2)): its clock, the
// expirations a read has not yet taken, every expiration ever counted,
// and TFD_TIMER_CANCEL_ON_SET's bookkeeping. The armed timer itself
// (its next expiry in the node's time, its interval, the world time it
// falls at under the node's clock fault) is the supervisor's node timer,
// shared with setitimer(2) and the POSIX timers; it tells Expire how
// many expirations it counted, and the steps of the node's realtime
// clock (settimeofday, the clock fault's jumps) are given by count.
type Timerfd struct {
	clock   uint64
	expired uint64 // expirations since the last read or timerfd_settime
	fires   uint64 // expirations ever counted (edge-triggered epoll)
	cancel  bool   // TFD_TIMER_CANCEL_ON_SET: a step of the realtime clock cancels it
	steps   int    // with cancel: the realtime clock's steps already reported (or before arming)
}

// timerfd_settime's flags (linux/timerfd.h); TFD_TIMER_ABSTIME is
// TIMER_ABSTIME (clock.go).
const TimerCancelOnSet = 1 << 1 // TFD_TIMER_CANCEL_ON_SET

// NewTimerfd is a disarmed timerfd on clock.
func NewTimerfd(clock uint64) *Timerfd { return &Timerfd{clock: clock} }

// Clock is the clock the timerfd was made on.
func (t *Timerfd) Clock() uint64 { return t.clock }

// Fires counts every expiration ever counted (it changes at each one:
// edge-triggered epoll reports the timerfd again).
func (t *Timerfd) Fires() uint64 { return t.fires }

// CancelOnSet reports whether a step of the realtime clock cancels the
// timerfd (TFD_TIMER_CANCEL_ON_SET, as armed last).
func (t *Timerfd) CancelOnSet() bool { return t.cancel }

// Expire adds k expirations (the armed timer's count; 0 or less adds
// none) and returns those not yet read.
func (t *Timerfd) Expire(k int64) uint64 {
	if k > 0 {
		t.expired += uint64(k)
		t.fires += uint64(k)
	}
	return t.expired
}

// Settime is timerfd_settime(2)'s effect on the count, after the caller
// has re-armed the timer: the expirations not yet read are dropped, and
// TFD_TIMER_CANCEL_ON_SET holds from now on (steps: the realtime clock's
// steps so far) only with TFD_TIMER_ABSTIME, on a realtime clock.
func (t *Timerfd) Settime(flags uint64, steps int) {
	t.expired = 0
	const both = TimerAbstime | TimerCancelOnSet
	t.cancel = flags&both == both && (t.clock == ClockRealtime || t.clock == ClockRealtimeAlarm)
	t.steps = steps
}

// Canceled reports whether a step of the realtime clock since the timer
// was armed (or since its last ECANCELED) cancels it, the clock having
// stepped steps times in all: a read fails with ECANCELED and poll
// reports it readable.
func (t *Timerfd) Canceled(steps int) bool { return t.cancel && steps > t.steps }

// Read is read(2) of a timerfd with a buffer of bufLen bytes, after the
// caller counted the expirations due (Expire): the expirations since the
// last read, as a count that is then reset. A buffer under 8 bytes is
// EINVAL; a canceled timer is ECANCELED (once: the steps so far are
// taken as reported); with no expiration the answer is EAGAIN for a
// non-blocking reader and ErrBlock for a blocking one (the caller knows
// when the next expiry falls).
func (t *Timerfd) Read(bufLen uint64, steps int, nonblock bool) (uint64, error) {
	if bufLen < 8 {
		return 0, EINVAL
	}
	if t.Canceled(steps) {
		t.expired, t.steps = 0, steps
		return 0, ECANCELED
	}
	if t.expired == 0 {
		return 0, wouldBlock(nonblock)
	}
	n := t.expired
	t.expired = 0
	return n, nil
}

// Events is the timerfd's poll mask: readable with an expiration not yet
// read or once canceled.
func (t *Timerfd) Events(steps int) uint32 {
	if t.expired > 0 || t.Canceled(steps) {
		return PollIn | PollRdNorm
	}
	return 0
}

// HashCounts writes the counts for the world hash: the expirations not
// yet read, then every expiration counted.
func (t *Timerfd) HashCounts(put func(uint64)) {
	put(t.expired)
	put(t.fires)
}

// HashCancel writes TFD_TIMER_CANCEL_ON_SET's state for the world hash:
// nothing without it, else 2 and the steps already reported.
func (t *Timerfd) HashCancel(put func(uint64)) {
	if t.cancel {
		put(2)
		put(uint64(t.steps))
	}
}
