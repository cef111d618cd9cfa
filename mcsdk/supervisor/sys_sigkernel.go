//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Signals in the kernel's own form. Two signals weft raises carry a
// siginfo Linux's kernel makes itself: ITIMER_REAL's SIGALRM (SI_KERNEL
// from pid 0, it_real_fn's SEND_SIG_PRIV) and a child's SIGCHLD (CLD_*
// with si_status, do_notify_parent). The kernel takes such a code (>= 0,
// or SI_TKILL) from a process only when it signals itself: from
// rt_tgsigqueueinfo only when the caller is the receiving thread, from
// rt_sigqueueinfo only when the caller's tid is the receiving process's
// pid, its leader (kernel/signal.c, do_rt_tgsigqueueinfo,
// do_rt_sigqueueinfo), and pidfd_send_signal never. So weft has that
// thread make the call (queueKernelForm): taken out of the call it is
// parked in, it runs rt_tgsigqueueinfo(pid, itself, …) for a
// thread-directed signal, or rt_sigqueueinfo(pid, …) as the leader for a
// process-directed one, with every signal blocked, the siginfo written
// below its stack's red zone, and then issues its parked call again
// (reissue), the signal pending: the signal is queued exactly where weft
// would have queued it (the thread, or the process), with the kernel's
// siginfo, which a handler, sigwaitinfo and a signalfd read all see.
//
// That thread can take the call only when it is parked in a call weft
// serves that no signal has interrupted yet, nothing of the node runs
// natively meanwhile (an injected call's notification must be the only
// one), the node is traced, and the thread blocks the signal and has no
// deliverable signal pending (the call issued again would otherwise meet
// a delivery stop on its way: checkpoint_proc_linux.go, metSignal). So
// the signal a thread takes in a handler at once, one for a thread held
// in a ptrace stop or running, or for a process whose leader has ended,
// is queued as before, SI_QUEUE with the kernel's code marked
// (vkernel.KernelForm): a handler gets the kernel's form all the same
// (kernelFormDelivered, at the delivery stop); a signalfd or sigwaitinfo
// that dequeues it reads SI_QUEUE.

// queueKernelForm queues sig, whose siginfo weft marked (info,
// vkernel.KernelForm), in the kernel's own form, sent by the receiving
// thread itself: thread t, or with t nil the process n.pid, through its
// leader. It reports false, having queued nothing, when that thread
// cannot take the call now (see above); the caller then queues info.
func (w *World) queueKernelForm(n *node, t *task, sig int, info []byte) (bool, error) {
	kinfo := slices.Clone(info)
	if !n.traced || !vkernel.KernelForm(kinfo, uint32(os.Getuid())) {
		return false, nil
	}
	s := t
	if s == nil {
		s = n.leaderOf(n.pid)
	}
	if s == nil || s.exited || s.held || s.call == nil || s.call.intr != nil || n.cur == s {
		return false, nil
	}
	k, err := readKernelSig(n.pid, s.tid)
	if err != nil || !k.Blocked.Has(sig) || k.Deliverable(k.Blocked) != 0 {
		return false, nil
	}
	call, name := injected{nr: unix.SYS_RT_SIGQUEUEINFO, args: [6]uint64{uint64(n.pid), uint64(sig)}}, "rt_sigqueueinfo"
	if t != nil {
		call, name = injected{nr: unix.SYS_RT_TGSIGQUEUEINFO, args: [6]uint64{uint64(n.pid), uint64(s.tid), uint64(sig)}}, "rt_tgsigqueueinfo"
	}
	c := s.call
	sysIP := c.req.Data.InstructionPointer - 2
	queued := false
	err = onLauncher(n.tracer, func() error {
		saved, err := c.holdOutOfCall(s)
		if err != nil {
			return err
		}
		mask, err := blockSignals(s.tid)
		if err != nil {
			return err
		}
		at := (saved.Rsp - 128 - siginfoSize) &^ 15 // below the red zone
		if forceWrite(s.tid, uintptr(at), kinfo) == nil {
			if t == nil {
				call.args[2] = at
			} else {
				call.args[3] = at
			}
			got, err := injectOne(s.tid, n.listener, saved, sysIP, call)
			if err != nil {
				return fmt.Errorf("injected %s: %v", name, err)
			}
			queued = got == 0 // else nothing was queued: the caller's SI_QUEUE meets the same answer
		}
		if err := setSignalMask(s.tid, mask); err != nil {
			return err
		}
		saved.Rax = saved.Orig_rax
		if err := reissue(s.tid, saved, sysIP); err != nil {
			return err
		}
		return awaitReissued(n, s)
	})
	if err != nil {
		return false, fmt.Errorf("%s: queueing %s in the kernel's form: %v", s.name(), unix.SignalName(unix.Signal(sig)), err)
	}
	return queued, nil
}

// leaderOf is the live task whose tid is pid, the leader of process pid,
// or nil.
func (n *node) leaderOf(pid int) *task {
	for _, t := range n.tasks {
		if !t.exited && t.tid == pid {
			return t
		}
	}
	return nil
}

// kernelFormDelivered gives a handler a signal weft queued with the
// kernel's code marked (a child's exit signal, ITIMER_REAL's SIGALRM) in
// the kernel's form: at t's delivery stop for it, the siginfo is
// rewritten (vkernel.KernelForm).
func (t *task) kernelFormDelivered() {
	t.n.onTracer(func() {
		info := make([]byte, siginfoSize)
		if ptraceSiginfo(unix.PTRACE_GETSIGINFO, t.tid, info) != nil {
			return
		}
		if !vkernel.KernelForm(info, uint32(os.Getuid())) {
			return
		}
		ptraceSiginfo(unix.PTRACE_SETSIGINFO, t.tid, info)
	})
}
