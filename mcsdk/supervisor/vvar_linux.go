//go:build linux && amd64

package supervisor

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// The raw [vvar] pages. The kernel maps, beside the vDSO, read-only pages
// of its timekeeping data ([vvar], and [vvar_vclock] on newer kernels):
// the host's wall clock, its TSC-to-time scale, the clocks' raw counters.
// A node never needs them: weft replaces the vDSO with its own
// (vdso_linux.go), which reads weft's readings, or hides it (AT_IGNORE),
// so every time call is a syscall weft answers. A node that reads the
// pages directly would read the host's clock, so at every exec stop weft
// maps an inaccessible anonymous mapping over each of them
// (mmap(MAP_FIXED, PROT_NONE), injected: the layout of the address space
// is unchanged, and a read faults with SIGSEGV).

// vvarNames are the names /proc/PID/maps gives the kernel's time data.
var vvarNames = map[string]bool{"[vvar]": true, "[vvar_vclock]": true}

// hideVvar covers pid's [vvar] mappings, pid being in its exec event
// stop (PTRACE_EVENT_EXEC) with atExec, else at its execve's exit stop;
// with cpuid it also makes the new image's cpuid fault (faultCPUID). It
// leaves pid at the execve's exit stop, as execve returns. On the
// tracer.
func hideVvar(pid int, atExec, cpuid bool) error {
	maps, err := readMaps(pid)
	if err != nil {
		return err
	}
	var vv []mapping
	for _, m := range maps {
		if vvarNames[m.name] {
			vv = append(vv, m)
		}
	}
	if len(vv) == 0 && !cpuid {
		return nil
	}
	sys, err := vdsoSyscall(pid)
	if err != nil {
		return fmt.Errorf("hiding [vvar]: %v", err)
	}
	if atExec {
		// From the exec event stop to the execve's exit stop: execve has
		// not returned yet, and its return would overwrite rax.
		if err := unix.PtraceSyscall(pid, 0); err != nil {
			return err
		}
		if _, err := awaitSyscallStop(pid, atSyscall); err != nil {
			return err
		}
	}
	var saved unix.PtraceRegs
	if err := unix.PtraceGetRegs(pid, &saved); err != nil {
		return err
	}
	mask, err := blockSignals(pid) // a pending signal waits for the exec's return
	if err != nil {
		return err
	}
	for _, m := range vv {
		if err := injectMmapNone(pid, sys, saved, m.start, m.end-m.start); err != nil {
			return fmt.Errorf("hiding %s at %#x: %v", m.name, m.start, err)
		}
	}
	if cpuid {
		if err := faultCPUID(pid, sys, saved); err != nil {
			return err
		}
	}
	if err := setSignalMask(pid, mask); err != nil {
		return err
	}
	return unix.PtraceSetRegs(pid, &saved)
}

// injectMmapNone makes pid call mmap(addr, length, PROT_NONE,
// MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED, -1, 0) at the syscall instruction
// sysIP (mmap without PROT_EXEC passes the filter), from regs.
func injectMmapNone(pid int, sysIP uint64, regs unix.PtraceRegs, addr, length uint64) error {
	in := regs
	in.Rip, in.Rax, in.Orig_rax = sysIP, unix.SYS_MMAP, ^uint64(0)
	in.Rdi, in.Rsi, in.Rdx = addr, length, unix.PROT_NONE
	in.R10, in.R8, in.R9 = unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED, ^uint64(0), 0
	if err := unix.PtraceSetRegs(pid, &in); err != nil {
		return err
	}
	rax, err := runCall(pid, atSyscall)
	if err != nil {
		return err
	}
	if rax != addr {
		return fmt.Errorf("mmap returned %#x", rax)
	}
	return nil
}

// runCall runs the call thread tid's registers are set to, from a
// ptrace stop, to its exit stop (isStop tells a syscall stop), and
// returns its result.
func runCall(tid int, isStop func(unix.WaitStatus) bool) (uint64, error) {
	for stop := 0; stop < 2; stop++ { // the call's entry, then its exit
		if err := unix.PtraceSyscall(tid, 0); err != nil {
			return 0, err
		}
		if _, err := awaitSyscallStop(tid, isStop); err != nil {
			return 0, err
		}
	}
	var out unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &out); err != nil {
		return 0, err
	}
	return out.Rax, nil
}

// atSyscall accepts a syscall stop, with or without
// PTRACE_O_TRACESYSGOOD.
func atSyscall(ws unix.WaitStatus) bool {
	return ws.StopSignal() == unix.SIGTRAP|0x80 || ws.StopSignal() == unix.SIGTRAP && ws.TrapCause() == 0
}

// hideVvarUnlessNotifyAll is hideVvar, except where every syscall
// notifies weft (Config.NotifyAll, a diagnostic mode): there the injected
// mmap would wait for an answer nobody gives, and [vvar] stays mapped.
func hideVvarUnlessNotifyAll(pid int, atExec, cpuid, notifyAll bool) error {
	if notifyAll {
		return nil
	}
	return hideVvar(pid, atExec, cpuid)
}

// CPUID faulting. Where the machine can make cpuid fault (CPUIDFaults),
// weft turns it on in a process whose code it cannot all patch (a
// writable and executable mapping, a JIT compiler's code written after
// weft swept it, bytes it cannot decode), so that a cpuid there faults
// too and emulateCPU answers it from the virtual CPU (redteam
// jit-*-cpuid): at the exec stop (hideVvar) or at the traced call that
// mapped the code (faultCPUIDNow). Not in every process: the kernel then
// switches a machine register at each of the process's context switches,
// which on a virtual machine doubled the cost of an intercepted syscall
// (5000 getppid: 0.117 s to 0.232 s). The setting is reset by execve and
// kept by fork and clone, and is per thread: a process with more threads
// at that point keeps its cpuid native, named in the run's refusals
// (warnCPU). A node may not turn it off: the filter lets
// arch_prctl(ARCH_SET_CPUID) through only as weft injects it
// (cpuidMark), and sysArchPrctl answers the node's own.

// cpuidMark marks the arch_prctl(ARCH_SET_CPUID, 0) weft injects, in its
// third argument, which the call does not read; a node that forges it
// can only turn faulting on, as weft does.
const cpuidMark = 0x7765_6674_6370_6964 // "weftcpid"

// faultCPUID makes pid, at its execve's exit stop, call
// arch_prctl(ARCH_SET_CPUID, 0) at the syscall instruction sysIP, from
// regs.
func faultCPUID(pid int, sysIP uint64, regs unix.PtraceRegs) error {
	in := regs
	in.Rip, in.Rax, in.Orig_rax = sysIP, unix.SYS_ARCH_PRCTL, ^uint64(0)
	in.Rdi, in.Rsi, in.Rdx = archSetCPUID, 0, cpuidMark
	if err := unix.PtraceSetRegs(pid, &in); err != nil {
		return err
	}
	rax, err := runCall(pid, atSyscall)
	if err != nil {
		return err
	}
	if rax != 0 {
		return fmt.Errorf("arch_prctl(ARCH_SET_CPUID, 0): %v", unix.Errno(-int64(rax)))
	}
	return nil
}

// faultsCPUID reports whether weft can make a node's cpuid fault: on a
// machine that can, unless its TSC runs natively (then no tracer would
// answer the fault).
func faultsCPUID(nativeTSC bool) bool {
	ok, _ := CPUIDFaults()
	return ok && !nativeTSC
}

// faultCPUIDNow turns cpuid faulting on in t's process, t being at the
// exit stop of a traced call with regs, if the machine can and t is the
// process's only thread; it reports whether it did.
func (w *World) faultCPUIDNow(t *task, regs unix.PtraceRegs) (bool, error) {
	if !faultsCPUID(w.cfg.NativeTSC) || w.cfg.NotifyAll {
		return false, nil
	}
	for _, o := range t.n.tasks {
		if !o.exited && o.p == t.p && o != t {
			return false, nil
		}
	}
	var err error
	t.n.onTracer(func() {
		if err = faultCPUID(t.tid, regs.Rip-2, regs); err == nil {
			err = unix.PtraceSetRegs(t.tid, &regs)
		}
	})
	if err != nil {
		return false, fmt.Errorf("%s: cpuid faulting: %v", t.name(), err)
	}
	return true, nil
}
