//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"errors"
	"os"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Signals from one process of a node's tree to another (kill, tkill,
// tgkill, rt_sigqueueinfo by virtual pid or tid) and the SIGCHLD a
// child's end raises in its parent go through the same delivery as a
// node's signals to itself (sys_sigdeliver.go): weft picks the receiving
// thread of the target process and interrupts its parked call when the
// signal is deliverable there. Nothing outside the node's tree is
// reached: other pids are refused (EPERM) or name nothing (ESRCH).

// asProc points the node's process fields at process p (as enterProc
// does for a caller) and returns the function that restores them.
func (n *node) asProc(p *proc) func() {
	pid, pidfd, fds, self := n.pid, n.pidfd, n.fds, n.self
	n.pid, n.pidfd, n.fds, n.self = p.pid, p.pidfd, p.fds, p
	if p == n.mainProc() {
		n.self = nil
	}
	return func() { n.pid, n.pidfd, n.fds, n.self = pid, pidfd, fds, self }
}

// raiseIn generates sig for process p of node n: for its thread t, or,
// t nil, for the process. info is the siginfo to send (nil: SI_QUEUE
// from the sender's virtual pid, which the caller passes as from).
func (w *World) raiseIn(n *node, p *proc, t *task, sig int, info []byte) error {
	defer n.asProc(p)()
	return w.raise(n, t, sig, info)
}

// signalOther delivers sig, sent by the caller, to process p of its tree
// (thread t of it, or nil for the process): a signal that kills p is
// waited for (signalProc); any other is raised there, interrupting p's
// parked call as it would the caller's own.
func (c *call) signalOther(p *proc, t *task, sig int, info []byte) result {
	if !vkernel.ValidSignal(sig) {
		return errno(unix.EINVAL)
	}
	if sig == 0 {
		return ret(0)
	}
	if info == nil {
		info = c.senderInfo(sig)
	}
	fatal, err := signalKills(p.pid, sig)
	if err != nil {
		return failf("reading the signal state of %d: %v", p.vpid, err)
	}
	if fatal {
		return c.killOther(p, sig, info)
	}
	if err := c.w.raiseIn(c.n, p, t, sig, info); err != nil {
		var e unix.Errno
		if errors.As(err, &e) {
			return errno(e)
		}
		return failf("signal %d to process %d: %v", sig, p.vpid, err)
	}
	return ret(0)
}

// senderInfo is the siginfo of a signal the caller sends: SI_QUEUE (the
// only code one process may send another) from its virtual pid.
func (c *call) senderInfo(sig int) []byte {
	return vkernel.NewSiginfo(sig, vkernel.SIQueue, uint32(c.n.vpid()), uint32(os.Getuid()))
}

// treeTask resolves a tkill/tgkill target by virtual tid: the live task
// and its process, or nil.
func (c *call) treeTask(vtid int64) (*task, *proc) {
	t := c.n.taskByVtid(vtid)
	if t == nil {
		return nil, nil
	}
	return t, c.n.procOf(t)
}

// Tkill implements tkill(2) for every thread of the node's tree.
func sysTkillTree(c *call) result {
	sig := int(int32(c.arg(1)))
	tid := int32(c.arg(0))
	t, p := c.treeTask(int64(tid))
	if e := c.endedProc(tid); t == nil && e != nil {
		return signalEnded(e, sig)
	}
	return c.signalTreeThread(t, p, t != nil, sig)
}

// endedProc is the process of the caller's tree with virtual pid pid once
// it has ended (a zombie or reaped: virtual pids are never reused in a
// run), or nil.
func (c *call) endedProc(pid int32) *proc {
	for _, p := range c.n.procs {
		if int32(p.vpid) == pid && p.ended() {
			return p
		}
	}
	return nil
}

// signalEnded answers a signal sent to ended process p by its pid (tkill,
// tgkill): a zombie is still found and takes it to no effect (0, or
// EINVAL for a bad signal: check_kill_permission); a reaped one is found
// no more (ESRCH, as Linux answers once release_task has run).
func signalEnded(p *proc, sig int) result {
	switch {
	case p.gone():
		return errno(unix.ESRCH)
	case !vkernel.ValidSignal(sig):
		return errno(unix.EINVAL)
	}
	return ret(0)
}

// signalTreeThread sends sig to thread t of process p of the tree, as
// tkill and tgkill do once they have found it (found false: ESRCH).
func (c *call) signalTreeThread(t *task, p *proc, found bool, sig int) result {
	switch {
	case !vkernel.ValidSignal(sig):
		return errno(unix.EINVAL)
	case !found:
		return errno(unix.ESRCH)
	case p == c.n.procOf(c.t):
		return c.signalThread(t, sig)
	}
	return c.signalOther(p, t, sig, nil)
}

// Tgkill implements tgkill(2) for every thread of the node's tree: tgid
// must be the thread's process (else ESRCH, as Linux); a tgid outside
// the tree is refused.
func sysTgkillTree(c *call) result {
	tgid, sig := int32(c.arg(0)), int(int32(c.arg(2)))
	if e := c.endedProc(tgid); e != nil {
		if int32(c.arg(1)) != tgid {
			return errno(unix.ESRCH) // its other threads are gone
		}
		return signalEnded(e, sig)
	}
	if tgid != int32(c.n.vpid()) && !c.inTree(tgid) {
		return refuseSignal(c, sig)
	}
	t, p := c.treeTask(int64(int32(c.arg(1))))
	return c.signalTreeThread(t, p, t != nil && int32(p.vpid) == tgid, sig)
}

// RtSigqueueinfo implements rt_sigqueueinfo(2) for the caller and the
// other processes of its tree. To another process a code the kernel
// keeps for itself (si_code ≥ 0, SI_TKILL) is EPERM, as Linux answers.
func sysRtSigqueueinfoTree(c *call) result {
	pid, sig := int32(c.arg(0)), int(int32(c.arg(1)))
	p := c.treeProc(pid)
	e := c.endedProc(pid)
	if p == nil && e == nil || p == c.n.procOf(c.t) {
		return sysRtSigqueueinfo(c)
	}
	info, err := c.read(c.arg(2), siginfoSize)
	if err != nil {
		return errno(unix.EFAULT)
	}
	if vkernel.KernelCode(vkernel.Code(info)) {
		return errno(unix.EPERM)
	}
	if e != nil {
		return signalEnded(e, sig)
	}
	return c.signalOther(p, nil, sig, info)
}

// RtTgsigqueueinfo implements rt_tgsigqueueinfo(2) for the threads of
// the caller's tree, with rt_sigqueueinfo's rule on codes.
func sysRtTgsigqueueinfoTree(c *call) result {
	tgid, sig := int32(c.arg(0)), int(int32(c.arg(2)))
	p := c.treeProc(tgid)
	e := c.endedProc(tgid)
	if p == nil && e == nil || p == c.n.procOf(c.t) {
		return sysRtTgsigqueueinfo(c)
	}
	info, err := c.read(c.arg(3), siginfoSize)
	if err != nil {
		return errno(unix.EFAULT)
	}
	if vkernel.KernelCode(vkernel.Code(info)) {
		return errno(unix.EPERM)
	}
	if e != nil {
		if int32(c.arg(1)) != tgid {
			return errno(unix.ESRCH)
		}
		return signalEnded(e, sig)
	}
	t, tp := c.treeTask(int64(int32(c.arg(1))))
	if t == nil || tp != p {
		return errno(unix.ESRCH)
	}
	return c.signalOther(p, t, sig, info)
}

// treeProc is the live or zombie process of the caller's tree with
// virtual pid pid, or nil.
func (c *call) treeProc(pid int32) *proc {
	for _, p := range c.n.procs {
		if int32(p.vpid) == pid && !p.gone() {
			return p
		}
	}
	return nil
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// childSignalled follows the exit signal (SIGCHLD, or the one a clone
// child was given; none for 0) the kernel has just queued for parent
// (weft collected the end of its child, which makes the kernel notify
// the parent): a thread of parent that takes it while parked in a
// weft-served call is interrupted, as the kernel wakes it (EINTR, or a
// restart under SA_RESTART). Only a caught signal interrupts: ignored,
// by default or explicitly, it changes nothing. A wait4 the child's end
// completes is left to return the child, as Linux's do_wait finds the
// zombie before the pending signal; a waitid is never interrupted.
func (w *World) childSignalled(n *node, parent *proc, sig int) {
	if parent == nil || parent.ended() || sig == 0 {
		return
	}
	defer n.asProc(parent)()
	k, err := readKernelSig(n.pid, n.memPid())
	if err != nil || k.Disposition(sig) != vkernel.DispHandler {
		return
	}
	t := w.sigTarget(n, sig)
	if t == nil || t.parkedCall() == nil {
		return
	}
	c := t.call
	switch c.req.Data.Nr {
	case unix.SYS_WAITID:
		return
	case unix.SYS_WAIT4:
		if n.ptab.Wait4Ready(t.waiter(), int64(int32(c.arg(0))), c.arg(2)) {
			return
		}
	}
	n.sig.unsettle(t)
	w.interrupt(t, sig)
}
