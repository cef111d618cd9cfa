package sched

// World is what a scheduler sees of one running system at a quiescent
// point: every node parked in an intercepted call or gone. Implementations
// run the real processes (mcsdk over the supervisor) or are fakes (tests).
//
// A World is used by one goroutine. Enabled's result is owned by the
// caller. Apply runs the system to its next quiescent point.
type World interface {
	// Enabled lists the environment's actions possible now (deliveries,
	// timers, client requests) in a canonical order; the scheduler adds
	// the faults.
	Enabled() []Action
	// Apply performs a and runs the system to its next quiescent point.
	// An error means the action was not possible or the tool failed.
	Apply(a Action) error
	// Status reports whether node i is running and whether it was killed
	// by a Crash action.
	Status(i int) NodeStatus
	// Endpoints names the sending and receiving node of a Deliver action
	// (-1 for the environment or nobody).
	Endpoints(a Action) (from, to int)
	// Origin is the step (1-based: the n-th action applied) whose
	// execution made the enabled action a possible, e.g. the step that
	// sent a delivery's message; 0 if a was possible in the initial state
	// or the world cannot tell. The explorer's partial-order reduction
	// orders a after its origin; 0 is always safe (a later origin that is
	// wrong is not).
	Origin(a Action) int
	// Touched is what the last Apply reached beyond its action's own node.
	Touched() Touched
	// Hash is a canonical digest of everything the world's later
	// behaviour depends on, with extra (the scheduler's own state and the
	// caller's abstraction) mixed in.
	Hash(extra []byte) ([32]byte, error)
	// Failure is a problem that ends the run with verdict error (an
	// unsupported syscall, a node that never parks), or nil.
	Failure() error
	// Close ends the world and every process in it.
	Close()
}

// Touched is what one applied action reached, as the world saw it: the
// partial-order reduction's evidence that two actions commute.
type Touched struct {
	Nodes  []int // nodes that ran, or whose sockets the network changed
	Alloc  bool  // created sockets or channels or took ports: names all nodes share
	Random bool  // drew bytes from the world's one random stream
	Clock  bool  // moved the virtual clock
	Global bool  // the world cannot tell what it reached
}

// NodeStatus is a node's liveness as the scheduler needs it.
type NodeStatus struct {
	Alive  bool // running (parked)
	Killed bool // ended by a Crash action, so a Restart may follow
}

// Cut reports whether a partition separates a message's sender from its
// receiver (either may be -1, the environment, which is never cut off).
type Cut func(from, to int) bool

// Faults are the faults an exhaustive check explores beside the
// environment's actions.
type Faults struct {
	Nodes      []int // the nodes that may crash, in order
	Crashes    int   // how many crashes one path may contain
	Restart    bool  // a crashed node may restart
	Partitions []Cut // each may begin once and heal once, anywhere
}
