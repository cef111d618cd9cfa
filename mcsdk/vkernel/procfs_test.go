package vkernel

import (
	"encoding/hex"
	"fmt"
	"path"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// longestMatch is the table's rule said the other way round from
// LookupProcFile: the exact row, else the longest prefix row, wherever
// they stand in the table.
func longestMatch(path string) (ProcFile, bool) {
	var best ProcFile
	found := false
	for _, f := range procFiles {
		switch {
		case f.Path == path:
			return f, true
		case strings.HasSuffix(f.Path, "/") && strings.HasPrefix(path, f.Path) && len(f.Path) > len(best.Path):
			best, found = f, true
		}
	}
	return best, found
}

// TestProcTable checks the whole table, as the syscall table's test
// checks every number: each row is served one of the four ways, a
// virtual row has a renderer and the others none nor needs, its path is
// clean, absolute and below /proc, /sys or /dev, native rows are the
// caller's own process's and random rows /dev's, it says what it holds,
// no two rows share a path, and every row comes before each prefix row
// above it, so that the first match LookupProcFile takes is the exact
// row, else the longest prefix row. Every row is then found by its own
// path, a prefix row by a path below it too.
func TestProcTable(t *testing.T) {
	rows := ProcFiles()
	if len(rows) == 0 {
		t.Fatal("empty table")
	}
	seen := map[string]int{}
	for i, f := range rows {
		if j, ok := seen[f.Path]; ok {
			t.Errorf("%s: rows %d and %d", f.Path, j, i)
		}
		seen[f.Path] = i
		switch f.Serve {
		case ProcAbsent, ProcVirtual, ProcRandom, ProcNative:
		default:
			t.Errorf("%s: served %v, none of the four", f.Path, f.Serve)
		}
		if (f.Render != nil) != (f.Serve == ProcVirtual) {
			t.Errorf("%s: %v with a renderer %v", f.Path, f.Serve, f.Render != nil)
		}
		if f.Serve != ProcVirtual && f.Needs != 0 {
			t.Errorf("%s: %v but needs %b", f.Path, f.Serve, f.Needs)
		}
		dir := strings.TrimSuffix(f.Path, "/")
		if !strings.HasPrefix(dir, "/") || path.Clean(dir) != dir {
			t.Errorf("%s: not a clean absolute path", f.Path)
		}
		if !under(dir, "/proc") && !under(dir, "/sys") && !under(dir, "/dev") {
			t.Errorf("%s: outside /proc, /sys and /dev", f.Path)
		}
		if f.Serve == ProcNative && !under(dir, "/proc/self") {
			t.Errorf("%s: native but not the caller's own process's", f.Path)
		}
		if f.Serve == ProcRandom && !Devices[f.Path] {
			t.Errorf("%s: random but not an allowed device", f.Path)
		}
		if f.Holds == "" {
			t.Errorf("%s: says nothing of what it holds", f.Path)
		}
		for j, g := range rows[:i] {
			if strings.HasSuffix(f.Path, "/") && strings.HasPrefix(g.Path, f.Path) {
				continue // g is below f and comes first: as the lookup needs
			}
			if strings.HasSuffix(g.Path, "/") && strings.HasPrefix(f.Path, g.Path) {
				t.Errorf("%s (row %d) comes after the prefix row %s (row %d) that holds it", f.Path, i, g.Path, j)
			}
		}
	}
	for _, f := range rows {
		for _, p := range []string{f.Path, f.Path + "x", f.Path + "x/y"} {
			if !strings.HasSuffix(f.Path, "/") && p != f.Path {
				continue
			}
			got, ok := LookupProcFile(p)
			want, wok := longestMatch(p)
			if !ok || got.Path != f.Path || !wok || want.Path != got.Path {
				t.Errorf("%s: lookup gives %q (%v), the longest match %q (%v)", p, got.Path, ok, want.Path, wok)
			}
		}
	}
	if ProcServe(7).String() != "ProcServe(7)" || ProcVirtual.String() != "virtual" {
		t.Errorf("ProcServe names: %v %v", ProcServe(7), ProcVirtual)
	}
}

// TestProcLookup looks up paths by the longest-prefix rule: a row's own
// path, a path below a prefix row, and paths the table does not name
// under /proc and /sys (absent) or outside them (not in the table).
func TestProcLookup(t *testing.T) {
	for _, tc := range []struct {
		path, row string
		serve     ProcServe
	}{
		{"/proc/self/stat", "/proc/self/stat", ProcVirtual},
		{"/proc/self/smaps_rollup", "/proc/self/smaps_rollup", ProcVirtual},
		{"/proc/self/limits", "/proc/self/limits", ProcVirtual},
		{"/proc/self", "/proc/self", ProcNative},
		{"/proc/self/fd", "/proc/self/fd", ProcNative},
		{"/proc/self/fd/3", "/proc/self/fd/", ProcNative},
		{"/proc/self/fdinfo/3", "/proc/self/fdinfo/", ProcVirtual},
		{"/proc/self/fdinfo", "/proc/self/", ProcAbsent}, // its listing is not a row
		{"/proc/self/cwd/a/b", "/proc/self/cwd/", ProcNative},
		{"/proc/self/root/etc/passwd", "/proc/self/root/", ProcNative},
		{"/proc/self/io", "/proc/self/", ProcAbsent},
		{"/proc/self/task", "/proc/self/", ProcAbsent},
		{"/proc/self/statx", "/proc/self/", ProcAbsent},
		{"/proc/selfish", "/proc/", ProcAbsent},
		{"/proc/version", "/proc/", ProcAbsent},
		{"/proc/1/mem", "/proc/", ProcAbsent},
		{"/proc/sys/kernel/pid_max", "/proc/", ProcAbsent},
		{"/proc", "/proc", ProcAbsent},
		{"/sys", "/sys", ProcAbsent},
		{"/sys/class/net/lo/address", "/sys/", ProcAbsent},
		{"/sys/devices/system/cpu/online", "/sys/devices/system/cpu/online", ProcVirtual},
		{"/sys/devices/system/cpu/online/x", "/sys/", ProcAbsent},
		{"/dev/urandom", "/dev/urandom", ProcRandom},
		{"/dev/random", "/dev/random", ProcRandom},
	} {
		got, ok := LookupProcFile(tc.path)
		if !ok || got.Path != tc.row || got.Serve != tc.serve {
			t.Errorf("%s: row %q %v (%v), want %q %v", tc.path, got.Path, got.Serve, ok, tc.row, tc.serve)
		}
	}
	for _, p := range []string{"/etc/hostname", "/dev/null", "/dev/tty", "/", "/procx", "/system"} {
		if f, ok := LookupProcFile(p); ok {
			t.Errorf("%s: in the table as %q", p, f.Path)
		}
	}
}

// TestOwnProcPath maps every spelling of the caller's own process
// directory to /proc/self, as the supervisor did before the move: a
// process of pid 100 with threads 100 and 1001, the caller 1001. Every
// other pid and tid is absent.
func TestOwnProcPath(t *testing.T) {
	who := ProcCaller{Pid: 100, Tid: 1001, Threads: []int64{100, 1001}}
	for _, tc := range []struct {
		path string
		want ProcOwn
		ok   bool
	}{
		{"/proc/self", ProcOwn{Key: "/proc/self"}, true},
		{"/proc/self/status", ProcOwn{Key: "/proc/self/status", Sub: "status"}, true},
		{"/proc/self/fd/3", ProcOwn{Key: "/proc/self/fd/3", Sub: "fd/3"}, true},
		{"/proc/thread-self", ProcOwn{Key: "/proc/self", Tid: 1001}, true},
		{"/proc/thread-self/comm", ProcOwn{Key: "/proc/self/comm", Sub: "comm", Tid: 1001}, true},
		{"/proc/thread-self/task/1001", ProcOwn{Key: "/proc/self/task/1001", Sub: "task/1001", Tid: 1001}, true}, // no task/ below a thread: the table's absent row
		{"/proc/100", ProcOwn{Key: "/proc/self", Tid: 100}, true},
		{"/proc/100/stat", ProcOwn{Key: "/proc/self/stat", Sub: "stat", Tid: 100}, true},
		{"/proc/1001/status", ProcOwn{Key: "/proc/self/status", Sub: "status", Tid: 1001}, true},
		{"/proc/100/task/1001/stat", ProcOwn{Key: "/proc/self/stat", Sub: "stat", Tid: 1001}, true},
		{"/proc/100/task/100", ProcOwn{Key: "/proc/self", Tid: 100}, true},
		{"/proc/self/task/1001/comm", ProcOwn{Key: "/proc/self/comm", Sub: "comm", Tid: 1001}, true},
		{"/proc/self/task/100/status", ProcOwn{Key: "/proc/self/status", Sub: "status", Tid: 100}, true},
		{"/proc/self/task", ProcOwn{Key: "/proc/self/task", Sub: "task"}, true},
		{"/proc/1", ProcOwn{Absent: true}, true},
		{"/proc/1/mem", ProcOwn{Absent: true}, true},
		{"/proc/101/status", ProcOwn{Absent: true}, true},
		{"/proc/1002/status", ProcOwn{Absent: true}, true},
		{"/proc/-100/status", ProcOwn{}, false}, // no pid: the table's /proc/ row (absent)
		{"/proc/+100/status", ProcOwn{}, false}, // Linux reads no sign
		{"/proc/0100/status", ProcOwn{}, false}, // nor a leading zero
		{"/proc/4294967296/status", ProcOwn{}, false},
		{"/proc/self/task/+1001/comm", ProcOwn{Absent: true}, true},
		{"/proc/self/task/01001/comm", ProcOwn{Absent: true}, true},
		{"/proc/self/task/1/comm", ProcOwn{Absent: true}, true},
		{"/proc/self/task/x/comm", ProcOwn{Absent: true}, true},
		{"/proc/100/task/1002/stat", ProcOwn{Absent: true}, true},
		{"/proc/uptime", ProcOwn{}, false},
		{"/proc/sys/kernel/hostname", ProcOwn{}, false},
		{"/proc", ProcOwn{}, false},
		{"/etc/hostname", ProcOwn{}, false},
	} {
		got, ok := OwnProcPath(tc.path, who)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: %+v (%v), want %+v (%v)", tc.path, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"/proc/self", "100"}, {"/proc/thread-self", "100/task/1001"},
	} {
		if got, ok := ProcSelfLink(tc.path, who); !ok || got != tc.want {
			t.Errorf("link %s: %q (%v), want %q", tc.path, got, ok, tc.want)
		}
	}
	if got, ok := ProcSelfLink("/proc/self/exe", who); ok {
		t.Errorf("link /proc/self/exe: %q from the table, want none", got)
	}
}

// fullSnapshot is a snapshot with every part filled.
func fullSnapshot() *ProcSnapshot {
	s := &ProcSnapshot{
		Node: 1, Nodes: 3, CPUs: 5, Pid: 101, PPid: 1, Pgrp: 101, Threads: 2,
		Start: 1000e9, Uptime: 1234567e6, Realtime: 1767225600e9 + 234567e6,
		Comm: "server", KernelStatus: []byte("Name:\tserver\nUmask:\t0022\nSigPnd:\t0000000000000100\n"),
		Maps:   []Mapping{{Start: 0x400000, End: 0x401000, Perms: "r-xp", Offset: "00000000", Name: "/usr/bin/server"}},
		Limits: NewLimits(512),
	}
	copy(s.Random[:], "0123456789abcdef")
	return s
}

// TestProcNeeds checks that each renderer reads no part of the snapshot
// beyond the ones its row's Needs name (and the ones always filled): the
// supervisor fills only those, so a renderer that read another would see
// a zero value in a run.
func TestProcNeeds(t *testing.T) {
	parts := []struct {
		need  ProcNeeds
		clear func(*ProcSnapshot)
	}{
		{NeedComm, func(s *ProcSnapshot) { s.Comm = "" }},
		{NeedStatus, func(s *ProcSnapshot) { s.KernelStatus = nil }},
		{NeedMaps, func(s *ProcSnapshot) { s.Maps = nil }},
		{NeedLimits, func(s *ProcSnapshot) { s.Limits = nil }},
		{NeedRandom, func(s *ProcSnapshot) { s.Random = [16]byte{} }},
	}
	for _, f := range ProcFiles() {
		if f.Serve != ProcVirtual {
			continue
		}
		full := f.Render(fullSnapshot())
		for _, p := range parts {
			s := fullSnapshot()
			p.clear(s)
			got := f.Render(s)
			if f.Needs&p.need == 0 && string(got) != string(full) {
				t.Errorf("%s: reads part %b, which its Needs (%b) do not name", f.Path, p.need, f.Needs)
			}
			if f.Needs&p.need != 0 && string(got) == string(full) {
				t.Errorf("%s: needs part %b but does not read it", f.Path, p.need)
			}
		}
	}
}

// TestProcRendersBadSnapshot renders every virtual row from a zero and
// from a nonsensical snapshot: no renderer panics.
func TestProcRendersBadSnapshot(t *testing.T) {
	bad := &ProcSnapshot{Node: 7, Nodes: 2, CPUs: -3, Threads: -1, Uptime: -5,
		KernelStatus: []byte("garbage\n:\n\x00\x01"), Maps: []Mapping{{Start: 9, End: 1}}}
	for _, f := range ProcFiles() {
		if f.Serve == ProcVirtual {
			f.Render(&ProcSnapshot{})
			f.Render(bad)
		}
	}
}

// TestProcFormats checks the shapes proc(5) gives the files, on the
// full snapshot: stat's 52 fields with the name in parentheses, status's
// "Key:\tvalue" lines in the kernel's order with no host value of the
// kernel's file kept but its own state, maps's name from column 74,
// smaps's sizes right-aligned in 8 columns.
func TestProcFormats(t *testing.T) {
	s := fullSnapshot()
	s.KernelStatus = []byte(linuxStatus)
	render := func(path string) string {
		f, ok := LookupProcFile(path)
		if !ok || f.Serve != ProcVirtual {
			t.Fatalf("%s: not a virtual row", path)
		}
		return string(f.Render(s))
	}
	stat := render("/proc/self/stat")
	name := strings.Index(stat, " (server) ")
	if fields := strings.Fields(stat[name+len(" (server) "):]); name < 0 || len(fields)+2 != 52 || !strings.HasSuffix(stat, "\n") {
		t.Errorf("stat: %d fields, want 52 (proc(5)): %q", len(fields)+2, stat)
	}
	status := render("/proc/self/status")
	var keys []string
	for _, line := range strings.Split(strings.TrimSuffix(status, "\n"), "\n") {
		k, _, ok := strings.Cut(line, ":\t")
		if !ok {
			t.Errorf("status line %q is not Key:\\tvalue", line)
		}
		keys = append(keys, k)
	}
	var want []string
	for _, f := range statusFields {
		want = append(want, f.key)
	}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("status keys %q, want %q", keys, want)
	}
	for _, host := range []string{"48213", "48200", "7790", "96367", "3060", "1672", "CapEff", "Kthread", "0-1\n", "Speculation"} {
		if strings.Contains(status, host) {
			t.Errorf("status keeps the host's %q:\n%s", host, status)
		}
	}
	for _, own := range []string{"Name:\tredis-server\n", "Umask:\t0077\n", "Uid:\t1000\t1000\t1000\t1000\n",
		"Groups:\t1000 27\n", "Threads:\t4\n", "SigQ:\t2/15392\n", "SigBlk:\t0000000000010000\n", "Seccomp:\t2\n"} {
		if !strings.Contains(status, own) {
			t.Errorf("status lacks the process's own %q:\n%s", own, status)
		}
	}
	maps := render("/proc/self/maps")
	if i := strings.Index(maps, "/usr/bin/server"); i != 73 {
		t.Errorf("maps: name at column %d, want 74 (Linux's show_map pads to 73): %q", i+1, maps)
	}
	smaps := render("/proc/self/smaps")
	for _, line := range []string{"Size:                  4 kB\n", "KernelPageSize:        4 kB\n", "Rss:                   0 kB\n",
		"THPeligible:           0\n", "VmFlags: rd ex mr mw me \n"} {
		if !strings.Contains(smaps, line) {
			t.Errorf("smaps lacks %q:\n%s", line, smaps)
		}
	}
}

// linuxStatus is /proc/PID/status of a process of Linux 6.18 (three
// threads of redis-server, user 1000, under a seccomp filter), with the
// host's pids, memory and CPU set: what the supervisor reads, from which
// only the process's own state may pass.
const linuxStatus = `Name:	redis-server
Umask:	0077
State:	S (sleeping)
Tgid:	48213
Ngid:	0
Pid:	48213
PPid:	48200
TracerPid:	48200
Uid:	1000	1000	1000	1000
Gid:	1000	1000	1000	1000
FDSize:	64
Groups:	1000 27 
NStgid:	48213
NSpid:	48213
NSpgid:	48200
NSsid:	7790
Kthread:	0
VmPeak:	    3060 kB
VmSize:	    3060 kB
VmLck:	       0 kB
VmPin:	       0 kB
VmHWM:	    1672 kB
VmRSS:	    1672 kB
RssAnon:	     112 kB
RssFile:	    1560 kB
RssShmem:	       0 kB
VmData:	     360 kB
VmStk:	     132 kB
VmExe:	      20 kB
VmLib:	    1528 kB
VmPTE:	      48 kB
VmSwap:	       0 kB
HugetlbPages:	       0 kB
CoreDumping:	0
THP_enabled:	1
untag_mask:	0xffffffffffffffff
Threads:	4
SigQ:	12/96367
SigPnd:	0000000000000100
ShdPnd:	0000000000004000
SigBlk:	0000000000010000
SigIgn:	0000000000001000
SigCgt:	0000000180004a02
CapInh:	0000000000000000
CapPrm:	0000000000000000
CapEff:	0000000000000000
CapBnd:	000001ffffffffff
CapAmb:	0000000000000000
NoNewPrivs:	1
Seccomp:	2
Seccomp_filters:	1
Speculation_Store_Bypass:	vulnerable
SpeculationIndirectBranch:	always enabled
Cpus_allowed:	3
Cpus_allowed_list:	0-1
Mems_allowed:	00000000,00000001
Mems_allowed_list:	0
voluntary_ctxt_switches:	17
nonvoluntary_ctxt_switches:	34
`

// TestProcfsScripts runs testdata/procfs/*.txt:
//
//	snapshot [node=N] [nodes=N] [cpus=N] [pid=N] [tid=N] [ppid=N] [pgrp=N] [threads=N] [sleeping=0|1]
//	         [start=NS] [uptime=NS] [realtime=NS] [comm=NAME] [nproc=N] [random=HEX]
//	    a fresh snapshot (unset parts zero; nproc: NewLimits(nproc))
//	maps           the snapshot's mappings, "START-END PERMS OFFSET [NAME]" a line
//	kernel-status  the snapshot's KernelStatus, the input as it is
//	render PATH    the virtual row PATH's content, exactly
//	lookup         each input path's row and how it is served
//	own pid=N tid=N threads=(N,...)
//	               each input path as OwnProcPath maps it for that caller
func TestProcfsScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/procfs", func(t *testing.T, file string) {
		s := &ProcSnapshot{}
		datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "snapshot":
				s = &ProcSnapshot{}
				if err := setSnapshot(s, d.CmdArgs); err != nil {
					return "error: " + err.Error()
				}
				return "ok"
			case "maps":
				s.Maps = nil
				for _, line := range strings.Split(d.Input, "\n") {
					if strings.TrimSpace(line) == "" {
						continue
					}
					m, err := parseMapping(line)
					if err != nil {
						return "error: " + err.Error()
					}
					s.Maps = append(s.Maps, m)
				}
				return fmt.Sprintf("%d mappings", len(s.Maps))
			case "kernel-status":
				s.KernelStatus = []byte(d.Input + "\n")
				return "ok"
			case "render":
				var out strings.Builder
				for _, a := range d.CmdArgs {
					f, ok := LookupProcFile(a.Key)
					if !ok || f.Serve != ProcVirtual {
						return fmt.Sprintf("error: %s is no virtual row", a.Key)
					}
					out.Write(f.Render(s))
				}
				return out.String()
			case "lookup":
				var out strings.Builder
				for _, p := range strings.Fields(d.Input) {
					if f, ok := LookupProcFile(p); ok {
						fmt.Fprintf(&out, "%s: %s %s\n", p, f.Serve, f.Path)
					} else {
						fmt.Fprintf(&out, "%s: not in the table\n", p)
					}
				}
				return out.String()
			case "own":
				var who ProcCaller
				for _, a := range d.CmdArgs {
					for _, v := range a.Vals {
						n, err := strconv.ParseInt(v, 10, 64)
						if err != nil {
							return "error: " + err.Error()
						}
						switch a.Key {
						case "pid":
							who.Pid = n
						case "tid":
							who.Tid = n
						case "threads":
							who.Threads = append(who.Threads, n)
						}
					}
				}
				var out strings.Builder
				for _, p := range strings.Fields(d.Input) {
					o, ok := OwnProcPath(p, who)
					switch {
					case !ok:
						fmt.Fprintf(&out, "%s: no process directory\n", p)
					case o.Absent:
						fmt.Fprintf(&out, "%s: absent\n", p)
					default:
						fmt.Fprintf(&out, "%s: %s sub=%q tid=%d\n", p, o.Key, o.Sub, o.Tid)
					}
				}
				return out.String()
			}
			return fmt.Sprintf("unknown command %q", d.Cmd)
		})
	})
}

func setSnapshot(s *ProcSnapshot, args []datadriven.CmdArg) error {
	for _, a := range args {
		if len(a.Vals) != 1 {
			return fmt.Errorf("%s: one value", a.Key)
		}
		v := a.Vals[0]
		if a.Key == "comm" {
			s.Comm = v
			continue
		}
		if a.Key == "random" {
			b, err := hex.DecodeString(v)
			if err != nil || len(b) != 16 {
				return fmt.Errorf("random: 32 hex digits (%v)", err)
			}
			copy(s.Random[:], b)
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %v", a.Key, err)
		}
		switch a.Key {
		case "node":
			s.Node = int(n)
		case "nodes":
			s.Nodes = int(n)
		case "cpus":
			s.CPUs = int(n)
		case "pid":
			s.Pid = n
		case "tid":
			s.Tid = n
		case "ppid":
			s.PPid = n
		case "pgrp":
			s.Pgrp = n
		case "threads":
			s.Threads = int(n)
		case "sleeping":
			s.Sleeping = n != 0
		case "start":
			s.Start = n
		case "uptime":
			s.Uptime = n
		case "realtime":
			s.Realtime = n
		case "nproc":
			s.Limits = NewLimits(int(n))
		default:
			return fmt.Errorf("unknown part %q", a.Key)
		}
	}
	return nil
}

func parseMapping(line string) (Mapping, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return Mapping{}, fmt.Errorf("mapping %q: START-END PERMS OFFSET [NAME]", line)
	}
	lo, hi, _ := strings.Cut(f[0], "-")
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil {
		return Mapping{}, fmt.Errorf("mapping %q: bad range", line)
	}
	return Mapping{Start: start, End: end, Perms: f[1], Offset: f[2], Name: strings.Join(f[3:], " ")}, nil
}

// TestProcFdinfo checks /proc/self/fdinfo/N's lines: the kernel's own
// state kept, host numbers (mount, inode, pid) replaced by the node's,
// lines naming host objects left out. Inputs are the kernel's formats
// (Linux 6.18: a regular file with a flock held, a pidfd, an eventfd,
// an epoll instance's target).
func TestProcFdinfo(t *testing.T) {
	for _, tc := range []struct {
		name, kernel, want string
	}{
		{"file", "pos:\t12\nflags:\t0100002\nmnt_id:\t27\nino:\t3342\nlock:\t1: FLOCK  ADVISORY  WRITE 29623 08:01:3342 0 EOF\n",
			"pos:\t12\nflags:\t0100002\nmnt_id:\t1\nino:\t77\n"},
		{"pidfd", "pos:\t0\nflags:\t02000002\nmnt_id:\t16\nino:\t1052\nPid:\t29623\nNSpid:\t29623\n",
			"pos:\t0\nflags:\t02000002\nmnt_id:\t1\nino:\t77\nPid:\t100\nNSpid:\t100\n"},
		{"eventfd", "pos:\t0\nflags:\t02\nmnt_id:\t16\nino:\t1052\neventfd-count:                0\neventfd-id: 12\neventfd-semaphore: 0\n",
			"pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t77\neventfd-count:                0\neventfd-semaphore: 0\n"},
		{"epoll", "pos:\t0\nflags:\t02\nmnt_id:\t16\nino:\t1052\ntfd:        5 events:       19 data:                5  pos:0 ino:3342 sdev:801\n",
			"pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t77\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(procFdinfo(&ProcSnapshot{Fdinfo: []byte(tc.kernel), FdIno: 77, FdPid: 100}))
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
