//go:build linux && amd64

package supervisor

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Virtual ids at the edge: every call whose argument is a pid, tid,
// process group or user resolves it in the node's id table
// (vkernel.IDs), and weft acts on the host ids the table gives, never on
// a number a node chose. Pid 0 (the caller) still runs natively where
// the kernel's own answer is the caller's.

// ids builds node n's id table from its live tasks and their virtual
// process groups (n.ptab), with the calling task t (nil: none).
func (n *node) ids(t *task) *vkernel.IDs {
	mainHost := n.tasks[0].tid
	if len(n.procs) > 0 {
		mainHost = n.procs[0].pid
	}
	// The host process group of the tree: the main process's own, or,
	// for a node forked from a template (template_linux.go), the
	// template's, which then also holds the idle template.
	groupHost, err := unix.Getpgid(mainHost)
	if err != nil {
		groupHost = mainHost
	}
	ids := vkernel.NewIDs(n.group(), groupHost)
	for _, o := range n.tasks {
		if o.exited {
			continue
		}
		pid := virtualPidBase + int64(n.id)
		if o.p != nil {
			pid = o.p.vpid
		}
		ids.Add(vkernel.Thread{Tid: o.vtid(), Pid: pid, Host: o.tid})
	}
	if n.ptab != nil {
		for _, m := range n.ptab.Members() {
			ids.SetPgid(m.Pid, m.Pgid)
		}
	}
	if t != nil {
		ids.SetCaller(t.vtid())
	}
	return ids
}

// ids is the calling node's id table, the caller named.
func (c *call) ids() *vkernel.IDs { return c.n.ids(c.t) }

// refusal is the errno of a failed id lookup.
func refusal(r vkernel.Refusal) result {
	switch r {
	case vkernel.Invalid:
		return errno(unix.EINVAL)
	case vkernel.Unmodelled:
		return errno(unix.EPERM)
	}
	return errno(unix.ESRCH)
}

// hostThread resolves argument i, a thread id, to a thread of the node.
func (c *call) hostThread(i int) (vkernel.Thread, result, bool) {
	th, r := c.ids().Thread(int64(int32(c.arg(i))))
	if r != vkernel.OK {
		return th, refusal(r), false
	}
	return th, result{}, true
}

// byHostTid serves a call whose argument pidArg is a thread id (0: the
// caller) by making it in weft on the host thread the table names, with
// its in and out buffers copied (ptrCalls). Pid 0 runs natively.
func byHostTid(nr int) handler {
	spec, ok := ptrCalls[nr]
	if !ok {
		panic(fmt.Sprintf("supervisor: no buffer layout for syscall %d", nr))
	}
	return func(c *call) result {
		if int32(c.arg(spec.pidArg)) == 0 {
			return cont()
		}
		th, r, ok := c.hostThread(spec.pidArg)
		if !ok {
			return r
		}
		return c.onHost(nr, spec, th.Host)
	}
}

// ptrCall is the layout of a call weft makes for a node: which argument
// is the thread id, which is a buffer, how many bytes go in (read from
// the node first) and come out (written back).
type ptrCall struct {
	pidArg   int
	buf      int // argument holding the buffer, -1 none
	in, out  func(c *call) int
	buf2     int // a second output buffer (get_robust_list), -1 none
	out2size int
}

func fixed(n int) func(*call) int { return func(*call) int { return n } }
func none(*call) int              { return 0 }

// schedAttrSize is the size of struct sched_attr given in its first word
// (0 means the first version's 48 bytes), bounded by a page.
func schedAttrSize(c *call) int {
	size, err := c.readU32(c.arg(1))
	if err != nil || size == 0 {
		return 48
	}
	return min(int(size), 4096)
}

// ptrCalls are the per-thread calls served by byHostTid.
var ptrCalls = map[int]ptrCall{
	unix.SYS_SCHED_SETPARAM:        {pidArg: 0, buf: 1, in: fixed(4), out: none, buf2: -1},
	unix.SYS_SCHED_GETPARAM:        {pidArg: 0, buf: 1, in: none, out: fixed(4), buf2: -1},
	unix.SYS_SCHED_SETSCHEDULER:    {pidArg: 0, buf: 2, in: fixed(4), out: none, buf2: -1},
	unix.SYS_SCHED_GETSCHEDULER:    {pidArg: 0, buf: -1, in: none, out: none, buf2: -1},
	unix.SYS_SCHED_RR_GET_INTERVAL: {pidArg: 0, buf: 1, in: none, out: fixed(16), buf2: -1},
	unix.SYS_SCHED_SETATTR:         {pidArg: 0, buf: 1, in: schedAttrSize, out: none, buf2: -1},
	unix.SYS_SCHED_GETATTR:         {pidArg: 0, buf: 1, in: none, out: func(c *call) int { return min(int(uint32(c.arg(2))), 4096) }, buf2: -1},
	unix.SYS_GET_ROBUST_LIST:       {pidArg: 0, buf: 1, in: none, out: fixed(8), buf2: 2, out2size: 8},
}

// onHost makes call nr for the node with host thread tid in place of
// its thread id argument.
func (c *call) onHost(nr int, spec ptrCall, tid int) result {
	args := c.req.Data.Args
	args[spec.pidArg] = uint64(tid)
	var buf, buf2 []byte
	if spec.buf >= 0 && c.arg(spec.buf) != 0 {
		in, out := spec.in(c), spec.out(c)
		buf = make([]byte, max(in, out, 1))
		if in > 0 {
			b, err := c.read(c.arg(spec.buf), in)
			if err != nil {
				return errno(unix.EFAULT)
			}
			copy(buf, b)
		}
		args[spec.buf] = uint64(bufAddr(buf))
	}
	if spec.buf2 >= 0 && c.arg(spec.buf2) != 0 {
		buf2 = make([]byte, spec.out2size)
		args[spec.buf2] = uint64(bufAddr(buf2))
	}
	r, _, e := unix.Syscall6(uintptr(nr), uintptr(args[0]), uintptr(args[1]), uintptr(args[2]), uintptr(args[3]), uintptr(args[4]), uintptr(args[5]))
	keepAlive(buf, buf2)
	if e != 0 {
		return errno(e)
	}
	if n := spec.out(c); n > 0 && buf != nil {
		if err := c.write(c.arg(spec.buf), buf[:n]); err != nil {
			return errno(unix.EFAULT)
		}
	}
	if buf2 != nil {
		if err := c.write(c.arg(spec.buf2), buf2); err != nil {
			return errno(unix.EFAULT)
		}
	}
	return ret(int64(r))
}

// bufAddr is the address of a buffer weft passes to a syscall of its
// own (kept alive across it with runtime.KeepAlive).
func bufAddr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&b[0]))
}

func keepAlive(bs ...[]byte) { runtime.KeepAlive(bs) }

// sameUser reports whether uid is the real uid of the calling thread
// (PRIO_USER and IOPRIO_WHO_USER name a user by it).
func (c *call) sameUser(uid int64) bool {
	s, err := taskStatus(c.n.memPid(), c.t.tid)
	return err == nil && s.HasIDs && int64(s.UID[0]) == uid
}

// whoTargets resolves the "which, who" arguments of the priority calls
// (PRIO_* and IOPRIO_WHO_* name the same three kinds, numbered 0-2 and
// 1-3) to the node's threads.
func (c *call) whoTargets(which vkernel.Who, who int64) ([]vkernel.Thread, result, bool) {
	ts, r := c.ids().Targets(which, who, which == vkernel.WhoUser && who != 0 && c.sameUser(who))
	if r != vkernel.OK {
		return nil, refusal(r), false
	}
	return ts, result{}, true
}

// prioWho maps setpriority(2)'s which to a vkernel.Who.
func prioWho(which int32) (vkernel.Who, bool) {
	switch which {
	case unix.PRIO_PROCESS:
		return vkernel.WhoThread, true
	case unix.PRIO_PGRP:
		return vkernel.WhoGroup, true
	case unix.PRIO_USER:
		return vkernel.WhoUser, true
	}
	return 0, false
}

// Getpriority implements getpriority(2) on virtual nice values (task.nice):
// the highest priority (20 - nice, as the raw syscall returns it) among
// the threads named, all of the node. The host's niceness never shows.
func sysGetpriority(c *call) result {
	ts, r, ok := c.prioTargets()
	if !ok {
		return r
	}
	best := int64(-1)
	for _, t := range ts {
		best = max(best, 20-int64(t.nice))
	}
	return ret(best)
}

// Setpriority implements setpriority(2) on the virtual nice values of the
// threads named, all of the node: no host thread is reniced. The value is
// clamped to -20..19; lowering a thread's nice needs CAP_SYS_NICE or room
// under RLIMIT_NICE, else EACCES (kernel/sys.c's set_one_prio).
func sysSetpriority(c *call) result {
	ts, r, ok := c.prioTargets()
	if !ok {
		return r
	}
	nice := int8(min(max(int64(int32(c.arg(2))), -20), 19))
	for _, t := range ts {
		if nice < t.nice && !c.mayNice(nice) {
			return errno(unix.EACCES)
		}
	}
	for _, t := range ts {
		t.nice = nice
	}
	return ret(0)
}

// prioTargets are the live threads getpriority and setpriority name: the
// caller for PRIO_PROCESS 0, else those vkernel's lookup finds.
func (c *call) prioTargets() ([]*task, result, bool) {
	which, ok := prioWho(int32(c.arg(0)))
	if !ok {
		return nil, errno(unix.EINVAL), false
	}
	who := int64(int32(c.arg(1)))
	if which == vkernel.WhoThread && who == 0 {
		return []*task{c.t}, result{}, true
	}
	ths, r, ok := c.whoTargets(which, who)
	if !ok {
		return nil, r, false
	}
	var ts []*task
	for _, th := range ths {
		for _, t := range c.n.tasks {
			if t.tid == th.Host && !t.exited {
				ts = append(ts, t)
			}
		}
	}
	if len(ts) == 0 {
		return nil, errno(unix.ESRCH), false
	}
	return ts, result{}, true
}

// capSysNice is CAP_SYS_NICE's bit in a capability set.
const capSysNice = 23

// mayNice reports whether the caller may lower a nice value to nice:
// RLIMIT_NICE's soft limit allows 20 - nice, or the thread has
// CAP_SYS_NICE. A status weft cannot read grants nothing.
func (c *call) mayNice(nice int8) bool {
	if l, err := c.n.virtualLimits(c.w.cfg.MaxTasks).Get(vkernel.RlimitNICE); err == nil && 20-int64(nice) <= int64(l.Cur) {
		return true
	}
	sets, err := hostCaps(c.n.memPid(), c.t.tid)
	return err == nil && sets[0]&(1<<capSysNice) != 0
}

// ioprio_set(2)'s which values (linux/ioprio.h).
const (
	ioprioWhoProcess = 1
	ioprioWhoPgrp    = 2
	ioprioWhoUser    = 3
)

// IoprioGet implements ioprio_get(2) for the threads named, all of the
// node: the first one's priority (the kernel answers the best among
// several; nodes run one at a time, so I/O priority orders nothing).
func sysIoprioGet(c *call) result {
	ts, r, ok := c.ioprioTargets()
	if !ok {
		return r
	}
	if ts == nil {
		return cont()
	}
	v, _, e := unix.Syscall(unix.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(ts[0].Host), 0)
	if e != 0 {
		return errno(e)
	}
	return ret(int64(v))
}

// IoprioSet implements ioprio_set(2) on the threads named, all of the
// node.
func sysIoprioSet(c *call) result {
	ts, r, ok := c.ioprioTargets()
	if !ok {
		return r
	}
	if ts == nil {
		return cont()
	}
	for _, th := range ts {
		if _, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(th.Host), uintptr(c.arg(2))); e != 0 {
			return errno(e)
		}
	}
	return ret(0)
}

// ioprioTargets resolves ioprio's which and who; nil threads and ok mean
// the caller's own thread (who 0 of IOPRIO_WHO_PROCESS), which runs
// natively.
func (c *call) ioprioTargets() ([]vkernel.Thread, result, bool) {
	who := int64(int32(c.arg(1)))
	var which vkernel.Who
	switch int32(c.arg(0)) {
	case ioprioWhoProcess:
		if who == 0 {
			return nil, result{}, true
		}
		which = vkernel.WhoThread
	case ioprioWhoPgrp:
		which = vkernel.WhoGroup
	case ioprioWhoUser:
		which = vkernel.WhoUser
	default:
		return nil, errno(unix.EINVAL), false
	}
	return c.whoTargets(which, who)
}

// Capability header versions (linux/capability.h).
const (
	capVersion1 = 0x19980330
	capVersion2 = 0x20071026
	capVersion3 = 0x20080522
)

// capWords is how many 32-bit words each capability set has in the
// header's version, 0 for a version the kernel does not know.
func capWords(version uint32) int {
	switch version {
	case capVersion1:
		return 1
	case capVersion2, capVersion3:
		return 2
	}
	return 0
}

// capHeader reads capget's and capset's header: version and pid. An
// unknown version is answered as the kernel does: the header gets the
// version it prefers, and the call returns EINVAL (0 for capget without
// data, the way to ask for it).
func (c *call) capHeader() (words int, pid int64, r result, ok bool) {
	b, err := c.read(c.arg(0), 8)
	if err != nil {
		return 0, 0, errno(unix.EFAULT), false
	}
	version := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	pid = int64(int32(uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24))
	if words = capWords(version); words == 0 {
		if err := c.writeU32(c.arg(0), capVersion3); err != nil {
			return 0, 0, errno(unix.EFAULT), false
		}
		if c.req.Data.Nr == unix.SYS_CAPGET && c.arg(1) == 0 {
			return 0, 0, ret(0), false
		}
		return 0, 0, errno(unix.EINVAL), false
	}
	if pid < 0 {
		return 0, 0, errno(unix.EINVAL), false
	}
	return words, pid, result{}, true
}

// Capget implements capget(2): pid 0 runs natively; any other names a
// thread of the node, whose sets weft reads from /proc.
func sysCapget(c *call) result {
	words, pid, r, ok := c.capHeader()
	if !ok {
		return r
	}
	if pid == 0 {
		return cont()
	}
	th, rf := c.ids().Thread(pid)
	if rf != vkernel.OK {
		return refusal(rf)
	}
	if c.arg(1) == 0 {
		return ret(0)
	}
	sets, err := hostCaps(c.n.memPid(), th.Host)
	if err != nil {
		return errno(unix.ESRCH)
	}
	out := make([]byte, 0, 12*words)
	for w := range words {
		for _, s := range sets { // effective, permitted, inheritable
			v := uint32(s >> (32 * w))
			out = append(out, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
	}
	return errno(errnoOf(c.write(c.arg(1), out)))
}

// hostCaps reads a thread's effective, permitted and inheritable sets.
func hostCaps(pid, tid int) ([3]uint64, error) {
	s, err := taskStatus(pid, tid)
	if err != nil {
		// A thread of another process of the node's tree.
		if s, err = taskStatus(tid, tid); err != nil {
			return [3]uint64{}, err
		}
	}
	return [3]uint64{s.CapEff, s.CapPrm, s.CapInh}, nil
}

// Capset implements capset(2), which changes only the caller's own sets:
// pid 0 runs natively; the caller's own virtual id is made 0 in the
// header (the kernel would take it for a host pid), then the call runs;
// any other thread is EPERM, as Linux answers.
func sysCapset(c *call) result {
	_, pid, r, ok := c.capHeader()
	if !ok {
		return r
	}
	switch {
	case pid == 0:
		return cont()
	case pid != c.t.vtid():
		if _, rf := c.ids().Thread(pid); rf != vkernel.OK {
			return refusal(rf)
		}
		return errno(unix.EPERM)
	}
	if err := c.write(c.arg(0)+4, make([]byte, 4)); err != nil {
		return errno(unix.EFAULT)
	}
	return cont()
}
