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
// held at its start or at its clone's return has no call left to serve:
// its step is its own code only, and counts as private.
//
// # The schedule
//
// A running thread whose next call is private is not preempted there: the
// call is served and the thread runs on (runNode). A held thread is
// resumed without a choice, lowest index first (nextReady). A Run choice
// is offered only when two or more threads of a node are ready and every
// one of them is stopped in a visible call (Ready).
//
// # Why it is sound, and for which programs
//
// In Lipton's and CHESS's terms, serving a private call is a both-mover:
// it commutes with every step of every other thread and node and with
// every action of the environment (deliveries, client requests, timers,
// faults), because it reads and writes no state they read or write, and it
// cannot be disabled by them nor disable them (it never parks). The rest
// of the step, the thread's own code up to its next intercepted call,
// touches memory and passed-through kernel state (its own mappings, file
// offsets, signal mask). It commutes with every step of another thread
// that is enabled before the thread's next intercepted call exactly when
// none of their accesses conflict, which holds for every program whose
// threads are data-race-free with the intercepted visible calls as the
// only synchronisation: two conflicting accesses of different threads
// (memory, or a passed-through call on one kernel object) are ordered by
// a chain of visible calls (a futex wake and wait, a pipe write and read,
// a join). A thread with a private step pending is then a persistent set
// of its own: every execution that runs other steps first has an
// equivalent one (the same steps, each thread's in its order, every
// conflicting pair in the same order) that runs it first, so the reduced
// search reaches the same states at its quiescent points, with fewer
// actions. Invariants need one more condition, the visibility proviso of
// partial-order reduction: no state an invariant reads is written in a
// step that starts with a private call or at a thread's start. Otherwise
// the reduced search skips states in which that step has not run yet
// while other threads have moved on, and a violation seen only there is
// missed (the state after the step is still reached).
//
// The reduction is complete for that class of programs and invariants,
// and a stated bound otherwise: code that synchronises through lock-free
// atomics or spins on memory (the Go runtime's scheduler and allocator, a
// spinlock) has its races resolved in one order only at a private call,
// as weft already does for a node's only ready thread and within every
// step. The check says
// which schedule it used (CheckResult.Threads, the verdict's bound).

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
// held (at its start or its clone's return: only its own code is left to
// run) or stopped in a private call.
func (t *task) privateStep() bool {
	if t.held {
		return true
	}
	return t.call != nil && t.call.private()
}
