//go:build linux && amd64

package supervisor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// /proc and /sys as a node sees them. No open of a file below /proc or
// /sys reaches the host's file unless the table below says the file holds
// only the node's own state: each path is served one of four ways, and
// anything the table does not name is absent (ENOENT), as on a machine
// whose kernel lacks it; programs cope with that (Go's runtime without
// cgroup files, redis without smaps, glibc without /proc at all).
//
// A path names the caller's own process however it is spelled:
// /proc/self, /proc/thread-self, /proc/VPID (its virtual pid) and
// /proc/self/task/VTID (a thread of it) are one process directory, looked
// up in the table as /proc/self/…. Any other /proc/N is absent: the
// other processes of the host, and of the node's tree, are not modelled
// there. Paths are matched as resolved in the node's view (sys_view.go):
// however the node spells one — through a symlink, "..", a directory
// descriptor — the table sees its clean absolute path, and a path that
// walks through a magic link (/proc/self/root/…, /proc/self/fd/N/…) is
// refused before it gets here (ELOOP).

// procServe is how an open of one /proc or /sys file is served.
type procServe int

const (
	procAbsent  procServe = iota // ENOENT
	procVirtual                  // content weft computes, in a sealed memfd
	procRandom                   // the seeded random device (sys_random.go)
	procNative                   // the node's own kernel file: nothing of the host in it
)

var procServeNames = [...]string{procAbsent: "absent", procVirtual: "virtual", procRandom: "random", procNative: "native"}

func (s procServe) String() string { return procServeNames[s] }

// procFile is one row of the table: a path, how it is served, its
// content when virtual and what it holds.
type procFile struct {
	path    string // clean and absolute; ending in "/": every path below it
	serve   procServe
	content func(c *call) []byte
	holds   string
}

// procFiles is the table, most specific paths first within a prefix:
// lookups take the exact row, else the longest prefix row.
var procFiles = []procFile{
	{"/dev/urandom", procRandom, nil, "the run's seeded stream"},
	{"/dev/random", procRandom, nil, "the run's seeded stream"},

	// The caller's own process.
	{"/proc/self", procNative, nil, "its own directory's listing"},
	{"/proc/self/stat", procVirtual, (*call).procStat, "virtual pids, state R, its thread count, no CPU time, no memory, start time the node's launch"},
	{"/proc/self/status", procVirtual, (*call).procStatus, "the process's own name, umask, credentials and signal sets; virtual pids; memory and context switches zero (statusFields)"},
	{"/proc/self/statm", procVirtual, func(*call) []byte { return []byte("0 0 0 0 0 0 0\n") }, "every size zero pages"},
	{"/proc/self/maps", procVirtual, (*call).procMaps, "the process's mappings (its own addresses, fixed without ASLR), device 00:00 and inode 0"},
	{"/proc/self/smaps", procVirtual, (*call).procSmaps, "each mapping of maps with its Size, 4 kB pages and every resident, shared, dirty and swap size 0 kB"},
	{"/proc/self/smaps_rollup", procVirtual, (*call).procSmapsRollup, "the span of maps, every size 0 kB"},
	{"/proc/self/cmdline", procNative, nil, "the node's own arguments"},
	{"/proc/self/environ", procNative, nil, "the node's own environment"},
	{"/proc/self/comm", procNative, nil, "the thread's name, as the node set it; writable, as prctl(PR_SET_NAME) (glibc's pthread_setname_np of another thread)"},
	{"/proc/self/auxv", procNative, nil, "the auxiliary vector weft patched (weft's vDSO, AT_RANDOM from the run)"},
	{"/proc/self/limits", procVirtual, func(c *call) []byte { return c.limits().ProcLimits() }, "its virtual resource limits, as getrlimit reads them (vkernel.Limits)"},
	{"/proc/self/fd", procNative, nil, "its descriptor numbers"},
	{"/proc/self/fd/", procNative, nil, "its descriptors"},
	{"/proc/self/fdinfo/", procNative, nil, "its descriptors' positions and flags"},
	{"/proc/self/cwd", procNative, nil, "its working directory, a link read as its view names it (viewName)"},
	{"/proc/self/cwd/", procNative, nil, "files below its working directory"},
	{"/proc/self/root/", procNative, nil, "files below its root"},
	{"/proc/self/exe", procNative, nil, "its binary, a link read as its view names it (viewName)"},
	{"/proc/self/cgroup", procVirtual, identityFile("/proc/self/cgroup"), "the root of cgroup v2 and no controller: Go's runtime then sets no CPU limit (vkernel.Identity)"},
	{"/proc/self/mountinfo", procVirtual, identityFile("/proc/self/mountinfo"), "one root file system, no cgroup mount (vkernel.Identity)"},
	{"/proc/self/", procAbsent, nil, "anything else of the process (io, sched, task listing, …)"},

	// The machine.
	{"/proc/uptime", procVirtual, procUptime, "the virtual clock's uptime, idle 0"},
	{"/proc/loadavg", procVirtual, procLoadavg, "loads 0.00, one running of the world's nodes, last pid the node's"},
	{"/proc/meminfo", procVirtual, procMeminfo, "4 GiB of RAM, 2 GiB free, no swap"},
	{"/proc/cpuinfo", procVirtual, procCpuinfo, "Config.CPUs weft virtual CPUs (one by default) at 1000 MHz"},
	{"/proc/stat", procVirtual, procStatFile, "no CPU time, boot time from the virtual clock"},
	{"/proc/sys/kernel/hostname", procVirtual, func(c *call) []byte { return fmt.Appendf(nil, "node%d\n", c.n.id) }, "node<i>"},
	{"/proc/sys/kernel/osrelease", procVirtual, constFile(virtualRelease + "\n"), virtualRelease},
	{"/proc/sys/kernel/random/boot_id", procVirtual, constFile("00000000-0000-4000-8000-000000000000\n"), "a fixed UUID"},
	{"/proc/sys/kernel/random/uuid", procVirtual, func(c *call) []byte { return []byte(seededUUID(c.w)) }, "a version-4 UUID from the seeded stream, fresh per open"},
	{"/proc/sys/net/core/somaxconn", procVirtual, constFile("4096\n"), "Linux's default since 5.4"},
	{"/proc/sys/vm/overcommit_memory", procVirtual, constFile("0\n"), "Linux's default (heuristic)"},
	{"/sys/devices/system/cpu/online", procVirtual, cpuRange, "0, or 0-N for Config.CPUs N+1"},
	{"/sys/devices/system/cpu/possible", procVirtual, cpuRange, "0, or 0-N for Config.CPUs N+1"},
	{"/sys/devices/system/cpu/present", procVirtual, cpuRange, "0, or 0-N for Config.CPUs N+1"},
	{"/sys/devices/system/clocksource/clocksource0/current_clocksource", procVirtual, constFile("tsc\n"), "tsc"},
	{"/sys/kernel/mm/transparent_hugepage/enabled", procVirtual, constFile("always [madvise] never\n"), "madvise, Debian's default"},
	{"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", procVirtual, constFile("2097152\n"), "2 MiB, x86-64's"},
	{"/proc", procAbsent, nil, "no listing of the host's processes"},
	{"/proc/", procAbsent, nil, "every other /proc file and other processes' directories"},
	{"/sys", procAbsent, nil, "no listing of the host's devices"},
	{"/sys/", procAbsent, nil, "every other /sys file"},
}

func constFile(s string) func(*call) []byte { return func(*call) []byte { return []byte(s) } }

// identityFile is the virtual identity file path of the calling node
// (vkernel.Identity).
func identityFile(path string) func(*call) []byte {
	return func(c *call) []byte {
		return vkernel.Identity(c.n.id, vkernel.NodeNames(len(c.w.cfg.Nodes)))[path]
	}
}

// lookupProcFile returns the row for a clean absolute path (the caller's
// own process directory spelled /proc/self): the exact row, else the
// longest prefix row; ok is false for paths outside the table's roots.
func lookupProcFile(path string) (procFile, bool) {
	var best procFile
	found := false
	for _, f := range procFiles {
		switch {
		case f.path == path:
			return f, true
		case strings.HasSuffix(f.path, "/") && strings.HasPrefix(path, f.path) && len(f.path) > len(best.path):
			best, found = f, true
		}
	}
	return best, found
}

// procOwn is an open of the caller's own process directory: the path
// it is looked up as (/proc/self/…) and the host's name of the file
// (its host pid and tid), or absent when the path names a process the
// node may not see.
type procOwn struct {
	key, host string
	absent    bool
}

// ownProcPath maps a /proc path naming a process directory (self,
// thread-self, a pid, a task) to the table's /proc/self form.
func (c *call) ownProcPath(path string) (procOwn, bool) {
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return procOwn{}, false
	}
	first, sub, _ := strings.Cut(rest, "/")
	hostPid, hostTid := c.n.memPid(), c.t.tid
	switch first {
	case "self":
		hostTid = hostPid
	case "thread-self":
	default:
		v, err := strconv.ParseInt(first, 10, 64)
		if err != nil {
			return procOwn{}, false
		}
		t := c.ownTask(v)
		if t == nil {
			return procOwn{absent: true}, true
		}
		hostTid = t.tid
	}
	if tail, ok := strings.CutPrefix(sub, "task/"); ok && first != "thread-self" {
		vtid, after, _ := strings.Cut(tail, "/")
		v, err := strconv.ParseInt(vtid, 10, 64)
		t := c.ownTask(v)
		if err != nil || t == nil {
			return procOwn{absent: true}, true
		}
		hostTid, sub = t.tid, after
	}
	key := strings.TrimSuffix("/proc/self/"+sub, "/")
	host := fmt.Sprintf("/proc/%d/task/%d/%s", hostPid, hostTid, sub)
	if hostTid == hostPid {
		host = fmt.Sprintf("/proc/%d/%s", hostPid, sub)
	}
	return procOwn{key: key, host: strings.TrimSuffix(host, "/")}, true
}

// ownTask is the live thread of the caller's process with virtual id v
// (its pid names its main thread), or nil.
func (c *call) ownTask(v int64) *task {
	me := c.n.procOf(c.t)
	for _, t := range c.n.procTasks(me) {
		if t.vtid() == v {
			return t
		}
	}
	return nil
}

// openProcFile serves an open of the clean absolute path if the table
// covers it; ok is false for any other path. An open for writing of one
// of the caller's own native files is refused unless it names a thread's
// name (comm) or a descriptor of the run directory.
func (c *call) openProcFile(path string, oflags uint64) (result, bool) {
	key, own := path, procOwn{}
	if o, ok := c.ownProcPath(path); ok {
		if o.absent {
			return errno(unix.ENOENT), true
		}
		key, own = o.key, o
	}
	f, ok := lookupProcFile(key)
	if !ok {
		return result{}, false
	}
	if f.serve != procNative && f.serve != procAbsent && openWrites(oflags) {
		return c.refuseWrite(path), true
	}
	switch f.serve {
	case procAbsent:
		return errno(unix.ENOENT), true
	case procRandom:
		return c.installFile(nil, oflags), true
	case procVirtual:
		return c.installFile(f.content(c), oflags), true
	}
	if openWrites(oflags) && key != "/proc/self/comm" && !c.mayWrite(own.host, true, true) {
		// A descriptor reopened for writing: only one of the run
		// directory's. The refusal names the path as the node spelled
		// it, never the host's pids.
		return c.refuseWrite(path), true
	}
	return c.openHostProc(own.host, oflags), true
}

// openHostProc opens the host's name of one of the caller's own /proc
// files for it (by its host pid: the node's path never reaches the host).
func (c *call) openHostProc(host string, oflags uint64) result {
	fd, err := unix.Open(host, int(oflags)|unix.O_CLOEXEC, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	defer unix.Close(fd)
	tfd, err := injectFD(c.n.listener, c.req.ID, fd, oflags&unix.O_CLOEXEC != 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	return ret(int64(tfd))
}

func procUptime(c *call) []byte {
	up := c.w.uptime(c.n) / 1e7 // hundredths of a second
	return fmt.Appendf(nil, "%d.%02d %d.%02d\n", up/100, up%100, 0, 0)
}

func procLoadavg(c *call) []byte {
	return fmt.Appendf(nil, "0.00 0.00 0.00 1/%d %d\n", len(c.w.nodes), c.n.vpid())
}

func procMeminfo(*call) []byte {
	return fmt.Appendf(nil, "MemTotal:       %8d kB\nMemFree:        %8d kB\nMemAvailable:   %8d kB\n"+
		"Buffers:               0 kB\nCached:                0 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n",
		virtualMemory>>10, virtualFree>>10, virtualFree>>10)
}

func procCpuinfo(c *call) []byte {
	var b bytes.Buffer
	for i := range c.w.cpus() {
		fmt.Fprintf(&b, "processor\t: %d\nvendor_id\t: weft\nmodel name\t: weft virtual CPU\ncpu MHz\t\t: 1000.000\n"+
			"physical id\t: 0\ncore id\t\t: %d\ncpu cores\t: %d\nflags\t\t: fpu tsc\n\n", i, i, c.w.cpus())
	}
	return b.Bytes()
}

func procStatFile(c *call) []byte {
	var b bytes.Buffer
	b.WriteString("cpu  0 0 0 0 0 0 0 0 0 0\n")
	for i := range c.w.cpus() {
		fmt.Fprintf(&b, "cpu%d 0 0 0 0 0 0 0 0 0 0\n", i)
	}
	fmt.Fprintf(&b, "intr 0\nctxt 0\nbtime %d\nprocesses %d\nprocs_running 1\nprocs_blocked 0\n",
		bootTime(c), len(c.w.nodes))
	return b.Bytes()
}

// bootTime is /proc/stat's btime: when node c.n booted by its realtime
// clock (seconds since the Unix epoch), its realtime less its uptime.
func bootTime(c *call) int64 {
	real, _ := c.w.nodeNow(c.n, unix.CLOCK_REALTIME)
	return (real - c.w.uptime(c.n)) / 1e9
}

// cpuRange is a CPU list as /sys/devices/system/cpu/online prints it:
// "0" for one CPU, "0-N" for more.
func cpuRange(c *call) []byte {
	if c.w.cpus() == 1 {
		return []byte("0\n")
	}
	return fmt.Appendf(nil, "0-%d\n", c.w.cpus()-1)
}

// seededUUID is a version-4 UUID from the run's seeded stream, as the
// kernel makes a fresh random one for every read of .../random/uuid.
func seededUUID(w *World) string {
	var b [16]byte
	w.rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x\n", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// vppid is the caller's virtual parent pid: its parent in the node's
// tree, or 1.
func (c *call) vppid() int64 {
	if p := c.t.p; p != nil && p.parent != nil {
		return p.parent.vpid
	}
	return 1
}

// procStat is /proc/self/stat (proc(5)) for the node as the virtual
// machine sees it: virtual pids, its thread count, no CPU time, no
// memory, started when the node was launched.
func (c *call) procStat() []byte {
	comm := "node"
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", c.n.memPid())); err == nil {
		comm = strings.TrimSpace(string(b))
	}
	start := (c.n.started - Epoch + monotonicOffset) / (1e9 / userHZ)
	pid := c.n.vpid()
	// pid comm state ppid pgrp session tty tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice threads itrealvalue
	// starttime vsize rss rsslim, then 28 fields of addresses, signal masks
	// and scheduling, all zero but exit_signal (SIGCHLD).
	threads := max(len(c.n.procTasks(c.n.procOf(c.t))), 1)
	s := fmt.Sprintf("%d (%s) R %d %d 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 %d 0 %d 0 0 18446744073709551615",
		pid, comm, c.vppid(), c.n.group(), threads, start)
	s += strings.Repeat(" 0", 12) + " 17" + strings.Repeat(" 0", 14) + "\n"
	return []byte(s)
}

// statusFields are the fields of /proc/self/status (proc(5)) a node sees,
// in the kernel's order; any other line of the kernel's file is left
// out. An empty value keeps the kernel's line: the process's own state
// (its name, umask, credentials, signal sets), none of it the host's.
var statusFields = []struct{ key, value string }{
	{"Name", ""}, {"Umask", ""}, {"State", "R (running)"},
	{"Tgid", "$pid"}, {"Ngid", "0"}, {"Pid", "$pid"}, {"PPid", "$ppid"}, {"TracerPid", "0"},
	{"Uid", ""}, {"Gid", ""}, {"FDSize", ""}, {"Groups", ""},
	{"NStgid", "$pid"}, {"NSpid", "$pid"}, {"NSpgid", "$pgrp"}, {"NSsid", "1"},
	{"VmPeak", kB0}, {"VmSize", kB0}, {"VmLck", kB0}, {"VmPin", kB0}, {"VmHWM", kB0},
	{"VmRSS", kB0}, {"RssAnon", kB0}, {"RssFile", kB0}, {"RssShmem", kB0}, {"VmData", kB0},
	{"VmStk", kB0}, {"VmExe", kB0}, {"VmLib", kB0}, {"VmPTE", kB0}, {"VmSwap", kB0},
	{"HugetlbPages", kB0}, {"Threads", ""},
	{"SigQ", ""}, {"SigPnd", ""}, {"ShdPnd", ""}, {"SigBlk", ""}, {"SigIgn", ""}, {"SigCgt", ""},
	{"NoNewPrivs", ""}, {"Seccomp", ""},
	{"Cpus_allowed", "$cpumask"}, {"Cpus_allowed_list", "$cpulist"},
	{"Mems_allowed", "1"}, {"Mems_allowed_list", "0"},
	{"voluntary_ctxt_switches", "0"}, {"nonvoluntary_ctxt_switches", "0"},
}

// sigQueueMax is SigQ's limit on weft's machine (the kernel's is the
// host user's RLIMIT_SIGPENDING).
const sigQueueMax = 15392

// pendingCount is SigQ's count on weft's machine: the signals pending
// for the process (the kernel's counts every process of the host user).
func pendingCount(kernel map[string]string) int {
	var set uint64
	for _, k := range []string{"SigPnd", "ShdPnd"} {
		x, _ := strconv.ParseUint(kernel[k], 16, 64)
		set |= x
	}
	return bits.OnesCount64(set)
}

// kB0 is a zero size as the kernel writes it in status.
const kB0 = "       0 kB"

// procStatus is /proc/self/status made of statusFields.
func (c *call) procStatus() []byte {
	kernel := map[string]string{}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.n.memPid())); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok {
				kernel[k] = strings.TrimSpace(v)
			}
		}
	}
	vars := strings.NewReplacer("$pid", strconv.FormatInt(c.n.vpid(), 10),
		"$ppid", strconv.FormatInt(c.vppid(), 10), "$pgrp", strconv.FormatInt(c.n.group(), 10),
		"$cpumask", strconv.FormatUint(c.w.cpuMask(), 16), "$cpulist", strings.TrimSuffix(string(cpuRange(c)), "\n"))
	var out bytes.Buffer
	for _, f := range statusFields {
		v := vars.Replace(f.value)
		if f.value == "" {
			v = kernel[f.key]
		}
		if f.key == "SigQ" {
			v = fmt.Sprintf("%d/%d", pendingCount(kernel), sigQueueMax)
		}
		fmt.Fprintf(&out, "%s:\t%s\n", f.key, v)
	}
	return out.Bytes()
}

// mapping is one line of /proc/PID/maps.
type mapping struct {
	start, end uint64
	perms      string
	offset     string // as the kernel prints it
	off        int64  // the same, parsed
	ino        uint64
	name       string
}

// ownMaps reads the calling process's mappings.
func (c *call) ownMaps() []mapping {
	ms, _ := readMaps(c.n.memPid())
	for i := range ms {
		if v, ok := c.viewName(ms[i].name); ok {
			ms[i].name = v
		} else {
			ms[i].name = "" // a file outside the view shows as anonymous memory
		}
	}
	return ms
}

// viewName is the name the node sees for a name the host kernel gives
// one of its files (a /proc link's target, a mapping's file): a path
// below a mount as the view shows it (a deleted file's too, " (deleted)"
// kept), and a name that is no path ("pipe:[…]", "[heap]", a memfd's
// "/memfd:…", an allowed device) as it is. It is false for a host path
// the view does not show.
func (c *call) viewName(host string) (string, bool) {
	if !strings.HasPrefix(host, "/") || strings.HasPrefix(host, "/memfd:") || vkernel.Devices[strings.TrimSuffix(host, " (deleted)")] {
		return host, true
	}
	p, deleted := strings.CutSuffix(host, " (deleted)")
	v, ok := c.view().Locate(p)
	if !ok {
		return "", false
	}
	if deleted {
		v += " (deleted)"
	}
	return v, true
}

// readMaps reads process pid's mappings.
func readMaps(pid int) ([]mapping, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	var ms []mapping
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		var m mapping
		m.start, _ = strconv.ParseUint(lo, 16, 64)
		m.end, _ = strconv.ParseUint(hi, 16, 64)
		m.perms, m.offset = f[1], f[2]
		m.off, _ = strconv.ParseInt(f[2], 16, 64)
		m.ino, _ = strconv.ParseUint(f[4], 10, 64)
		if len(f) > 5 {
			m.name = strings.Join(f[5:], " ")
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// line is the mapping's maps line with device 00:00 and inode 0 (the
// host's file system's numbers).
func (m mapping) line() string {
	s := fmt.Sprintf("%08x-%08x %s %s 00:00 0", m.start, m.end, m.perms, m.offset)
	if m.name != "" {
		s += strings.Repeat(" ", max(1, 73-len(s))) + m.name
	}
	return s + "\n"
}

// procMaps is /proc/self/maps with the host's device and inode numbers
// zeroed.
func (c *call) procMaps() []byte {
	var b bytes.Buffer
	for _, m := range c.ownMaps() {
		b.WriteString(m.line())
	}
	return b.Bytes()
}

// smapsSizes are smaps's per-mapping sizes after Size, KernelPageSize and
// MMUPageSize (proc(5)): weft's machine keeps nothing resident, shared
// or swapped.
var smapsSizes = []string{"Rss", "Pss", "Pss_Dirty", "Shared_Clean", "Shared_Dirty", "Private_Clean",
	"Private_Dirty", "Referenced", "Anonymous", "KSM", "LazyFree", "AnonHugePages", "ShmemPmdMapped",
	"FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap", "SwapPss", "Locked"}

// procSmaps is /proc/self/smaps: each mapping's line, its size, and
// every other size zero; VmFlags from its permissions.
func (c *call) procSmaps() []byte {
	var b bytes.Buffer
	for _, m := range c.ownMaps() {
		b.WriteString(m.line())
		fmt.Fprintf(&b, "%-16s%8d kB\n%-16s%8d kB\n%-16s%8d kB\n", "Size:", (m.end-m.start)>>10, "KernelPageSize:", 4, "MMUPageSize:", 4)
		for _, k := range smapsSizes {
			fmt.Fprintf(&b, "%-16s%8d kB\n", k+":", 0)
		}
		fmt.Fprintf(&b, "%-16s%8d\nVmFlags: %s\n", "THPeligible:", 0, vmFlags(m.perms))
	}
	return b.Bytes()
}

// vmFlags are the VmFlags of a mapping with permissions perms (rwxp).
func vmFlags(perms string) string {
	var f []string
	for i, name := range []string{"rd", "wr", "ex"} {
		if len(perms) > i && perms[i] != '-' {
			f = append(f, name)
		}
	}
	if len(perms) > 3 && perms[3] == 's' {
		f = append(f, "sh")
	}
	return strings.Join(append(f, "mr", "mw", "me"), " ") + " "
}

// procSmapsRollup is /proc/self/smaps_rollup: the span of the mappings
// and every size zero.
func (c *call) procSmapsRollup() []byte {
	ms := c.ownMaps()
	var b bytes.Buffer
	if len(ms) > 0 {
		b.WriteString(mapping{start: ms[0].start, end: ms[len(ms)-1].end, perms: "---p", offset: "00000000", name: "[rollup]"}.line())
	}
	for _, k := range []string{"Rss", "Pss", "Pss_Dirty", "Pss_Anon", "Pss_File", "Pss_Shmem", "Shared_Clean",
		"Shared_Dirty", "Private_Clean", "Private_Dirty", "Referenced", "Anonymous", "KSM", "LazyFree",
		"AnonHugePages", "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap",
		"SwapPss", "Locked"} {
		fmt.Fprintf(&b, "%-16s%8d kB\n", k+":", 0)
	}
	return b.Bytes()
}

// absentProcPath is a name no file has: where a /proc or /sys path the
// node may not see leads the supervisor's own calls (stat, readlink), so
// that they fail with ENOENT.
const absentProcPath = "/proc/weft-absent"

// procHostPath is the supervisor's name for the file at the absolute
// path the node names: below /proc and /sys by the table (the caller's
// own process by its host pid and tid; what the table says is absent, or
// another process, leads nowhere); any other path as it is.
func (c *call) procHostPath(path string) string {
	clean := filepath.Clean(path)
	if o, ok := c.ownProcPath(clean); ok {
		if f, _ := lookupProcFile(o.key); o.absent || f.serve == procAbsent {
			return absentProcPath
		}
		return o.host
	}
	if f, ok := lookupProcFile(clean); ok && f.serve == procAbsent {
		return absentProcPath
	}
	return path
}

// Readlink implements readlink(2): the path resolves in the node's view
// (its final symlink not followed); a host symlink is read by weft, /proc
// and /sys links through the table (procHostPath), /dev's links from the
// view; anything else is not a link (EINVAL).
func sysReadlink(c *call) result { return readlinkAt(c, fsPath(0, false), c.arg(1), c.arg(2)) }

// Readlinkat implements readlinkat(2).
func sysReadlinkat(c *call) result { return readlinkAt(c, fsAt(0, 1, false, -1), c.arg(2), c.arg(3)) }

func readlinkAt(c *call, a fsArg, buf, size uint64) result {
	wh, err := c.resolveArg(a)
	switch {
	case err != nil:
		return errno(pathErrno(err))
	case wh.fd:
		return errno(unix.ENOENT) // an empty path names no link here
	case int64(size) <= 0:
		return errno(unix.EINVAL)
	}
	link, err := c.readlinkIn(wh.res)
	if err != nil {
		return errno(pathErrno(err))
	}
	b := []byte(link)[:min(uint64(len(link)), size)]
	if err := c.write(buf, b); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(len(b)))
}

// readlinkIn reads the link at r.
func (c *call) readlinkIn(r vkernel.Result) (string, error) {
	switch {
	case r.Kind == vkernel.Missing:
		return "", unix.ENOENT
	case r.Kind == vkernel.Proc && strings.HasPrefix(r.Path, "/dev/"):
		return vkernel.DevLink(r.Path), nil
	case r.Path == "/proc/self":
		return strconv.FormatInt(c.n.vpid(), 10), nil
	case r.Path == "/proc/thread-self":
		return fmt.Sprintf("%d/task/%d", c.n.vpid(), c.t.vtid()), nil
	case r.Kind == vkernel.Proc:
		link, err := os.Readlink(c.procHostPath(r.Path))
		var e *os.PathError
		if errors.As(err, &e) {
			return "", e.Err
		}
		if err != nil {
			return "", err
		}
		if v, ok := c.viewName(link); ok {
			return v, nil
		}
		return "", unix.ENOENT // a file outside the view: no name the node may see
	case r.Kind == vkernel.Host && r.Type == vkernel.TypeSymlink:
		return hostFS{}.Readlink(r.HostPath)
	}
	return "", unix.EINVAL
}
