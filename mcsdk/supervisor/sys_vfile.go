//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Opening a file (open, openat, openat2, creat): the random devices are
// virtual (reads draw from the seeded stream), so are the /proc and /sys
// files programs read to learn about the machine (each open gets a
// memfd holding content computed from the virtual machine and clock);
// an open that could write outside the run directory is refused
// (sys_fs.go); every other open runs natively.

// Openat implements openat(2).
func sysOpenat(c *call) result { return openFile(c, fsAt(0, 1, true, -1), c.arg(2)) }

// Open implements open(2).
func sysOpen(c *call) result { return openFile(c, fsPath(0, true), c.arg(1)) }

// Creat implements creat(2): open with O_CREAT|O_WRONLY|O_TRUNC.
func sysCreat(c *call) result {
	return openFile(c, fsPath(0, true), unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC)
}

// Openat2 implements openat2(2); the resolve flags are the kernel's.
func sysOpenat2(c *call) result {
	if c.arg(3) < 24 {
		return errno(unix.EINVAL)
	}
	how, err := c.read(c.arg(2), 24) // struct open_how: flags, mode, resolve
	if err != nil {
		return errno(unix.EFAULT)
	}
	return openFile(c, fsAt(0, 1, true, -1), binary.LittleEndian.Uint64(how))
}

func openFile(c *call, a fsArg, oflags uint64) result {
	path, err := c.readPath(c.arg(a.path))
	if err != nil {
		return errno(errnoOf(err))
	}
	if strings.HasPrefix(path, "/") {
		if content, ok := c.virtualFile(filepath.Clean(path)); ok {
			if openWrites(oflags) {
				return c.refuseWrite()
			}
			return c.installFile(content, oflags)
		}
	}
	if !openWrites(oflags) {
		return cont()
	}
	tg, err := c.fsTarget(a)
	if err != nil {
		return errno(errnoOf(err))
	}
	// O_CREAT|O_EXCL and O_NOFOLLOW never follow a final symlink; O_TMPFILE
	// names the directory the file goes in.
	follow := oflags&unix.O_NOFOLLOW == 0 && oflags&(unix.O_CREAT|unix.O_EXCL) != unix.O_CREAT|unix.O_EXCL
	if !c.mayWrite(tg.host, follow, true) {
		return c.refuseWrite()
	}
	return cont()
}

// installFile gives the node a new descriptor for a read-only memfd
// holding content, or the random device when content is nil.
func (c *call) installFile(content []byte, oflags uint64) result {
	flags := uint64(0)
	if oflags&unix.O_CLOEXEC != 0 {
		flags |= unix.SOCK_CLOEXEC
	}
	if content == nil {
		return c.install(&vfd{random: true}, flags)
	}
	fd, err := unix.MemfdCreate("weft-virtual", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return errno(unix.ENFILE)
	}
	defer unix.Close(fd)
	if _, err := unix.Pwrite(fd, content, 0); err != nil {
		return failf("writing a virtual file: %v", err)
	}
	unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_WRITE|unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL)
	tfd, err := injectFD(c.n.listener, c.req.ID, fd, flags != 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	return ret(int64(tfd))
}

// virtualFile returns the content of a virtual file at the clean absolute
// path: nil content for a random device.
func (c *call) virtualFile(path string) ([]byte, bool) {
	switch path {
	case "/dev/urandom", "/dev/random":
		return nil, true
	case "/proc/self/stat", "/proc/thread-self/stat",
		fmt.Sprintf("/proc/%d/stat", c.n.vpid()), fmt.Sprintf("/proc/%d/task/%d/stat", c.n.vpid(), c.n.vpid()):
		return c.procStat(), true
	case "/proc/self/status", "/proc/thread-self/status",
		fmt.Sprintf("/proc/%d/status", c.n.vpid()), fmt.Sprintf("/proc/%d/task/%d/status", c.n.vpid(), c.n.vpid()):
		return c.procStatus(), true
	case "/proc/self/statm", fmt.Sprintf("/proc/%d/statm", c.n.vpid()):
		return []byte("0 0 0 0 0 0 0\n"), true
	}
	if f, ok := virtualFiles[path]; ok {
		return []byte(f(c.w, c.n)), true
	}
	return nil, false
}

// virtualFiles are the machine-wide virtual files, by path.
var virtualFiles = map[string]func(w *World, n *node) string{
	"/proc/uptime": func(w *World, n *node) string {
		up := w.uptime() / 1e7 // hundredths of a second
		return fmt.Sprintf("%d.%02d %d.%02d\n", up/100, up%100, 0, 0)
	},
	"/proc/loadavg": func(w *World, n *node) string {
		return fmt.Sprintf("0.00 0.00 0.00 1/%d %d\n", len(w.nodes), n.vpid())
	},
	"/proc/meminfo": func(w *World, n *node) string {
		return fmt.Sprintf("MemTotal:       %8d kB\nMemFree:        %8d kB\nMemAvailable:   %8d kB\n"+
			"Buffers:               0 kB\nCached:                0 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n",
			virtualMemory>>10, virtualFree>>10, virtualFree>>10)
	},
	"/proc/cpuinfo": func(w *World, n *node) string {
		var b strings.Builder
		for i := range virtualCPUs {
			fmt.Fprintf(&b, "processor\t: %d\nvendor_id\t: weft\nmodel name\t: weft virtual CPU\ncpu MHz\t\t: 1000.000\n"+
				"physical id\t: 0\ncore id\t\t: %d\ncpu cores\t: %d\nflags\t\t: fpu tsc\n\n", i, i, virtualCPUs)
		}
		return b.String()
	},
	"/proc/stat": func(w *World, n *node) string {
		var b strings.Builder
		b.WriteString("cpu  0 0 0 0 0 0 0 0 0 0\n")
		for i := range virtualCPUs {
			fmt.Fprintf(&b, "cpu%d 0 0 0 0 0 0 0 0 0 0\n", i)
		}
		fmt.Fprintf(&b, "intr 0\nctxt 0\nbtime %d\nprocesses %d\nprocs_running 1\nprocs_blocked 0\n",
			(w.now-w.uptime())/1e9, len(w.nodes))
		return b.String()
	},
	"/proc/sys/kernel/hostname":        func(w *World, n *node) string { return fmt.Sprintf("node%d\n", n.id) },
	"/proc/sys/kernel/osrelease":       func(w *World, n *node) string { return virtualRelease + "\n" },
	"/proc/sys/kernel/random/boot_id":  func(w *World, n *node) string { return "00000000-0000-4000-8000-000000000000\n" },
	"/proc/sys/kernel/random/uuid":     func(w *World, n *node) string { return seededUUID(w) },
	"/sys/devices/system/cpu/online":   cpuRange,
	"/sys/devices/system/cpu/possible": cpuRange,
	"/sys/devices/system/cpu/present":  cpuRange,
}

func cpuRange(*World, *node) string { return fmt.Sprintf("0-%d\n", virtualCPUs-1) }

// seededUUID is a version-4 UUID from the run's seeded stream, as the
// kernel makes a fresh random one for every read of .../random/uuid.
func seededUUID(w *World) string {
	var b [16]byte
	w.rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x\n", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// procStat is /proc/self/stat (proc(5)) for the node as the virtual
// machine sees it: virtual pids, no CPU time, no memory, started when the
// node was launched.
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
	s := fmt.Sprintf("%d (%s) R 1 %d 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0 18446744073709551615", pid, comm, pid, start)
	s += strings.Repeat(" 0", 12) + " 17" + strings.Repeat(" 0", 14) + "\n"
	return []byte(s)
}

// statusLines are the fields of /proc/self/status (proc(5)) that would
// show host values, with their virtual replacements ("" for the node's
// virtual pid; memory and context switches read zero).
var statusLines = map[string]string{
	"Tgid": "", "Pid": "", "NStgid": "", "NSpid": "", "NSpgid": "",
	"PPid": "1", "NSsid": "1", "TracerPid": "0", "Ngid": "0",
	"Cpus_allowed": fmt.Sprintf("%x", 1<<virtualCPUs-1), "Cpus_allowed_list": fmt.Sprintf("0-%d", virtualCPUs-1),
	"Mems_allowed": "1", "Mems_allowed_list": "0",
	"voluntary_ctxt_switches": "0", "nonvoluntary_ctxt_switches": "0",
}

// procStatus is /proc/self/status with its host values replaced: the
// node's own state (name, umask, credentials, signal masks) stays.
func (c *call) procStatus() []byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.n.memPid()))
	if err != nil {
		return []byte{} // not nil: nil content is the random device
	}
	var out strings.Builder
	for _, line := range strings.SplitAfter(string(b), "\n") {
		key, _, ok := strings.Cut(line, ":")
		v, virtual := statusLines[key]
		switch {
		case !ok:
			out.WriteString(line)
		case virtual && v == "":
			fmt.Fprintf(&out, "%s:\t%d\n", key, c.n.vpid())
		case virtual:
			fmt.Fprintf(&out, "%s:\t%s\n", key, v)
		case strings.HasPrefix(key, "Vm") || strings.HasPrefix(key, "Rss") || key == "HugetlbPages":
			fmt.Fprintf(&out, "%s:\t       0 kB\n", key)
		default:
			out.WriteString(line)
		}
	}
	return []byte(out.String())
}
