package vkernel

import (
	"encoding/binary"
	"iter"
	"maps"
	"slices"
)

// Signal semantics (signal(7)). The host kernel keeps each thread's
// pending set, blocked mask and actions and runs handlers natively; the
// supervisor reads that state from /proc/PID/task/TID/status, reads and
// writes the node's memory and queues signals. What a signal does, which
// thread a signal for the whole process goes to, which signals a parked
// call lets through, what an interrupted call answers, the siginfo weft
// sends and the alternate signal stack's rules are decided here.

// Signal numbers (asm-generic/signal.h; x86-64 has the generic ones).
const (
	SIGHUP    = 1
	SIGINT    = 2
	SIGQUIT   = 3
	SIGILL    = 4
	SIGTRAP   = 5
	SIGABRT   = 6
	SIGBUS    = 7
	SIGFPE    = 8
	SIGKILL   = 9
	SIGUSR1   = 10
	SIGSEGV   = 11
	SIGUSR2   = 12
	SIGPIPE   = 13
	SIGALRM   = 14
	SIGTERM   = 15
	SIGSTKFLT = 16
	SIGCHLD   = 17
	SIGCONT   = 18
	SIGSTOP   = 19
	SIGTSTP   = 20
	SIGTTIN   = 21
	SIGTTOU   = 22
	SIGURG    = 23
	SIGXCPU   = 24
	SIGXFSZ   = 25
	SIGVTALRM = 26
	SIGPROF   = 27
	SIGWINCH  = 28
	SIGIO     = 29
	SIGPWR    = 30
	SIGSYS    = 31
	// SIGRTMIN is the kernel's first real-time signal (glibc reserves
	// 32 and 33 for itself and reports 34); MaxSignal is SIGRTMAX, _NSIG.
	SIGRTMIN  = 32
	MaxSignal = 64
)

// ValidSignal reports whether sig is a signal number a call may name:
// 0 (the existence check) to MaxSignal, as the kernel's valid_signal; any
// other is EINVAL.
func ValidSignal(sig int) bool { return sig >= 0 && sig <= MaxSignal }

// SigSet is a kernel signal set (sigset_t on x86-64): bit sig-1 is
// signal sig.
type SigSet uint64

// SigBit is the set holding only sig; empty for a number outside
// 1..MaxSignal.
func SigBit(sig int) SigSet {
	if sig < 1 || sig > MaxSignal {
		return 0
	}
	return 1 << uint(sig-1)
}

// Has reports whether sig is in s.
func (s SigSet) Has(sig int) bool { return SigBit(sig) != 0 && s&SigBit(sig) != 0 }

// First is the lowest-numbered signal in s, 0 if s is empty.
func (s SigSet) First() int {
	for sig := 1; sig <= MaxSignal; sig++ {
		if s.Has(sig) {
			return sig
		}
	}
	return 0
}

// Unblockable are SIGKILL and SIGSTOP: no mask blocks them, no handler
// catches them and neither can be ignored (sigprocmask(2),
// sigaction(2)).
const Unblockable = SigSet(1<<(SIGKILL-1) | 1<<(SIGSTOP-1))

// ThreadSig is one thread's signal state as the kernel reports it in
// /proc/PID/task/TID/status (proc(5)): pending for the thread (SigPnd)
// and for its process (ShdPnd), blocked (SigBlk), ignored (SigIgn) and
// caught (SigCgt). Ignored and caught are the process's actions, shared
// by its threads.
type ThreadSig struct{ Pending, Shared, Blocked, Ignored, Caught SigSet }

// AllPending is every signal pending for the thread: its own and its
// process's.
func (k ThreadSig) AllPending() SigSet { return k.Pending | k.Shared }

// Action is a signal's default action (signal(7), "Standard signals").
type Action int

const (
	ActTerm Action = iota // terminate the process
	ActCore               // terminate and dump core
	ActIgn                // ignore the signal
	ActStop               // stop the process
	ActCont               // continue the process if it is stopped
)

// DefaultAction is sig's default action, as signal(7)'s table and the
// kernel's sig_kernel_{coredump,ignore,stop} masks say; real-time signals
// (SIGRTMIN and above) terminate.
func DefaultAction(sig int) Action {
	switch sig {
	case SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS:
		return ActCore
	case SIGCHLD, SIGURG, SIGWINCH:
		return ActIgn
	case SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU:
		return ActStop
	case SIGCONT:
		return ActCont
	}
	return ActTerm
}

// Disposition is what a signal does when it reaches a running process.
type Disposition int

const (
	DispTerminate Disposition = iota // the default for most signals (with or without a core)
	DispHandler                      // a handler runs
	DispIgnore                       // nothing happens (also SIGCONT's default, the process running)
	DispStop                         // the process stops
)

// Disposition is sig's action for the process (dispositions are shared
// by its threads): its handler, its explicit ignore, else the default
// action. SIGKILL and SIGSTOP always take their defaults.
func (k ThreadSig) Disposition(sig int) Disposition {
	if !Unblockable.Has(sig) {
		switch {
		case k.Caught.Has(sig):
			return DispHandler
		case k.Ignored.Has(sig):
			return DispIgnore
		}
	}
	switch DefaultAction(sig) {
	case ActIgn, ActCont:
		return DispIgnore
	case ActStop:
		return DispStop
	}
	return DispTerminate
}

// IgnoredSet is the set of signals whose arrival does nothing.
func (k ThreadSig) IgnoredSet() SigSet {
	var s SigSet
	for sig := 1; sig <= MaxSignal; sig++ {
		if k.Disposition(sig) == DispIgnore {
			s |= SigBit(sig)
		}
	}
	return s
}

// Kills reports whether sig, sent now, ends the process at once: SIGKILL,
// or a signal whose disposition is to terminate and that this thread
// does not block.
func (k ThreadSig) Kills(sig int) bool {
	if sig == SIGKILL {
		return true
	}
	return !k.Blocked.Has(sig) && k.Disposition(sig) == DispTerminate
}

// Wait is how a parked call changes the signals its thread blocks while
// it waits.
type Wait int

const (
	// WaitPlain: the thread's own mask (read, futex, nanosleep, pause …).
	WaitPlain Wait = iota
	// WaitSigsuspend: rt_sigsuspend(2) replaces the mask with its
	// argument for the wait.
	WaitSigsuspend
	// WaitSigtimedwait: rt_sigtimedwait(2) unblocks the awaited set for
	// the wait (the kernel's do_sigtimedwait: blocked &^ set).
	WaitSigtimedwait
	// WaitTempMask: ppoll(2), pselect6(2), epoll_pwait(2) and
	// epoll_pwait2(2) with a mask replace the mask with it for the wait
	// (set_user_sigmask), as rt_sigsuspend does.
	WaitTempMask
)

// EffectiveMask is the set of signals a thread whose mask is blocked
// blocks while parked in a call of kind w with sigset argument arg:
// SIGKILL and SIGSTOP never.
func EffectiveMask(blocked SigSet, w Wait, arg SigSet) SigSet {
	switch w {
	case WaitSigsuspend, WaitTempMask:
		return arg &^ Unblockable
	case WaitSigtimedwait:
		return blocked &^ arg &^ Unblockable
	}
	return blocked &^ Unblockable
}

// SignalTarget is the thread a process-directed sig goes to, given the
// effective masks of the process's live threads, the main thread first
// (a sequence, so that a caller reading them from /proc stops at the
// choice): the main thread if it does not block sig, else the first that
// does not; -1 if every thread blocks it (it stays pending for the
// process).
// Linux's complete_signal prefers the thread it was sent to (the group
// leader for kill(2)), then searches the others from the last one that
// took a process signal; weft searches from the first, so the choice is
// a function of the masks alone.
func SignalTarget(sig int, masks iter.Seq[SigSet]) int {
	i := 0
	for m := range masks {
		if !(m &^ Unblockable).Has(sig) {
			return i
		}
		i++
	}
	return -1
}

// Deliverable are the pending signals that act on a thread parked with
// effective mask mask: not blocked and not ignored. The lowest numbered
// one interrupts its call.
func (k ThreadSig) Deliverable(mask SigSet) SigSet {
	return k.AllPending() &^ (mask &^ Unblockable) &^ k.IgnoredSet()
}

// The kernel's restart codes (include/linux/errno.h): a call that returns
// one to user space with a signal pending is restarted or fails with
// EINTR by the rules of RestartOutcome. EINTR is what the caller sees.
const (
	EINTR                Errno = 4
	ERestartSys          Errno = 512
	ERestartNoIntr       Errno = 513
	ERestartNoHand       Errno = 514
	ERestartRestartBlock Errno = 516
)

// CallKind is how a call behaves when a signal interrupts its wait
// (signal(7), "Interruption of system calls and library functions by
// signal handlers").
type CallKind int

const (
	// CallRestartable: restarted if the handler has SA_RESTART, else
	// EINTR (read, write, wait4, accept, connect, an untimed futex wait,
	// flock …): -ERESTARTSYS.
	CallRestartable CallKind = iota
	// CallNeverRestarted: EINTR whatever SA_RESTART says (poll, select,
	// epoll_wait and their p- forms, nanosleep, SysV semop and msgsnd/
	// msgrcv, a socket call with a timeout, a timed futex wait).
	CallNeverRestarted
	// CallPause: pause(2) returns -ERESTARTNOHAND: EINTR after a
	// handler, restarted (it goes on waiting) when none runs.
	CallPause
	// CallSigsuspend: rt_sigsuspend(2) is performed by the kernel with
	// the signal pending: it installs the mask, runs the handler and
	// returns EINTR itself.
	CallSigsuspend
	// CallSigtimedwait: rt_sigtimedwait(2) takes an awaited signal
	// (performed by the kernel, which dequeues it); another one
	// interrupts it with EINTR.
	CallSigtimedwait
)

// Interrupted is a parked call's answer when sig interrupts it:
// Continue, the kernel performs the call (and finds the signal pending),
// or Errno, returned at once (a restart code or EINTR; the kernel then
// runs the handler and applies SA_RESTART, RestartOutcome).
type Interrupted struct {
	Continue bool
	Errno    Errno
}

// Interrupt is the answer of a call of kind kind interrupted by sig;
// awaited is rt_sigtimedwait's set.
func Interrupt(kind CallKind, sig int, awaited SigSet) Interrupted {
	switch kind {
	case CallNeverRestarted:
		return Interrupted{Errno: EINTR}
	case CallPause:
		return Interrupted{Errno: ERestartNoHand}
	case CallSigsuspend:
		return Interrupted{Continue: true}
	case CallSigtimedwait:
		if awaited.Has(sig) {
			return Interrupted{Continue: true}
		}
		return Interrupted{Errno: EINTR}
	}
	return Interrupted{Errno: ERestartSys}
}

// RestartOutcome is what the kernel does with a call's return value r
// once a signal is taken (arch/x86/kernel/signal.c, handle_signal and
// arch_do_signal_or_restart): handled says a handler runs, saRestart its
// SA_RESTART flag. restart true means the call runs again; otherwise the
// caller sees r, a restart code becoming EINTR.
func RestartOutcome(r Errno, handled, saRestart bool) (restart bool, seen Errno) {
	switch r {
	case ERestartNoHand, ERestartRestartBlock:
		if handled {
			return false, EINTR
		}
		return true, 0
	case ERestartSys:
		if handled && !saRestart {
			return false, EINTR
		}
		return true, 0
	case ERestartNoIntr:
		return true, 0
	}
	return false, r
}

// SiginfoSize is sizeof(siginfo_t).
const SiginfoSize = 128

// Offsets in a siginfo (asm-generic/siginfo.h, x86-64): si_signo,
// si_code, then the union: si_pid and si_uid (kill, _rt, _sigchld),
// si_tid and si_overrun (_timer), si_value (_rt, _timer; its low half is
// si_int), si_status (_sigchld, where si_int lies), si_utime and
// si_stime (_sigchld).
const (
	SiSignoOff   = 0
	SiCodeOff    = 8
	SiPidOff     = 16
	SiUIDOff     = 20
	SiTimerIDOff = 16
	SiOverrunOff = 20
	SiStatusOff  = 24
	SiValueOff   = 24
	SiUtimeOff   = 32
	SiStimeOff   = 40
)

// si_code values (asm-generic/siginfo.h).
const (
	SIUser   = 0
	SIKernel = 0x80
	SIQueue  = -1
	SITimer  = -2
	SITkill  = -6

	CLDExited = 1
	CLDKilled = 2
	CLDDumped = 3
)

// KernelCode reports whether code is one the kernel keeps for itself:
// si_code ≥ 0 (SI_USER, SI_KERNEL, a fault's) or SI_TKILL. A process
// queueing such a siginfo to another gets EPERM (rt_sigqueueinfo(2)).
func KernelCode(code int32) bool { return code >= 0 || code == SITkill }

// NewSiginfo is a siginfo for sig with code from pid and uid (the
// _kill/_rt layout).
func NewSiginfo(sig int, code int32, pid, uid uint32) []byte {
	info := make([]byte, SiginfoSize)
	SetSigno(info, sig)
	SetCode(info, code)
	binary.LittleEndian.PutUint32(info[SiPidOff:], pid)
	binary.LittleEndian.PutUint32(info[SiUIDOff:], uid)
	return info
}

// TimerSiginfo is the siginfo of POSIX timer id's signal sig: SI_TIMER,
// the timer, its overrun count and its sigev_value (timer_create(2)).
func TimerSiginfo(sig, id, overrun int, value uint64) []byte {
	info := make([]byte, SiginfoSize)
	SetSigno(info, sig)
	SetCode(info, SITimer)
	binary.LittleEndian.PutUint32(info[SiTimerIDOff:], uint32(id))
	binary.LittleEndian.PutUint32(info[SiOverrunOff:], uint32(overrun))
	binary.LittleEndian.PutUint64(info[SiValueOff:], value)
	return info
}

// SetSigno stores si_signo.
func SetSigno(info []byte, sig int) { binary.LittleEndian.PutUint32(info[SiSignoOff:], uint32(sig)) }

// Code is si_code.
func Code(info []byte) int32 { return int32(binary.LittleEndian.Uint32(info[SiCodeOff:])) }

// SetCode stores si_code.
func SetCode(info []byte, code int32) { binary.LittleEndian.PutUint32(info[SiCodeOff:], uint32(code)) }

// SiginfoPid is si_pid.
func SiginfoPid(info []byte) uint32 { return binary.LittleEndian.Uint32(info[SiPidOff:]) }

// SiginfoStatus is si_status (si_int).
func SiginfoStatus(info []byte) uint32 { return binary.LittleEndian.Uint32(info[SiStatusOff:]) }

// Signals the kernel sends in its own form. A process may queue only
// SI_QUEUE (and other negative codes but SI_TKILL) for another
// (KernelCode); the kernel's own codes it takes only from the receiving
// thread itself. So weft has the receiving thread queue the kernel's
// form when it can (the supervisor's queueKernelForm), and otherwise
// queues SI_QUEUE with the kernel's code marked in the high half of
// si_ptr (padding in _sigchld and in SI_KERNEL's siginfo); at a
// handler's delivery stop the supervisor rewrites it to the kernel's
// form (KernelForm). A signalfd read or sigwaitinfo takes a marked one as
// it is (si_code SI_QUEUE, the mark in the high half of ssi_ptr). Two
// siginfos are so marked:
//   - a child's SIGCHLD (ChildSiginfo): the child's virtual pid, the uid,
//     the wait status where si_status lies (si_int), the CLD_* code;
//   - ITIMER_REAL's SIGALRM (RealSiginfo): SI_KERNEL from pid and uid 0,
//     as it_real_fn sends it (SEND_SIG_PRIV).

// childMark is added to the kernel's code in the high half of si_ptr:
// "\x00few" (the CLD_* codes, SI_KERNEL 0x80).
const childMark = 0x77656600

// siMarkOff is the high half of si_ptr.
const siMarkOff = 28

// ChildSiginfo is weft's exit signal sig (SIGCHLD, or the one a clone
// child was given) for the end of a child with virtual pid vpid, from the
// kernel's waitid siginfo of that end (its si_code and si_status).
func ChildSiginfo(sig int, vpid, uid uint32, kernel []byte) []byte {
	info := NewSiginfo(sig, SIQueue, vpid, uid)
	binary.LittleEndian.PutUint32(info[SiStatusOff:], SiginfoStatus(kernel))
	binary.LittleEndian.PutUint32(info[siMarkOff:], childMark+uint32(Code(kernel)))
	return info
}

// RealSiginfo is the siginfo of ITIMER_REAL's SIGALRM as weft queues it
// when the receiving thread cannot: SI_QUEUE from pid and uid 0, marked
// SI_KERNEL, Linux's code (KernelForm).
func RealSiginfo() []byte {
	info := NewSiginfo(SIGALRM, SIQueue, 0, 0)
	binary.LittleEndian.PutUint32(info[siMarkOff:], childMark+SIKernel)
	return info
}

// KernelForm rewrites a siginfo weft marked (ChildSiginfo, RealSiginfo)
// into the kernel's form and reports whether it was one; another siginfo
// is left as it is. A child's end gets si_code CLD_*, si_pid virtual,
// si_uid uid, si_status, si_utime and si_stime zero; ITIMER_REAL's
// SIGALRM gets SI_KERNEL with si_pid and si_uid 0.
func KernelForm(info []byte, uid uint32) bool {
	mark := binary.LittleEndian.Uint32(info[siMarkOff:])
	if Code(info) != SIQueue || mark != childMark+SIKernel && (mark < childMark+CLDExited || mark > childMark+CLDDumped) {
		return false
	}
	SetCode(info, int32(mark-childMark))
	binary.LittleEndian.PutUint32(info[siMarkOff:], 0)
	if mark == childMark+SIKernel {
		binary.LittleEndian.PutUint64(info[SiPidOff:], 0) // si_pid, si_uid
		return true
	}
	binary.LittleEndian.PutUint64(info[SiUtimeOff:], 0)
	binary.LittleEndian.PutUint64(info[SiStimeOff:], 0)
	binary.LittleEndian.PutUint32(info[SiUIDOff:], uid)
	return true
}

// SigAction is one struct sigaction as rt_sigaction(2) takes it on
// x86-64 (the kernel's layout, not glibc's: sa_handler, sa_flags,
// sa_restorer, sa_mask, 8 bytes each). The kernel keeps the action and
// runs the handler; weft records it for the world hash and checkpoints.
type SigAction struct{ Handler, Flags, Restorer, Mask uint64 }

// SigActionSize is the size of the kernel's struct sigaction.
const SigActionSize = 32

// sa_flags bits (asm-generic/signal.h, arch/x86/include/uapi/asm/signal.h).
const (
	SANoCldStop = 0x1
	SANoCldWait = 0x2
	SASiginfo   = 0x4
	SAOnstack   = 0x08000000
	SARestart   = 0x10000000
	SANodefer   = 0x40000000
	SAResethand = 0x80000000
)

// DecodeSigAction reads a struct sigaction; ok false when b is shorter
// than SigActionSize.
func DecodeSigAction(b []byte) (a SigAction, ok bool) {
	if len(b) < SigActionSize {
		return a, false
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
	return SigAction{Handler: u(0), Flags: u(1), Restorer: u(2), Mask: u(3)}, true
}

// Restarts reports whether a call a handler of a interrupts is
// restarted (SA_RESTART, RestartOutcome).
func (a SigAction) Restarts() bool { return a.Flags&SARestart != 0 }

// SigActions are the actions a node's calls installed, by signal.
type SigActions map[int]SigAction

// The handler values SIG_DFL and SIG_IGN.
const (
	SigDfl = 0
	SigIgn = 1
)

// Delivered follows what the kernel does to the actions as it delivers
// sig to a handler (get_signal): one installed with SA_RESETHAND gets
// SIG_DFL back as its handler runs, its flags and mask kept.
func (s SigActions) Delivered(sig int) {
	a, ok := s[sig]
	if !ok || a.Flags&SAResethand == 0 || a.Handler == SigDfl || a.Handler == SigIgn {
		return
	}
	a.Handler = SigDfl
	s[sig] = a
}

// Hash writes the actions for the world hash in signal order: the
// signal, then the handler, flags, restorer and mask.
func (s SigActions) Hash(put func(uint64)) {
	for _, sig := range slices.Sorted(maps.Keys(s)) {
		a := s[sig]
		put(uint64(sig))
		put(a.Handler)
		put(a.Flags)
		put(a.Restorer)
		put(a.Mask)
	}
}

// sigaltstack(2) flags and the kernel's minimum stack size.
const (
	SSOnstack    = 1
	SSDisable    = 2
	SSAutodisarm = 1 << 31
	MinSigStkSz  = 2048
)

// AltStack is a thread's alternate signal stack (sigaltstack(2)): Size
// 0 is none (SS_DISABLE); Flags is SS_AUTODISARM or 0.
type AltStack struct {
	SP, Size uint64
	Flags    uint32
}

// OnStack reports whether a thread with stack pointer sp runs on a: the
// kernel's on_sig_stack for a stack growing down (never with
// SS_AUTODISARM, which disarms the stack while a handler runs on it).
func (a AltStack) OnStack(sp uint64) bool {
	if a.Size == 0 || a.Flags&SSAutodisarm != 0 {
		return false
	}
	return sp > a.SP && sp-a.SP <= a.Size
}

// Set is sigaltstack(2) with a new stack (sp, size, flags) for a thread
// whose alternate stack is a: the thread's stack afterwards, or EPERM
// while the thread runs on a (userSP is asked for its stack pointer only
// then), EINVAL for a mode other than 0, SS_ONSTACK or SS_DISABLE, ENOMEM
// for a stack below MINSIGSTKSZ (MinSigStkSz) (the kernel's do_sigaltstack).
func (a AltStack) Set(sp, size uint64, flags uint32, userSP func() uint64) (AltStack, error) {
	if a.Size > 0 && a.Flags&SSAutodisarm == 0 && a.OnStack(userSP()) {
		return a, EPERM
	}
	switch mode := flags &^ SSAutodisarm; {
	case mode == SSDisable:
		return AltStack{}, nil
	case mode != 0 && mode != SSOnstack:
		return a, EINVAL
	case size < MinSigStkSz:
		return a, ENOMEM
	}
	return AltStack{SP: sp, Size: size, Flags: flags & SSAutodisarm}, nil
}

// Hash writes the alternate stack for the world hash: its pointer, size
// and flags.
func (a AltStack) Hash(put func(uint64)) {
	put(a.SP)
	put(a.Size)
	put(uint64(a.Flags))
}

// Hash writes the thread's sets for the world hash: pending, shared
// pending, blocked, ignored, caught.
func (k ThreadSig) Hash(put func(uint64)) {
	for _, s := range []SigSet{k.Pending, k.Shared, k.Blocked, k.Ignored, k.Caught} {
		put(uint64(s))
	}
}

func init() {
	for e, s := range map[Errno]string{EINTR: "EINTR", ERestartSys: "ERESTARTSYS", ERestartNoIntr: "ERESTARTNOINTR",
		ERestartNoHand: "ERESTARTNOHAND", ERestartRestartBlock: "ERESTART_RESTARTBLOCK"} {
		errnoNames[e] = s
	}
}
