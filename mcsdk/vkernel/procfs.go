package vkernel

import (
	"bufio"
	"bytes"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// /proc and /sys as a node sees them (issue 36 §1, §2). No open of a file
// below /proc or /sys reaches the host's file unless the table says the
// file holds only the node's own state: each path is served one of four
// ways (ProcServe), and anything the table does not name is absent
// (ENOENT), as on a machine whose kernel lacks it; programs cope with that
// (Go's runtime without cgroup files, redis without smaps, glibc without
// /proc at all). The random devices of /dev are rows too.
//
// A path names the caller's own process however it is spelled:
// /proc/self, /proc/thread-self, /proc/VPID (its virtual pid, or a virtual
// tid of its threads) and /proc/self/task/VTID are one process directory,
// looked up in the table as /proc/self/… (OwnProcPath). Any other /proc/N
// is absent: the other processes of the host, and of the node's tree, are
// not modelled there. Paths are matched as resolved in the node's view
// (View.Resolve): however the node spells one — through a symlink, "..",
// a directory descriptor — the table sees its clean absolute path, and a
// path that walks through a magic link (/proc/self/root/…,
// /proc/self/fd/N/…) is refused before it gets here (ELOOP).
//
// A virtual file's content is a pure function of a ProcSnapshot, which the
// supervisor fills for the caller at the open: the parts a row's Needs
// name are read from the host (the process's name, the kernel's status
// lines, its mappings) or drawn from the run's stream only for that row.

// ProcServe is how an open of one /proc, /sys or /dev file is served.
type ProcServe int

// The four ways.
const (
	ProcAbsent  ProcServe = iota // ENOENT
	ProcVirtual                  // content Render computes, served read-only
	ProcRandom                   // the run's seeded random stream
	ProcNative                   // the node's own kernel file: nothing of the host in it
	numProcServes
)

var procServeNames = [numProcServes]string{ProcAbsent: "absent", ProcVirtual: "virtual", ProcRandom: "random", ProcNative: "native"}

func (s ProcServe) String() string {
	if s < 0 || s >= numProcServes {
		return "ProcServe(" + strconv.Itoa(int(s)) + ")"
	}
	return procServeNames[s]
}

// ProcNeeds names the parts of a ProcSnapshot a renderer reads beyond the
// ones the supervisor always fills (node, ids, counts, clocks): each costs
// a host read, or a draw from the run's stream, that only the rows which
// need it may make.
type ProcNeeds uint8

// The parts.
const (
	NeedComm   ProcNeeds = 1 << iota // Comm
	NeedStatus                       // KernelStatus
	NeedMaps                         // Maps
	NeedLimits                       // Limits
	NeedRandom                       // Random
	NeedFdinfo                       // Fdinfo, FdIno, FdPid
	NeedAuxv                         // Auxv
)

// ProcSnapshot is what the table's renderers read of the caller and its
// world: plain values the supervisor fills at the open. Renderers do not
// modify it.
type ProcSnapshot struct {
	Node  int // the node's index: its hostname is node<Node>
	Nodes int // how many nodes the world has (loadavg, stat's processes)
	CPUs  int // the virtual machine's CPUs, 1 to 64

	Pid, PPid, Pgrp int64 // the caller's process's virtual pid, parent's pid and process group
	Tid             int64 // the thread whose directory the path names (ProcOwn.Tid); 0 for the process's
	Threads         int   // its live threads (at least 1 is shown)
	Sleeping        bool  // the thread shown (Tid's, else the process's main thread) waits in a call: state S, else R
	Start           int64 // when the node was launched, by its monotonic clock (ns)
	Uptime          int64 // the node's CLOCK_BOOTTIME now (ns)
	Realtime        int64 // the node's CLOCK_REALTIME now (ns since the Unix epoch)

	Comm         string    // NeedComm: the name of the process (or of thread Tid), as its comm file holds it (without the newline)
	KernelStatus []byte    // NeedStatus: the kernel's status file of the process (or of thread Tid); only statusFields's own-state lines are read
	Maps         []Mapping // NeedMaps: the process's mappings, named as its view names them
	Limits       *Limits   // NeedLimits: the process's virtual resource limits
	Random       [16]byte  // NeedRandom: 16 fresh bytes of the run's seeded stream

	Fdinfo []byte // NeedFdinfo: the kernel's fdinfo file of the descriptor opened (nil: no such descriptor)
	FdIno  uint64 // NeedFdinfo: the virtual inode number of its file, as stat shows it
	FdPid  int64  // NeedFdinfo: for a pidfd, the virtual pid of its process (0: none the node sees)

	Auxv []byte // NeedAuxv: the process's auxiliary vector as the kernel keeps it, with VirtualAuxv's values
}

// ProcFile is one row of the table: a path, how it is served, its
// content when virtual and what it holds.
type ProcFile struct {
	Path   string                       // clean and absolute; ending in "/": every path below it
	Serve  ProcServe                    //
	Render func(s *ProcSnapshot) []byte // ProcVirtual rows only
	Needs  ProcNeeds                    // the parts of the snapshot Render reads beyond the ones always filled
	Holds  string                       // what a node reads there
}

// procFiles is the table. Every row comes before any prefix row above it
// (a more specific path first): LookupProcFile takes the first row that
// names the path exactly or as a prefix, which is then the exact row,
// else the longest prefix row (TestProcTable checks the order).
var procFiles = []ProcFile{
	{"/dev/urandom", ProcRandom, nil, 0, "the run's seeded stream"},
	{"/dev/random", ProcRandom, nil, 0, "the run's seeded stream"},

	// The caller's own process.
	{"/proc/self", ProcNative, nil, 0, "its own directory's listing"},
	{"/proc/self/stat", ProcVirtual, procStat, NeedComm, "virtual pids, state R, its thread count, no CPU time, no memory, start time the node's launch"},
	{"/proc/self/status", ProcVirtual, procStatus, NeedStatus, "the process's own name, umask, credentials and signal sets; virtual pids; memory and context switches zero (statusFields)"},
	{"/proc/self/statm", ProcVirtual, constFile("0 0 0 0 0 0 0\n"), 0, "every size zero pages"},
	{"/proc/self/maps", ProcVirtual, procMaps, NeedMaps, "the process's mappings (its own addresses, fixed without ASLR), device 00:00 and inode 0"},
	{"/proc/self/smaps", ProcVirtual, procSmaps, NeedMaps, "each mapping of maps with its Size, 4 kB pages and every resident, shared, dirty and swap size 0 kB"},
	{"/proc/self/smaps_rollup", ProcVirtual, procSmapsRollup, NeedMaps, "the span of maps, every size 0 kB"},
	{"/proc/self/cmdline", ProcNative, nil, 0, "the node's own arguments"},
	{"/proc/self/environ", ProcNative, nil, 0, "the node's own environment"},
	{"/proc/self/comm", ProcNative, nil, 0, "the thread's name, as the node set it; writable, as prctl(PR_SET_NAME) (glibc's pthread_setname_np of another thread)"},
	{"/proc/self/auxv", ProcVirtual, func(s *ProcSnapshot) []byte { return s.Auxv }, NeedAuxv, "the kernel's copy of the auxiliary vector with the virtual CPU's AT_HWCAP, AT_HWCAP2 and AT_MINSIGSTKSZ (VirtualAuxv), as weft patched them on the stack"},
	{"/proc/self/limits", ProcVirtual, procLimits, NeedLimits, "its virtual resource limits, as getrlimit reads them (Limits)"},
	{"/proc/self/fd", ProcNative, nil, 0, "its descriptor numbers"},
	{"/proc/self/fd/", ProcNative, nil, 0, "its descriptors"},
	{"/proc/self/fdinfo/", ProcVirtual, procFdinfo, NeedFdinfo, "its descriptors' positions and flags and the kernel's own lines of their state (fdinfoLines), with the file's virtual inode, mount 1 (mountinfo's) and a pidfd's virtual pid; lines naming host objects (locks, epoll targets, eventfd ids) left out"},
	{"/proc/self/cwd", ProcNative, nil, 0, "its working directory, a link read as its view names it (viewName)"},
	{"/proc/self/cwd/", ProcNative, nil, 0, "files below its working directory"},
	{"/proc/self/root/", ProcNative, nil, 0, "files below its root"},
	{"/proc/self/exe", ProcNative, nil, 0, "its binary, a link read as its view names it (viewName)"},
	{"/proc/self/cgroup", ProcVirtual, identityFile("/proc/self/cgroup"), 0, "the root of cgroup v2 and no controller: Go's runtime then sets no CPU limit (Identity)"},
	{"/proc/self/mountinfo", ProcVirtual, identityFile("/proc/self/mountinfo"), 0, "one root file system, no cgroup mount (Identity)"},
	{"/proc/self/", ProcAbsent, nil, 0, "anything else of the process (io, sched, task listing, …)"},

	// The machine.
	{"/proc/uptime", ProcVirtual, procUptime, 0, "the virtual clock's uptime, idle 0"},
	{"/proc/loadavg", ProcVirtual, procLoadavg, 0, "loads 0.00, one running of the world's nodes, last pid the node's"},
	{"/proc/meminfo", ProcVirtual, procMeminfo, 0, "4 GiB of RAM, 2 GiB free, no swap"},
	{"/proc/cpuinfo", ProcVirtual, procCpuinfo, 0, "Config.CPUs weft virtual CPUs (one by default) at 1000 MHz"},
	{"/proc/stat", ProcVirtual, procStatFile, 0, "no CPU time, boot time from the virtual clock"},
	{"/proc/sys/kernel/hostname", ProcVirtual, procHostname, 0, "node<i>"},
	{"/proc/sys/kernel/osrelease", ProcVirtual, constFile(Release + "\n"), 0, Release},
	{"/proc/sys/kernel/random/boot_id", ProcVirtual, constFile("00000000-0000-4000-8000-000000000000\n"), 0, "a fixed UUID"},
	{"/proc/sys/kernel/random/uuid", ProcVirtual, procUUID, NeedRandom, "a version-4 UUID from the seeded stream, fresh per open"},
	{"/proc/sys/net/core/somaxconn", ProcVirtual, constFile("4096\n"), 0, "Linux's default since 5.4"},
	{"/proc/sys/vm/overcommit_memory", ProcVirtual, constFile("0\n"), 0, "Linux's default (heuristic)"},
	{"/sys/devices/system/cpu/online", ProcVirtual, cpuRange, 0, "0, or 0-N for Config.CPUs N+1"},
	{"/sys/devices/system/cpu/possible", ProcVirtual, cpuRange, 0, "0, or 0-N for Config.CPUs N+1"},
	{"/sys/devices/system/cpu/present", ProcVirtual, cpuRange, 0, "0, or 0-N for Config.CPUs N+1"},
	{"/sys/devices/system/clocksource/clocksource0/current_clocksource", ProcVirtual, constFile("tsc\n"), 0, "tsc"},
	{"/sys/kernel/mm/transparent_hugepage/enabled", ProcVirtual, constFile("always [madvise] never\n"), 0, "madvise, Debian's default"},
	{"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", ProcVirtual, constFile("2097152\n"), 0, "2 MiB, x86-64's"},
	{"/proc", ProcAbsent, nil, 0, "no listing of the host's processes"},
	{"/proc/", ProcAbsent, nil, 0, "every other /proc file and other processes' directories"},
	{"/sys", ProcAbsent, nil, 0, "no listing of the host's devices"},
	{"/sys/", ProcAbsent, nil, 0, "every other /sys file"},
}

// ProcFiles returns the table's rows, in order (a copy).
func ProcFiles() []ProcFile { return append([]ProcFile(nil), procFiles...) }

// LookupProcFile returns the row for a clean absolute path (the caller's
// own process directory spelled /proc/self: OwnProcPath): the exact row,
// else the longest prefix row; ok is false for paths outside the table's
// roots.
func LookupProcFile(path string) (ProcFile, bool) {
	for _, f := range procFiles {
		if f.Path == path || strings.HasSuffix(f.Path, "/") && strings.HasPrefix(path, f.Path) {
			return f, true
		}
	}
	return ProcFile{}, false
}

// ProcCaller is who opens a /proc path: the caller's process and thread,
// by their virtual ids, and its process's live threads.
type ProcCaller struct {
	Pid     int64   // the process's virtual pid (its main thread's tid)
	Tid     int64   // the calling thread's virtual tid
	Threads []int64 // the virtual tids of the process's live threads
}

// ProcOwn is a path that names the caller's own process directory.
type ProcOwn struct {
	Key    string // the path as the table names it: /proc/self or /proc/self/…
	Sub    string // the path below the process or thread directory ("" for the directory)
	Tid    int64  // the thread whose directory it names; 0 for the process's
	Absent bool   // it names a process or thread the node may not see
}

// OwnProcPath maps a clean absolute path naming a process directory
// (/proc/self, /proc/thread-self, /proc/N, and a task below them) to the
// table's /proc/self form for caller who; ok is false for a path that
// names no process directory (/proc/uptime, /etc/hostname). A pid or tid
// that is not one of who's live threads is Absent.
func OwnProcPath(path string, who ProcCaller) (own ProcOwn, ok bool) {
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return ProcOwn{}, false
	}
	first, sub, _ := strings.Cut(rest, "/")
	var tid int64
	switch first {
	case "self":
	case "thread-self":
		tid = who.Tid
	default:
		v, ok := procPid(first)
		if !ok {
			return ProcOwn{}, false
		}
		if !who.lives(v) {
			return ProcOwn{Absent: true}, true
		}
		tid = v
	}
	if tail, ok := strings.CutPrefix(sub, "task/"); ok && first != "thread-self" {
		vtid, after, _ := strings.Cut(tail, "/")
		v, ok := procPid(vtid)
		if !ok || !who.lives(v) {
			return ProcOwn{Absent: true}, true
		}
		tid, sub = v, after
	}
	return ProcOwn{Key: strings.TrimSuffix("/proc/self/"+sub, "/"), Sub: sub, Tid: tid}, true
}

// procPid is the pid a /proc directory's name spells, as Linux reads it
// (fs/proc/base.c's name_to_int): decimal digits only, no sign, no
// leading zero, below 2^32-10; ok is false for any other name, which
// names no process (/proc/+100 and /proc/0100 are ENOENT on Linux).
func procPid(name string) (pid int64, ok bool) {
	if name == "" || len(name) > 1 && name[0] == '0' {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(name); i++ {
		c := name[i] - '0'
		if c > 9 || n >= (1<<32-1-9)/10 {
			return 0, false
		}
		n = n*10 + uint64(c)
	}
	return int64(n), true
}

// lives reports whether tid is one of the caller's process's live threads.
func (who ProcCaller) lives(tid int64) bool {
	for _, t := range who.Threads {
		if t == tid {
			return true
		}
	}
	return false
}

// ProcSelfLink is the target readlink(2) reads for /proc/self (the
// caller's pid) and /proc/thread-self (PID/task/TID); ok is false for any
// other path.
func ProcSelfLink(path string, who ProcCaller) (link string, ok bool) {
	switch path {
	case "/proc/self":
		return strconv.FormatInt(who.Pid, 10), true
	case "/proc/thread-self":
		return fmt.Sprintf("%d/task/%d", who.Pid, who.Tid), true
	}
	return "", false
}

// The renderers. Formats are Linux's (proc(5)) unless a row's Holds says
// otherwise.

// fdinfoLines are the kernel's fdinfo lines (fs/proc/fd.c and the
// descriptor kinds' show_fdinfo) a node reads, by key: as the kernel
// prints them ("") or with a virtual value (its ProcSnapshot field). Any
// other line is left out: a lock's holder (a host pid and device),
// epoll's and inotify's targets (host device and inode numbers), an
// eventfd's id (a host-wide counter).
var fdinfoLines = map[string]string{
	"pos": "", "flags": "", "mnt_id": "mount", "ino": "ino", "Pid": "pid", "NSpid": "pid",
	"sigmask": "", "eventfd-count": "", "eventfd-semaphore": "",
	"clockid": "", "ticks": "", "settime flags": "", "it_value": "", "it_interval": "",
}

// procFdinfo is /proc/self/fdinfo/N: the kernel's lines of fdinfoLines,
// host numbers replaced by the node's.
func procFdinfo(s *ProcSnapshot) []byte {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(string(s.Fdinfo), "\n"), "\n") {
		key, _, _ := strings.Cut(line, ":")
		how, ok := fdinfoLines[key]
		switch {
		case !ok:
			continue
		case how == "mount":
			line = key + ":\t1"
		case how == "ino":
			line = fmt.Sprintf("%s:\t%d", key, s.FdIno)
		case how == "pid":
			line = fmt.Sprintf("%s:\t%d", key, s.FdPid)
		}
		b.WriteString(line + "\n")
	}
	return []byte(b.String())
}

func constFile(s string) func(*ProcSnapshot) []byte {
	return func(*ProcSnapshot) []byte { return []byte(s) }
}

// identityFile renders the virtual identity file path of the node
// (Identity).
func identityFile(path string) func(*ProcSnapshot) []byte {
	return func(s *ProcSnapshot) []byte {
		if s.Node < 0 || s.Node >= s.Nodes {
			return nil
		}
		return Identity(s.Node, NodeNames(s.Nodes))[path]
	}
}

func procHostname(s *ProcSnapshot) []byte { return fmt.Appendf(nil, "node%d\n", s.Node) }

func procLimits(s *ProcSnapshot) []byte {
	if s.Limits == nil {
		return nil
	}
	return s.Limits.ProcLimits()
}

func procUptime(s *ProcSnapshot) []byte {
	up := s.Uptime / 1e7 // hundredths of a second
	return fmt.Appendf(nil, "%d.%02d %d.%02d\n", up/100, up%100, 0, 0)
}

func procLoadavg(s *ProcSnapshot) []byte {
	return fmt.Appendf(nil, "0.00 0.00 0.00 1/%d %d\n", s.Nodes, s.Pid)
}

func procMeminfo(*ProcSnapshot) []byte {
	return fmt.Appendf(nil, "MemTotal:       %8d kB\nMemFree:        %8d kB\nMemAvailable:   %8d kB\n"+
		"Buffers:               0 kB\nCached:                0 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n",
		MemTotal>>10, MemFree>>10, MemFree>>10)
}

func procCpuinfo(s *ProcSnapshot) []byte {
	var b bytes.Buffer
	for i := range s.CPUs {
		fmt.Fprintf(&b, "processor\t: %d\nvendor_id\t: weft\nmodel name\t: weft virtual CPU\ncpu MHz\t\t: 1000.000\n"+
			"physical id\t: 0\ncore id\t\t: %d\ncpu cores\t: %d\nflags\t\t: fpu tsc\n\n", i, i, s.CPUs)
	}
	return b.Bytes()
}

// procStatFile is /proc/stat: no CPU time; btime, when the node booted by
// its realtime clock (seconds since the Unix epoch), is its realtime less
// its uptime.
func procStatFile(s *ProcSnapshot) []byte {
	var b bytes.Buffer
	b.WriteString("cpu  0 0 0 0 0 0 0 0 0 0\n")
	for i := range s.CPUs {
		fmt.Fprintf(&b, "cpu%d 0 0 0 0 0 0 0 0 0 0\n", i)
	}
	fmt.Fprintf(&b, "intr 0\nctxt 0\nbtime %d\nprocesses %d\nprocs_running 1\nprocs_blocked 0\n",
		(s.Realtime-s.Uptime)/1e9, s.Nodes)
	return b.Bytes()
}

// cpuRange is a CPU list as /sys/devices/system/cpu/online prints it.
func cpuRange(s *ProcSnapshot) []byte { return []byte(CPUList(s.CPUs) + "\n") }

// procUUID is a version-4 UUID (RFC 9562) made of the snapshot's random
// bytes, as the kernel makes a fresh random one for every read of
// .../random/uuid.
func procUUID(s *ProcSnapshot) []byte {
	b := s.Random
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Appendf(nil, "%x-%x-%x-%x-%x\n", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// procStat is /proc/self/stat (proc(5)) for the node as the virtual
// machine sees it: virtual pids, its state (S while the thread shown
// waits in a call, else R), its thread count, no CPU time, no
// memory, started when the node was launched. A thread's directory
// (/proc/PID/task/TID, /proc/thread-self) gives the thread's id first,
// as Linux does.
func procStat(s *ProcSnapshot) []byte {
	start := s.Start / (1e9 / UserHZ)
	// pid comm state ppid pgrp session tty tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice threads itrealvalue
	// starttime vsize rss rsslim, then 28 fields of addresses, signal masks
	// and scheduling, all zero but exit_signal (SIGCHLD).
	b := fmt.Appendf(nil, "%d (%s) %c %d %d 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 %d 0 %d 0 0 18446744073709551615",
		s.shownTid(), s.Comm, s.state()[0], s.PPid, s.Pgrp, max(s.Threads, 1), start)
	b = append(b, strings.Repeat(" 0", 12)+" 17"+strings.Repeat(" 0", 14)+"\n"...)
	return b
}

// state is the shown thread's state as status says it: sleeping while
// it waits in a call (weft holds it parked), else running (it runs, or
// may run when the scheduler picks it).
func (s *ProcSnapshot) state() string {
	if s.Sleeping {
		return "S (sleeping)"
	}
	return "R (running)"
}

// shownTid is the id a stat or status file shows as its task's: the
// thread's whose directory was named, else the process's.
func (s *ProcSnapshot) shownTid() int64 {
	if s.Tid != 0 {
		return s.Tid
	}
	return s.Pid
}

// statusFields are the fields of /proc/self/status (proc(5)) a node sees,
// in the kernel's order; any other line of the kernel's file is left
// out. An empty value keeps the kernel's line: the process's own state
// (its name, umask, credentials, signal sets), none of it the host's.
// In a thread's directory Pid and NSpid are the thread's id, Tgid and
// NStgid its process's, as on Linux.
var statusFields = []struct{ key, value string }{
	{"Name", ""}, {"Umask", ""}, {"State", "$state"},
	{"Tgid", "$pid"}, {"Ngid", "0"}, {"Pid", "$tid"}, {"PPid", "$ppid"}, {"TracerPid", "0"},
	{"Uid", ""}, {"Gid", ""}, {"FDSize", ""}, {"Groups", ""},
	{"NStgid", "$pid"}, {"NSpid", "$tid"}, {"NSpgid", "$pgrp"}, {"NSsid", "1"},
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

// kB0 is a zero size as the kernel writes it in status.
const kB0 = "       0 kB"

// pendingCount is SigQ's count on weft's machine: the signals pending
// for the process (the kernel's counts every process of the host user).
// Its limit is SigPendingMax (the kernel's is the host user's
// RLIMIT_SIGPENDING).
func pendingCount(kernel map[string]string) int {
	var set uint64
	for _, k := range []string{"SigPnd", "ShdPnd"} {
		x, _ := strconv.ParseUint(kernel[k], 16, 64)
		set |= x
	}
	return bits.OnesCount64(set)
}

// procStatus is /proc/self/status made of statusFields.
func procStatus(s *ProcSnapshot) []byte {
	kernel := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(s.KernelStatus))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok {
			kernel[k] = strings.TrimSpace(v)
		}
	}
	vars := strings.NewReplacer("$pid", strconv.FormatInt(s.Pid, 10), "$tid", strconv.FormatInt(s.shownTid(), 10),
		"$ppid", strconv.FormatInt(s.PPid, 10), "$pgrp", strconv.FormatInt(s.Pgrp, 10),
		"$cpumask", strconv.FormatUint(CPUMask(s.CPUs), 16), "$cpulist", CPUList(s.CPUs), "$state", s.state())
	var out bytes.Buffer
	for _, f := range statusFields {
		v := vars.Replace(f.value)
		if f.value == "" {
			v = kernel[f.key]
		}
		if f.key == "SigQ" {
			v = fmt.Sprintf("%d/%d", pendingCount(kernel), SigPendingMax)
		}
		fmt.Fprintf(&out, "%s:\t%s\n", f.key, v)
	}
	return out.Bytes()
}

// Mapping is one mapping of a process, as /proc/PID/maps shows it.
type Mapping struct {
	Start, End uint64
	Perms      string // rwxp or rwxs, "-" for each permission it lacks
	Offset     string // the offset in its file, as the kernel prints it (hex, at least 8 digits)
	Name       string // its file as the view names it, a name such as [heap], or "" (anonymous)
}

// Line is the mapping's maps line, with device 00:00 and inode 0 (the
// host's file system's numbers are not shown) and the name from column
// 74, as Linux pads it.
func (m Mapping) Line() string {
	s := fmt.Sprintf("%08x-%08x %s %s 00:00 0", m.Start, m.End, m.Perms, m.Offset)
	if m.Name != "" {
		s += strings.Repeat(" ", max(1, 73-len(s))) + m.Name
	}
	return s + "\n"
}

// procMaps is /proc/self/maps.
func procMaps(s *ProcSnapshot) []byte {
	var b bytes.Buffer
	for _, m := range s.Maps {
		b.WriteString(m.Line())
	}
	return b.Bytes()
}

// smapsSizes are smaps's per-mapping sizes after Size, KernelPageSize and
// MMUPageSize (proc(5)): weft's machine keeps nothing resident, shared
// or swapped.
var smapsSizes = []string{"Rss", "Pss", "Pss_Dirty", "Shared_Clean", "Shared_Dirty", "Private_Clean",
	"Private_Dirty", "Referenced", "Anonymous", "KSM", "LazyFree", "AnonHugePages", "ShmemPmdMapped",
	"FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap", "SwapPss", "Locked"}

// rollupSizes are smaps_rollup's sizes (proc(5)), every one zero.
var rollupSizes = []string{"Rss", "Pss", "Pss_Dirty", "Pss_Anon", "Pss_File", "Pss_Shmem", "Shared_Clean",
	"Shared_Dirty", "Private_Clean", "Private_Dirty", "Referenced", "Anonymous", "KSM", "LazyFree",
	"AnonHugePages", "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap",
	"SwapPss", "Locked"}

// procSmaps is /proc/self/smaps: each mapping's line, its size, and
// every other size zero; VmFlags from its permissions.
func procSmaps(s *ProcSnapshot) []byte {
	var b bytes.Buffer
	for _, m := range s.Maps {
		b.WriteString(m.Line())
		fmt.Fprintf(&b, "%-16s%8d kB\n%-16s%8d kB\n%-16s%8d kB\n", "Size:", (m.End-m.Start)>>10, "KernelPageSize:", 4, "MMUPageSize:", 4)
		for _, k := range smapsSizes {
			fmt.Fprintf(&b, "%-16s%8d kB\n", k+":", 0)
		}
		fmt.Fprintf(&b, "%-16s%8d\nVmFlags: %s\n", "THPeligible:", 0, vmFlags(m.Perms))
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
func procSmapsRollup(s *ProcSnapshot) []byte {
	var b bytes.Buffer
	if ms := s.Maps; len(ms) > 0 {
		b.WriteString(Mapping{Start: ms[0].Start, End: ms[len(ms)-1].End, Perms: "---p", Offset: "00000000", Name: "[rollup]"}.Line())
	}
	for _, k := range rollupSizes {
		fmt.Fprintf(&b, "%-16s%8d kB\n", k+":", 0)
	}
	return b.Bytes()
}
