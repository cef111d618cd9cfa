//go:build linux && amd64

package supervisor

import (
	"fmt"
	"strings"

	"github.com/weft-mc/weft/mcsdk/sched"
	"golang.org/x/sys/unix"
)

// The scheduling trace (Config.Trace): a line for everything that decides
// which tasks the scheduler may choose from, in the order weft saw it.
// Two runs of one seed must write the same trace; where two differ, the
// first differing line names what reached the world without passing
// through the scheduler (issue 36 §5). Lines use virtual names only
// (n1/t2, syscall names, virtual time), never host ids:
//
//	A <step> <action>            an action applied
//	Q <tasks of each node>       the tasks after the world settled
//	N <task> <syscall> [path]    a notification received
//	D <task> <dir> <n> bytes     a directory read for a node
//	S <task> <wait status>       a stop collected from the host
//	G <task> <signal>            a signal queued (task "-": the process)
//	I <task> <signal>            a parked call interrupted by it

// tracing reports whether a trace is being written.
func (w *World) tracing() bool { return w.cfg.Trace != nil }

// tracef writes one trace line.
func (w *World) tracef(format string, args ...any) {
	if w.cfg.Trace != nil {
		fmt.Fprintf(w.cfg.Trace, format+"\n", args...)
	}
}

// traceTasks writes a Q line: every node's tasks and what each is doing.
func (w *World) traceTasks() {
	if !w.tracing() {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Q %d", w.now)
	for _, n := range w.nodes {
		fmt.Fprintf(&b, " | n%d", n.id)
		if n.exited {
			b.WriteString(" exited")
			continue
		}
		for _, t := range n.tasks {
			if t.exited {
				continue
			}
			fmt.Fprintf(&b, " t%d:%s", t.k, t.traceState())
		}
	}
	w.tracef("%s", b.String())
}

// traceState is one task's state in a Q line: C running, R ready, H held
// in a ptrace stop, P parked, with the call it is in.
func (t *task) traceState() string {
	var s string
	switch {
	case t.n.cur == t:
		s = "C"
	case t.ready:
		s = "R"
	default:
		s = "P"
	}
	if t.held {
		s += "H"
	}
	if t.call != nil {
		s += sysName(int(t.call.req.Data.Nr))
		if t.call.intr != nil {
			s += "!"
		}
	}
	return s
}

// The writers below check first that a trace is being written, so that
// a run without one formats nothing on its hot paths (every stop, signal
// and step).

// traceAction writes an A line: the action applied at this step.
func (w *World) traceAction(a sched.Action) {
	if w.tracing() {
		w.tracef("A %d %v", w.steps, a)
	}
}

// traceStop writes an S line for a stop collected from thread t. Ends are
// not traced: a group exit's threads end in the order the host reaps
// them, and only the set matters.
func (w *World) traceStop(t *task, ws unix.WaitStatus) {
	if w.tracing() && ws.Stopped() {
		w.tracef("S %s stop %s %d", t.name(), unix.SignalName(ws.StopSignal()), ws.TrapCause())
	}
}

// traceSignal writes a G line (kind "G": sig queued for t, nil the
// process) or an I line ("I": t's parked call interrupted by sig).
func (w *World) traceSignal(kind string, t *task, sig int) {
	if !w.tracing() {
		return
	}
	who := "-"
	if t != nil {
		who = t.name()
	}
	w.tracef("%s %s %s", kind, who, unix.SignalName(unix.Signal(sig)))
}

// traceDir writes a D line: a directory weft read for t, n bytes.
func (w *World) traceDir(t *task, dir string, n uintptr) {
	if w.tracing() {
		w.tracef("D %s %q %d bytes", t.name(), dir, n)
	}
}

// traceCall writes an N line: the call a notification carries, and the
// path it names for the calls that take one.
func (w *World) traceCall(c *call) {
	if !w.tracing() {
		return
	}
	nr := int(c.req.Data.Nr)
	arg := -1
	switch nr {
	case unix.SYS_OPEN, unix.SYS_STAT, unix.SYS_LSTAT, unix.SYS_ACCESS, unix.SYS_READLINK, unix.SYS_MKDIR, unix.SYS_UNLINK, unix.SYS_RENAME:
		arg = 0
	case unix.SYS_OPENAT, unix.SYS_NEWFSTATAT, unix.SYS_STATX, unix.SYS_FACCESSAT, unix.SYS_FACCESSAT2, unix.SYS_READLINKAT, unix.SYS_MKDIRAT, unix.SYS_UNLINKAT, unix.SYS_RENAMEAT, unix.SYS_RENAMEAT2, unix.SYS_OPENAT2:
		arg = 1
	}
	if arg < 0 {
		w.tracef("N %s %s", c.t.name(), sysName(nr))
		return
	}
	defer c.n.enterProc(c.t)()
	p, err := c.readPath(c.arg(arg))
	if err != nil {
		p = "?"
	}
	w.tracef("N %s %s %q", c.t.name(), sysName(nr), p)
}
