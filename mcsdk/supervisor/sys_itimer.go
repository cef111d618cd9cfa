//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"fmt"

	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/vkernel"
	"golang.org/x/sys/unix"
)

// Signal timers on virtual time: alarm, setitimer/getitimer (ITIMER_REAL)
// and the POSIX timers (timer_create …) on the realtime, monotonic and
// boot clocks. Each armed timer is a timer event of the world, listed by
// Timers like a parked call's timeout (with a negative thread number:
// -1 is ITIMER_REAL, -2-k POSIX timer k); when the scheduler fires it,
// the timer raises its signal (sys_sigdeliver.go) and re-arms if
// periodic. ITIMER_VIRTUAL and ITIMER_PROF, and timers on CPU-time
// clocks, are refused: weft has no virtual CPU time.

// nodeSignals is the signal state of a node that weft keeps itself (the
// kernel keeps masks, pending sets and dispositions).
type nodeSignals struct {
	// unsettled holds the threads (by index; -1 the process) for which
	// weft has queued a signal that /proc has not yet shown gone: only
	// their waits look for a pending signal (a cache, not state: it gates
	// a look whose outcome the kernel's sets decide).
	unsettled map[int]bool
	real      sigTimer           // ITIMER_REAL, shared by alarm and setitimer
	timers    []*sigTimer        // POSIX timers by id; nil once deleted
	actions   vkernel.SigActions // the actions rt_sigaction installed, by signal
	pdeath    bool               // a process set a parent-death signal (PR_SET_PDEATHSIG): checkpoints refuse it
}

// sigTimer is one signal timer in virtual time.
type sigTimer struct {
	clock uint64
	nodeTimer
	notify      int // SIGEV_SIGNAL, SIGEV_NONE or SIGEV_THREAD_ID
	signo       int
	value       uint64 // sigev_value
	tid         int64  // SIGEV_THREAD_ID: the virtual tid signalled
	overrun     int    // expiries while its signal was still pending
	lastOverrun int    // timer_getoverrun: the count at its last signal
}

// sigevent notifications and the timer event of ITIMER_REAL.
const (
	sigevSignal   = 0
	sigevNone     = 1
	sigevThread   = 2 // glibc turns it into SIGEV_THREAD_ID; the kernel treats it as SIGEV_SIGNAL
	sigevThreadID = 4
	realTimerTask = -1 // the Task of ITIMER_REAL's timer event
)

// timerEvents lists node n's armed signal timers as timer events.
func (n *node) timerEvents() []TimerInfo {
	var ts []TimerInfo
	if n.sig.real.deadline > 0 {
		ts = append(ts, TimerInfo{Node: n.id, Task: realTimerTask, Deadline: n.sig.real.deadline})
	}
	for id, t := range n.sig.timers {
		if t != nil && t.deadline > 0 && t.notify != sigevNone {
			ts = append(ts, TimerInfo{Node: n.id, Task: -2 - id, Deadline: t.deadline})
		}
	}
	return ts
}

// sigTimer returns the timer of a timer event's Task, or nil.
func (n *node) sigTimer(task int) *sigTimer {
	if task == realTimerTask {
		return &n.sig.real
	}
	if id := -2 - task; id >= 0 && id < len(n.sig.timers) {
		return n.sig.timers[id]
	}
	return nil
}

// fireSigTimer applies a signal timer's event: the clock moves to its
// deadline and it raises its signal, unless the last one is still pending
// (then it counts an overrun, as Linux queues a timer's signal once).
func (w *World) fireSigTimer(a sched.Action) error {
	if a.Node < 0 || a.Node >= len(w.nodes) || w.nodes[a.Node].exited {
		return fmt.Errorf("supervisor: node %d has no signal timers", a.Node)
	}
	n := w.nodes[a.Node]
	t := n.sigTimer(a.Task)
	if t == nil || t.deadline == 0 {
		return fmt.Errorf("supervisor: node %d has no armed timer %d", a.Node, a.Task)
	}
	if t.deadline > w.now {
		w.setNow(t.deadline)
	}
	k := int(t.expire(w.now))
	sig, target := int(unix.SIGALRM), (*task)(nil)
	info := vkernel.NewSiginfo(sig, vkernel.SIQueue, 0, 0) // ITIMER_REAL: Linux says SI_KERNEL, which no process may send
	if a.Task != realTimerTask {
		sig = t.signo
		if t.notify == sigevThreadID {
			if target = n.taskByVtid(t.tid); target == nil {
				return nil // the thread has ended: Linux drops the signal
			}
		}
		if n.sigPending(target, sig) {
			t.overrun += k
			return nil
		}
		t.lastOverrun, t.overrun = t.overrun+k-1, 0
		info = vkernel.TimerSiginfo(sig, -2-a.Task, t.lastOverrun, t.value)
	}
	if err := w.raise(n, target, sig, info); err != nil {
		w.fail(n, "", fmt.Sprintf("timer signal: %v", err))
	}
	return nil
}

// sigPending reports whether sig is pending for thread t (nil: for the
// process or any of its threads).
func (n *node) sigPending(t *task, sig int) bool {
	for _, o := range n.tasks {
		if o.exited || t != nil && o != t {
			continue
		}
		if k, err := readKernelSig(n.pid, o.tid); err == nil && k.AllPending().Has(sig) {
			return true
		}
	}
	return false
}

// describeSigTimer renders a signal timer's event.
func (w *World) describeSigTimer(a sched.Action) string {
	return fmt.Sprintf("%s fires on n%d", SignalTimerName(a.Task), a.Node)
}

// Alarm implements alarm(2) on ITIMER_REAL: the seconds left on the old
// alarm (rounded, and at least 1 while one is armed), as Linux.
func sysAlarm(c *call) result {
	t := &c.n.sig.real
	left := t.left(c.w.now)
	secs := left / 1e9
	if left%1e9 >= 5e8 || secs == 0 && left > 0 {
		secs++
	}
	c.armAfter(&t.nodeTimer, int64(uint32(c.arg(0)))*1e9, 0)
	return ret(secs)
}

// itimerval is a struct itimerval (interval, value; each a timeval) in ns.
func timevalNs(b []byte) (int64, bool) {
	sec, usec := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
	if sec < 0 || usec < 0 || usec >= 1e6 {
		return 0, false
	}
	return sec*1e9 + usec*1e3, true
}

func timevalBytes(ns int64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(ns/1e9))
	return binary.LittleEndian.AppendUint64(b, uint64(ns%1e9/1e3))
}

// itimerBytes is timer t's struct itimerval now (a remaining time below a
// microsecond reads as one).
func (t *sigTimer) itimerBytes(now int64) []byte {
	left := t.left(now)
	if left > 0 && left < 1e3 {
		left = 1e3
	}
	return append(timevalBytes(t.interval), timevalBytes(left)...)
}

// Getitimer implements getitimer(2): ITIMER_REAL is virtual; the CPU-time
// timers can never be armed, so they read zero.
func sysGetitimer(c *call) result {
	var b []byte
	switch c.arg(0) {
	case unix.ITIMER_REAL:
		b = c.n.sig.real.itimerBytes(c.w.now)
	case unix.ITIMER_VIRTUAL, unix.ITIMER_PROF:
		b = make([]byte, 32)
	default:
		return errno(unix.EINVAL)
	}
	return errno(errnoOf(c.write(c.arg(1), b)))
}

// Setitimer implements setitimer(2) for ITIMER_REAL on the virtual clock.
// Arming ITIMER_VIRTUAL or ITIMER_PROF is refused with EINVAL: they count
// CPU time, which weft does not model.
func sysSetitimer(c *call) result {
	interval, value := int64(0), int64(0)
	if c.arg(1) != 0 {
		b, err := c.read(c.arg(1), 32)
		if err != nil {
			return errno(unix.EFAULT)
		}
		var ok1, ok2 bool
		interval, ok1 = timevalNs(b)
		value, ok2 = timevalNs(b[16:])
		if !ok1 || !ok2 {
			return errno(unix.EINVAL)
		}
	}
	switch c.arg(0) {
	case unix.ITIMER_REAL:
	case unix.ITIMER_VIRTUAL, unix.ITIMER_PROF:
		if value != 0 {
			return errno(unix.EINVAL)
		}
		if c.arg(2) != 0 {
			return errno(errnoOf(c.write(c.arg(2), make([]byte, 32))))
		}
		return ret(0)
	default:
		return errno(unix.EINVAL)
	}
	t := &c.n.sig.real
	if c.arg(2) != 0 {
		if err := c.write(c.arg(2), t.itimerBytes(c.w.now)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	c.armAfter(&t.nodeTimer, value, interval)
	return ret(0)
}

// timerClock reports whether POSIX timers may use clock.
func timerClock(clock uint64) bool {
	switch clock {
	case unix.CLOCK_REALTIME, unix.CLOCK_MONOTONIC, unix.CLOCK_BOOTTIME,
		unix.CLOCK_REALTIME_ALARM, unix.CLOCK_BOOTTIME_ALARM, unix.CLOCK_TAI:
		return true
	}
	return false
}

// TimerCreate implements timer_create(2) with SIGEV_SIGNAL, SIGEV_NONE and
// SIGEV_THREAD_ID (a thread of the node, by virtual tid) on the realtime,
// monotonic and boot clocks. CPU-time clocks are refused with EINVAL.
func sysTimerCreate(c *call) result {
	if !timerClock(c.arg(0)) {
		return errno(unix.EINVAL)
	}
	t := &sigTimer{clock: c.arg(0), notify: sigevSignal, signo: int(unix.SIGALRM)}
	id := len(c.n.sig.timers)
	t.value = uint64(id)
	if c.arg(1) != 0 {
		b, err := c.read(c.arg(1), 20)
		if err != nil {
			return errno(unix.EFAULT)
		}
		t.value = binary.LittleEndian.Uint64(b)
		t.signo = int(int32(binary.LittleEndian.Uint32(b[8:])))
		t.notify = int(int32(binary.LittleEndian.Uint32(b[12:])))
		t.tid = int64(int32(binary.LittleEndian.Uint32(b[16:])))
		switch t.notify {
		case sigevNone:
		case sigevSignal, sigevThread:
			t.notify, t.tid = sigevSignal, 0
		case sigevThreadID:
			if c.n.taskByVtid(t.tid) == nil {
				return errno(unix.EINVAL)
			}
		default:
			return errno(unix.EINVAL)
		}
		if t.notify != sigevNone && (t.signo < 1 || !vkernel.ValidSignal(t.signo)) {
			return errno(unix.EINVAL)
		}
	}
	if err := c.writeU32(c.arg(2), uint32(id)); err != nil {
		return errno(unix.EFAULT)
	}
	c.n.sig.timers = append(c.n.sig.timers, t)
	return ret(0)
}

// posixTimer returns the node's POSIX timer named by argument 0, or nil.
func (c *call) posixTimer() *sigTimer {
	id := int(int32(c.arg(0)))
	if id < 0 || id >= len(c.n.sig.timers) {
		return nil
	}
	return c.n.sig.timers[id]
}

// itimerspec is timer t's struct itimerspec now.
func (t *sigTimer) itimerspec(now int64) []byte {
	if t.notify == sigevNone {
		t.expire(now) // no event fires it: it runs on by itself
	}
	return append(timespecBytes(t.interval), timespecBytes(t.left(now))...)
}

// TimerSettime implements timer_settime(2), relative or TIMER_ABSTIME.
func sysTimerSettime(c *call) result {
	t := c.posixTimer()
	if t == nil {
		return errno(unix.EINVAL)
	}
	b, err := c.read(c.arg(2), 32)
	if err != nil {
		return errno(unix.EFAULT)
	}
	interval, ok1 := timespecNs(b)
	value, ok2 := timespecNs(b[16:])
	if !ok1 || !ok2 {
		return errno(unix.EINVAL)
	}
	if c.arg(3) != 0 {
		if err := c.write(c.arg(3), t.itimerspec(c.w.now)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	t.overrun = 0
	if c.arg(1)&unix.TIMER_ABSTIME != 0 {
		c.armAt(&t.nodeTimer, t.clock, value, interval)
	} else {
		c.armAfter(&t.nodeTimer, value, interval)
	}
	return ret(0)
}

// timespecNs converts a struct timespec, which must be normalised.
func timespecNs(b []byte) (int64, bool) {
	sec, nsec := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return 0, false
	}
	return sec*1e9 + nsec, true
}

// TimerGettime implements timer_gettime(2).
func sysTimerGettime(c *call) result {
	t := c.posixTimer()
	if t == nil {
		return errno(unix.EINVAL)
	}
	return errno(errnoOf(c.write(c.arg(1), t.itimerspec(c.w.now))))
}

// TimerGetoverrun implements timer_getoverrun(2): the overrun count of the
// timer's last signal.
func sysTimerGetoverrun(c *call) result {
	t := c.posixTimer()
	if t == nil {
		return errno(unix.EINVAL)
	}
	return ret(int64(t.lastOverrun))
}

// TimerDelete implements timer_delete(2).
func sysTimerDelete(c *call) result {
	if c.posixTimer() == nil {
		return errno(unix.EINVAL)
	}
	c.n.sig.timers[int(int32(c.arg(0)))] = nil
	return ret(0)
}

// hash writes the node's own signal state: the timers and the recorded
// actions, in signal order.
func (s *nodeSignals) hash(put func(uint64)) {
	s.real.hash(put)
	put(uint64(len(s.timers)))
	for _, t := range s.timers {
		if t == nil {
			put(0)
			continue
		}
		put(1)
		t.hash(put)
	}
	s.actions.Hash(put)
}

func (t *sigTimer) hash(put func(uint64)) {
	put(t.clock)
	put(uint64(t.deadline))
	put(uint64(t.interval))
	put(uint64(t.notify))
	put(uint64(t.signo))
	put(t.value)
	put(uint64(t.tid))
	put(uint64(t.overrun))
	put(uint64(t.lastOverrun))
	t.hashLocal(put)
}
