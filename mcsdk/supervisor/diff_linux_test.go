//go:build linux && amd64

package supervisor

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// buildC compiles one C file of testdata into the test's temporary
// directory.
func buildC(t *testing.T, src string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".c"))
	if msg, err := exec.Command("cc", "-O1", "-Wall", "-o", out, src).CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", src, err, msg)
	}
	return out
}

// buildProbe compiles testdata/NAME.c with cc and flags once per test
// binary (later calls reuse the executable) and returns its path.
func buildProbe(tb testing.TB, name string, flags ...string) string {
	tb.Helper()
	out := filepath.Join(probeDir, name)
	if _, err := os.Stat(out); err == nil {
		return out
	}
	args := append(append([]string{}, flags...), "-o", out, "testdata/"+name+".c")
	if msg, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		tb.Fatalf("cc %s: %v\n%s", name, err, msg)
	}
	return out
}

// runAlone runs bin as the one node of a world with a data directory
// until nothing is enabled, applying each quiescent point's first action
// (its timers and deliveries), and returns the node's output and world.
// The caller closes the world.
func runAlone(t *testing.T, bin string, seed uint64, args ...string) ([]byte, *World) {
	t.Helper()
	return runAloneWith(t, Config{
		Nodes:    []NodeSpec{{Path: bin, Args: args, Env: []string{"PATH=/usr/bin:/bin"}}},
		BasePort: 7000, Seed: seed, DataDirs: true,
	})
}

// runAloneWith is runAlone with the world's whole configuration.
func runAloneWith(t *testing.T, cfg Config) ([]byte, *World) {
	t.Helper()
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for steps := 0; ; steps++ {
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if steps > 1000 {
			w.Close()
			t.Fatal("more than 1000 steps")
		}
		if err := w.Apply(acts[0]); err != nil {
			w.Close()
			t.Fatal(err)
		}
	}
	if f := w.Failure(); f != nil {
		w.Close()
		t.Fatal(f)
	}
	return w.Output(0), w
}

// sameLines returns the "= " lines of a probe's output.
func sameLines(out []byte) []string {
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "= ") {
			keep = append(keep, l)
		}
	}
	return keep
}

// diffProbes are the differential probes, one per syscall family, with
// the lines each must print under weft (weft's virtual machine).
var diffProbes = []struct {
	name string
	args []string
	weft []string
	// hz: the probe's "~" lines show the kernel's tick rate and nothing
	// else weft virtualises; on a host whose CONFIG_HZ is weft's virtual
	// one (vkernel.HZ) they must read as natively too.
	hz bool
}{
	{name: "time", weft: []string{
		"~ realtime 1767225600000000000", "~ monotonic 1000000000000", "~ slept 10000000 ns",
		"~ gettimeofday 1767225600.000000", "~ times 100001 utime 0",
	}},
	{name: "stat", weft: []string{
		"~ /: mtime 1767139200.000000000 ctime 1767139200 atime 1767139200",
		"~ f: mtime 1767225600.000000000",
		// noatime (sys_stat.go), where the host's relatime moves it.
		"~ f after a read: atime 100",
	}},
	{name: "sysinfo", weft: []string{
		"~ nodename node0 release 6.1.0-weft", "~ sysinfo uptime 1000 totalram 4294967296 procs 1",
		"~ rusage utime 0 maxrss 0 minflt 0", "~ affinity CPUs 1", "~ getcpu cpu 0 node 0",
		"~ get_nprocs 1 sysconf online 1", "~ /proc/uptime: 1000.00 0.00", "~ /proc/loadavg: 0.00 0.00 0.00 1/1 100",
		"~ /proc/meminfo: MemTotal:        4194304 kB", "~ /sys/devices/system/cpu/online: 0\n",
		"~ /proc/cpuinfo processors 1", "~ /proc/stat cpu lines 2",
		"~ status VmRSS:\t       0 kB", "~ status Cpus_allowed:\t1\n", "~ status Cpus_allowed_list:\t0\n", "~ status PPid 1",
	}},
	{name: "signal", weft: []string{"~ si_code -1", "~ kill(1, 0) -> -1 EPERM", "~ kill(-1, 0) -> -1 ESRCH", "~ ptrace(TRACEME) -> -1 EPERM"}},
	{name: "random", weft: []string{"~ uuid "}},
	{name: "socket", args: []string{"47931"}},
	{name: "pipe"},
	{name: "eventfd"},
	{name: "unix"},
	{name: "unixedge", weft: []string{"~ sender: then a read returned 0 (end of file)"}},
	// A sendmsg that waits before moving a byte took its SCM_RIGHTS
	// descriptors at its start: another thread closing or reusing the
	// number meanwhile changes nothing the receiver gets.
	{name: "rightswait"},
	{name: "epoll", weft: []string{"~ socket link socket:[599902979]\n", "~ fstatfs(epoll) fsid 0,0", "~ fstatfs(eventfd) fsid 0,0"}}, // a virtual inode number, never the host's; no host device number
	{name: "pollmix", args: []string{"47932"}},
	// ppoll, pselect6, epoll_pwait and epoll_pwait2 wait under their own
	// signal mask (issue 36).
	{name: "sigmask"},
	// ppoll, pselect6 and select write back what their timeout has left:
	// in weft, exactly the virtual time they did not wait.
	{name: "polltime", weft: []string{
		"~ ppoll, interrupted after 50 ms of 10 s: left 9950000000\n", "~ ppoll, timed out after 50 ms: left 0\n",
		"~ ppoll, ready at once: left 10000000000\n",
		"~ pselect6, interrupted after 50 ms of 10 s: left 9950000000\n", "~ pselect6, timed out after 50 ms: left 0\n",
		"~ pselect6, ready at once: left 10000000000\n",
		"~ select, interrupted after 50 ms of 10 s: left 9950000000\n", "~ select, timed out after 50 ms: left 0\n",
		"~ select, ready at once: left 10000000000\n",
	}},
	// Timeouts and timer values that do not fit in 64-bit nanoseconds,
	// or pass the clock's range once added to it, saturate as Linux's
	// (timespec64_to_ktime, ktime_add_safe): never reached, never wrapped
	// to one that has passed; a value that is not valid is EINVAL.
	{name: "hugetime"},
	// SO_RCVTIMEO and SO_SNDTIMEO as Linux's sock_set_timeout takes
	// them: tv_usec out of range is EDOM; a negative tv_sec is a timeout
	// of zero (a blocking recv fails at once), read back as {0, 0}; on
	// UDP and on AF_UNIX stream and datagram sockets, where they also
	// bound send, accept and connect. A timeout is kept in ticks of
	// weft's virtual HZ (250, vkernel.HZ), never the host's, and read back
	// so: the "~" lines are the virtual answer, which only a host of HZ
	// 250 gives natively.
	{name: "sotimeo", hz: true, weft: soTimeoLines()},
	// A socket call a caught SA_RESTART signal interrupts is restarted
	// without a timeout and ends with EINTR with one, on inet and unix
	// sockets alike (sock_intr_errno).
	{name: "sockrestart"},
	// A lowered soft RLIMIT_NOFILE bounds the numbers of new descriptors,
	// served or not: F_DUPFD's EINVAL and EMFILE, dup2 and dup3's EBADF,
	// EMFILE for every call that makes one.
	{name: "nofile"},
	// RLIMIT_NOFILE is each process's: copied at fork, a parent's lowering
	// after it changes nothing of its child's, prlimit64 on a child's pid
	// sets the child's (vkernel.Limits per proc, the descriptor table's
	// limit set where the limit is).
	{name: "nofilefork"},
	// semtimedop's refusals in Linux's order: an unreadable timeout first.
	{name: "semorder"},
	// socketpair writes the two descriptor numbers it took before it
	// makes the sockets: a family, type or protocol refused then leaves
	// them in the array; EMFILE and EINVAL write nothing.
	{name: "pairfail"},
	{name: "sockets", args: []string{"47940"}, weft: []string{"~ connect again at once: EALREADY"}},
	// An accepted socket starts with its listener's options as they were
	// when the connection came (issue 36).
	{name: "acceptopts", args: []string{"47952"}},
	// Process groups and sessions (vkernel.ProcTable): relations only; pid
	// 1 is outside the node.
	{name: "sessions", weft: []string{"~ main: getsid(1) -1"}},
	// POSIX timers and ITIMER_REAL: the clocks timers may use, and exec
	// deleting the one and keeping the other (vkernel.SigTimers).
	{name: "timers"},
	// A timer's signal as Linux gives it to a handler, sigwaitinfo and a
	// signalfd: a POSIX timer's SI_TIMER with its id, overrun and
	// sigev_value; ITIMER_REAL's SIGALRM, SI_KERNEL from pid 0, uid 0
	// (it_real_fn's SEND_SIG_PRIV), which weft has the receiving thread
	// queue itself (sys_sigkernel.go) or gives a handler at its delivery;
	// a periodic timer's overruns while its signal is pending, which
	// Linux counts at the dequeue and weft at the queueing (not done).
	{name: "timersig", weft: []string{"~ periodic timer: overrun > 0 0"}},
	// A child's end as its parent reads it with SIGCHLD blocked, from a
	// signalfd and from sigwaitinfo: the kernel's own SIGCHLD (CLD_EXITED
	// or CLD_KILLED, the status in si_status, ssi_int 0), which weft has
	// the parent's leader queue itself (sys_sigkernel.go).
	{name: "chldinfo"},
	// Signal timers are each process's own (fork(2): a child inherits
	// none; a timer signals the process that armed it; exec keeps a
	// forked child's ITIMER_REAL and deletes its POSIX timers; a process's
	// timers end with it).
	{name: "timerfork"},
	// The state /proc shows of a thread parked in a call (S) and of the
	// thread reading it (R).
	{name: "procstate"},
	// Which descriptors exec closes (the table's close-on-exec flags), for
	// every served kind and every way the flag is set or cleared, in the
	// main process and a forked child; the kept ones work in the new
	// image, and a number exec freed names the new file made there. With
	// -tags weftverify each exec also checks that the table and the host
	// kernel closed the same descriptors (verifyExecCloses).
	{name: "cloexec", weft: []string{"= main: read back abc"}},
	// A process's end by its threads' ends (the last thread's code,
	// exit_group's winning) and signals to a zombie and a reaped child.
	{name: "procend"},
	// The main thread's tid word, which glibc registers with
	// set_tid_address (weft answers it): cleared and woken when the main
	// thread ends, so a thread joining it returns.
	{name: "mainjoin"},
	// The status flags of every served kind's description
	// (vkernel.OpenFile): F_GETFL after creation, F_SETFL of each flag
	// and of the ones it may not change, FIONBIO, FIOASYNC, and sharing
	// across dup and fork. weft records O_ASYNC as Linux does (it sends
	// no SIGIO, which the probe does not wait for) and refuses O_DIRECT
	// (packet mode) on a pipe.
	{name: "fileflags", weft: []string{
		"~ pipe read end F_SETFL(O_DIRECT) -> -1 EINVAL\n", "~ pipe write end after F_SETFL(O_DIRECT): F_GETFL 01000001 ok\n",
	}},
	// wait4 and waitid with __WNOTHREAD: a thread's own children only;
	// an ended thread's pass to another thread of its process (issue 36).
	{name: "wnothread"},
	// clone(CLONE_PARENT) from a child: the new process is its caller's
	// sibling (its parent's child, which waits for it; the caller gets
	// ECHILD), with its caller's exit signal whatever it asked for.
	{name: "cloneparent"},
}

// soTimeoLines are what the sotimeo probe reads back of its odd
// timeouts on each of its sockets: tv_usec rounded up to a tick of 4 ms
// (vkernel.HZ 250; sock_set_timeout, sock_get_timeout).
func soTimeoLines() []string {
	var lines []string
	for _, sock := range []string{"udp", "unix stream", "unix dgram"} {
		for _, r := range [][2]string{{"{0,1}", "{0,4000}"}, {"{0,1234}", "{0,4000}"}, {"{2,999999}", "{3,0}"}, {"{7,500001}", "{7,504000}"}} {
			lines = append(lines, fmt.Sprintf("~ %s: %s reads back as SO_RCVTIMEO %s SO_SNDTIMEO %s\n", sock, r[0], r[1], r[1]))
		}
	}
	return lines
}

// virtLines returns the "~ " lines of a probe's output.
func virtLines(out []byte) []string {
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "~ ") {
			keep = append(keep, l)
		}
	}
	return keep
}

// hostHZ is the host kernel's tick rate (CONFIG_HZ) as a socket's
// SO_RCVTIMEO shows it: a timeout of 1 µs is kept as one tick, read back
// as 1e6/HZ µs rounded down.
func hostHZ(t *testing.T) int64 {
	t.Helper()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Usec: 1}); err != nil {
		t.Fatal(err)
	}
	tv, err := unix.GetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO)
	if err != nil || tv.Sec != 0 || tv.Usec <= 0 {
		t.Fatalf("SO_RCVTIMEO of 1 µs reads %v, %v", tv, err)
	}
	return (1_000_000 + tv.Usec/2) / tv.Usec
}

// nativeLimit bounds a probe's native run: a probe whose peer never
// comes (a port another process took) fails rather than hangs the suite.
const nativeLimit = 2 * time.Minute

// nativeArgs are a probe's arguments for its native run: a port it is
// given (a number, its first argument) becomes one the host has free,
// with the three after it, so that two runs of the suite at once (the
// main and the weftverify pass) or any other host process never meet on
// a port. Under weft the ports are virtual and stay as written.
func nativeArgs(t *testing.T, args []string) []string {
	t.Helper()
	if len(args) == 0 {
		return args
	}
	if _, err := strconv.Atoi(args[0]); err != nil {
		return args
	}
	for range 100 {
		if p, ok := freePorts(4); ok {
			return append([]string{strconv.Itoa(p)}, args[1:]...)
		}
	}
	t.Fatal("found no four free consecutive ports on 127.0.0.1")
	return nil
}

// freePorts finds n consecutive ports free on 127.0.0.1 for TCP and UDP,
// starting at one the kernel picked, and returns the first.
func freePorts(n int) (int, bool) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, false
	}
	first := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var held []io.Closer
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for p := first; p < first+n; p++ {
		if p > 65535 {
			return 0, false
		}
		tl, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			return 0, false
		}
		held = append(held, tl)
		ul, err := net.ListenPacket("udp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			return 0, false
		}
		held = append(held, ul)
	}
	return first, true
}

// TestDifferential runs each probe of testdata/diff natively and twice
// under weft with one seed: the "= " lines (return codes, errnos,
// semantics) must match the native run, the two weft runs must be
// byte-identical, and weft's virtual values must be the expected ones.
func TestDifferential(t *testing.T) {
	for _, p := range diffProbes {
		t.Run(p.name, func(t *testing.T) {
			bin := buildC(t, fmt.Sprintf("testdata/diff/%s.c", p.name))
			ctx, cancel := context.WithTimeout(context.Background(), nativeLimit)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, nativeArgs(t, p.args)...)
			cmd.Dir = t.TempDir()
			cmd.WaitDelay = 5 * time.Second
			native, err := cmd.Output()
			if ctx.Err() != nil {
				t.Fatalf("native run did not end within %v:\n%s", nativeLimit, native)
			}
			if err != nil {
				t.Fatalf("native run: %v\n%s", err, native)
			}
			first, w1 := runAlone(t, bin, 1, p.args...)
			w1.Close()
			second, w2 := runAlone(t, bin, 1, p.args...)
			w2.Close()
			if !bytes.Equal(first, second) {
				t.Errorf("two runs of seed 1 differ:\n%s\n---\n%s", first, second)
			}
			n, s := sameLines(native), sameLines(first)
			if strings.Join(n, "\n") != strings.Join(s, "\n") {
				t.Errorf("semantics differ from the native run:\nnative:\n%s\nweft:\n%s", strings.Join(n, "\n"), strings.Join(s, "\n"))
			}
			if len(s) == 0 {
				t.Errorf("the probe printed no checked lines:\n%s", first)
			}
			for _, want := range p.weft {
				if !bytes.Contains(first, []byte(want)) {
					t.Errorf("weft output lacks %q:\n%s", want, first)
				}
			}
			if p.hz {
				nv, wv := virtLines(native), virtLines(first)
				switch hz := hostHZ(t); {
				case hz != vkernel.HZ:
					t.Logf("the host's HZ is %d, not weft's %d: its tick-rate lines are judged by the virtual answer alone", hz, vkernel.HZ)
				case strings.Join(nv, "\n") != strings.Join(wv, "\n"):
					t.Errorf("on a host of HZ %d the tick-rate lines differ from the native run:\nnative:\n%s\nweft:\n%s",
						hz, strings.Join(nv, "\n"), strings.Join(wv, "\n"))
				}
			}
		})
	}
}

// probeDir holds the probes the tests build (buildProbe), removed when
// the tests end.
var probeDir string

func TestMain(m *testing.M) {
	var err error
	if probeDir, err = os.MkdirTemp("", "weft-probes-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(probeDir)
	os.Exit(code)
}

// TestVirtualCPUs runs the sysinfo probe on virtual machines of one CPU
// (the default) and of five (Config.CPUs, the model's target.cpus): every
// route to the CPU count (sched_getaffinity, get_nprocs, sysconf,
// /sys/devices/system/cpu/online, /proc/cpuinfo, /proc/stat, the status
// file's mask and list) says the same count.
func TestVirtualCPUs(t *testing.T) {
	bin := buildC(t, "testdata/diff/sysinfo.c")
	for _, tc := range []struct {
		cpus int
		want []string
	}{
		{0, []string{"~ affinity CPUs 1\n", "~ get_nprocs 1 sysconf online 1\n", "~ /sys/devices/system/cpu/online: 0\n",
			"~ /proc/cpuinfo processors 1\n", "~ /proc/stat cpu lines 2\n", "~ status Cpus_allowed:\t1\n", "~ status Cpus_allowed_list:\t0\n"}},
		{5, []string{"~ affinity CPUs 5\n", "~ get_nprocs 5 sysconf online 5\n", "~ /sys/devices/system/cpu/online: 0-4\n",
			"~ /proc/cpuinfo processors 5\n", "~ /proc/stat cpu lines 6\n", "~ status Cpus_allowed:\t1f\n", "~ status Cpus_allowed_list:\t0-4\n"}},
	} {
		t.Run(fmt.Sprint(tc.cpus), func(t *testing.T) {
			out, w := runAloneWith(t, Config{
				Nodes:    []NodeSpec{{Path: bin, Dir: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin"}}},
				BasePort: 7000, Seed: 1, DataDirs: true, CPUs: tc.cpus,
			})
			w.Close()
			for _, want := range tc.want {
				if !bytes.Contains(out, []byte(want)) {
					t.Errorf("CPUs %d: output lacks %q:\n%s", tc.cpus, want, out)
				}
			}
		})
	}
}
