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
// The syscall table (table.go) is data: every intercepted syscall has an
// explicit decision — serve, pass through, or unsupported — and one handler
// per family lives in sys_*.go.
package supervisor
