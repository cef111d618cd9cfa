package vkernel

import (
	"fmt"
	"slices"
)

// Virtual ids (issue 36 §3). Every process id, thread id, process group
// id and session id a node passes to a call or reads back is virtual:
// node i's main process is 100+i, the k-th later thread of its tree
// 1000·(i+1)+k, a child process has the id of its first thread; on the
// host the whole tree is one process group (the main process's id), and
// the groups and sessions its processes make are virtual (ProcTable,
// sessions.go). IDs is the one table that translates them, for one
// node: a call names only threads of the table, so no argument can name
// a host process, and a host id read back (a descriptor's owner) is
// shown virtual or not at all.
//
// The rules follow the kernel's lookups: a pid argument of a per-thread
// call (sched_*, ioprio, priorities, prlimit) is any thread id
// (find_task_by_vpid); 0 is the caller; a negative one is EINVAL where
// the kernel says so and ESRCH otherwise; a "which, who" pair
// (setpriority(2), ioprio_set(2)) names a thread, the node's group or the
// node's user, which is every thread of the node: a node is the only
// owner of its processes, so PRIO_USER never reaches a host process.

// Thread is one live thread of a node's tree.
type Thread struct {
	Tid  int64 // virtual thread id
	Pid  int64 // virtual id of its process (thread group)
	Host int   // host thread id
}

// Refusal is why a lookup failed, as the errno the kernel would answer.
type Refusal int

// Refusals.
const (
	OK           Refusal = iota
	NoSuchThread         // ESRCH
	Invalid              // EINVAL
	Unmodelled           // EPERM: a node-made process group as a descriptor's owner (Owner)
)

func (r Refusal) String() string {
	switch r {
	case OK:
		return "ok"
	case NoSuchThread:
		return "ESRCH"
	case Invalid:
		return "EINVAL"
	case Unmodelled:
		return "EPERM"
	}
	return fmt.Sprintf("Refusal(%d)", int(r))
}

// Who is the first argument of setpriority(2), getpriority(2),
// ioprio_set(2) and ioprio_get(2): what the second names.
type Who int

// Whos.
const (
	WhoThread Who = iota // PRIO_PROCESS, IOPRIO_WHO_PROCESS: one thread (0: the caller)
	WhoGroup             // PRIO_PGRP, IOPRIO_WHO_PGRP: a process group (0: the caller's)
	WhoUser              // PRIO_USER, IOPRIO_WHO_USER: a user's threads (0: the caller's user)
)

// Session is every node's virtual session id: the session of its virtual
// parent, pid 1.
const Session = 1

// IDs is one node's table of virtual ids: its live threads, its process
// group, and which thread is calling. The zero value is not usable; use
// NewIDs.
type IDs struct {
	threads   []Thread        // in the order added
	group     int64           // the tree's process group: the main process's virtual pid
	groupHost int             // its host process group id
	caller    int             // index of the calling thread in threads, -1 none
	pgids     map[int64]int64 // virtual process group of a process (ProcTable); absent: group
}

// NewIDs returns an empty table for a node whose process group (its main
// process's virtual pid) is group, host process group groupHost.
func NewIDs(group int64, groupHost int) *IDs {
	return &IDs{group: group, groupHost: groupHost, caller: -1}
}

// Add records a live thread. A second thread with the same virtual id
// replaces the first (a thread id is reused only after its thread ended).
func (ids *IDs) Add(t Thread) {
	if i := ids.index(t.Tid); i >= 0 {
		ids.threads[i] = t
		return
	}
	ids.threads = append(ids.threads, t)
}

// SetCaller names the thread whose call is being served; it reports
// false, and leaves no caller, if tid is not in the table.
func (ids *IDs) SetCaller(tid int64) bool {
	ids.caller = ids.index(tid)
	return ids.caller >= 0
}

// Caller is the thread whose call is being served.
func (ids *IDs) Caller() (Thread, bool) {
	if ids.caller < 0 {
		return Thread{}, false
	}
	return ids.threads[ids.caller], true
}

func (ids *IDs) index(tid int64) int {
	return slices.IndexFunc(ids.threads, func(t Thread) bool { return t.Tid == tid })
}

// SetPgid records that process pid is in virtual process group pgid, as
// the node's ProcTable says; a process not recorded is in the node's group.
func (ids *IDs) SetPgid(pid, pgid int64) {
	if ids.pgids == nil {
		ids.pgids = map[int64]int64{}
	}
	ids.pgids[pid] = pgid
}

// pgidOf is thread t's virtual process group.
func (ids *IDs) pgidOf(t Thread) int64 {
	if g, ok := ids.pgids[t.Pid]; ok {
		return g
	}
	return ids.group
}

// members lists the threads of virtual process group pgid.
func (ids *IDs) members(pgid int64) []Thread {
	var out []Thread
	for _, t := range ids.threads {
		if ids.pgidOf(t) == pgid {
			out = append(out, t)
		}
	}
	return out
}

// Group is the node's virtual process group id.
func (ids *IDs) Group() int64 { return ids.group }

// Thread resolves a thread id argument: 0 is the caller, a positive id
// any live thread of the node; anything else names nothing the node may
// reach (negative ids are EINVAL, as for sched_setaffinity(2)).
func (ids *IDs) Thread(arg int64) (Thread, Refusal) {
	switch {
	case arg < 0:
		return Thread{}, Invalid
	case arg == 0:
		if t, ok := ids.Caller(); ok {
			return t, OK
		}
		return Thread{}, NoSuchThread
	}
	if i := ids.index(arg); i >= 0 {
		return ids.threads[i], OK
	}
	return Thread{}, NoSuchThread
}

// Process resolves a process id argument (0: the caller's process) to
// the threads of that process, its leader first. A thread id that is not
// a process's own id names no process, as for kill(2).
func (ids *IDs) Process(arg int64) ([]Thread, Refusal) {
	if arg < 0 {
		return nil, Invalid
	}
	if arg == 0 {
		t, ok := ids.Caller()
		if !ok {
			return nil, NoSuchThread
		}
		arg = t.Pid
	}
	var out []Thread
	for _, t := range ids.threads {
		if t.Pid == arg {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b Thread) int { return boolInt(b.Tid == arg) - boolInt(a.Tid == arg) })
	if len(out) == 0 || out[0].Tid != arg {
		return nil, NoSuchThread
	}
	return out, OK
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Targets resolves a "which, who" pair to the threads it names.
// sameUser says whether who, for WhoUser, is the uid the node's processes
// run as (the caller knows credentials; the table does not).
func (ids *IDs) Targets(which Who, who int64, sameUser bool) ([]Thread, Refusal) {
	switch which {
	case WhoThread:
		if who < 0 {
			return nil, NoSuchThread // find_task_by_vpid finds nothing: ESRCH, not EINVAL
		}
		t, r := ids.Thread(who)
		if r != OK {
			return nil, r
		}
		return []Thread{t}, OK
	case WhoGroup:
		if who == 0 {
			who = ids.group
			if t, ok := ids.Caller(); ok {
				who = ids.pgidOf(t)
			}
		}
		if who < 0 {
			return nil, NoSuchThread
		}
		if out := ids.members(who); len(out) > 0 {
			return out, OK
		}
		return nil, NoSuchThread
	case WhoUser:
		if who != 0 && !sameUser {
			return nil, NoSuchThread
		}
	default:
		return nil, Invalid
	}
	if len(ids.threads) == 0 {
		return nil, NoSuchThread
	}
	return slices.Clone(ids.threads), OK
}

// Owner translates F_SETOWN's argument (and F_SETOWN_EX's): a positive
// id a process of the node, a negative one a virtual process group of the
// node, 0 no owner. It returns the host id to hand the kernel, negative
// for a group as F_SETOWN's is. On the host the whole node is one process
// group, so a group is an owner the kernel can signal only while it holds
// every thread of the node; a group the node made of some of its
// processes (setpgid, setsid) is Unmodelled: the kernel has no such group
// to signal, and weft refuses rather than signal the others too.
func (ids *IDs) Owner(arg int64) (int, Refusal) {
	switch {
	case arg == 0:
		return 0, OK
	case arg < 0:
		switch m := ids.members(-arg); {
		case len(m) == 0:
			return 0, NoSuchThread
		case len(m) < len(ids.threads):
			return 0, Unmodelled
		}
		return -ids.groupHost, OK
	}
	if i := ids.index(arg); i >= 0 {
		return ids.threads[i].Host, OK
	}
	return 0, NoSuchThread
}

// OwnerOf translates a host owner read back from the kernel (F_GETOWN):
// a thread of the node, or the node's group (negative). An owner the
// table does not know (the thread ended) reads 0, as for an owner that
// has exited.
func (ids *IDs) OwnerOf(host int) int64 {
	switch {
	case host == 0:
		return 0
	case host < 0:
		if -host != ids.groupHost {
			return 0
		}
		if len(ids.threads) > 0 {
			return -ids.pgidOf(ids.threads[0])
		}
		return -ids.group
	}
	for _, t := range ids.threads {
		if t.Host == host {
			return t.Tid
		}
	}
	return 0
}

// Virtual translates a host thread id to its virtual id, if it is one of
// the node's.
func (ids *IDs) Virtual(host int) (int64, bool) {
	for _, t := range ids.threads {
		if t.Host == host {
			return t.Tid, true
		}
	}
	return 0, false
}
