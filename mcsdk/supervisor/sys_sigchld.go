//go:build linux && amd64

package supervisor

import (
	"bytes"
	"fmt"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// The SIGCHLD of a child's end, with virtual values. The kernel notifies
// a traced child's parent when the tracer, weft, reaps the child's
// leader, and its siginfo holds the child's host pid and host CPU times.
// So just before reaping, weft queues its own SIGCHLD for the parent
// (process-directed): the kernel's then finds one pending and is dropped,
// as Linux never queues a standard signal twice (legacy_queue). Its
// siginfo is the kernel's form (si_code CLD_EXITED, CLD_KILLED or
// CLD_DUMPED, the child's virtual pid, the user's uid, si_status,
// si_utime and si_stime zero), which the parent's leader queues itself
// when it can (queueKernelForm: parked in a call, blocking SIGCHLD, as a
// signalfd's or sigwaitinfo's reader is). Otherwise weft queues SI_QUEUE
// with the status where si_status lies (si_int) and the code marked
// (vkernel.ChildSiginfo), rewritten to the kernel's form at the parent's
// delivery stop (kernelFormDelivered): a handler sees the kernel's form
// all the same; a signalfd read that dequeues that one reads ssi_code
// SI_QUEUE, ssi_pid virtual, ssi_uid, and the status in ssi_int
// (ssi_status 0).
// A clone child given another standard exit signal (clone(..., SIGUSR1))
// is told of the same way, with that signal; a real-time one, which the
// kernel would queue a second time with the host pid, is refused.

// Offsets in a siginfo and the codes of a child's end (vkernel's).
const (
	siCodeOff   = vkernel.SiCodeOff
	siPidOff    = vkernel.SiPidOff
	siStatusOff = vkernel.SiStatusOff
	cldExited   = vkernel.CLDExited
	cldDumped   = vkernel.CLDDumped
)

// exitSiginfo peeks at the end of thread tid without reaping it
// (waitid, WNOWAIT): its siginfo, ok false while it has not ended. A
// tracer's wait reports ptrace stops too (CLD_TRAPPED): those are not
// ends.
func exitSiginfo(tid int, hang bool) ([]byte, bool) {
	info := make([]byte, siginfoSize)
	opts := unix.WEXITED | unix.WNOWAIT | unix.WALL
	if !hang {
		opts |= unix.WNOHANG
	}
	for {
		_, _, e := unix.Syscall6(unix.SYS_WAITID, unix.P_PID, uintptr(tid), uintptr(unsafe.Pointer(&info[0])), uintptr(opts), 0, 0)
		if e == unix.EINTR {
			continue
		}
		code := le32(info[siCodeOff:])
		return info, e == 0 && le32(info[siPidOff:]) != 0 && code >= cldExited && code <= cldDumped
	}
}

// notifyParent queues weft's exit signal for the end of child process p
// of node n, whose leader is about to be reaped (hang: wait for its end):
// SIGCHLD, or the standard signal a clone child was given instead (the
// kernel's would carry the host pid just the same); nothing if nobody in
// the node is to be told (vkernel.ProcTable.ExitSignalTo). A real-time
// exit signal, which the kernel would queue beside weft's, is refused at
// the clone (forkProcess). A parent that ignores the signal has the
// kernel discard it.
func notifyParent(w *World, n *node, p *proc, hang bool) {
	_, sig, ok := n.ptab.ExitSignalTo(p.vpid)
	if p.notified || !ok || sig >= vkernel.SIGRTMIN {
		return
	}
	pp := n.parentOf(p)
	kinfo, ok := exitSiginfo(p.pid, hang)
	if !ok {
		return
	}
	p.notified = true
	info := vkernel.ChildSiginfo(sig, uint32(p.vpid), uint32(os.Getuid()), kinfo)
	// Only while nothing of the node runs natively (the child that ended
	// ran last, or nothing did) can the parent's leader take a call.
	if n.cur == nil || n.cur.p == p {
		restore := n.asProc(pp)
		queued, err := w.queueKernelForm(n, nil, sig, info)
		restore()
		if err != nil {
			w.fail(n, "", fmt.Sprintf("the exit signal of process %d: %v", p.vpid, err))
			return
		}
		if queued {
			return
		}
	}
	pidfdSendSiginfo(pp.pidfd, sig, info) // an ignored signal is discarded: then so is the kernel's
}

// ptraceSiginfo gets or sets a stopped tracee's siginfo.
func ptraceSiginfo(req, tid int, info []byte) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(tid), 0, uintptr(unsafe.Pointer(&info[0])), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// syscallFile reads /proc's syscall file of t. A thread parked in a
// notification may be running for a moment when a signal arrives while it
// still sleeps in the notification's first, interruptible wait (before
// weft received it): the kernel wakes it, finds the notification received
// and puts it back to sleep, killable. The file then reads "running"; it
// is read again until the thread sleeps, so that what a hash covers does
// not depend on that moment. The moment is short on an idle machine and
// can last many milliseconds on a loaded one (the woken thread waits for
// a CPU): weft waits up to settleLimit, then reports an error rather than
// hash a thread in motion.
func (t *task) syscallFile() ([]byte, error) {
	path := fmt.Sprintf("/proc/%d/task/%d/syscall", t.tid, t.tid)
	start, pause := time.Now(), 10*time.Microsecond
	for {
		b, err := os.ReadFile(path)
		if err != nil || t.call == nil || !bytes.HasPrefix(b, []byte("running")) {
			return b, err
		}
		if time.Since(start) > settleLimit {
			return nil, fmt.Errorf("%s still running %v after a signal woke it in its notification", t.name(), settleLimit)
		}
		time.Sleep(pause)
		pause = min(2*pause, time.Millisecond)
	}
}

// settleLimit bounds how long weft waits for a parked thread that a
// signal woke for a moment to sleep again (syscallFile).
const settleLimit = 10 * time.Second
