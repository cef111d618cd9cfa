//go:build linux

package kernel

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// becomeReaper makes the kernel the reaper of orphans among its
// descendants (PR_SET_CHILD_SUBREAPER): a process a cell starts, and
// whatever it starts in turn, stays in the kernel's tree, where
// killDescendants finds it, instead of escaping to init when its parent
// exits. The supervisor asks for the same for node processes.
func becomeReaper() error { return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// descendants returns the live (not zombie) descendants of pid, found
// through the parent links of /proc/PID/stat.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, state, ok := procStat(p); ok && state != 'Z' {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, children[p]...)
		queue = append(queue, children[p]...)
	}
	return out
}

// procStat reads a process's parent and state from /proc/PID/stat.
func procStat(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name, in parentheses, may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 2 || len(f[0]) == 0 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0][0], err == nil
}

// killDescendants sends SIGKILL to every descendant of the kernel, again
// and again until none is left alive (orphans of killed processes come
// back to the kernel, a subreaper) or 5 s have passed; it returns how many
// processes it signalled. Node processes stopped under ptrace die of it
// too: SIGKILL is never held. With nodesOnly, only the processes the kernel
// traces are killed: the node processes of runs (and their children),
// not helpers that outlive a run, such as the Go checks helper, which
// later runs reuse.
func killDescendants(nodesOnly bool) int {
	self, n := os.Getpid(), 0
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		ds := descendants(self)
		if nodesOnly {
			// TracerPid is the tracing thread's id: the supervisor's
			// launcher thread.
			tids := threads(self)
			ds = slices.DeleteFunc(ds, func(p int) bool { return !tids[tracer(p)] })
		}
		if len(ds) == 0 {
			break
		}
		for _, d := range ds {
			if unix.Kill(d, unix.SIGKILL) == nil {
				n++
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// threads returns the thread ids of process pid.
func threads(pid int) map[int]bool {
	entries, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	out := map[int]bool{}
	for _, e := range entries {
		if t, err := strconv.Atoi(e.Name()); err == nil {
			out[t] = true
		}
	}
	return out
}

// tracer returns the thread id of the thread tracing pid, 0 if none.
func tracer(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "TracerPid:"); ok {
			p, _ := strconv.Atoi(strings.TrimSpace(v))
			return p
		}
	}
	return 0
}

// parentDeathSignal is the signal the kernel asks for when its parent
// dies (PR_SET_PDEATHSIG). It only prompts a check of the parent: Linux
// sends it when the parent THREAD that started the kernel exits, which may
// leave the parent process alive.
const parentDeathSignal = syscall.SIGUSR2

// watchParent returns a channel that receives why once the process that
// started the kernel has died. It watches as ipykernel does: the parent
// process (the kernel's parent pid changes when its parent exits), and
// JPY_PARENT_PID, the pid of the Jupyter client that started the kernel,
// when that is an ancestor of the kernel. Between polls every pollEvery,
// a parent-death signal asked for on a locked thread wakes it at once.
func watchParent(ctx context.Context, pollEvery time.Duration, log io.Writer) <-chan string {
	out := make(chan string, 1)
	ppid := os.Getppid()
	jpy := jpyParent(ppid)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, parentDeathSignal)
	go func() {
		defer signal.Stop(sig)
		// The thread that asked for the signal must live as long as the
		// watch: the setting is per thread. It is never unlocked, so it
		// ends with this goroutine.
		runtime.LockOSThread()
		unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(parentDeathSignal), 0, 0, 0)
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		for {
			if why := parentGone(ppid, jpy); why != "" {
				out <- why
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-sig:
				if parentGone(ppid, jpy) == "" {
					fmt.Fprintf(log, "weft kernel: parent-death signal, but parent process %d lives (the thread that started the kernel exited): carrying on\n", ppid)
				}
			case <-t.C:
			}
		}
	}()
	return out
}

// parentGone says why the kernel's parent is gone, or "" while it lives.
func parentGone(ppid, jpy int) string {
	if p := os.Getppid(); p != ppid {
		return fmt.Sprintf("parent process %d exited", ppid)
	}
	if jpy > 0 && unix.Kill(jpy, 0) == unix.ESRCH {
		return fmt.Sprintf("Jupyter client %d (JPY_PARENT_PID) exited", jpy)
	}
	return ""
}

// jpyParent returns JPY_PARENT_PID when it names the kernel's parent ppid
// or an ancestor of it, else 0: a value inherited from elsewhere (a
// kernel started from a notebook's shell) is not the kernel's client.
func jpyParent(ppid int) int {
	jpy, err := strconv.Atoi(os.Getenv("JPY_PARENT_PID"))
	if err != nil || jpy <= 1 {
		return 0
	}
	for p, i := ppid, 0; p > 1 && i < 64; i++ {
		if p == jpy {
			return jpy
		}
		next, _, ok := procStat(p)
		if !ok {
			break
		}
		p = next
	}
	return 0
}
