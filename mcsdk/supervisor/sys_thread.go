//go:build linux && amd64

package supervisor

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Threads (task.go has the scheduling): clone of a thread, its exit, its
// id, yielding, and signals aimed at one thread.

// cloneRefused are the clone flags of calls weft does not model: child
// processes (no CLONE_THREAD) and the rarer thread options.
const cloneRefused = unix.CLONE_VFORK | unix.CLONE_PIDFD | unix.CLONE_PTRACE | unix.CLONE_UNTRACED |
	unix.CLONE_NEWNS | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_PARENT

// cloneThread is what a thread clone needs.
const cloneThread = unix.CLONE_THREAD | unix.CLONE_VM | unix.CLONE_SIGHAND

// Clone implements clone(2) for threads: clone(flags, stack, parent_tid,
// child_tid, tls) on x86-64.
func sysClone(c *call) result { return c.cloneThread(c.arg(0), c.arg(2), c.arg(3)) }

// Clone3 implements clone3(2) for threads.
func sysClone3(c *call) result {
	if c.arg(1) < 64 {
		return errno(unix.EINVAL)
	}
	b, err := c.read(c.arg(0), 64)
	if err != nil {
		return errno(unix.EFAULT)
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
	// struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal,
	// stack, stack_size, tls (then set_tid, set_tid_size, cgroup).
	if c.arg(1) >= 88 {
		more, err := c.read(c.arg(0)+64, 16)
		if err != nil {
			return errno(unix.EFAULT)
		}
		if binary.LittleEndian.Uint64(more[8:]) != 0 {
			return failf("clone3 with set_tid is not modelled")
		}
	}
	if u(0)&unix.CLONE_PARENT != 0 && u(4) != 0 {
		return errno(unix.EINVAL) // its exit signal is its caller's (clone3_args_valid)
	}
	return c.cloneThread(u(0)|u(4)&unix.CSIGNAL, u(3), u(2)) // exit_signal as clone's flags carry it
}

// cloneThread lets a thread clone through and holds both threads at it:
// the parent at its clone event, the child before its first instruction.
// The scheduler then picks which runs.
func (c *call) cloneThread(flags, ptid, ctid uint64) result {
	if flags&unix.CLONE_THREAD == 0 {
		return c.forkProcess(flags, ptid, ctid)
	}
	if r, over := c.overTaskBound(); over {
		return r
	}
	if flags&cloneThread != cloneThread || flags&cloneRefused != 0 {
		return failf("thread clone with flags %#x is not modelled", flags)
	}
	n, p := c.n, c.t
	if err := n.seize(); err != nil {
		return failf("%v", err)
	}
	if err := c.w.vdsoOff(p); err != nil {
		return failf("%v", err)
	}
	if err := c.letThrough(); err != nil {
		return failf("%v", err)
	}
	newtid, ok, err := c.w.awaitClone(p)
	if err != nil {
		return failf("%v", err)
	}
	if !ok {
		return done() // the clone failed: the parent goes on with its error
	}
	if _, ws, err := wait4(newtid, 0); err != nil || !ws.Stopped() {
		return failf("new thread %d did not stop before its first instruction (%v)", newtid, err)
	}
	child := &task{n: n, k: len(n.tasks), tid: newtid, ready: true, held: true, p: p.p, nice: c.t.nice} // a thread of the caller's process
	if flags&unix.CLONE_CHILD_CLEARTID != 0 {
		child.clearTID = ctid
	}
	n.tasks = append(n.tasks, child)
	vt := child.vtid()
	// The kernel stored the host tid; the node sees the virtual one.
	if flags&unix.CLONE_PARENT_SETTID != 0 {
		c.writeU32(ptid, uint32(vt))
	}
	if flags&unix.CLONE_CHILD_SETTID != 0 {
		c.writeU32(ctid, uint32(vt))
	}
	p.held, p.ready, p.cloned, p.childVtid = true, true, true, vt
	n.cur = nil
	return done()
}

// awaitClone waits for the parent's clone, fork or vfork event and
// returns the new thread's host tid; ok is false if the clone failed (the
// parent made its next call instead).
func (w *World) awaitClone(p *task) (tid int, ok bool, err error) {
	msg, ok, err := w.awaitEvent(p, unix.PTRACE_EVENT_CLONE, unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK)
	return int(msg), ok, err
}

// awaitSpins is how many times awaitEvent looks before it sleeps.
const awaitSpins = 20

// awaitEvent waits for one of the ptrace events of task p that a call let
// through leads to, and returns the event's message; ok is false if the
// call failed instead (the task made its next call).
//
// It looks a few times at once, then sleeps in poll until the stop waiter
// (stopNotifier, tsc_linux.go) reports a stop or end of one of weft's
// children on the world's eventfd, the listener has a notification (the
// call failed) or a millisecond passes, and looks again. It used to look
// again at once up to 5000 times: on redis depth 6 a clone's event came
// after about 1.1 ms and 1500 looks on average (wait4 and poll each), 5-10
// % of weft's CPU, taken from the node it waits for when the CPUs are
// busy. Only when it looks changes, not what it finds.
func (w *World) awaitEvent(p *task, events ...int) (msg uint, ok bool, err error) {
	sfd, err := w.stopFD()
	if err != nil {
		return 0, false, err
	}
	fds := []unix.PollFd{{Fd: int32(p.n.listener), Events: unix.POLLIN}, {Fd: int32(sfd), Events: unix.POLLIN}}
	for spins := 0; ; spins++ {
		got, ws, err := wait4(p.tid, unix.WNOHANG)
		if err != nil {
			return 0, false, fmt.Errorf("waiting for the clone: %v", err)
		}
		if got == p.tid {
			if !ws.Stopped() {
				return 0, false, fmt.Errorf("thread ended in its call (%v)", describeWait(ws))
			}
			if slices.Contains(events, ws.TrapCause()) {
				p.n.onTracer(func() { msg, err = unix.PtraceGetEventMsg(p.tid) })
				return msg, err == nil, err
			}
			w.traceStop(p, ws)
			if err := w.passStop(p, ws); err != nil {
				return 0, false, err
			}
			continue
		}
		ms := 0
		if spins >= awaitSpins {
			ms = 1
		}
		unix.Poll(fds, ms)
		if fds[0].Revents != 0 {
			return 0, false, nil
		}
		if fds[1].Revents&unix.POLLIN != 0 {
			var b [8]byte
			unix.Read(sfd, b[:])
			theStops().collected() // the waiter may look for the next stop
		}
	}
}

// Exit implements exit(2), the end of one thread. The last thread ends
// the node (observed through its pidfd). Any other is collected before
// anything else runs, so the kernel has cleared its clear-child-tid word;
// weft then wakes that word's virtual futex waiters (pthread_join). What
// a thread's end means for a child process is vkernel.ExitThread's
// decision: the last thread's end is the process's (collectProc, then
// procEnded); a leader that ends before its other threads stays a zombie
// thread the kernel lets nobody collect until they have ended (waiting
// for it here would hang weft), and is collected with the last of them.
func sysExit(c *call) result {
	n, t := c.n, c.t
	if n.live() == 1 {
		return cont()
	}
	if err := c.letThrough(); err != nil {
		return failf("%v", err)
	}
	t.exited, n.cur = true, nil
	if t.k == 0 { // the main process's leader, with threads alive: a zombie thread too
		if err := awaitZombie(t.tid); err != nil {
			return failf("%s: %v", t.name(), err)
		}
	}
	if t.k != 0 {
		end := vkernel.ThreadReleased // a thread of the main process other than its leader
		if p := t.p; p != nil {
			end = vkernel.ExitThread(t.tid == p.pid, len(n.procTasks(p)))
		}
		switch end {
		case vkernel.GroupDead:
			leader, others := t, []*task(nil)
			if t.tid != t.p.pid { // the leader ended first: a zombie thread until now
				if leader = n.taskByPid(t.p); leader == nil {
					return failf("process %d has no leader thread", t.p.vpid)
				}
				others = []*task{t}
			}
			ws, err := collectProc(c.w, leader, others)
			if err != nil {
				return failf("collecting process %d: %v", t.p.vpid, err)
			}
			c.w.procEnded(leader, ws)
			return done()
		case vkernel.LeaderZombie:
			// Nothing may run before the leader's end is done: which
			// thread ends last decides the process's status.
			if err := awaitZombie(t.tid); err != nil {
				return failf("%s: %v", t.name(), err)
			}
		case vkernel.ThreadReleased:
			if _, _, err := wait4(t.tid, 0); err != nil {
				return failf("collecting %s: %v", t.name(), err)
			}
		}
	}
	if t.clearTID != 0 {
		// The kernel cleared the word a clone registered; one
		// set_tid_address named (glibc's main thread's) it never saw,
		// since weft answers that call: weft clears it, as the kernel's
		// mm_release would, before waking its waiters. A word that
		// cannot be read or written is left as it is, as Linux leaves it.
		if v, err := c.readU32(t.clearTID); err == nil && v != 0 {
			c.writeU32(t.clearTID, 0)
		}
		n.futexWake(c.futexKey(t.clearTID), 1, futexBitsetAll)
	}
	return done()
}

// awaitZombie waits until thread tid, a leader whose exit weft let
// through while its process has other threads, is a zombie (its stat
// file's state Z): the kernel has done with its end, so what any other
// thread does next comes after it, as in the order weft chose. Its
// tracer cannot wait for it (delay_group_leader), so its state is read;
// the wait is bounded by settleLimit, then an error.
func awaitZombie(tid int) error {
	path := fmt.Sprintf("/proc/%d/task/%d/stat", tid, tid)
	start := time.Now()
	for spins := 0; ; spins++ {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil // gone already
		}
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X') {
			return nil
		}
		if time.Since(start) > settleLimit {
			return fmt.Errorf("leader %d not ended %v after its exit", tid, settleLimit)
		}
		if spins > 1000 {
			time.Sleep(100 * time.Microsecond)
		}
	}
}

// taskByPid is the leader task of child process p (its thread whose tid
// is the process's pid), live or ended; nil if it has none.
func (n *node) taskByPid(p *proc) *task {
	for _, t := range n.tasks {
		if t.p == p && t.tid == p.pid {
			return t
		}
	}
	return nil
}

// Gettid implements gettid(2): the thread's virtual id.
func sysGettid(c *call) result { return ret(c.t.vtid()) }

// SetTidAddress implements set_tid_address(2): the word is cleared and
// woken when the thread ends; the result is the virtual tid (glibc stores
// it in the thread descriptor).
func sysSetTidAddress(c *call) result {
	c.t.clearTID = c.arg(0)
	return ret(c.t.vtid())
}

// SchedYield implements sched_yield(2). The call itself is the choice
// point: a thread that calls it while another is ready was preempted
// before this handler ran (runNode), so here it simply returns.
func sysSchedYield(c *call) result { return ret(0) }

// signalThread sends sig to thread t of the caller's node, as the node
// would have, with the node's virtual pid as sender; a parked t is
// interrupted (sys_sigdeliver.go).
func (c *call) signalThread(t *task, sig int) result { return c.raise(t, sig, nil) }

// letThrough answers the call with CONTINUE before the handler has done:
// the kernel performs it while weft waits for what follows.
func (c *call) letThrough() error {
	return sendResp(c.n.listener, &notifResp{ID: c.req.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE})
}
