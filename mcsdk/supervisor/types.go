//go:build linux

package supervisor

import (
	"bytes"
	"fmt"
	"github.com/weft-mc/weft/mcsdk/sched"
	"time"

	"github.com/weft-mc/weft/mcsdk/netsim"
)

// NodeSpec says how to start one node.
type NodeSpec struct {
	Path string   // executable
	Args []string // argv[1:]
	Env  []string // the complete environment
	Dir  string   // working directory ("" = the supervisor's)
}

// ClientRequest is one request the environment's client may send: it
// connects to the node's port and sends Data.
type ClientRequest struct {
	Node int
	Data []byte
}

// Config describes one world.
type Config struct {
	Nodes    []NodeSpec
	BasePort int // node i listens on BasePort+i
	Client   []ClientRequest
	// Bag makes every in-flight message deliverable, not only each
	// channel's head (FIFO, the TCP default).
	Bag bool
	// Seed feeds every random byte a node sees (AT_RANDOM, getrandom,
	// /dev/urandom).
	Seed uint64
	// Watchdog bounds the wall time a node may run without parking.
	Watchdog time.Duration
	// OutputLimit caps the bytes of node output kept per node (0 = 1 MiB).
	OutputLimit int
	// DataDirs gives every node a private working directory that survives
	// its crash and restart.
	DataDirs bool
	// LoseUnsynced makes a crash lose file data the node had not fsync'd:
	// each file in its data directory reverts to its content at its last
	// fsync (empty if never). Names (creates, renames) are durable.
	LoseUnsynced bool
	// Notice is the line the environment sends each live node, over a
	// fresh connection, when a node crashes (a failure detector's death
	// notice); "{node}" becomes the crashed node's index. Empty: none.
	Notice string
	// OnOutput, if set, receives node output as it is written, in order.
	OnOutput func(node int, data []byte)
}

// World is one run of the system under test: its node processes, the
// virtual network between them, the virtual clock and the environment.
// A World is used from one goroutine.
type World struct {
	cfg        Config
	nodes      []*node
	net        *netsim.Network
	rand       *randStream
	now        int64 // virtual time, ns since the Unix epoch
	steps      int
	allStarted bool
	failure    *Failure
	clientSent []bool
	envBuf     map[int][]byte
	envNode    map[int]int
	replies    []Reply
	dataRoot   string
	synced     map[uint64][]byte      // inode → content at its last fsync
	runDirs    []string               // per node: the canonical directory it may write in ("" none)
	refused    []int                  // per node: writes refused outside its run directory
	fileClocks map[fileKey]*fileClock // virtual times of files in run directories
}

// Epoch is the virtual wall clock at the start of every run, in ns since
// the Unix epoch: 2026-01-01T00:00:00Z. Monotonic clocks read the time
// since the run began.
const Epoch = int64(1767225600) * int64(time.Second)

// Reply is one line the environment's client received from a node, or a
// refused connection.
type Reply struct {
	Node int
	Line string
	Err  string
	Step int
}

// node is one node process.
type node struct {
	id       int
	pid      int
	pidfd    int
	listener int
	exited   bool
	killed   bool
	status   unixWaitStatus
	parked   *call
	fds      map[int]*vfd
	base     uintptr
	opts     map[optKey][]byte
	ran      bool
	restarts int
	started  int64 // virtual time of its launch
	output   bytes.Buffer
}

// vfd is a target descriptor weft serves: a virtual socket. ours is the
// supervisor's copy of the injected file description (a socketpair end),
// which shares O_NONBLOCK with the target's descriptor.
type vfd struct {
	sock   *netsim.Socket // nil for a random device or a timer
	random bool           // /dev/urandom or /dev/random
	timer  *vtimer        // a timerfd
	ours   int
}

// vtimer is a timerfd's state in virtual time.
type vtimer struct {
	clock    uint64
	deadline int64 // world time (ns since the Unix epoch) of the next expiry; 0 disarmed
	interval int64 // ns; 0 one-shot
	expired  uint64
}

// call is one intercepted syscall, possibly parked.
type call struct {
	w        *World
	n        *node
	req      notif
	deadline int64 // virtual time at which a parked call times out; -1 none
	timedOut bool
	started  bool // the handler has initialised deadline
	// reads caches what the handler read from the node's memory: a parked
	// call is retried after every action, and the node, single-threaded
	// and stopped in this call, cannot change its memory meanwhile. A
	// write by the handler clears it.
	reads []memRead
}

// memRead is one cached read of node memory.
type memRead struct {
	addr uint64
	b    []byte
}

func (c *call) arg(i int) uint64 { return c.req.Data.Args[i] }

// resultKind says how a handler answered.
type resultKind int

const (
	rReturn   resultKind = iota // answer with val or errno
	rContinue                   // let the kernel perform the call
	rPark                       // nothing to return yet: defer the answer
	rDone                       // the handler answered itself (ADDFD)
	rFail                       // end the run with verdict error
)

type result struct {
	kind  resultKind
	val   int64
	errno uintptrErrno
	msg   string
}

// handler serves one syscall.
type handler func(c *call) result

func ret(v int64) result { return result{kind: rReturn, val: v} }
func errno(e uintptrErrno) result {
	return result{kind: rReturn, errno: e}
}
func cont() result { return result{kind: rContinue} }
func park() result { return result{kind: rPark} }
func done() result { return result{kind: rDone} }
func failf(format string, a ...any) result {
	return result{kind: rFail, msg: fmt.Sprintf(format, a...)}
}

// ActionKind is the kind of a scheduler choice; the vocabulary belongs to
// the scheduler (package sched).
type ActionKind = sched.Kind

// Action kinds.
const (
	Deliver   = sched.Deliver
	Client    = sched.Client
	Timer     = sched.Timer
	Crash     = sched.Crash
	Restart   = sched.Restart
	Notice    = sched.Notice
	Partition = sched.Partition
	Heal      = sched.Heal
)

// Action is one choice of the scheduler at a quiescent point.
type Action = sched.Action

// ParseAction parses the text form written by Action.String.
func ParseAction(s string) (Action, error) { return sched.ParseAction(s) }
