// Package supervisor runs the nodes of a system under test as real Linux
// processes under seccomp user-notification, and serves every syscall
// through which a node could observe nondeterminism: the network between
// nodes, time, randomness, process identity.
//
// A node is launched by re-executing the current binary in launcher mode
// (see launcher_linux.go): the launcher loads the seccomp filter on its own
// thread only, hands the listener fd to the supervisor and execs the target.
// The supervisor then runs nodes one at a time: a node runs until it parks
// in a call that has nothing to return (a deferred notification), exits, or
// is killed. Because only one node runs at any moment, a run is a pure
// function of the choices made at quiescent points.
//
// The syscall table (table.go, table_amd64.go) is data: every syscall
// number has an explicit decision — served by a handler, passed through
// (deterministic, and allowed by the filter itself), refused with an
// errno, or unsupported (verdict error) — and the filter notifies weft of
// everything it does not pass through. One handler per family lives in
// sys_*.go. Nothing of the host reaches a node: file times, the machine
// (uname, sysinfo, CPUs, /proc), process ids and signals are virtual, and
// a node writes only in its run directory.
//
// A node's threads run one at a time between intercepted calls (task.go).
// Config.Threads says where one thread may be switched for another:
// at every call (ThreadsExplore), nowhere by choice (ThreadsFixed, a
// bound), or only at visible calls (ThreadsVisible): each syscall number
// is classified private or visible (threadClass), a thread whose next
// call is private runs on without a choice, and the reduction is sound
// because a private call commutes with every other step; reduce.go states
// the argument and the class of programs it is complete for (threads that
// synchronise only through intercepted calls); for lock-free code it is a
// stated bound.
package supervisor
