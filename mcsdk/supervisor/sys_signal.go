//go:build linux && amd64

package supervisor

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// A node's world holds one process: itself, with virtual pid 100+index
// (sys_proc.go). Signals it sends to itself are delivered by weft through
// its pidfd; a signal aimed anywhere else is refused with EPERM, so no
// host process ever receives one. (Before these handlers, glibc's abort()
// sent tgkill(100, 100, SIGABRT) natively: the virtual pid named no
// process, or a host one, and abort fell back to its last resort, a hlt
// instruction, which the kernel reports as SIGSEGV.)

// weft's signals carry SI_QUEUE (vkernel.SIQueue), the only kind of
// siginfo one process may send another, with the node's virtual pid as
// sender, so no host pid reaches the node's handler.

// Kill implements kill(2): the node itself (its virtual pid, 0 or its
// process group, which it leads alone) gets the signal; any other target
// is refused with EPERM.
func sysKill(c *call) result {
	pid, sig := int32(c.arg(0)), int(int32(c.arg(1)))
	self := int32(c.n.vpid())
	if pid != self && pid != 0 && pid != -self {
		return refuseSignal(c, sig)
	}
	return c.signalSelf(sig, nil)
}

// RtSigqueueinfo implements rt_sigqueueinfo(2) for the node itself.
func sysRtSigqueueinfo(c *call) result {
	if int32(c.arg(0)) != int32(c.n.vpid()) {
		return refuseSignal(c, int(int32(c.arg(1))))
	}
	return c.queueSelf(int(int32(c.arg(1))), c.arg(2))
}

// RtTgsigqueueinfo implements rt_tgsigqueueinfo(2) for the node itself.
func sysRtTgsigqueueinfo(c *call) result {
	self := int32(c.n.vpid())
	if int32(c.arg(0)) != self || int32(c.arg(1)) != self {
		return refuseSignal(c, int(int32(c.arg(2))))
	}
	return c.queueSelf(int(int32(c.arg(2))), c.arg(3))
}

// PidfdOpen implements pidfd_open(2) for the node's own pid: weft opens a
// pidfd on the node and installs it.
func sysPidfdOpen(c *call) result {
	if int32(c.arg(0)) != int32(c.n.vpid()) {
		return errno(unix.ESRCH)
	}
	if c.arg(1)&^uint64(unix.PIDFD_NONBLOCK) != 0 {
		return errno(unix.EINVAL)
	}
	fd, err := unix.PidfdOpen(c.n.pid, int(c.arg(1)))
	if err != nil {
		return errno(errnoOf(err))
	}
	defer unix.Close(fd)
	tfd, err := injectFD(c.n.listener, c.req.ID, fd, true) // pidfds are always close-on-exec
	if err != nil {
		return errno(errnoOf(err))
	}
	return ret(int64(tfd))
}

// PidfdSendSignal implements pidfd_send_signal(2) on a pidfd for the node
// itself, the only kind a node can hold (pidfd_open serves no other).
func sysPidfdSendSignal(c *call) result {
	if c.arg(3) != 0 {
		return errno(unix.EINVAL)
	}
	if !c.isSelfPidfd(int(int32(c.arg(0)))) {
		return errno(unix.EBADF)
	}
	if c.arg(2) != 0 {
		return c.queueSelf(int(int32(c.arg(1))), c.arg(2))
	}
	return c.signalSelf(int(int32(c.arg(1))), nil)
}

// isSelfPidfd reports whether the node's fd is a pidfd for the node.
func (c *call) isSelfPidfd(fd int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", c.n.memPid(), fd))
	return err == nil && bytes.Contains(b, fmt.Appendf(nil, "\nPid:\t%d\n", c.n.pid))
}

// refuseSignal answers a signal to a process outside the node: an invalid
// signal number is EINVAL, as Linux checks it first; anything else EPERM.
func refuseSignal(c *call, sig int) result {
	if !vkernel.ValidSignal(sig) {
		return errno(unix.EINVAL)
	}
	return errno(unix.EPERM)
}

// signalSelf generates sig for the node (process-directed), as the node
// itself would have: weft picks the receiving thread and interrupts its
// parked call if the signal is deliverable there (sys_sigdeliver.go). The
// sender, stopped in this syscall, gets it as the call returns if it is
// the one picked. info, when given, is a 128-byte siginfo to send.
func (c *call) signalSelf(sig int, info []byte) result {
	return c.raise(nil, sig, info)
}

// raise generates sig for thread t of the caller's node (nil: the
// process) and answers the call.
func (c *call) raise(t *task, sig int, info []byte) result {
	if !vkernel.ValidSignal(sig) {
		return errno(unix.EINVAL)
	}
	if sig == 0 {
		return ret(0) // the existence check: the node exists
	}
	if err := c.w.raise(c.n, t, sig, info); err != nil {
		var e unix.Errno
		if errors.As(err, &e) {
			return errno(e)
		}
		return failf("%v", err)
	}
	return ret(0)
}

// queueSelf sends the siginfo at addr to the node (rt_sigqueueinfo). A
// process may queue a kernel- or kill-style siginfo to itself; weft, which
// sends it, may not, so such a code becomes SI_QUEUE.
func (c *call) queueSelf(sig int, addr uint64) result {
	info, err := c.read(addr, siginfoSize)
	if err != nil {
		return errno(unix.EFAULT)
	}
	if vkernel.KernelCode(vkernel.Code(info)) {
		vkernel.SetCode(info, vkernel.SIQueue)
	}
	return c.signalSelf(sig, info)
}
