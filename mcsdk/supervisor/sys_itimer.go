//go:build linux && amd64

package supervisor

import (
	"fmt"

	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/vkernel"
	"golang.org/x/sys/unix"
)

// Signal timers (alarm, setitimer/getitimer, the POSIX timers): their
// state and rules are vkernel.SigTimers (vkernel/timers.go); here are the
// decoding of the calls, target memory, and the timer events fed to the
// scheduler (Timers lists each armed timer with its vkernel task number;
// fireSigTimer applies the scheduler's choice, raising the signal through
// sys_sigdeliver.go).

// nodeSignals is the signal state of a node that weft keeps itself (the
// kernel keeps masks, pending sets and dispositions).
type nodeSignals struct {
	// unsettled holds the threads (by index; -1 the process) for which
	// weft has queued a signal that /proc has not yet shown gone: only
	// their waits look for a pending signal (a cache, not state: it gates
	// a look whose outcome the kernel's sets decide).
	unsettled map[int]bool
	timers    vkernel.SigTimers  // ITIMER_REAL and the POSIX timers
	actions   vkernel.SigActions // the actions rt_sigaction installed, by signal
	pdeath    bool               // a process set a parent-death signal (PR_SET_PDEATHSIG): checkpoints refuse it
}

// realTimerTask is the Task of ITIMER_REAL's timer event.
const realTimerTask = vkernel.RealTimerTask

// timerEvents lists node n's armed signal timers as timer events.
func (n *node) timerEvents() []TimerInfo {
	var ts []TimerInfo
	for _, e := range n.sig.timers.Events() {
		ts = append(ts, TimerInfo{Node: n.id, Task: e.Task, Deadline: e.Deadline})
	}
	return ts
}

// fireSigTimer applies a signal timer's event: the clock moves to its
// deadline and it raises its signal, unless the last one is still pending
// (then it counts an overrun, as Linux queues a timer's signal once).
func (w *World) fireSigTimer(a sched.Action) error {
	if a.Node < 0 || a.Node >= len(w.nodes) || w.nodes[a.Node].exited {
		return fmt.Errorf("supervisor: node %d has no signal timers", a.Node)
	}
	n := w.nodes[a.Node]
	t := n.sig.timers.ByTask(a.Task)
	if t == nil || t.Deadline == 0 {
		return fmt.Errorf("supervisor: node %d has no armed timer %d", a.Node, a.Task)
	}
	if t.Deadline > w.now {
		w.setNow(t.Deadline)
	}
	k := t.Forward(w.now)
	sig, target, info := int(unix.SIGALRM), (*task)(nil), vkernel.RealSiginfo()
	if a.Task != realTimerTask {
		sig = t.Signo
		if t.Notify == vkernel.SigevThreadID {
			if target = n.taskByVtid(t.Tid); target == nil {
				return nil // the thread has ended: Linux drops the signal
			}
		}
		if !t.Fired(k, n.sigPending(target, sig)) {
			return nil
		}
		info = vkernel.TimerSiginfo(sig, -2-a.Task, t.LastOverrun, t.Value)
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

// Alarm implements alarm(2) on ITIMER_REAL (vkernel.SigTimers.Alarm).
func sysAlarm(c *call) result {
	return ret(c.n.sig.timers.Alarm(c.w.clockOf(c.n), uint32(c.arg(0)), c.w.now))
}

// Getitimer implements getitimer(2) (vkernel.SigTimers.Getitimer).
func sysGetitimer(c *call) result {
	b, err := c.n.sig.timers.Getitimer(c.arg(0), c.w.now)
	if err != nil {
		return vkAnswer(err)
	}
	return errno(errnoOf(c.write(c.arg(1), b)))
}

// Setitimer implements setitimer(2) for ITIMER_REAL on the virtual clock
// (vkernel.Setitimer has the rules).
func sysSetitimer(c *call) result {
	var b []byte
	if c.arg(1) != 0 {
		var err error
		if b, err = c.read(c.arg(1), 32); err != nil {
			return errno(unix.EFAULT)
		}
	}
	value, interval, real, err := vkernel.Setitimer(c.arg(0), b)
	switch {
	case err != nil:
		return vkAnswer(err)
	case !real: // ITIMER_VIRTUAL or ITIMER_PROF, disarmed: they read zero
		if c.arg(2) != 0 {
			return errno(errnoOf(c.write(c.arg(2), make([]byte, 32))))
		}
		return ret(0)
	}
	t := &c.n.sig.timers.Real
	if c.arg(2) != 0 {
		if err := c.write(c.arg(2), t.Itimerval(c.w.now)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	t.ArmAfter(c.w.clockOf(c.n), value, interval, c.w.now)
	return ret(0)
}

// TimerCreate implements timer_create(2) (vkernel.SigTimers.NewTimer):
// SIGEV_THREAD_ID names a thread of the node by virtual tid.
func sysTimerCreate(c *call) result {
	var sev []byte
	if c.arg(1) != 0 {
		var err error
		if sev, err = c.read(c.arg(1), vkernel.SigeventSize); err != nil {
			return errno(unix.EFAULT)
		}
	}
	s := &c.n.sig.timers
	t, err := s.NewTimer(c.arg(0), sev, func(tid int64) bool { return c.n.taskByVtid(tid) != nil })
	if err != nil {
		return vkAnswer(err)
	}
	if err := c.writeU32(c.arg(2), uint32(s.NextID())); err != nil {
		return errno(unix.EFAULT)
	}
	s.Add(t)
	return ret(0)
}

// posixTimer returns the node's POSIX timer named by argument 0, or nil.
func (c *call) posixTimer() *vkernel.SigTimer {
	return c.n.sig.timers.Timer(int(int32(c.arg(0))))
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
	interval, value, ok := vkernel.ParseItimerspec(b)
	if !ok {
		return errno(unix.EINVAL)
	}
	if c.arg(3) != 0 {
		if err := c.write(c.arg(3), t.Itimerspec(c.w.now)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	t.Settime(c.w.clockOf(c.n), c.arg(1), value, interval, c.w.now)
	return ret(0)
}

// TimerGettime implements timer_gettime(2).
func sysTimerGettime(c *call) result {
	t := c.posixTimer()
	if t == nil {
		return errno(unix.EINVAL)
	}
	return errno(errnoOf(c.write(c.arg(1), t.Itimerspec(c.w.now))))
}

// TimerGetoverrun implements timer_getoverrun(2): the overrun count of the
// timer's last signal.
func sysTimerGetoverrun(c *call) result {
	t := c.posixTimer()
	if t == nil {
		return errno(unix.EINVAL)
	}
	return ret(int64(t.LastOverrun))
}

// TimerDelete implements timer_delete(2).
func sysTimerDelete(c *call) result {
	if err := c.n.sig.timers.Delete(int(int32(c.arg(0)))); err != nil {
		return vkAnswer(err)
	}
	return ret(0)
}

// timersExec is execve(2)'s effect on the node's timers when its main
// process (p nil) execs: the POSIX timers are deleted, ITIMER_REAL stays
// (vkernel.SigTimers.Exec). The node's timers are the main process's: a
// forked process's exec leaves them.
func (n *node) timersExec(p *proc) {
	if p == nil {
		n.sig.timers.Exec()
	}
}

// hash writes the node's own signal state: the timers and the recorded
// actions, in signal order.
func (s *nodeSignals) hash(put func(uint64)) {
	s.timers.Hash(put)
	s.actions.Hash(put)
}
