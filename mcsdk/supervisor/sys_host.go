//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Every node runs on the same fixed virtual machine, so nothing of the
// host (its name, kernel build, CPU count, memory, load, uptime) reaches a
// node through these calls. Its constants are vkernel's (machine.go).
const (
	virtualRelease = vkernel.Release
	virtualVersion = "#1 SMP PREEMPT_DYNAMIC weft"
	virtualMemory  = vkernel.MemTotal // bytes of RAM
	virtualFree    = vkernel.MemFree
	userHZ         = vkernel.UserHZ // clock ticks per second for times(2) and /proc
)

// uptime is node n's time since boot in ns: its own CLOCK_BOOTTIME, which
// its clock's rate moves and its offset and jumps do not.
// DefaultCPUs is Config.CPUs's default: one CPU, because only one task
// of the world runs at any moment (runNode). A node shown more CPUs
// takes its runtime's multiprocessor paths, which may wait in user space,
// without a call, for another thread to move: a spinning lock (glibc's
// adaptive mutexes, the JVM's), or Go's runtime.GC waiting for another
// thread's sweep (Go sizes GOMAXPROCS from the CPU count). Weft preempts
// only at calls, so such a wait never ends; on one CPU those runtimes do
// not spin, as on a uniprocessor. Debian's etcd ran into that wait at
// start-up on two CPUs (targets/etcd/README.md).
const DefaultCPUs = 1

// maxCPUs is the most CPUs a virtual machine may have: the affinity mask
// is one unsigned long (sysSchedGetaffinity).
const maxCPUs = 64

// cpus is how many CPUs the nodes' virtual machine has.
func (w *World) cpus() int {
	if w.cfg.CPUs <= 0 {
		return DefaultCPUs
	}
	return min(w.cfg.CPUs, maxCPUs)
}

// cpuMask is the affinity mask of every CPU of the virtual machine.
func (w *World) cpuMask() uint64 { return vkernel.CPUMask(w.cpus()) }

func (w *World) uptime(n *node) int64 {
	up, _ := w.nodeNow(n, unix.CLOCK_BOOTTIME)
	return up
}

func utsField(dst *[65]byte, s string) { copy(dst[:len(dst)-1], s) }

// Uname implements uname(2) for the virtual machine: node i is "nodeI".
func sysUname(c *call) result {
	var u unix.Utsname
	utsField(&u.Sysname, "Linux")
	utsField(&u.Nodename, fmt.Sprintf("node%d", c.n.id))
	utsField(&u.Release, virtualRelease)
	utsField(&u.Version, virtualVersion)
	utsField(&u.Machine, "x86_64")
	utsField(&u.Domainname, "(none)")
	return errno(errnoOf(c.write(c.arg(0), structBytes(&u))))
}

// Sysinfo implements sysinfo(2): virtual uptime, fixed memory, no load.
func sysSysinfo(c *call) result {
	si := unix.Sysinfo_t{
		Uptime:   c.w.uptime(c.n) / 1e9,
		Totalram: virtualMemory, Freeram: virtualFree,
		Procs: uint16(len(c.w.nodes)), Unit: 1,
	}
	return errno(errnoOf(c.write(c.arg(0), structBytes(&si))))
}

// Getrusage implements getrusage(2): a node's usage depends on the host,
// so every field reads zero.
func sysGetrusage(c *call) result {
	switch int32(c.arg(0)) {
	case unix.RUSAGE_SELF, unix.RUSAGE_CHILDREN, unix.RUSAGE_THREAD:
	default:
		return errno(unix.EINVAL)
	}
	var ru unix.Rusage
	return errno(errnoOf(c.write(c.arg(1), structBytes(&ru))))
}

// Times implements times(2): zero CPU times; the result is the virtual
// uptime in clock ticks.
func sysTimes(c *call) result {
	if c.arg(0) != 0 {
		var t unix.Tms
		if err := c.write(c.arg(0), structBytes(&t)); err != nil {
			return errno(unix.EFAULT)
		}
	}
	return ret(c.w.uptime(c.n) / (1e9 / userHZ))
}

// Getcpu implements getcpu(2): always CPU 0 on NUMA node 0.
func sysGetcpu(c *call) result {
	for _, p := range []uint64{c.arg(0), c.arg(1)} {
		if p != 0 {
			if err := c.writeU32(p, 0); err != nil {
				return errno(unix.EFAULT)
			}
		}
	}
	return ret(0)
}

// SchedGetaffinity implements sched_getaffinity(2): the node may run on
// the virtual CPUs 0..cpus()-1. Like the kernel, it writes one
// unsigned long and returns its size (the kernel's cpumask size on a
// machine with at most 64 CPUs).
func sysSchedGetaffinity(c *call) result {
	if _, r, ok := c.hostThread(0); !ok {
		return r
	}
	size := c.arg(1)
	if size < 8 || size%8 != 0 {
		return errno(unix.EINVAL)
	}
	mask := binary.LittleEndian.AppendUint64(nil, c.w.cpuMask())
	if err := c.write(c.arg(2), mask); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(8)
}

// SchedSetaffinity implements sched_setaffinity(2): nodes run one at a
// time, so placement changes nothing; a mask without any virtual CPU is
// EINVAL, as Linux answers.
func sysSchedSetaffinity(c *call) result {
	if _, r, ok := c.hostThread(0); !ok {
		return r
	}
	if c.arg(1) < 8 {
		return errno(unix.EINVAL)
	}
	b, err := c.read(c.arg(2), 8)
	if err != nil {
		return errno(unix.EFAULT)
	}
	if binary.LittleEndian.Uint64(b)&c.w.cpuMask() == 0 {
		return errno(unix.EINVAL)
	}
	return ret(0)
}

// membarrierCommands is the virtual kernel's answer to
// MEMBARRIER_CMD_QUERY (linux/membarrier.h): the global, private
// expedited and sync-core commands, which run natively. The rseq
// commands are absent (rseq is refused), and so is
// MEMBARRIER_CMD_GET_REGISTRATIONS (Linux 6.3; weft's kernel is 6.1).
const membarrierCommands = 1 | 2 | 4 | 8 | 16 | 32 | 64

// Membarrier implements membarrier(2): MEMBARRIER_CMD_QUERY answers the
// virtual kernel's commands rather than the host's, whose set tells its
// version and configuration (redteam reach-membarrier); those commands
// run natively, any other is EINVAL, as a kernel without it answers.
func sysMembarrier(c *call) result {
	cmd := c.arg(0)
	switch {
	case cmd == 0:
		if c.arg(1) != 0 {
			return errno(unix.EINVAL)
		}
		return ret(membarrierCommands)
	case cmd&membarrierCommands != cmd || cmd&(cmd-1) != 0:
		return errno(unix.EINVAL)
	}
	return cont()
}

// ArchPrctl implements arch_prctl(2) for the options the filter notifies
// (addArchPrctlRules): the virtual CPU has no cpuid faulting, so
// ARCH_GET_CPUID says cpuid runs (1) and ARCH_SET_CPUID is ENODEV, as on
// such a CPU; weft's own faulting (faultCPUID) stays on (redteam
// jit-*-cpuid). Any other option runs natively.
func sysArchPrctl(c *call) result {
	switch c.arg(0) {
	case archGetCPUID:
		return ret(1)
	case archSetCPUID:
		return errno(unix.ENODEV)
	}
	return cont()
}
