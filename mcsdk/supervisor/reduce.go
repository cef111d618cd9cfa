//go:build linux && amd64

package supervisor

// The visible-operation reduction (ThreadsVisible): a node's threads are
// switched only at calls another thread, node or the environment can
// observe, or whose order between threads matters.
//
// # The model
//
// A thread's step in weft is one atomic transition: weft serves the
// thread's pending intercepted call, then the thread runs its own code
// (memory accesses and the calls the filter lets through, which weft never
// sees) up to its next intercepted call. Under ThreadsExplore every point
// where a node has two or more ready threads is a Run choice, so every
// interleaving of these steps is explored.
//
// # The classification
//
// Every syscall number is classified (threadClass): a call is private when
// serving it reads only state of the calling thread or state nothing can
// change during a run, writes only the calling thread's state and its own
// memory, and never parks (gettid, getpid, set_tid_address, sigaltstack,
// uname, getcpu, getrusage, rseq's refusal, sched_getaffinity of the
// caller); every other intercepted call is visible (unknown ⇒ visible):
// sockets, pipes, eventfd and epoll, futexes, signals, clone, exit, exec
// and wait, the descriptor table (open, close, dup and socket hand out the
// lowest free number), the node's seeded random stream, every clock read
// and every sleep or timer (the environment's Timer actions move the
// clock, and a read does not commute with them), files, and sched_yield
// (a thread that yields waits for another; were it private, a thread
// spinning on sched_yield would starve the thread it waits for). A thread
// held at its start or at its clone's return is visible too (privateStep).
//
// # The schedule
//
// A running thread whose next call is private is not preempted there: the
// call is served and the thread runs on (runNode). A ready thread stopped
// in a private call (after a restore, say) runs without a choice, lowest
// index first (nextReady). A Run choice is offered only when two or more
// threads of a node are ready and none of them is stopped in a private
// call (Ready).
//
// # Why it is sound, and for which programs
//
// Not preempting thread A at a private call p merges A's two steps around
// it, u0 (A's code up to p) and p;u1 (p served, then A's code up to its
// next intercepted call), into one atomic step u0;p;u1. Serving p is a
// both-mover in Lipton's and CHESS's terms: it reads and writes only A's
// own state or what nothing changes during a run, and never parks, so it
// commutes with every step of every other thread and node and with every
// action of the environment (deliveries, client requests, timers,
// faults). By Lipton's reduction theorem the merged step reaches the same
// states at quiescent points as the two steps when, in addition, u0 is a
// right mover or u1 a left mover: when none of A's memory accesses (or
// passed-through calls) in u0, or none in u1, conflicts with an access of
// another thread that could run in between unless a chain of visible
// calls (a futex wait and wake, a pipe write and read, a join) orders the
// two. That holds for every program that is data-race-free with the
// intercepted calls as its only synchronisation, and for those the
// reduction is complete (invariants included, given the proviso below).
//
// It does not hold for synchronisation weft cannot see: a pthread or Go
// mutex's uncontended path is one atomic instruction, the Go runtime's
// scheduler and allocator are lock-free, a spinlock spins on memory. For
// such programs the reduction is a stated bound: the interleavings in
// which another thread runs between a thread's code before and after a
// private call are not explored (a thread's code around gettid, getpid,
// sigaltstack... is atomic, as its code between any two intercepted calls
// already is in weft). A new thread's start is where this matters most
// (it often takes a lock at once), so a held thread stays a choice: with
// starts private, the bank's fixed variant (targets/bank) never had its
// west teller's transfer complete first (TestThreadsVisibleSound).
//
// Invariants are judged at quiescent points, and the merge removes the
// points where A is stopped at p: an invariant that reads memory A writes
// in u0 while another thread changes it before u1 can be seen violated
// only there (the visibility proviso of partial-order reduction).
//
// The check says which schedule it used (CheckResult.Threads, the
// verdict's bound).

// threadClass says whether an intercepted call with number nr and
// arguments args is private (true) to the calling thread, whose virtual
// thread id is vtid, or visible (false), and why.
func threadClass(nr int, args [6]uint64, vtid int64) (bool, string) {
	e, ok := syscallTable[nr]
	if !ok {
		return false, "not a syscall weft knows: visible (unknown ⇒ visible)"
	}
	switch e.decision {
	case passthrough:
		return false, "never intercepted: it runs inside the thread's step; were it ever pending, visible"
	case refuse:
		return false, "refused: visible (the refusal is logged, and a refusal may end the run)"
	case unsupported:
		return false, "not modelled: it ends the run"
	}
	why, ok := privateCalls[e.name]
	if !ok {
		return false, "served: visible (it reads or changes state another thread, node or the environment can observe, or its order between threads matters)"
	}
	if e.name == "sched_getaffinity" && args[0] != 0 && int64(args[0]) != vtid {
		return false, "sched_getaffinity of another thread: whether it still lives is another thread's state"
	}
	return true, why
}

// privateCalls are the served calls a thread's step may start with
// without a thread choice, with why each is private: it reads only the
// caller's own state or what no one changes during a run, writes only the
// caller's state and memory, and never parks.
var privateCalls = map[string]string{
	"gettid":            "the caller's virtual thread id, fixed at its creation",
	"getpid":            "the caller's process's virtual pid, fixed at its creation",
	"set_tid_address":   "the caller's own clear-tid word; returns its virtual tid",
	"sigaltstack":       "the caller's own alternate signal stack",
	"uname":             "a fixed virtual machine (sethostname and setdomainname are refused)",
	"getcpu":            "always CPU 0, NUMA node 0",
	"getrusage":         "every usage reads zero",
	"rseq":              "always refused with ENOSYS, nothing registered",
	"sched_getaffinity": "a fixed set of virtual CPUs (the caller's own; another thread's is visible)",
}

// private reports whether c, a pending call, is private to its thread
// (threadClass).
func (c *call) private() bool {
	p, _ := threadClass(int(c.req.Data.Nr), c.req.Data.Args, c.t.vtid())
	return p
}

// privateStep reports whether ready task t's next step is private: it is
// stopped in a private call. A held thread (at its start, its clone's
// return or a new process's start) is not: its step is its own code only,
// but that code races with the other threads' (a new thread that takes an
// uncontended mutex by an atomic instruction, which weft never sees,
// decides which thread gets it first), so where it starts is a choice.
func (t *task) privateStep() bool {
	return !t.held && t.call != nil && t.call.private()
}
