//go:build linux && amd64

package supervisor

import (
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The TSC. rdtsc and rdtscp are instructions, not syscalls, so no filter
// sees them. Each read of the time-stamp counter is made to fault: by
// default weft patches every TSC read in the node's code into an int
// with a vector of its own, which raises the same fault
// (tscpatch_linux.go); otherwise (WEFT_TSC=trap, or code weft cannot
// patch) prctl(PR_SET_TSC, PR_TSC_SIGSEGV) makes rdtsc itself fault (the
// setting survives exec and is inherited by threads). Every node is
// kept seized with ptrace from its exec on, so the fault is a
// signal-delivery stop that weft sees first. weft then emulates the
// instruction from the virtual clock — rax and rdx get the counter, rcx
// the processor id for rdtscp, rip steps over it — and resumes the thread
// without the signal. The dynamic loader, which times its start-up with
// rdtsc, and every program then read the same ticks in every run.
//
// The virtual counter ticks once per nanosecond of the node's monotonic
// clock (so at the node's drifted rate: the TSC is the machine's own
// clock), and each read advances it at least one tick (code that divides
// by the difference of two reads never sees zero). It is per node, as a
// counter is per machine.
//
// Cost: a seized node pays for ptrace only when a stop happens. weft no
// longer polls the running node's threads with wait4 around every
// notification (that polling, not ptrace, made a seized node's
// intercepted syscall cost about twice an unseized one's, and a
// ptrace-stop poll with a timeout made every stop wait for it). Instead
// one waiter goroutine per process blocks in waitid(P_ALL, WNOWAIT) and
// turns every reportable stop or end of a child into a wakeup on each
// world's eventfd, which waitEvent polls beside the listener; only then
// does weft collect the stops.

// tscPerSec is the virtual counter's frequency: one tick per nanosecond.
const tscPerSec = int64(time.Second)

// siKernel is SI_KERNEL, the code of the SIGSEGV a disabled TSC raises.
const siKernel = 0x80

// prSetTSC and prTSCSigsegv are prctl's PR_SET_TSC and PR_TSC_SIGSEGV.
const (
	prSetTSC     = 26
	prTSCSigsegv = 2
)

// readTSC is node n's counter for one read now.
func (w *World) readTSC(n *node) uint64 {
	mono, _ := w.nodeNow(n, unix.CLOCK_MONOTONIC)
	v := uint64(mono / (int64(time.Second) / tscPerSec))
	if v <= n.tsc {
		v = n.tsc + 1
	}
	n.tsc = v
	return v
}

// emulateTSC handles a stop of thread t that is an rdtsc or rdtscp
// fault: it performs the instruction from the virtual counter and resumes
// the thread without the signal. It reports whether the stop was one.
func (w *World) emulateTSC(t *task, ws unix.WaitStatus) (bool, error) {
	if !ws.Stopped() || ws.StopSignal() != unix.SIGSEGV || ws.TrapCause() > 0 {
		return false, nil
	}
	var handled bool
	var err error
	t.n.onTracer(func() {
		var info [siginfoSize]byte
		if _, _, e := unix.RawSyscall6(unix.SYS_PTRACE, unix.PTRACE_GETSIGINFO, uintptr(t.tid), 0, uintptr(unsafe.Pointer(&info[0])), 0, 0); e != 0 {
			return
		}
		if int32(info[8])|int32(info[9])<<8|int32(info[10])<<16|int32(info[11])<<24 != siKernel {
			return
		}
		var regs unix.PtraceRegs
		if unix.PtraceGetRegs(t.tid, &regs) != nil {
			return
		}
		insn := make([]byte, 15)
		k, _ := readMem(t.tid, uintptr(regs.Rip), insn)
		if k < 2 {
			return
		}
		insn = insn[:k]
		if ci, ok := cpuInsnAt(insn); ok { // a CPU-identity instruction (cpu_linux.go)
			w.emulateCPU(ci, &regs)
			if err = unix.PtraceSetRegs(t.tid, &regs); err != nil {
				return
			}
			handled, err = true, unix.PtraceCont(t.tid, 0)
			return
		}
		// weft's patch of a TSC read (tscpatch_linux.go), or a trapped
		// rdtsc or rdtscp, perhaps with prefixes
		n, rdtscp, ok := patchedTSC(insn)
		if !ok {
			k := insnLen(insn)
			site, isTSC := tscInsn(insn[:k], 0)
			if !isTSC {
				return
			}
			n, rdtscp = int(site.length), site.rdtscp
		}
		if rdtscp {
			regs.Rcx = 0 // IA32_TSC_AUX: processor 0
		}
		regs.Rip += uint64(n)
		v := w.readTSC(t.n)
		regs.Rax, regs.Rdx = v&0xffffffff, v>>32
		if err = unix.PtraceSetRegs(t.tid, &regs); err != nil {
			return
		}
		handled, err = true, unix.PtraceCont(t.tid, 0)
	})
	return handled, err
}

// stopNotifier wakes worlds when a child of the process has a stop or an
// end to collect: its waiter blocks in waitid(P_ALL, …, WNOWAIT), writes
// every registered eventfd, and waits until a world has collected
// (consumed) something, or a millisecond, before it looks again (an
// event nobody collects, e.g. a compiler child os/exec reaps, is
// reported again each millisecond until it is gone).
type stopNotifier struct {
	once  sync.Once
	mu    sync.Mutex
	fds   map[int]bool
	ack   chan struct{}
	kicks chan struct{} // a child was started: the waiter, idle without children, looks again
}

// register starts the waiter on first use and returns a new eventfd that
// it writes.
func (s *stopNotifier) register() (int, error) {
	s.once.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.fds = map[int]bool{}
		s.ack = make(chan struct{}, 1)
		s.kicks = make(chan struct{}, 1)
		go s.loop()
	})
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return -1, err
	}
	s.mu.Lock()
	s.fds[fd] = true
	s.mu.Unlock()
	return fd, nil
}

// unregister closes an eventfd register returned.
func (s *stopNotifier) unregister(fd int) {
	s.mu.Lock()
	delete(s.fds, fd)
	s.mu.Unlock()
	unix.Close(fd)
}

// started tells the waiter that a child was started (it may be waiting
// for one); a no-op before the waiter exists.
func (s *stopNotifier) started() {
	s.mu.Lock()
	k := s.kicks
	s.mu.Unlock()
	select {
	case k <- struct{}{}:
	default:
	}
}

// collected tells the waiter that a world has collected its children's
// events, so that it may block again.
func (s *stopNotifier) collected() {
	select {
	case s.ack <- struct{}{}:
	default:
	}
}

func (s *stopNotifier) loop() {
	one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
	timer := time.NewTimer(time.Hour)
	for {
		var info [siginfoSize]byte
		_, _, e := unix.Syscall6(unix.SYS_WAITID, unix.P_ALL, 0, uintptr(unsafe.Pointer(&info[0])),
			unix.WEXITED|unix.WSTOPPED|unix.WNOWAIT|unix.WALL, 0, 0)
		switch e {
		case 0:
		case unix.EINTR:
			continue
		default: // ECHILD: no children; wait for one (or look again in a while)
			timer.Reset(100 * time.Millisecond)
			select {
			case <-s.kicks:
				timer.Stop() // Go ≥ 1.23: no stale value to drain
			case <-timer.C:
			}
			continue
		}
		s.mu.Lock()
		for fd := range s.fds {
			unix.Write(fd, one)
		}
		s.mu.Unlock()
		timer.Reset(time.Millisecond)
		select {
		case <-s.ack:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// theStops is the launcher's stop waiter, reached through a variable set
// at init: syscall handlers wait with it (awaitEvent), and the launcher
// refers to the syscall table, a cycle package initialisation refuses.
var theStops func() *stopNotifier

func init() { theStops = func() *stopNotifier { return &getLauncher().stops } }

// stopFD returns the world's eventfd for stop wakeups, registering it on
// first use.
func (w *World) stopFD() (int, error) {
	if w.stops < 0 {
		fd, err := theStops().register()
		if err != nil {
			return -1, err
		}
		w.stops = fd
	}
	return w.stops, nil
}

// closeStopFD releases the world's eventfd.
func (w *World) closeStopFD() {
	if w.stops >= 0 {
		getLauncher().stops.unregister(w.stops)
		w.stops = -1
	}
}

// waitTraced waits up to ms for seized node n's next event: a
// notification or its death (fds, as waitEvent polls them), or something
// its threads did (ptrace stops, among them rdtsc traps, and ends), which
// the waiter reports. ok false means nothing happened: waitEvent loops.
func (w *World) waitTraced(n *node, fds []unix.PollFd, ms int) (ev event, ok bool, err error) {
	sfd, err := w.stopFD()
	if err != nil {
		return 0, true, err
	}
	all := append(fds[:2:2], unix.PollFd{Fd: int32(sfd), Events: unix.POLLIN})
	k, err := unix.Poll(all, ms)
	switch {
	case err == unix.EINTR:
		return 0, false, nil
	case err != nil:
		return 0, true, err
	case all[0].Revents&unix.POLLIN != 0:
		return evNotif, true, nil
	case all[1].Revents != 0 || all[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0:
		return evExit, true, nil
	case k == 0:
		return 0, false, nil // the watchdog's turn
	}
	var b [8]byte
	unix.Read(sfd, b[:])
	gone, err := w.pollThreads(n)
	getLauncher().stops.collected()
	if err != nil || gone {
		return evExit, true, err
	}
	if n.cur == nil || n.cur.exited {
		return evNone, true, nil
	}
	return 0, false, nil
}
