//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// Every node runs on the same fixed virtual machine, so nothing of the
// host (its name, kernel build, CPU count, memory, load, uptime) reaches a
// node through these calls.
const (
	virtualCPUs    = 2
	virtualRelease = "6.1.0-weft"
	virtualVersion = "#1 SMP PREEMPT_DYNAMIC weft"
	virtualMemory  = 4 << 30 // bytes of RAM
	virtualFree    = 2 << 30
	userHZ         = 100 // clock ticks per second for times(2) and /proc
)

// uptime is node n's time since boot in ns: its own CLOCK_BOOTTIME, which
// its clock's rate moves and its offset and jumps do not.
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
// the virtual CPUs 0..virtualCPUs-1. Like the kernel, it writes one
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
	mask := binary.LittleEndian.AppendUint64(nil, 1<<virtualCPUs-1)
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
	if binary.LittleEndian.Uint64(b)&(1<<virtualCPUs-1) == 0 {
		return errno(unix.EINVAL)
	}
	return ret(0)
}
