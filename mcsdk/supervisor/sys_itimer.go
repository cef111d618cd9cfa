//go:build linux && amd64

package supervisor

import (
	"fmt"

	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/vkernel"
	"golang.org/x/sys/unix"
)

// Signal timers (alarm, setitimer/getitimer, the POSIX timers): their
// state and rules are vkernel.SigTimers (vkernel/timers.go), one table
// per process (timersOf); here are the decoding of the calls, target
// memory, and the timer events fed to the scheduler (Timers lists each
// armed timer with its vkernel task number, which names its process;
// fireSigTimer applies the scheduler's choice, raising the signal in the
// timer's process through sys_sigdeliver.go).

// nodeSignals is the signal state of a node that weft keeps itself (the
// kernel keeps masks, pending sets and dispositions).
type nodeSignals struct {
	// unsettled holds the threads (by index; -1 the process) for which
	// weft has queued a signal that /proc has not yet shown gone: only
	// their waits look for a pending signal (a cache, not state: it gates
	// a look whose outcome the kernel's sets decide).
	unsettled map[int]bool
	timers    vkernel.SigTimers  // the main process's ITIMER_REAL and POSIX timers, until the first fork moves them into its record (timersOf)
	actions   vkernel.SigActions // the actions rt_sigaction installed, by signal
	pdeath    bool               // a process set a parent-death signal (PR_SET_PDEATHSIG): checkpoints refuse it
}

// realTimerTask is the Task of the main process's ITIMER_REAL's timer
// event.
const realTimerTask = vkernel.RealTimerTask

// timersOf is the signal timers of process p of the node (nil: the main
// process). A node without a process table (it never forked) keeps its
// main process's in its signal state; the first fork moves them into the
// main process's record (mainProc), where every process's are
// (vkernel.Process.Timers: a child's own, none at its fork).
func (n *node) timersOf(p *proc) *vkernel.SigTimers {
	if n.ptab == nil {
		return &n.sig.timers
	}
	if p == nil {
		p = n.procs[0]
	}
	return &p.v.Timers
}

// timers is the calling process's signal timers.
func (c *call) timers() *vkernel.SigTimers {
	if c.t == nil {
		return c.n.timersOf(nil)
	}
	return c.n.timersOf(c.t.p)
}

// timerEvents lists node n's armed signal timers as timer events, every
// live process's in fork order (vkernel.ProcTable.TimerEvents): the main
// process's task numbers are what they were before processes had timers
// of their own, so recordings of nodes whose children never armed one
// replay unchanged.
func (n *node) timerEvents() []TimerInfo {
	es := n.sig.timers.Events(0)
	if n.ptab != nil {
		es = n.ptab.TimerEvents()
	}
	var ts []TimerInfo
	for _, e := range es {
		ts = append(ts, TimerInfo{Node: n.id, Task: e.Task, Deadline: e.Deadline})
	}
	return ts
}

// sigTimerOf resolves a signal timer's event: the armed timer, its task
// number in its process (vkernel.RealTimerTask or TimerTask(id)) and
// its process (nil: the main one); a nil timer if none is armed.
func (n *node) sigTimerOf(task int) (*vkernel.SigTimer, int, *proc) {
	place, own, ok := vkernel.SplitTimerTask(task)
	switch {
	case !ok:
		return nil, 0, nil
	case n.ptab == nil:
		if t := n.sig.timers.ByTask(own); place == 0 && t != nil && t.Deadline != 0 {
			return t, own, nil
		}
		return nil, 0, nil
	}
	_, place, t := n.ptab.TimerOf(task)
	if t == nil || place >= len(n.procs) {
		return nil, 0, nil
	}
	if place == 0 {
		return t, own, nil
	}
	return t, own, n.procs[place]
}

// fireSigTimer applies a signal timer's event: the clock moves to its
// deadline and it raises its signal in its process, unless the last one
// is still pending (then it counts an overrun, as Linux queues a timer's
// signal once).
func (w *World) fireSigTimer(a sched.Action) error {
	if a.Node < 0 || a.Node >= len(w.nodes) || w.nodes[a.Node].exited {
		return fmt.Errorf("supervisor: node %d has no signal timers", a.Node)
	}
	n := w.nodes[a.Node]
	t, own, p := n.sigTimerOf(a.Task)
	if t == nil {
		return fmt.Errorf("supervisor: node %d has no armed timer %d", a.Node, a.Task)
	}
	if p != nil {
		defer n.asProc(p)() // the timer's process is the one signalled, and whose signals are read
	}
	if t.Deadline > w.now {
		w.setNow(t.Deadline)
	}
	k := t.Forward(w.now)
	sig, target, info := int(unix.SIGALRM), (*task)(nil), vkernel.RealSiginfo()
	if own != realTimerTask {
		sig = t.Signo
		if t.Notify == vkernel.SigevThreadID {
			if target = n.taskByVtid(t.Tid); target == nil {
				return nil // the thread has ended: Linux drops the signal
			}
		}
		if !t.Fired(k, n.sigPending(target, sig)) {
			return nil
		}
		info = vkernel.TimerSiginfo(sig, -2-own, t.LastOverrun, t.Value)
	}
	if err := w.raise(n, target, sig, info); err != nil {
		w.fail(n, "", fmt.Sprintf("timer signal: %v", err))
	}
	return nil
}

// sigPending reports whether sig is pending for thread t (nil: for the
// process or any of its threads). The process is the one the node's
// fields point at (n.pid: asProc): /proc shows no other's threads there.
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

// Alarm implements alarm(2) on the caller's ITIMER_REAL
// (vkernel.SigTimers.Alarm).
func sysAlarm(c *call) result {
	return ret(c.timers().Alarm(c.w.clockOf(c.n), uint32(c.arg(0)), c.w.now))
}

// Getitimer implements getitimer(2) (vkernel.SigTimers.Getitimer).
func sysGetitimer(c *call) result {
	b, err := c.timers().Getitimer(c.arg(0), c.w.now)
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
	t := &c.timers().Real
	if c.arg(2) != 0 {
		if err := c.write(c.arg(2), t.Itimerval(c.w.now)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	t.ArmAfter(c.w.clockOf(c.n), value, interval, c.w.now)
	return ret(0)
}

// TimerCreate implements timer_create(2) (vkernel.SigTimers.NewTimer):
// SIGEV_THREAD_ID names a thread of the caller's process by virtual tid
// (a thread of another process of the node is EINVAL, as in Linux).
func sysTimerCreate(c *call) result {
	var sev []byte
	if c.arg(1) != 0 {
		var err error
		if sev, err = c.read(c.arg(1), vkernel.SigeventSize); err != nil {
			return errno(unix.EFAULT)
		}
	}
	s := c.timers()
	t, err := s.NewTimer(c.arg(0), sev, func(tid int64) bool {
		o := c.n.taskByVtid(tid)
		return o != nil && (c.n.ptab == nil || c.n.procOf(o) == c.n.procOf(c.t))
	})
	if err != nil {
		return vkAnswer(err)
	}
	if err := c.writeU32(c.arg(2), uint32(s.NextID())); err != nil {
		return errno(unix.EFAULT)
	}
	s.Add(t)
	return ret(0)
}

// posixTimer returns the caller's POSIX timer named by argument 0, or
// nil.
func (c *call) posixTimer() *vkernel.SigTimer {
	return c.timers().Timer(int(int32(c.arg(0))))
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
	if err := c.timers().Delete(int(int32(c.arg(0)))); err != nil {
		return vkAnswer(err)
	}
	return ret(0)
}

// timersExec is execve(2)'s effect on the timers of the main process
// (p nil) when it execs: the POSIX timers are deleted, ITIMER_REAL stays
// (vkernel.SigTimers.Exec). A forked process's are its record's, and
// its exec's (vkernel.ProcTable.Exec) does the same to them.
func (n *node) timersExec(p *proc) {
	if p == nil {
		n.timersOf(nil).Exec()
	}
}

// hash writes the node's own signal state: its main process's timers
// (main) and the recorded actions, in signal order. The other processes'
// timers are hashed with the process tree (hashProcs).
func (s *nodeSignals) hash(main *vkernel.SigTimers, put func(uint64)) {
	main.Hash(put)
	s.actions.Hash(put)
}
