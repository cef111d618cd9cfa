package vkernel

import "strconv"

// The virtual machine every node runs on: nothing of the host (its kernel
// build, memory, CPU count) reaches a node through uname(2), sysinfo(2),
// times(2) or /proc.
const (
	Release  = "6.1.0-weft" // uname's release, /proc/sys/kernel/osrelease
	MemTotal = 4 << 30      // bytes of RAM (sysinfo, /proc/meminfo)
	MemFree  = 2 << 30      // bytes of it free, and available
	UserHZ   = 100          // clock ticks per second for times(2) and /proc
)

// CPUMask is the affinity mask of every CPU of a machine of cpus CPUs
// (1 to 64): bit i for CPU i, as sched_getaffinity(2) and status's
// Cpus_allowed give it.
func CPUMask(cpus int) uint64 {
	if cpus >= 64 {
		return ^uint64(0)
	}
	return 1<<max(cpus, 0) - 1
}

// CPUList is the CPUs of a machine of cpus CPUs as a CPU list
// (/sys/devices/system/cpu/online, status's Cpus_allowed_list): "0" for
// one CPU, "0-N" for more.
func CPUList(cpus int) string {
	if cpus <= 1 {
		return "0"
	}
	return "0-" + strconv.Itoa(cpus-1)
}
