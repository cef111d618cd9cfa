package vkernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// set is the signal set of sigs.
func set(sigs ...int) SigSet {
	var s SigSet
	for _, n := range sigs {
		s |= SigBit(n)
	}
	return s
}

// TestSigSet checks the set's bit layout (bit sig-1, as sigset_t), the
// numbers a call may name (valid_signal: 0 to _NSIG) and First.
func TestSigSet(t *testing.T) {
	cases := []struct {
		sig   int
		bit   SigSet
		valid bool
	}{
		{0, 0, true}, {1, 1, true}, {SIGKILL, 1 << 8, true}, {SIGRTMIN, 1 << 31, true},
		{MaxSignal, 1 << 63, true}, {-1, 0, false}, {65, 0, false},
	}
	for _, c := range cases {
		if got := SigBit(c.sig); got != c.bit {
			t.Errorf("SigBit(%d) = %#x, want %#x", c.sig, got, c.bit)
		}
		if got := ValidSignal(c.sig); got != c.valid {
			t.Errorf("ValidSignal(%d) = %v, want %v", c.sig, got, c.valid)
		}
	}
	if Unblockable != set(SIGKILL, SIGSTOP) {
		t.Errorf("Unblockable %#x", Unblockable)
	}
	for _, c := range []struct {
		s    SigSet
		want int
	}{{0, 0}, {set(12, 3), 3}, {set(64), 64}, {set(SIGRTMIN, 40), SIGRTMIN}} {
		if got := c.s.First(); got != c.want {
			t.Errorf("%#x.First() = %d, want %d", c.s, got, c.want)
		}
	}
}

// TestDefaultAction checks every standard signal's default action
// against signal(7)'s table, and real-time signals (Term).
func TestDefaultAction(t *testing.T) {
	want := map[int]Action{
		SIGHUP: ActTerm, SIGINT: ActTerm, SIGQUIT: ActCore, SIGILL: ActCore, SIGTRAP: ActCore, SIGABRT: ActCore,
		SIGBUS: ActCore, SIGFPE: ActCore, SIGKILL: ActTerm, SIGUSR1: ActTerm, SIGSEGV: ActCore, SIGUSR2: ActTerm,
		SIGPIPE: ActTerm, SIGALRM: ActTerm, SIGTERM: ActTerm, SIGSTKFLT: ActTerm, SIGCHLD: ActIgn, SIGCONT: ActCont,
		SIGSTOP: ActStop, SIGTSTP: ActStop, SIGTTIN: ActStop, SIGTTOU: ActStop, SIGURG: ActIgn, SIGXCPU: ActCore,
		SIGXFSZ: ActCore, SIGVTALRM: ActTerm, SIGPROF: ActTerm, SIGWINCH: ActIgn, SIGIO: ActTerm, SIGPWR: ActTerm,
		SIGSYS: ActCore,
	}
	for sig := 1; sig <= MaxSignal; sig++ {
		w, ok := want[sig]
		if !ok {
			w = ActTerm // SIGRTMIN..SIGRTMAX
		}
		if got := DefaultAction(sig); got != w {
			t.Errorf("DefaultAction(%d) = %d, want %d", sig, got, w)
		}
	}
}

// TestDisposition checks what a signal does on arrival (signal(7),
// "Signal dispositions"): a handler or an explicit ignore first, then
// the default; SIGKILL and SIGSTOP keep their defaults whatever the sets
// say; and which signals kill at once (Kills: not blocked, terminating).
func TestDisposition(t *testing.T) {
	cases := []struct {
		name  string
		k     ThreadSig
		sig   int
		want  Disposition
		kills bool
	}{
		{"default terminate", ThreadSig{}, SIGTERM, DispTerminate, true},
		{"default core dump terminates", ThreadSig{}, SIGSEGV, DispTerminate, true},
		{"caught", ThreadSig{Caught: set(SIGTERM)}, SIGTERM, DispHandler, false},
		{"explicitly ignored", ThreadSig{Ignored: set(SIGPIPE)}, SIGPIPE, DispIgnore, false},
		{"blocked terminating signal does not kill now", ThreadSig{Blocked: set(SIGUSR1)}, SIGUSR1, DispTerminate, false},
		{"SIGCHLD default ignore", ThreadSig{}, SIGCHLD, DispIgnore, false},
		{"SIGURG default ignore", ThreadSig{}, SIGURG, DispIgnore, false},
		{"SIGWINCH default ignore", ThreadSig{}, SIGWINCH, DispIgnore, false},
		{"SIGCONT continues a running process: nothing", ThreadSig{}, SIGCONT, DispIgnore, false},
		{"SIGCHLD caught", ThreadSig{Caught: set(SIGCHLD)}, SIGCHLD, DispHandler, false},
		{"SIGSTOP stops", ThreadSig{}, SIGSTOP, DispStop, false},
		{"SIGTSTP stops", ThreadSig{}, SIGTSTP, DispStop, false},
		{"SIGTTIN stops", ThreadSig{}, SIGTTIN, DispStop, false},
		{"SIGTTOU stops", ThreadSig{}, SIGTTOU, DispStop, false},
		{"SIGTSTP caught", ThreadSig{Caught: set(SIGTSTP)}, SIGTSTP, DispHandler, false},
		{"SIGKILL: a caught bit is ignored", ThreadSig{Caught: set(SIGKILL), Ignored: set(SIGKILL)}, SIGKILL, DispTerminate, true},
		{"SIGKILL kills even blocked", ThreadSig{Blocked: set(SIGKILL)}, SIGKILL, DispTerminate, true},
		{"SIGSTOP: an ignored bit is ignored", ThreadSig{Ignored: set(SIGSTOP)}, SIGSTOP, DispStop, false},
		{"real-time default terminate", ThreadSig{}, SIGRTMIN + 2, DispTerminate, true},
		{"real-time caught", ThreadSig{Caught: set(64)}, 64, DispHandler, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.k.Disposition(c.sig); got != c.want {
				t.Errorf("disposition %d, want %d", got, c.want)
			}
			if got := c.k.Kills(c.sig); got != c.kills {
				t.Errorf("kills %v, want %v", got, c.kills)
			}
		})
	}
	k := ThreadSig{Ignored: set(SIGPIPE), Caught: set(SIGCHLD)}
	if got, want := k.IgnoredSet(), set(SIGPIPE, SIGURG, SIGWINCH, SIGCONT); got != want {
		t.Errorf("ignored set %#x, want %#x", got, want)
	}
}

// TestEffectiveMask checks the mask a parked call waits under:
// rt_sigsuspend and the p- calls install their argument
// (set_user_sigmask), rt_sigtimedwait unblocks its set
// (do_sigtimedwait), and SIGKILL and SIGSTOP are never blocked.
func TestEffectiveMask(t *testing.T) {
	cases := []struct {
		name    string
		blocked SigSet
		w       Wait
		arg     SigSet
		want    SigSet
	}{
		{"plain: the thread's mask", set(SIGUSR1, SIGINT), WaitPlain, set(SIGTERM), set(SIGUSR1, SIGINT)},
		{"plain: SIGKILL and SIGSTOP dropped", set(SIGKILL, SIGSTOP, SIGUSR2), WaitPlain, 0, set(SIGUSR2)},
		{"sigsuspend replaces the mask", set(SIGUSR1), WaitSigsuspend, set(SIGINT, SIGKILL), set(SIGINT)},
		{"sigsuspend with an empty mask blocks nothing", ^SigSet(0), WaitSigsuspend, 0, 0},
		{"sigtimedwait unblocks the awaited set", set(SIGUSR1, SIGUSR2, 40), WaitSigtimedwait, set(SIGUSR1, 40), set(SIGUSR2)},
		{"ppoll/pselect/epoll_pwait install their mask", set(SIGUSR1), WaitTempMask, set(SIGUSR2, SIGSTOP), set(SIGUSR2)},
	}
	for _, c := range cases {
		if got := EffectiveMask(c.blocked, c.w, c.arg); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}

// TestSignalTarget checks which thread a process-directed signal goes
// to (complete_signal: the main thread if it wants it, else another that
// does not block it; none when all block it, the signal staying pending
// for the process).
func TestSignalTarget(t *testing.T) {
	cases := []struct {
		name  string
		sig   int
		masks []SigSet
		want  int
	}{
		{"main thread unblocked", SIGUSR1, []SigSet{0, 0, 0}, 0},
		{"main blocks: first other that does not", SIGUSR1, []SigSet{set(SIGUSR1), set(SIGUSR1), 0, 0}, 2},
		{"every thread blocks it", SIGUSR1, []SigSet{set(SIGUSR1), set(SIGUSR1)}, -1},
		{"no live thread", SIGUSR1, nil, -1},
		{"SIGKILL cannot be blocked", SIGKILL, []SigSet{set(SIGKILL), set(SIGKILL)}, 0},
		{"SIGSTOP cannot be blocked", SIGSTOP, []SigSet{^SigSet(0)}, 0},
		{"real-time signal", 40, []SigSet{set(40), set(41), set(40)}, 1},
		{"other signals blocked do not matter", SIGTERM, []SigSet{^set(SIGTERM)}, 0},
	}
	for _, c := range cases {
		if got := SignalTarget(c.sig, slices.Values(c.masks)); got != c.want {
			t.Errorf("%s: thread %d, want %d", c.name, got, c.want)
		}
	}
}

// TestDeliverable checks which pending signals act on a parked thread:
// pending for it or its process, not blocked under its effective mask,
// not ignored (explicitly or by default).
func TestDeliverable(t *testing.T) {
	k := ThreadSig{Pending: set(SIGUSR1, SIGCHLD), Shared: set(SIGUSR2, SIGPIPE, 40), Ignored: set(SIGPIPE)}
	cases := []struct {
		mask SigSet
		want SigSet
	}{
		{0, set(SIGUSR1, SIGUSR2, 40)},
		{set(SIGUSR1), set(SIGUSR2, 40)},
		{^SigSet(0), 0},
	}
	for _, c := range cases {
		if got := k.Deliverable(c.mask); got != c.want {
			t.Errorf("mask %#x: %#x, want %#x", c.mask, got, c.want)
		}
	}
	k.Pending |= set(SIGKILL)
	if got := k.Deliverable(^SigSet(0)); got != set(SIGKILL) {
		t.Errorf("SIGKILL under a full mask: %#x", got)
	}
}

// TestInterrupt checks an interrupted call's answer and what the caller
// then sees, by signal(7)'s rules: with a handler, SA_RESTART restarts
// read and the other -ERESTARTSYS calls, never poll, select, epoll_wait,
// nanosleep, SysV waits or a call with a timeout; pause returns EINTR
// after a handler and goes on waiting when none ran; sigsuspend and an
// awaited sigtimedwait signal are performed by the kernel.
func TestInterrupt(t *testing.T) {
	cases := []struct {
		name      string
		kind      CallKind
		sig       int
		awaited   SigSet
		want      Interrupted
		handled   bool
		saRestart bool
		wantRerun bool
		wantErrno Errno
	}{
		{"read, handler with SA_RESTART: restarted", CallRestartable, SIGUSR1, 0, Interrupted{Errno: ERestartSys}, true, true, true, 0},
		{"read, handler without SA_RESTART: EINTR", CallRestartable, SIGUSR1, 0, Interrupted{Errno: ERestartSys}, true, false, false, EINTR},
		{"read, no handler ran: restarted", CallRestartable, SIGCHLD, 0, Interrupted{Errno: ERestartSys}, false, false, true, 0},
		{"poll, SA_RESTART: still EINTR", CallNeverRestarted, SIGUSR1, 0, Interrupted{Errno: EINTR}, true, true, false, EINTR},
		{"pause after a handler: EINTR", CallPause, SIGALRM, 0, Interrupted{Errno: ERestartNoHand}, true, true, false, EINTR},
		{"pause, no handler: waits again", CallPause, SIGALRM, 0, Interrupted{Errno: ERestartNoHand}, false, false, true, 0},
		{"sigsuspend: the kernel performs it", CallSigsuspend, SIGUSR2, 0, Interrupted{Continue: true}, true, false, false, 0},
		{"sigtimedwait, an awaited signal: the kernel takes it", CallSigtimedwait, 40, set(40), Interrupted{Continue: true}, false, false, false, 0},
		{"sigtimedwait, another signal: EINTR", CallSigtimedwait, SIGUSR1, set(40), Interrupted{Errno: EINTR}, true, true, false, EINTR},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Interrupt(c.kind, c.sig, c.awaited)
			if got != c.want {
				t.Fatalf("answer %+v, want %+v", got, c.want)
			}
			if got.Continue {
				return
			}
			rerun, seen := RestartOutcome(got.Errno, c.handled, c.saRestart)
			if rerun != c.wantRerun || seen != c.wantErrno {
				t.Errorf("outcome restart %v %v, want %v %v", rerun, seen, c.wantRerun, c.wantErrno)
			}
		})
	}
	if rerun, seen := RestartOutcome(ERestartNoIntr, true, false); !rerun || seen != 0 {
		t.Errorf("ERESTARTNOINTR: %v %v", rerun, seen)
	}
	if rerun, seen := RestartOutcome(EAGAIN, true, true); rerun || seen != EAGAIN {
		t.Errorf("an ordinary errno: %v %v", rerun, seen)
	}
	if ERestartSys.Error() != "ERESTARTSYS" || EINTR.Error() != "EINTR" {
		t.Errorf("names: %v %v", ERestartSys, EINTR)
	}
}

// TestSiginfo checks the 128-byte siginfo layout weft writes (x86-64,
// asm-generic/siginfo.h): si_signo at 0, si_code at 8, si_pid/si_uid at
// 16/20, a timer's si_tid/si_overrun/si_value at 16/20/24; and which
// codes a process may not queue to another (rt_sigqueueinfo(2): EPERM).
func TestSiginfo(t *testing.T) {
	info := NewSiginfo(SIGUSR1, SIQueue, 101, 1000)
	want := make([]byte, SiginfoSize)
	binary.LittleEndian.PutUint32(want[0:], 10)
	binary.LittleEndian.PutUint32(want[8:], 0xffffffff)
	binary.LittleEndian.PutUint32(want[16:], 101)
	binary.LittleEndian.PutUint32(want[20:], 1000)
	if !bytes.Equal(info, want) {
		t.Errorf("SI_QUEUE siginfo % x", info)
	}
	if Code(info) != SIQueue || SiginfoPid(info) != 101 {
		t.Errorf("code %d pid %d", Code(info), SiginfoPid(info))
	}
	SetSigno(info, 40)
	SetCode(info, SITkill)
	if binary.LittleEndian.Uint32(info) != 40 || Code(info) != -6 {
		t.Errorf("after set: % x", info[:12])
	}

	tm := TimerSiginfo(SIGRTMIN+2, 3, 5, 0x1122334455667788)
	if len(tm) != SiginfoSize || binary.LittleEndian.Uint32(tm[0:]) != 34 || Code(tm) != -2 ||
		binary.LittleEndian.Uint32(tm[16:]) != 3 || binary.LittleEndian.Uint32(tm[20:]) != 5 ||
		binary.LittleEndian.Uint64(tm[24:]) != 0x1122334455667788 {
		t.Errorf("timer siginfo % x", tm[:32])
	}

	for _, c := range []struct {
		code   int32
		kernel bool
	}{{SIUser, true}, {SIKernel, true}, {1, true}, {SITkill, true}, {SIQueue, false}, {SITimer, false}, {-3, false}} {
		if got := KernelCode(c.code); got != c.kernel {
			t.Errorf("KernelCode(%d) = %v, want %v", c.code, got, c.kernel)
		}
	}
}

// TestChildSiginfo checks weft's SIGCHLD round trip: queued as SI_QUEUE
// with the virtual pid, the status in si_int and the CLD_* code marked;
// rewritten for a handler to the kernel's form; a siginfo weft did not
// mark left alone.
func TestChildSiginfo(t *testing.T) {
	kernel := make([]byte, SiginfoSize)
	SetSigno(kernel, SIGCHLD)
	SetCode(kernel, CLDKilled)
	binary.LittleEndian.PutUint32(kernel[SiPidOff:], 31337) // a host pid
	binary.LittleEndian.PutUint32(kernel[SiStatusOff:], SIGTERM)
	binary.LittleEndian.PutUint64(kernel[SiUtimeOff:], 77)

	info := ChildSiginfo(SIGCHLD, 102, 1000, kernel)
	if Code(info) != SIQueue || SiginfoPid(info) != 102 || SiginfoStatus(info) != SIGTERM ||
		binary.LittleEndian.Uint32(info[0:]) != SIGCHLD || binary.LittleEndian.Uint64(info[SiUtimeOff:]) != 0 {
		t.Errorf("queued % x", info[:48])
	}
	if !KernelForm(info, 1001) {
		t.Fatal("weft's SIGCHLD not recognised")
	}
	if Code(info) != CLDKilled || SiginfoPid(info) != 102 || SiginfoStatus(info) != SIGTERM ||
		binary.LittleEndian.Uint32(info[SiUIDOff:]) != 1001 || binary.LittleEndian.Uint32(info[28:]) != 0 {
		t.Errorf("for the handler % x", info[:48])
	}
	// A clone child's other exit signal carries the same virtual form.
	usr := ChildSiginfo(SIGUSR1, 103, 1000, kernel)
	if binary.LittleEndian.Uint32(usr[0:]) != SIGUSR1 || SiginfoPid(usr) != 103 || !KernelForm(usr, 1000) || Code(usr) != CLDKilled {
		t.Errorf("SIGUSR1 exit signal % x", usr[:48])
	}
	other := NewSiginfo(SIGCHLD, SIQueue, 5, 6)
	before := slices.Clone(other)
	if KernelForm(other, 1001) || !bytes.Equal(other, before) {
		t.Errorf("an unmarked siginfo was rewritten: % x", other[:32])
	}
}

// TestRealSiginfo checks ITIMER_REAL's SIGALRM round trip: queued as
// SI_QUEUE from pid 0 with SI_KERNEL marked, rewritten to Linux's form
// (SI_KERNEL, si_pid and si_uid 0, nothing after: it_real_fn's
// SEND_SIG_PRIV) and then not rewritten again.
func TestRealSiginfo(t *testing.T) {
	info := RealSiginfo()
	if Code(info) != SIQueue || binary.LittleEndian.Uint32(info[0:]) != SIGALRM || SiginfoPid(info) != 0 {
		t.Errorf("queued % x", info[:32])
	}
	if !KernelForm(info, 1000) {
		t.Fatal("weft's SIGALRM not recognised")
	}
	want := make([]byte, SiginfoSize)
	SetSigno(want, SIGALRM)
	SetCode(want, SIKernel)
	if !bytes.Equal(info, want) {
		t.Errorf("kernel form % x, want % x", info[:32], want[:32])
	}
	if KernelForm(info, 1000) {
		t.Error("the kernel's form was rewritten again")
	}
}

// TestAltStack checks sigaltstack(2)'s rules (do_sigaltstack): EPERM
// while running on the current stack (not with SS_AUTODISARM), EINVAL for
// an unknown mode, ENOMEM below MINSIGSTKSZ, SS_DISABLE clears it;
// on_sig_stack's bounds for a stack growing down.
func TestAltStack(t *testing.T) {
	cur := AltStack{SP: 0x10000, Size: 0x4000}
	cases := []struct {
		name   string
		cur    AltStack
		userSP uint64
		sp     uint64
		size   uint64
		flags  uint32
		want   AltStack
		err    error
	}{
		{"install", AltStack{}, 0x7fff0000, 0x20000, 8192, 0, AltStack{SP: 0x20000, Size: 8192}, nil},
		{"SS_ONSTACK is accepted as 0", AltStack{}, 0, 0x20000, 8192, SSOnstack, AltStack{SP: 0x20000, Size: 8192}, nil},
		{"SS_AUTODISARM kept", AltStack{}, 0, 0x20000, 8192, SSAutodisarm, AltStack{SP: 0x20000, Size: 8192, Flags: SSAutodisarm}, nil},
		{"disable", cur, 0x7fff0000, 0, 0, SSDisable, AltStack{}, nil},
		{"unknown mode", AltStack{}, 0, 0x20000, 8192, 4, AltStack{}, EINVAL},
		{"SS_ONSTACK|SS_DISABLE", AltStack{}, 0, 0x20000, 8192, 3, AltStack{}, EINVAL},
		{"too small", AltStack{}, 0, 0x20000, MinSigStkSz - 1, 0, AltStack{}, ENOMEM},
		{"exactly MINSIGSTKSZ", AltStack{}, 0, 0x20000, MinSigStkSz, 0, AltStack{SP: 0x20000, Size: MinSigStkSz}, nil},
		{"on the stack: EPERM", cur, 0x12000, 0x20000, 8192, 0, cur, EPERM},
		{"on the stack, disabling: EPERM", cur, 0x14000, 0, 0, SSDisable, cur, EPERM},
		{"at its base: not on it", cur, 0x10000, 0x20000, 8192, 0, AltStack{SP: 0x20000, Size: 8192}, nil},
		{"autodisarm: never on it", AltStack{SP: 0x10000, Size: 0x4000, Flags: SSAutodisarm}, 0x12000, 0, 0, SSDisable, AltStack{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.cur.Set(c.sp, c.size, c.flags, func() uint64 { return c.userSP })
			if !errors.Is(err, c.err) || got != c.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, err, c.want, c.err)
			}
		})
	}
	asked := false
	if _, err := (AltStack{}).Set(0x20000, 8192, 0, func() uint64 { asked = true; return 0 }); err != nil || asked {
		t.Errorf("no stack yet: the stack pointer was read (%v) or %v", asked, err)
	}
}

// TestSignalHash pins the words the signal state writes to the world
// hash, in the order the supervisor wrote them before the move: a
// thread's five sets, then its alternate stack's pointer, size, flags.
func TestSignalHash(t *testing.T) {
	var got []uint64
	put := func(v uint64) { got = append(got, v) }
	ThreadSig{Pending: 1, Shared: 2, Blocked: 3, Ignored: 4, Caught: 5}.Hash(put)
	AltStack{SP: 6, Size: 7, Flags: SSAutodisarm}.Hash(put)
	if want := []uint64{1, 2, 3, 4, 5, 6, 7, 1 << 31}; !slices.Equal(got, want) {
		t.Errorf("hash input %v, want %v", got, want)
	}
}

// TestSigAction checks the kernel's struct sigaction layout (x86-64:
// handler, flags, restorer, mask), SA_RESTART's reading, and the words
// the recorded actions write to the world hash: in signal order, each
// as the supervisor wrote them before the move.
func TestSigAction(t *testing.T) {
	b := make([]byte, SigActionSize)
	for i, v := range []uint64{0x401000, SASiginfo | SARestart | SAOnstack, 0x401200, uint64(set(SIGUSR2))} {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	a, ok := DecodeSigAction(b)
	want := SigAction{Handler: 0x401000, Flags: 0x4 | 0x10000000 | 0x08000000, Restorer: 0x401200, Mask: 1 << 11}
	if !ok || a != want {
		t.Errorf("decoded %+v %v, want %+v", a, ok, want)
	}
	if !a.Restarts() || (SigAction{Flags: SASiginfo}).Restarts() {
		t.Error("SA_RESTART misread")
	}
	if _, ok := DecodeSigAction(b[:31]); ok {
		t.Error("a short struct decoded")
	}
	var got []uint64
	SigActions{SIGTERM: {1, 2, 3, 4}, SIGINT: {5, 6, 7, 8}}.Hash(func(v uint64) { got = append(got, v) })
	if w := []uint64{SIGINT, 5, 6, 7, 8, SIGTERM, 1, 2, 3, 4}; !slices.Equal(got, w) {
		t.Errorf("hash input %v, want %v", got, w)
	}
}

// TestSigActionsDelivered checks the kernel's reset of a one-shot action
// at delivery: SA_RESETHAND's handler becomes SIG_DFL, flags and mask
// kept; any other action, and an ignored or default one, stay.
func TestSigActionsDelivered(t *testing.T) {
	const h = 0x401000
	for _, tc := range []struct {
		name string
		in   SigAction
		want SigAction
	}{
		{"one-shot", SigAction{Handler: h, Flags: SAResethand | SASiginfo, Mask: 4}, SigAction{Handler: SigDfl, Flags: SAResethand | SASiginfo, Mask: 4}},
		{"kept", SigAction{Handler: h, Flags: SASiginfo}, SigAction{Handler: h, Flags: SASiginfo}},
		{"ignored one-shot", SigAction{Handler: SigIgn, Flags: SAResethand}, SigAction{Handler: SigIgn, Flags: SAResethand}},
	} {
		s := SigActions{SIGUSR1: tc.in}
		s.Delivered(SIGUSR1)
		s.Delivered(SIGUSR2) // none installed: nothing added
		if got := s[SIGUSR1]; got != tc.want || len(s) != 1 {
			t.Errorf("%s: %+v (%d actions), want %+v", tc.name, got, len(s), tc.want)
		}
	}
}
