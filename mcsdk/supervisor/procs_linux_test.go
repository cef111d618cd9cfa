//go:build linux && amd64

package supervisor

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-mc/weft/mcsdk/sched"
	"golang.org/x/sys/unix"
)

// buildProcs compiles testdata/procs.c once per test binary.
func buildProcs(tb testing.TB) string { return buildProbe(tb, "procs", "-O1", "-Wall") }

// TestProcs runs the process-tree probe under real seccomp and ptrace:
// fork, vfork, execve, wait4 and waitid on the virtual tree, exit
// statuses and signals as Linux reports them, virtual pids.
func TestProcs(t *testing.T) {
	bin := buildProcs(t)
	cases := []struct {
		mode  string
		pick  func([]sched.Action, int) sched.Action
		out   []string
		procs int
		exit  int
	}{
		{mode: "forkwait", pick: first, procs: 2, out: []string{
			"parent pid 100 ppid 1\n", "child pid 1001 ppid 100 pgrp 100 pgid 100 sid 1 setpgid(0,0) 0 pgrp 1001\n", "forkwait: reaped 1001 exit 7\n",
			"fork returned 1001, sigchld 1\n", "again: -1 errno 10\n"}},
		{mode: "forkwait", pick: last, procs: 2, out: []string{"child pid 1001 ppid 100 pgrp 100", "forkwait: reaped 1001 exit 7\n"}},
		{mode: "exec", pick: first, procs: 5, out: []string{
			"true: reaped 1001 exit 0\n", "exec'd child pid 1002 ppid 100\n", "probe: reaped 1002 exit 3\n",
			"exec failed errno 2\n", "missing: reaped 1003 exit 98\n",
			"exec'd child pid 1004 ppid 100\nfexecve: reaped 1004 exit 3\n"}},
		{mode: "vfork", pick: first, procs: 2, out: []string{"exec'd child pid 1001 ppid 100\n", "vfork: reaped 1001 exit 3\n"}},
		{mode: "signal", pick: first, procs: 4, out: []string{
			"segv: reaped 1001 signal 11\n", "waitid 0: signo 17 code 1 pid 1002 status 5 (fork said 1002)\n",
			"abort: reaped 1003 signal 6\n"}},
		{mode: "spawn", pick: first, procs: 3, out: []string{
			"exec'd child pid 1001 ppid 100\n", "posix_spawn 0 pid 1001\nspawn: reaped 1001 exit 3\n", "system: 1536 exit 6\n"}},
		{mode: "futex", pick: first, procs: 2, out: []string{
			"child woke 0\nfutex: reaped 1002 exit 0\nparent woke 1\nwaiter woke, word 1\n"}},
		{mode: "kill", pick: first, procs: 4, out: []string{
			"kill a: 0\nterm: reaped 1001 signal 15\n", "kill b: 0\nusr1: reaped 1002 exit 9\n", "usr2: reaped 1003 exit 0\n",
			"parent got 1 SIGUSR2, kill(0, 0) 0, kill(99999, 0) -1 errno 1\n"}},
		{mode: "kill", pick: last, procs: 4, out: []string{ // the children run first: parked when signalled
			"kill a: 0\nterm: reaped 1001 signal 15\n", "kill b: 0\nusr1: reaped 1002 exit 9\n", "usr2: reaped 1003 exit 0\n"}},
		// A grandchild zombie orphaned by its parent's end is reaped by
		// init at once and leaves its process group with it
		// (release_task): once the group's leader is reaped too, the
		// group is gone (kill ESRCH, setpgid into it EPERM). Natively the
		// answer depends on the host's reaper (a subreaper that never
		// waits, as this test binary is, keeps the zombie): no native run.
		{mode: "orphangroup", pick: first, procs: 3, out: []string{
			"orphaned zombie: kill -1 errno 3\ngroup of a zombie leader: kill 0 errno 0\n" +
				"group after the leader's reap: kill -1 errno 3\nsetpgid into it: -1 errno 1\n"}},
		{mode: "orphangroup", pick: last, procs: 3, out: []string{
			"orphaned zombie: kill -1 errno 3\ngroup of a zombie leader: kill 0 errno 0\n" +
				"group after the leader's reap: kill -1 errno 3\nsetpgid into it: -1 errno 1\n"}},
		{mode: "wnohang", pick: first, procs: 2, out: []string{"wnohang: 0\nblocking: reaped 1001 exit 4\nsubreaper: -1 errno 22\n"}},
		{mode: "wnohang", pick: last, procs: 2, out: []string{"wnohang: 0\nblocking: reaped 1001 exit 4\nsubreaper: -1 errno 22\n"}},
		{mode: "mtexec", pick: first, procs: 1, exit: 3, out: []string{"exec'd child pid 100 ppid 1\n"}},
		{mode: "mtexec", pick: last, procs: 1, exit: 3, out: []string{"exec'd child pid 100 ppid 1\n"}},
		{mode: "threadexec", pick: first, procs: 1, exit: 3, out: []string{"exec'd child pid 100 ppid 1\n"}},
		{mode: "threadexec", pick: last, procs: 1, exit: 3, out: []string{"exec'd child pid 100 ppid 1\n"}},
		{mode: "forkmtexec", pick: first, procs: 2, out: []string{"exec'd child pid 1001 ppid 100\nforkmtexec: reaped 1001 exit 3\n"}},
		{mode: "forkmtexec", pick: last, procs: 2, out: []string{"exec'd child pid 1001 ppid 100\nforkmtexec: reaped 1001 exit 3\n"}},
		{mode: "selfexec", pick: first, procs: 1, exit: 3, out: []string{"exec'd child pid 100 ppid 1\n"}},
		{mode: "pipe", pick: first, procs: 2, out: []string{"pipe: reaped 1001 exit 0\n", "parent read 16 bytes: through the pipe\n"}},
		// redis's diskless full sync (the hang of seed 3): the child closes
		// its copy of the pipe the parent watches; the parent's
		// EPOLL_CTL_DEL must still find the entry, or epoll_wait reports
		// the pipe's hang-up forever and the parent spins.
		{mode: "rdbchild", pick: first, procs: 2, out: []string{
			"rdbchild: read 11, del 0 errno 0, spurious 0, sigchld 1\n", "rdbchild: reaped 1001 exit 0\n"}},
		{mode: "rdbchild", pick: last, procs: 2, out: []string{
			"rdbchild: read 11, del 0 errno 0, spurious 0, sigchld 1\n", "rdbchild: reaped 1001 exit 0\n"}},
		// The parent closes a watched pipe its child keeps and puts another
		// at the same number: a second entry, as Linux's (file, fd) keys.
		{mode: "epollreuse", pick: first, procs: 2, out: []string{
			"epollreuse: same number 1, add 0, events 1 data 2, del 0\n", "epollreuse: reaped 1001 exit 0\n"}},
		{mode: "many", pick: first, procs: 4, out: []string{
			"many: reaped 1003 exit 12\nmany: reaped 1002 exit 11\nmany: reaped 1001 exit 10\n", "kids 1001 1002 1003\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			cfg := Config{Nodes: []NodeSpec{{Path: bin, Args: []string{tc.mode, bin}}}}
			w, _ := runThreads(t, cfg, tc.pick)
			out := string(w.Output(0))
			if f := w.Failure(); f != nil {
				t.Fatalf("failure: %v\noutput:\n%s", f, out)
			}
			for _, s := range tc.out {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			if st := w.Status(0); !st.Exited || st.ExitCode != tc.exit {
				t.Errorf("status %+v, want exit %d", st, tc.exit)
			}
			if got := w.Procs(0); got != tc.procs {
				t.Errorf("%d processes, want %d", got, tc.procs)
			}
		})
	}
}

// TestProcsWaitRules runs the probe's waitrules mode natively and under
// weft with two schedules: the wait family's answers (vkernel.ProcTable)
// match the kernel's, line for line: a child with exit signal 0 is
// waited for only with __WCLONE, waitid with WSTOPPED alone finds no
// child when the only one is a zombie (ECHILD), wait4(INT_MIN) is ESRCH,
// WEXITED is not wait4's (EINVAL), WNOWAIT leaves the zombie.
func TestProcsWaitRules(t *testing.T) {
	bin := buildProcs(t)
	native, err := exec.Command(bin, "waitrules").Output()
	if err != nil {
		t.Fatalf("native run: %v\n%s", err, native)
	}
	for i, pick := range []func([]sched.Action, int) sched.Action{first, last} {
		w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"waitrules", bin}}}}, pick)
		out := string(w.Output(0))
		if f := w.Failure(); f != nil {
			t.Fatalf("schedule %d: failure: %v\noutput:\n%s", i, f, out)
		}
		if out != string(native) {
			t.Errorf("schedule %d differs from the native run:\nnative:\n%s\nweft:\n%s", i, native, out)
		}
		if got := w.Procs(0); got != 3 {
			t.Errorf("schedule %d: %d processes, want 3", i, got)
		}
	}
}

// TestProcsExitSignal runs the probe's exitsig mode natively and under
// weft with two schedules: a clone child whose exit signal is SIGUSR1
// sends its parent a SIGUSR1 whose siginfo names the child's pid (the
// virtual one, never the host's), with CLD_EXITED and the exit code, as
// the kernel's names the native child. A real-time exit signal, which
// weft cannot keep from arriving twice, is refused with a failure naming
// the clone.
func TestProcsExitSignal(t *testing.T) {
	bin := buildProcs(t)
	native, err := exec.Command(bin, "exitsig").Output()
	if err != nil {
		t.Fatalf("native run: %v\n%s", err, native)
	}
	for i, pick := range []func([]sched.Action, int) sched.Action{first, last} {
		w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"exitsig", bin}}}}, pick)
		out := string(w.Output(0))
		if f := w.Failure(); f != nil {
			t.Fatalf("schedule %d: failure: %v\noutput:\n%s", i, f, out)
		}
		if out != string(native) {
			t.Errorf("schedule %d differs from the native run:\nnative:\n%s\nweft:\n%s", i, native, out)
		}
	}
	w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"exitsigrt", bin}}}}, first)
	if f := w.Failure(); f == nil || !strings.Contains(f.Error(), "clone with exit signal 35") {
		t.Errorf("real-time exit signal: failure %v, want the clone refused\noutput:\n%s", f, w.Output(0))
	}
}

// TestWatchdogSyscallSpin is the watchdog for a node whose calls are all
// answered at once (it never parks: its epoll_wait always reports an
// event, so the spinning-poll rule of spin.go does not apply): after Config.MaxCalls of them the run
// ends with a failure naming the thread and the count, instead of keeping
// weft in runNode forever.
func TestWatchdogSyscallSpin(t *testing.T) {
	bin := buildProcs(t)
	cfg := Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"syscallspin"}}}, MaxCalls: 20000}
	done := make(chan *World, 1)
	go func() {
		w, _ := runThreads(t, cfg, first)
		done <- w
	}()
	select {
	case w := <-done:
		f := w.Failure()
		if f == nil || !strings.Contains(f.Msg, "watchdog: n0/t0 made 20000 calls without parking") {
			t.Fatalf("failure %v, want the watchdog's busy loop through syscalls", f)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no verdict 60 s after a node started a loop of 20,000 calls: weft hangs on a node that never parks")
	}
}

// TestProcsForkServer is busybox httpd's pattern between two probes: node
// 0 accepts, forks and closes its copy of the connection; the child sends
// a file with sendfile (with an offset, then from the file position) into
// the inherited virtual socket and exits, which closes the connection;
// node 1 reads everything up to the end of the stream.
func TestProcsForkServer(t *testing.T) {
	bin := buildProcs(t)
	file := filepath.Join(t.TempDir(), "page")
	if err := os.WriteFile(file, []byte("0123456789abcdefghij"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"fserver", "7301", file}}, {Path: bin, Args: []string{"fclient", "7301"}}}}
	for _, pick := range []func([]sched.Action, int) sched.Action{first, last} {
		w, _ := runThreads(t, cfg, pick)
		if f := w.Failure(); f != nil {
			t.Fatalf("failure: %v\n%s\n%s", f, w.Output(0), w.Output(1))
		}
		if got, want := string(w.Output(1)), "got 43 bytes: 01234567890123456789abcdefghij|10 20 10 20\n"; got != want {
			t.Errorf("client read %q, want %q", got, want)
		}
		if got, want := string(w.Output(0)), "fserver: reaped 1001 exit 0\n"; got != want {
			t.Errorf("server printed %q, want %q", got, want)
		}
	}
}

// TestProcsExecInherits: a forked child execs a new image that writes to
// the connection it inherited (a virtual socket survives exec) and finds
// the listener opened with SOCK_CLOEXEC closed.
func TestProcsExecInherits(t *testing.T) {
	bin := buildProcs(t)
	cfg := Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"fexec", "7302", bin}}, {Path: bin, Args: []string{"fclient", "7302"}}}}
	w, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var tables []string // the child's virtual descriptors while it runs the new image
	for step := 0; step < 100 && w.Failure() == nil; step++ {
		if n := w.nodes[0]; len(n.procs) > 1 && !n.procs[1].ended() {
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", n.procs[1].pid)); bytes.Contains(b, []byte("fwrite")) {
				fds := n.procs[1].fds.Numbers()
				tables = append(tables, fmt.Sprint(fds))
			}
		}
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if f := w.Failure(); f != nil {
		t.Fatalf("failure: %v\n%s\n%s", f, w.Output(0), w.Output(1))
	}
	if got, want := string(w.Output(1)), "got 58 bytes: from the exec'd child pid 1001: listener fcntl -1 errno 9\n"; got != want {
		t.Errorf("client read %q, want %q", got, want)
	}
	if got, want := string(w.Output(0)), "fexec: reaped 1001 exit 0\n"; got != want {
		t.Errorf("server printed %q, want %q", got, want)
	}
	// fd 50 is the CLOEXEC listener, fd 4 the connection.
	if len(tables) == 0 || tables[0] != "[4]" {
		t.Errorf("the exec'd child's virtual descriptors were %v, want [4]", tables)
	}
}

// TestProcsDeterministic runs the fork probes twice with the same choices
// and compares output and the state hash, memory included, at every
// step: an exec'd image's memory too, since the TSC its dynamic loader
// reads at start-up is virtual.
func TestProcsDeterministic(t *testing.T) {
	bin := buildProcs(t)
	for _, mode := range []string{"forkwait", "many", "pipe", "exec", "vfork", "selfexec", "mtexec", "threadexec"} {
		t.Run(mode, func(t *testing.T) {
			var outs [2]string
			var hashes [2][][32]byte
			for r := range 2 {
				w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{mode, bin}}}, Seed: 5})
				if err != nil {
					t.Fatal(err)
				}
				for step := 0; step < 200; step++ {
					h, err := w.Hash(HashMemory, nil)
					if err != nil {
						t.Fatal(err)
					}
					hashes[r] = append(hashes[r], h)
					acts := w.Enabled()
					if len(acts) == 0 {
						break
					}
					if err := w.Apply(acts[len(acts)-1]); err != nil {
						t.Fatal(err)
					}
				}
				outs[r] = string(w.Output(0))
				w.Close()
			}
			if outs[0] != outs[1] {
				t.Errorf("outputs differ:\n%s\n---\n%s", outs[0], outs[1])
			}
			if len(hashes[0]) != len(hashes[1]) {
				t.Fatalf("%d vs %d steps", len(hashes[0]), len(hashes[1]))
			}
			for i := range hashes[0] {
				if hashes[0][i] != hashes[1][i] {
					t.Errorf("step %d: hashes differ", i)
				}
			}
		})
	}
}

// TestProcsHash checks that the hash covers the process tree: states that
// differ only in the tree (a child alive or a zombie, its status) hash
// differently, and equal ones equally.
func TestProcsHash(t *testing.T) {
	bin := buildProcs(t)
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"forkwait", bin}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	seen := map[[32]byte]string{}
	for step := 0; step < 50; step++ {
		h, err := w.Hash(HashGlobals, nil)
		if err != nil {
			t.Fatal(err)
		}
		desc := w.treeDesc(0)
		if prev, ok := seen[h]; ok && prev != desc {
			t.Errorf("step %d: tree %q hashes like %q", step, desc, prev)
		}
		seen[h] = desc
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) < 3 {
		t.Errorf("only %d distinct tree states seen", len(seen))
	}
	// Equal trees, different zombie status: different hashes.
	n := w.nodes[0]
	if len(n.procs) < 2 {
		t.Fatal("no child recorded")
	}
	p := n.procs[1]
	put := func(status unix.WaitStatus) [32]byte {
		h := sha256.New()
		saved := p.v.Status
		p.v.Status = uint32(status)
		w.hashProcs(n, HashGlobals, func(v uint64) { fmt.Fprint(h, v, ",") }, h)
		p.v.Status = saved
		return [32]byte(h.Sum(nil))
	}
	if put(7<<8) == put(8<<8) {
		t.Error("a zombie's exit status is not hashed")
	}
}

// treeDesc renders node i's process tree as the hash should see it.
func (w *World) treeDesc(i int) string {
	n := w.nodes[i]
	var b strings.Builder
	for _, p := range n.procs {
		fmt.Fprintf(&b, "%d:%v:%v:%d;", p.vpid, p.zombie(), p.gone(), p.status())
	}
	for _, t := range n.tasks {
		fmt.Fprintf(&b, "t%d:%v:%v:%v;", t.k, t.exited, t.ready, t.held)
		if t.call != nil {
			fmt.Fprintf(&b, "c%d;", t.call.req.Data.Nr)
		}
	}
	return fmt.Sprintf("%s out=%d", b.String(), len(w.Output(i)))
}

// TestProcsCrashKillsTree crashes a node with two children and a
// grandchild: every process of the tree is gone after the crash, and a
// restart starts a fresh tree.
func TestProcsCrashKillsTree(t *testing.T) {
	bin := buildProcs(t)
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"tree", bin}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for step := 0; step < 50 && w.Procs(0) < 4; step++ {
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	pids := w.LiveProcs(0)
	if len(pids) != 4 {
		t.Fatalf("live processes %v, want 4 (main, two children, a grandchild); output:\n%s", pids, w.Output(0))
	}
	if err := w.Apply(sched.Action{Kind: sched.Crash, Node: 0}); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			t.Errorf("process %d outlived the crash: %s", pid, b)
		}
	}
	if err := w.Apply(sched.Action{Kind: sched.Restart, Node: 0}); err != nil {
		t.Fatal(err)
	}
	// The restarted node forks again from scratch: a new tree, pids
	// counted afresh from its first task.
	n := w.nodes[0]
	if len(n.procs) < 2 || n.procs[1].vpid != 1001 || n.restarts != 1 {
		t.Errorf("restarted tree %s, want a fresh one whose first child is 1001", w.treeDesc(0))
	}
	for _, p := range w.LiveProcs(0) {
		if slices.Contains(pids, p) {
			t.Errorf("host process %d of the crashed tree is in the restarted one", p)
		}
	}
}

// TestProcsMainExitEndsTree ends the main process while a child sleeps:
// the node exits with the main process's status and the child is gone.
func TestProcsMainExitEndsTree(t *testing.T) {
	bin := buildProcs(t)
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"orphan", bin}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var child int
	for step := 0; step < 50 && w.Failure() == nil; step++ {
		if n := w.nodes[0]; len(n.procs) > 1 {
			child = n.procs[1].pid
		}
		acts := w.Enabled()
		if len(acts) == 0 {
			break
		}
		if err := w.Apply(acts[0]); err != nil {
			t.Fatal(err)
		}
	}
	if st := w.Status(0); !st.Exited || st.ExitCode != 4 {
		t.Fatalf("status %+v, want exit 4; output:\n%s", st, w.Output(0))
	}
	if child == 0 {
		t.Fatal("no child seen")
	}
	// Not even a zombie: weft, the subreaper, collected it.
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child)); err == nil {
		t.Errorf("child %d outlived its node: %s", child, b)
	}
}

// TestProcsChildKillsMain: a child's SIGTERM to the main process ends
// the node (status SIGTERM) and its tree. When the main process is parked
// (it ran first), the child's kill never returns; when it is still held
// at its fork (the child ran first), it takes the signal when it runs and
// the child goes on meanwhile, as on Linux.
func TestProcsChildKillsMain(t *testing.T) {
	bin := buildProcs(t)
	for _, tc := range []struct {
		pick func([]sched.Action, int) sched.Action
		out  string
	}{{first, ""}, {last, "child still here\n"}} {
		w, _ := runThreads(t, Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"killparent", bin}}}}, tc.pick)
		if f := w.Failure(); f != nil {
			t.Fatalf("failure: %v", f)
		}
		if st := w.Status(0); !st.Exited || st.Signal != "SIGTERM" {
			t.Errorf("status %+v, want ended by SIGTERM", st)
		}
		if out := string(w.Output(0)); out != tc.out {
			t.Errorf("output %q, want %q", out, tc.out)
		}
	}
}

// TestProcsNothingOutlivesWeft runs the tree probe in a child test
// process, kills that process with SIGKILL mid-run, and checks that no
// process of the tree remains.
func TestProcsNothingOutlivesWeft(t *testing.T) {
	if os.Getenv("WEFT_PROCS_CHILD") != "" {
		bin := os.Getenv("WEFT_PROCS_BIN")
		w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{"tree", bin}}}})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		for step := 0; step < 50 && w.Procs(0) < 4; step++ {
			acts := w.Enabled()
			if len(acts) == 0 {
				break
			}
			w.Apply(acts[0])
		}
		fmt.Println("pids", strings.Trim(fmt.Sprint(w.LiveProcs(0)), "[]"))
		os.Stdout.Sync()
		time.Sleep(time.Minute) // killed here
		os.Exit(0)
	}
	bin := buildProcs(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestProcsNothingOutlivesWeft$")
	cmd.Env = append(os.Environ(), "WEFT_PROCS_CHILD=1", "WEFT_PROCS_BIN="+bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var line string
	buf := make([]byte, 4096)
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(line, "\n") && time.Now().Before(deadline) {
		k, err := stdout.Read(buf)
		line += string(buf[:k])
		if err != nil {
			break
		}
	}
	var pids []int
	for _, f := range strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "pids")) {
		var pid int
		fmt.Sscan(f, &pid)
		pids = append(pids, pid)
	}
	if len(pids) != 4 {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		t.Fatalf("child test printed %q, want 4 pids", line)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // weft's whole process group
	cmd.Wait()
	time.Sleep(200 * time.Millisecond)
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err == nil && !bytes.Contains(b, []byte(") Z ")) {
			t.Errorf("process %d outlived weft: %s", pid, b)
		}
	}
}

// forksWall runs the forks workload (n fork + exit + wait rounds) and
// returns its wall time, supervised or native.
func forksWall(tb testing.TB, bin string, n int, supervised bool) time.Duration {
	args := []string{"forks", fmt.Sprint(n)}
	start := time.Now()
	if !supervised {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			tb.Fatalf("%v: %s", err, out)
		}
		return time.Since(start)
	}
	w, _ := runThreads(tb, Config{Nodes: []NodeSpec{{Path: bin, Args: args}}}, first)
	if f := w.Failure(); f != nil {
		tb.Fatal(f)
	}
	if !strings.Contains(string(w.Output(0)), "done") {
		tb.Fatalf("forks %d did not finish: %s", n, w.Output(0))
	}
	return time.Since(start)
}

// BenchmarkForkWait forks a child that exits at once and reaps it, one
// at a time, supervised and native: under weft the fork holds parent and
// child with ptrace, the child's exit is collected by weft and the wait is
// answered from the virtual tree.
func BenchmarkForkWait(b *testing.B) {
	bin := buildProcs(b)
	const n = 50
	var sup, nat float64
	for i := 0; i < b.N; i++ {
		sup += perOp(forksWall(b, bin, n, true), forksWall(b, bin, 0, true), n)
		nat += perOp(forksWall(b, bin, n, false), forksWall(b, bin, 0, false), n)
	}
	b.ReportMetric(sup/float64(b.N)/1e3, "µs/supervised-fork+wait")
	b.ReportMetric(nat/float64(b.N)/1e3, "µs/native-fork+wait")
	b.ReportMetric(sup/nat, "ratio")
}

// TestGoExec runs a Go program that starts other programs with os/exec
// (the runtime forks with clone(CLONE_VM|CLONE_VFORK) from several
// threads, probes pidfd support and falls back when CLONE_PIDFD is
// refused, waits with waitid(WNOWAIT) and wait4; one child's output is
// captured through a pipe, read through Go's netpoller), under three
// orders of choices, each twice: the same output and the same hashes.
func TestGoExec(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "goexec")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/goexec").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	want := "true: <nil>\nsh: exit 7 pid>1000 true\nhello from a child of a Go program\necho: <nil>\n" +
		"output: \"captured through a pipe\\n\" <nil>\nmissing: fork/exec /nonexistent/weft: no such file or directory\n"
	for seed := uint64(1); seed <= 3; seed++ {
		name := fmt.Sprintf("seed %d", seed)
		pick := func(acts []sched.Action, step int) sched.Action { return acts[(int(seed)*7919+step*31)%len(acts)] }
		out := runTwiceHashed(t, name, Config{Nodes: []NodeSpec{{Path: bin}}, Seed: seed}, HashGlobals, pick, func(w *World) {
			if w.Procs(0) != 6 {
				t.Errorf("%s: %d processes, want 6 (the program and five children)", name, w.Procs(0))
			}
		})
		if out != want {
			t.Errorf("%s: output\n%s\nwant\n%s", name, out, want)
		}
	}
}
