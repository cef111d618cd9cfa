package supervisor

// The part of the supervisor's API that every platform has: what a world
// is configured with and what it reports. Running worlds needs Linux on
// x86-64 (world_linux.go); elsewhere Start refuses (unsupported.go).

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/weft-mc/weft/mcsdk/sched"
	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// NodeSpec says how to start one node.
type NodeSpec struct {
	Path string   // executable
	Args []string // argv[1:]
	Env  []string // the complete environment
	Dir  string   // working directory ("" = the supervisor's)
	// AfterPorts and StartDelay defer the node's start: it starts once
	// every port of AfterPorts has a listener, StartDelay virtual ns later
	// (start_linux.go). Until then it is neither alive nor crashed.
	AfterPorts []uint16
	StartDelay int64
	// Files are written into the node's run directory (Config.DataDirs)
	// before it first starts, as durable content.
	Files []NodeFile
	// User, if set, is the user the node runs as (sys_user.go); nil: as
	// weft runs.
	User *User
}

// User is a host user a node runs as: its name (for messages) and ids.
type User struct {
	Name     string
	UID, GID uint32
	Groups   []uint32
}

// NodeFile is a file a node finds in its run directory when it starts:
// Name relative to the directory, its bytes and permissions.
type NodeFile struct {
	Name string
	Data []byte
	Mode os.FileMode
}

// ClientRequest is one request the environment's client may send: it
// connects to the node's port (BasePort+Node, or Port if set) and sends
// Data.
type ClientRequest struct {
	Node int
	Data []byte
	Port uint16
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
	// Watchdog bounds the wall time a node may spend in user space or in
	// a call weft does not see (its CPU time is what counts when the
	// machine is loaded: see waitEvent).
	Watchdog time.Duration
	// MaxCalls bounds the calls a node's thread may make, each answered at
	// once, without parking or exiting (0: DefaultMaxCalls). A count, not a
	// time, so that whether a run ends with the watchdog does not depend
	// on the machine's speed or load.
	MaxCalls int
	// MaxTasks bounds the live processes and threads of one node (0:
	// DefaultMaxTasks); a node that reaches it ends the run with a
	// failure naming the node and the bound.
	MaxTasks int
	// MaxFDs bounds the open descriptors of each process of a node (0:
	// DefaultMaxFDs), and MaxMemory the bytes of memory of all of a node's
	// processes (0: DefaultMaxMemory); a node that reaches one ends the
	// run with a failure naming the node and the bound
	// (nodebounds_linux.go).
	MaxFDs    int
	MaxMemory int64
	// CPUs is how many CPUs every node's virtual machine has (0:
	// DefaultCPUs): what sched_getaffinity, /proc/cpuinfo, /proc/stat and
	// /sys/devices/system/cpu report (sys_host.go).
	CPUs int
	// OutputLimit caps the bytes of node output kept per node (0 = 1 MiB).
	OutputLimit int
	// DataDirs gives every node a private working directory that survives
	// its crash and restart.
	DataDirs bool
	// ReadOnlyWorkDir, without DataDirs, refuses writes in the nodes'
	// working directories too (NodeSpec.Dir), for a directory every node
	// and every run share, such as the model's: a file one run wrote there
	// would reach the next run and the other nodes. Nodes then write
	// nowhere (but /dev/null).
	ReadOnlyWorkDir bool
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
	// Survey counts every notified syscall per node and how weft answered
	// it (World.Syscalls).
	Survey bool
	// NotifyAll makes the filter notify weft of the passthrough calls too,
	// which weft then lets the kernel run, so that the survey is complete
	// (slower: every call is a round trip). It implies Survey, and NoVDSO.
	NotifyAll bool
	// Queries are the state queries sent after every transition
	// (World.QueryReplies).
	Queries []StateQuery
	// Clocks, if set, is each node's clock fault (offset, drift, jumps;
	// see sched.Clock); missing entries are perfect clocks.
	Clocks []NodeClock
	// NativeTSC leaves rdtsc and rdtscp native (they read the host's
	// counter, so a target that uses them is not deterministic) and does
	// not keep single-threaded nodes seized with ptrace; for comparison in
	// benchmarks. By default weft emulates them from the virtual clock.
	NativeTSC bool
	// TrapTSC traps every rdtsc and rdtscp with PR_SET_TSC from a node's
	// start, instead of patching each in its code into a trap of weft's
	// own (the default, tscpatch_linux.go), which spares the cost of
	// PR_SET_TSC on every context switch. Both give the same values.
	// (weft's CLI sets it for WEFT_TSC=trap in its environment.)
	TrapTSC bool
	// NoVDSO hides the vDSO from every node, so that every clock read is
	// an intercepted syscall, instead of installing weft's, which answers
	// a task's clock reads without a stop while no other task of its node
	// is ready (vdso_linux.go);
	// for comparison in benchmarks and tests (weft's CLI sets it for
	// WEFT_NO_VDSO=1 in its environment).
	NoVDSO bool
	// NoTemplates starts every node afresh (launcher, filter, exec)
	// instead of as a fork of a template process of its kind stopped
	// before its first instruction (template_linux.go), which gives the
	// same node for less; for comparison in benchmarks and tests (weft's
	// CLI sets it for WEFT_TEMPLATES=0 in its environment).
	NoTemplates bool
	// GoLauncher starts nodes with the Go launcher (this binary
	// re-executed) instead of the native one (native_linux.go), which
	// needs a C compiler once; weft's CLI sets it for WEFT_GO_LAUNCHER=1.
	// The Go launcher traps the TSC (no patching).
	GoLauncher bool
	// Toolchain is how weft builds its own helpers (the native launcher,
	// its vDSO, the TSC probe) and where it caches them; zero: defaults.
	Toolchain Toolchain
	// Trace, if set, receives the scheduling trace (trace_linux.go): every
	// action, notification, stop and signal that decides which tasks the
	// scheduler may choose from, in virtual names, to compare two runs
	// of one seed.
	Trace io.Writer
	// Threads is how a node's threads are scheduled: ThreadsExplore (the
	// default) makes every preemption point with two or more ready
	// threads a Run choice; ThreadsFixed runs them round-robin at
	// syscalls, one fixed schedule per node, so that the only choices are
	// the world's (deliveries, timers, faults): a bound a check states;
	// ThreadsVisible switches threads only at visible calls (reduce.go).
	Threads ThreadSchedule
}

// ThreadSchedule is how the threads of a node are scheduled.
type ThreadSchedule string

// Thread schedules.
const (
	ThreadsExplore ThreadSchedule = "" // every interleaving at syscalls is a choice
	// ThreadsFixed: round-robin at syscalls, the next ready thread after
	// the one that ran last (by index); no Run choices.
	ThreadsFixed ThreadSchedule = "fixed"
	// ThreadsVisible: a thread whose next step starts with a private call
	// (or is its start) runs without a choice; Run choices only among
	// threads stopped in visible calls (reduce.go has the classification
	// and the argument).
	ThreadsVisible ThreadSchedule = "visible"
)

// StateQuery is a request the environment sends to a node on a fresh
// connection to its port after every transition, to read its state
// through its own protocol.
type StateQuery struct {
	Node int
	Data []byte
}

// QueryReply is what a node sent back to a state query, or why there is
// nothing (Err: the connection was refused).
type QueryReply struct {
	Data []byte
	Err  string
}

// NodeClock is one node's clock fault.
type NodeClock = sched.Clock

// Epoch is the virtual wall clock at the start of every run, in ns since
// the Unix epoch: 2026-01-01T00:00:00Z. Monotonic clocks read the time
// since the run began.
const Epoch = vkernel.Epoch

// Reply is one line the environment's client received from a node, or a
// refused connection.
type Reply struct {
	Node int
	Req  int // the client request whose connection carried it (-1: none)
	Line string
	Err  string
	Step int
}

// Received is one piece of what the environment's client received on a
// connection, in arrival order: bytes a node sent, or (Closed) the node's
// end of the connection closing. Conn tells the connections apart (two
// death notices have the same Req, -1); the byte stream of a connection is
// the concatenation of its pieces.
type Received struct {
	Conn   int
	Node   int
	Req    int // the client request whose connection it is (-1: none)
	Data   []byte
	Closed bool
	Step   int
}

// TimerInfo is a parked call's pending timeout.
type TimerInfo struct {
	Node     int
	Task     int   // the thread (0 the main one)
	Deadline int64 // virtual ns since the Unix epoch (see Epoch)
}

// Failure is why a run ended with verdict error: an unsupported syscall, a
// watchdog expiry, or a supervisor fault. It names the node and syscall.
type Failure struct {
	Node    int
	Syscall string
	Msg     string
}

func (f *Failure) Error() string {
	if f.Syscall != "" {
		return fmt.Sprintf("node %d: unsupported or failed syscall %s: %s", f.Node, f.Syscall, f.Msg)
	}
	return fmt.Sprintf("node %d: %s", f.Node, f.Msg)
}

// NodeStatus describes one node at a quiescent point.
type NodeStatus struct {
	Alive    bool
	Exited   bool
	Killed   bool   // killed by the scheduler (a crash action)
	ExitCode int    // when exited normally
	Signal   string // when killed by a signal it did not get from weft
	Syscall  string // the call it is parked in
}

// HashMode selects what Hash covers.
type HashMode int

// Hash modes.
const (
	// HashMemory hashes every node's writable memory: sound, since two
	// states merge only if nothing a node can later observe differs.
	HashMemory HashMode = iota
	// HashGlobals hashes only the declared globals the caller passes: a
	// coarser abstraction that may merge states a node can tell apart.
	HashGlobals
)

// Toolchain is the C compiler weft builds with and the directory it keeps
// what it builds in. weft's CLI decodes it from $CC and $WEFT_CACHE; the
// zero Toolchain is the defaults (cc, CacheDir()).
type Toolchain struct {
	CacheDir string // "": CacheDir()
	CC       string // "": cc
}

// Cache is t's cache directory: t.CacheDir, else CacheDir().
func (t Toolchain) Cache() string {
	if t.CacheDir != "" {
		return t.CacheDir
	}
	return CacheDir()
}

// Compiler is t's C compiler: t.CC, else cc.
func (t Toolchain) Compiler() string {
	if t.CC != "" {
		return t.CC
	}
	return "cc"
}

// CacheDir is where weft keeps built executables by default:
// $XDG_CACHE_HOME/weft, else ~/.cache/weft (Toolchain.CacheDir, which
// weft's CLI sets from $WEFT_CACHE, overrides it).
func CacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "weft")
	}
	return filepath.Join(os.TempDir(), "weft-cache")
}

// SignalTimerName names the signal timer of a timer event whose Task is
// negative (vkernel.ProcTimerTask): -1 is the main process's ITIMER_REAL
// timer (alarm, setitimer), -2-k its POSIX timer with id k
// (timer_create); another process's are named with its place in its
// node's process table (fork order: the main process is 0).
func SignalTimerName(task int) string {
	place, own, _ := vkernel.SplitTimerTask(task)
	name := "ITIMER_REAL (SIGALRM) timer"
	if own != vkernel.RealTimerTask {
		name = fmt.Sprintf("POSIX timer %d", -2-own)
	}
	if place > 0 {
		name += fmt.Sprintf(" of process #%d (fork order)", place)
	}
	return name
}
