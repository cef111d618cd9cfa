//go:build linux && amd64

package supervisor

import "golang.org/x/sys/unix"

// prctl(2) is served by option from an allow-list (prctlTable), as fcntl
// and ioctl are by command: an option on the list that acts only on the
// calling process runs natively; an option that would reach the host
// (another process's scheduling, the kernel's own copy of the auxiliary
// vector, the TSC trap weft relies on) is refused with the errno a kernel
// without it answers; an option off the list is EINVAL, as Linux answers
// an option it does not know, with a note.

// prctlRule is a row of prctl's allow-list: the option's name, and the
// errno it is refused with (0: it runs natively) and why.
type prctlRule struct {
	name  string
	errno uintptrErrno
	why   string
}

func prctlNative(name, why string) prctlRule { return prctlRule{name: name, why: why} }
func prctlDenied(name string, e uintptrErrno, why string) prctlRule {
	return prctlRule{name: name, errno: e, why: why}
}

const (
	prctlOwn   = "the calling process's or thread's own setting"
	prctlCreds = "the caller's own capabilities and security bits"
)

// prctlTable is prctl(2)'s allow-list, by option.
var prctlTable = map[uint64]prctlRule{
	unix.PR_SET_PDEATHSIG:             prctlNative("PR_SET_PDEATHSIG", "the caller's parent-death signal (noted: tied to host parentage, checkpoints refuse it)"),
	unix.PR_GET_PDEATHSIG:             prctlNative("PR_GET_PDEATHSIG", prctlOwn),
	unix.PR_GET_DUMPABLE:              prctlNative("PR_GET_DUMPABLE", prctlOwn),
	unix.PR_SET_DUMPABLE:              prctlNative("PR_SET_DUMPABLE", prctlOwn+" (weft reads the node's memory as root either way)"),
	unix.PR_GET_UNALIGN:               prctlNative("PR_GET_UNALIGN", "not on x86-64: the kernel answers EINVAL"),
	unix.PR_SET_UNALIGN:               prctlNative("PR_SET_UNALIGN", "not on x86-64: the kernel answers EINVAL"),
	unix.PR_GET_KEEPCAPS:              prctlNative("PR_GET_KEEPCAPS", prctlCreds),
	unix.PR_SET_KEEPCAPS:              prctlNative("PR_SET_KEEPCAPS", prctlCreds),
	unix.PR_GET_FPEMU:                 prctlNative("PR_GET_FPEMU", "not on x86-64: the kernel answers EINVAL"),
	unix.PR_SET_FPEMU:                 prctlNative("PR_SET_FPEMU", "not on x86-64: the kernel answers EINVAL"),
	unix.PR_GET_FPEXC:                 prctlNative("PR_GET_FPEXC", "not on x86-64: the kernel answers EINVAL"),
	unix.PR_SET_FPEXC:                 prctlNative("PR_SET_FPEXC", "not on x86-64: the kernel answers EINVAL"),
	unix.PR_GET_TIMING:                prctlNative("PR_GET_TIMING", prctlOwn),
	unix.PR_SET_TIMING:                prctlNative("PR_SET_TIMING", "only PR_TIMING_STATISTICAL exists"),
	unix.PR_SET_NAME:                  prctlNative("PR_SET_NAME", "the calling thread's own name"),
	unix.PR_GET_NAME:                  prctlNative("PR_GET_NAME", "the calling thread's own name"),
	unix.PR_GET_ENDIAN:                prctlNative("PR_GET_ENDIAN", "not on x86-64: the kernel answers EINVAL"),
	unix.PR_SET_ENDIAN:                prctlNative("PR_SET_ENDIAN", "not on x86-64: the kernel answers EINVAL"),
	unix.PR_GET_SECCOMP:               prctlNative("PR_GET_SECCOMP", prctlOwn),
	unix.PR_SET_SECCOMP:               prctlNative("PR_SET_SECCOMP", "adds a filter to the caller; a stacked filter cannot weaken weft's"),
	unix.PR_CAPBSET_READ:              prctlNative("PR_CAPBSET_READ", prctlCreds),
	unix.PR_CAPBSET_DROP:              prctlNative("PR_CAPBSET_DROP", prctlCreds),
	unix.PR_GET_TSC:                   prctlNative("PR_GET_TSC", "whether weft traps the caller's TSC: weft's setting, the same in every run"),
	unix.PR_SET_TSC:                   prctlDenied("PR_SET_TSC", unix.EINVAL, "weft traps the TSC where it cannot patch it, and answers every read from the virtual counter; PR_TSC_ENABLE would let the node read the host's counter (redteam jit-rwx-tscenable)"),
	unix.PR_GET_SECUREBITS:            prctlNative("PR_GET_SECUREBITS", prctlCreds),
	unix.PR_SET_SECUREBITS:            prctlNative("PR_SET_SECUREBITS", prctlCreds),
	unix.PR_SET_TIMERSLACK:            prctlNative("PR_SET_TIMERSLACK", "the caller's timer slack; weft's timers are virtual"),
	unix.PR_GET_TIMERSLACK:            prctlNative("PR_GET_TIMERSLACK", prctlOwn),
	unix.PR_TASK_PERF_EVENTS_DISABLE:  prctlNative("PR_TASK_PERF_EVENTS_DISABLE", "the caller's own counters; perf_event_open is refused"),
	unix.PR_TASK_PERF_EVENTS_ENABLE:   prctlNative("PR_TASK_PERF_EVENTS_ENABLE", "the caller's own counters; perf_event_open is refused"),
	unix.PR_MCE_KILL:                  prctlNative("PR_MCE_KILL", prctlOwn),
	unix.PR_MCE_KILL_GET:              prctlNative("PR_MCE_KILL_GET", prctlOwn),
	unix.PR_SET_MM:                    prctlNative("PR_SET_MM", "the caller's own address-space fields"),
	unix.PR_SET_CHILD_SUBREAPER:       prctlDenied("PR_SET_CHILD_SUBREAPER", unix.EINVAL, "a node's orphans leave its tree as if reparented to pid 1"),
	unix.PR_GET_CHILD_SUBREAPER:       prctlNative("PR_GET_CHILD_SUBREAPER", prctlOwn),
	unix.PR_SET_NO_NEW_PRIVS:          prctlNative("PR_SET_NO_NEW_PRIVS", prctlCreds),
	unix.PR_GET_NO_NEW_PRIVS:          prctlNative("PR_GET_NO_NEW_PRIVS", prctlCreds),
	unix.PR_GET_TID_ADDRESS:           prctlNative("PR_GET_TID_ADDRESS", "an address in the caller's own memory"),
	unix.PR_SET_THP_DISABLE:           prctlNative("PR_SET_THP_DISABLE", prctlOwn),
	unix.PR_GET_THP_DISABLE:           prctlNative("PR_GET_THP_DISABLE", prctlOwn),
	unix.PR_CAP_AMBIENT:               prctlNative("PR_CAP_AMBIENT", prctlCreds),
	unix.PR_GET_SPECULATION_CTRL:      prctlNative("PR_GET_SPECULATION_CTRL", prctlOwn),
	unix.PR_SET_SPECULATION_CTRL:      prctlNative("PR_SET_SPECULATION_CTRL", prctlOwn),
	unix.PR_SET_IO_FLUSHER:            prctlNative("PR_SET_IO_FLUSHER", prctlOwn),
	unix.PR_GET_IO_FLUSHER:            prctlNative("PR_GET_IO_FLUSHER", prctlOwn),
	unix.PR_SET_SYSCALL_USER_DISPATCH: prctlNative("PR_SET_SYSCALL_USER_DISPATCH", "the caller's own syscalls become SIGSYS before its filters run; none bypasses weft's"),
	unix.PR_SCHED_CORE:                prctlDenied("PR_SCHED_CORE", unix.EINVAL, "core-scheduling cookies name host processes (any pid, process group or session): EINVAL, as a kernel without CONFIG_SCHED_CORE (redteam reach-schedcore)"),
	unix.PR_SET_MDWE:                  prctlNative("PR_SET_MDWE", prctlOwn),
	unix.PR_GET_MDWE:                  prctlNative("PR_GET_MDWE", prctlOwn),
	unix.PR_SET_MEMORY_MERGE:          prctlDenied("PR_SET_MEMORY_MERGE", unix.EINVAL, "KSM merges the node's pages with the host's, whose timing shows what the host holds: EINVAL, as a kernel without CONFIG_KSM"),
	unix.PR_GET_MEMORY_MERGE:          prctlDenied("PR_GET_MEMORY_MERGE", unix.EINVAL, "as PR_SET_MEMORY_MERGE"),
	unix.PR_GET_SHADOW_STACK_STATUS:   prctlNative("PR_GET_SHADOW_STACK_STATUS", prctlOwn),
	unix.PR_SET_SHADOW_STACK_STATUS:   prctlNative("PR_SET_SHADOW_STACK_STATUS", prctlOwn),
	unix.PR_LOCK_SHADOW_STACK_STATUS:  prctlNative("PR_LOCK_SHADOW_STACK_STATUS", prctlOwn),
	unix.PR_TIMER_CREATE_RESTORE_IDS:  prctlNative("PR_TIMER_CREATE_RESTORE_IDS", "changes how the kernel numbers timers; weft's POSIX timers are virtual"),
	unix.PR_FUTEX_HASH:                prctlNative("PR_FUTEX_HASH", "the caller's own futex hash; weft's futexes are virtual"),
	unix.PR_SET_VMA:                   prctlNative("PR_SET_VMA", "names the caller's own mappings"),
	unix.PR_SET_PTRACER:               prctlNative("PR_SET_PTRACER", "lets a process trace the caller; a node cannot trace (ptrace is refused)"),
	unix.PR_GET_AUXV:                  prctlDenied("PR_GET_AUXV", unix.EINVAL, "the kernel's copy of the auxiliary vector holds the host's values (AT_HWCAP, AT_MINSIGSTKSZ), not those weft gives the process: EINVAL, as a kernel before 6.4 (redteam auxv-prctl)"),
}

// Prctl implements prctl(2) from prctlTable; a parent-death signal is
// noted (nodeSignals.pdeath).
func sysPrctl(c *call) result {
	opt := c.arg(0)
	rule, ok := prctlTable[opt]
	switch {
	case !ok:
		return c.refuseRequest("prctl", opt, "", unix.EINVAL, "not on weft's prctl allow-list")
	case rule.errno != 0:
		return c.refuseRequest("prctl", opt, rule.name, rule.errno, rule.why)
	case opt == unix.PR_SET_PDEATHSIG && c.arg(1) != 0:
		c.n.sig.pdeath = true // tied to host parentage: checkpoints refuse it
	}
	return cont()
}
