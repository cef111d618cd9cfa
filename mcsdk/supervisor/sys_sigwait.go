//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Waiting for signals (pause, rt_sigsuspend, rt_sigtimedwait), the
// alternate signal stack and the actions a node installs. Handlers,
// masks and stacks live in the kernel, which runs the handlers; weft
// records what it needs to hash them and to decide where a signal goes.

// RtSigaction implements rt_sigaction(2): the kernel installs the action
// (handlers run natively); weft records it for the state hash.
func sysRtSigaction(c *call) result {
	sig := int(int32(c.arg(0)))
	if c.arg(1) == 0 || c.arg(3) != 8 || sig < 1 || !vkernel.ValidSignal(sig) || vkernel.Unblockable.Has(sig) {
		return cont() // a query, or a call the kernel refuses
	}
	b, err := c.read(c.arg(1), vkernel.SigActionSize)
	if err != nil {
		return errno(unix.EFAULT)
	}
	a, ok := vkernel.DecodeSigAction(b)
	if !ok {
		return errno(unix.EFAULT)
	}
	if c.n.sig.actions == nil {
		c.n.sig.actions = vkernel.SigActions{}
	}
	c.n.sig.actions[sig] = a
	return cont()
}

// oneShot follows, in the recorded actions, what the kernel does as it
// delivers sig to thread t (its delivery stop, passed on: a one-shot
// handler's action is reset, vkernel.SigActions.Delivered), so the world
// hash tells a state whose one-shot handler fired from one where it has
// not. The record is the main process's (hashSignals hashes it); a child
// process's own actions are not recorded apart, so its delivery changes
// nothing here.
func (w *World) oneShot(t *task, sig int) {
	if t.p == nil {
		t.n.sig.actions.Delivered(sig)
	}
}

// Sigaltstack implements sigaltstack(2): weft applies the kernel's rules
// (vkernel.AltStack.Set: EPERM while running on the stack, EINVAL for
// unknown flags, ENOMEM below MINSIGSTKSZ), records the thread's stack
// and lets the kernel set it, which also reports the old one.
func sysSigaltstack(c *call) result {
	if c.arg(0) == 0 {
		return cont()
	}
	b, err := c.read(c.arg(0), 24)
	if err != nil {
		return errno(unix.EFAULT)
	}
	sp, flags, size := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint32(b[8:]), binary.LittleEndian.Uint64(b[16:])
	alt, err := c.t.alt.Set(sp, size, flags, c.t.stackPointer)
	if err != nil {
		return vkAnswer(err)
	}
	c.t.alt = alt
	return cont()
}

// stackPointer is the user stack pointer of a thread stopped in a
// notification (/proc's syscall file).
func (t *task) stackPointer() uint64 {
	regs, err := t.taskRegs() // the thread is not held: its sp and pc
	if err != nil || len(regs) < 1 {
		return 0
	}
	return regs[0]
}

// Pause implements pause(2): the thread parks until a signal it does not
// block and does not ignore interrupts it (sys_sigdeliver.go).
func sysPause(c *call) result {
	c.waitOn() // only a signal ends it (interrupt)
	return park()
}

// RtSigsuspend implements rt_sigsuspend(2): the thread parks until a
// signal that the given mask lets through arrives; then the kernel
// performs the call, with the signal pending, and runs the handler.
func sysRtSigsuspend(c *call) result {
	if c.arg(1) != 8 {
		return errno(unix.EINVAL)
	}
	if !c.maskRead { // Linux copies the mask in once, as the call starts
		b, err := c.read(c.arg(0), 8)
		if err != nil {
			return errno(unix.EFAULT)
		}
		c.sigMask, c.maskRead = vkernel.SigSet(binary.LittleEndian.Uint64(b)), true
	}
	// A signal the new mask lets through is pending already, however it
	// came (one weft queued before, or one the kernel generated itself):
	// Linux returns at once, so the kernel performs the call now.
	if k, err := readKernelSig(c.n.pid, c.t.tid); err == nil && k.Deliverable(c.sigMask) != 0 {
		return cont()
	}
	// Only a signal becoming pending, for the thread or its process, can
	// end the wait (its mask is fixed now), and only weft queues signals
	// for a parked thread (signalsKey): the kernel raises its own (a
	// fault, SIGXFSZ, SIGPIPE, SIGSYS) for the thread that caused them,
	// which runs, and its SIGCHLD finds weft's pending and is dropped
	// (sys_sigchld.go). A signal weft queues that the mask lets through
	// interrupts the call at once (raise).
	c.waitOn(signalsKey(c.n))
	return park()
}

// RtSigtimedwait implements rt_sigtimedwait(2): if a signal of the set is
// pending the kernel takes it at once; otherwise the thread parks until
// one arrives (then the kernel takes it), another signal interrupts it
// (EINTR), or the timeout passes in virtual time (EAGAIN).
func sysRtSigtimedwait(c *call) result {
	set, ok := c.sigsetArg(0, 3)
	if !ok {
		if c.arg(3) != 8 {
			return errno(unix.EINVAL)
		}
		return errno(unix.EFAULT)
	}
	if k, err := readKernelSig(c.n.pid, c.t.tid); err == nil && k.AllPending()&set != 0 {
		return cont()
	}
	timeout := int64(-1)
	if c.arg(2) != 0 {
		b, err := c.read(c.arg(2), 16)
		if err != nil {
			return errno(unix.EFAULT)
		}
		ns, ok := timespecNs(b)
		if !ok {
			return errno(unix.EINVAL)
		}
		timeout = ns
	}
	if r, wait := c.wait(timeout); wait {
		return r
	}
	return errno(unix.EAGAIN)
}
