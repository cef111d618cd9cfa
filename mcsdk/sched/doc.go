// Package sched makes every choice of a weft run: which message arrives
// next, which timer fires, when a node crashes or restarts, when a
// partition begins and heals. It owns the action vocabulary, the
// depth-first explorer of exhaustive checks (with stateless replay and a
// state cache that keeps the remaining depth per state), and the seeded
// discrete-event scheduler of campaigns. The explorer reduces equivalent
// orders with dynamic partial-order reduction (Explorer, dpor.go) and
// can explore with several workers sharing its state cache (parallel.go).
//
// The package is pure: it imports no os, time, net, syscall or the
// supervisor. It sees a running system only through the World interface;
// the supervisor executes, netsim models, sched decides. Its tests drive
// it against fake worlds with datadriven scripts (testdata/*.txt), with
// no processes.
package sched
