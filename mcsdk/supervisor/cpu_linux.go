//go:build linux && amd64

package supervisor

import (
	"runtime"
	"strings"
	"sync"

	"github.com/weft-mc/weft/mcsdk/vkernel"
	"golang.org/x/sys/unix"
)

// The virtual CPU (mcsdk/vkernel/cpu.go). cpuid, rdrand, rdseed, rdpid
// and lsl (the instruction behind getcpu's fallback) are found and
// patched with the TSC reads (tscscan.go, tscpatch_linux.go), each into
// an int with a vector of its own that faults as a patched rdtsc does;
// emulateTSC sees the stop, and emulateCPU performs the instruction on
// the virtual CPU: cpuid answers vkernel.CPUID, rdrand and rdseed draw
// from the run's seeded stream (as getrandom does), rdpid and lsl say CPU
// 0. Code weft cannot patch (a writable and executable mapping, bytes it
// cannot decode, an lsl from memory) runs those instructions natively,
// and each run says so in its refusals (warnCPU); with CPUID faulting
// (CPUIDFaults), which this project's machines lack, cpuid itself could
// fault there, and emulateCPU answers a faulting cpuid too.

// hostCPUIDRaw runs cpuid on the host (hostcpuid_amd64.s).
func hostCPUIDRaw(leaf, sub uint32) (a, b, c, d uint32)

// hostCPUID is the host's cpuid as vkernel asks it.
func hostCPUID(leaf, sub uint32) vkernel.CPUIDRegs {
	a, b, c, d := hostCPUIDRaw(leaf, sub)
	return vkernel.CPUIDRegs{A: a, B: b, C: c, D: d}
}

// HostLacksBaseline names the features of the virtual CPU's baseline
// (x86-64-v3 and its companions) this host lacks (vkernel.HostLacks): a node here sees fewer
// features than on a host that has them, and its recordings may differ
// from those made there.
func HostLacksBaseline() []string { return vkernel.HostLacks(hostCPUID) }

// ARCH_GET_CPUID and ARCH_SET_CPUID (asm/prctl.h).
const (
	archGetCPUID = 0x1011
	archSetCPUID = 0x1012
)

var cpuidFaulting struct {
	once sync.Once
	ok   bool
	err  error
}

// CPUIDFaults reports whether this machine can make cpuid fault
// (arch_prctl(ARCH_SET_CPUID, 0)); err says why not. Asked once, on a
// thread of its own that ends with the answer.
func CPUIDFaults() (bool, error) {
	cpuidFaulting.once.Do(func() {
		done := make(chan error)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if _, _, e := unix.Syscall(unix.SYS_ARCH_PRCTL, archSetCPUID, 0, 0); e != 0 {
				done <- e
				return
			}
			unix.Syscall(unix.SYS_ARCH_PRCTL, archSetCPUID, 1, 0)
			done <- nil
		}()
		cpuidFaulting.err = <-done
		cpuidFaulting.ok = cpuidFaulting.err == nil
	})
	return cpuidFaulting.ok, cpuidFaulting.err
}

// ruleCPU is the rule a warnCPU refusal names.
const ruleCPU = "weft patches cpuid, rdrand, rdseed, rdpid and lsl into faults it answers from a virtual CPU; code it cannot patch runs them natively (no CPUID faulting is used): there a node reads the host's processor, random numbers and CPU number"

// warnCPU records in the run's refusals that node runs CPU-identity
// instructions natively for why. The run goes on, as for the TSC
// (warnTSCTrap): the unpatchable bytes are often never executed as those
// instructions (libcrypto's undecodable tables).
func (w *World) warnCPU(node int, why string) {
	w.refuse(node, "cpuid", why, "native", ruleCPU)
}

// cpuInsnAt decodes the instruction at a CPU fault: weft's patch of a
// CPU-identity instruction, or a cpuid that faulted natively.
func cpuInsnAt(insn []byte) (vkernel.CPUInsn, bool) {
	if ci, ok := vkernel.DecodeCPUPatch(insn); ok {
		return ci, true
	}
	if k := insnLen(insn); k > 0 {
		if ci, ok := vkernel.DecodeCPUInsn(insn[:k]); ok && ci.Op == vkernel.OpCPUID {
			return ci, true
		}
	}
	return vkernel.CPUInsn{}, false
}

// emulateCPU performs ci for node n on regs and steps over it.
func (w *World) emulateCPU(ci vkernel.CPUInsn, regs *unix.PtraceRegs) {
	ptrs := [16]*uint64{&regs.Rax, &regs.Rcx, &regs.Rdx, &regs.Rbx, &regs.Rsp, &regs.Rbp, &regs.Rsi, &regs.Rdi,
		&regs.R8, &regs.R9, &regs.R10, &regs.R11, &regs.R12, &regs.R13, &regs.R14, &regs.R15}
	var r vkernel.CPURegs
	for k, p := range ptrs {
		r.R[k] = *p
	}
	r.Flags = regs.Eflags
	vkernel.ExecCPU(ci, &r, hostCPUID, w.rand.Read)
	for k, p := range ptrs {
		*p = r.R[k]
	}
	regs.Eflags = r.Flags
	regs.Rip += uint64(ci.Len)
}

// CPUDescribe is the virtual CPU in one line, for the run's header or
// weft doctor: what a node sees and what this host lacks of it.
func CPUDescribe() string {
	s := "a node sees " + vkernel.CPUVendor + " (" + vkernel.CPUBrand + "): x86-64-v3 with AES, PCLMULQDQ, RDRAND, SHA, ADX, ERMS and CLFLUSHOPT (no AVX-512, RDSEED, RDPID or RDTSCP)"
	if lacks := HostLacksBaseline(); len(lacks) > 0 {
		s += ", less what this host lacks: " + strings.Join(lacks, " ")
	}
	return s
}
