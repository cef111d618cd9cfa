//go:build linux && amd64

package supervisor

import (
	"bytes"
	"fmt"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/vkernel"
)

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
	envReq     map[int]int // env connection → client request + 1 (0: a death notice)
	replies    []Reply
	received   []Received // every piece of every client connection's stream, in arrival order
	dataRoot   string
	synced     map[uint64][]byte      // inode → content at its last fsync
	runDirs    []string               // per node: the canonical directory it may write in ("" none)
	refused    []int                  // per node: writes refused outside its run directory
	views      []nodeView             // per node: its file-system view (sys_view.go), made lazily
	fileClocks map[fileKey]*fileClock // virtual times of files in run directories
	inodes     *vkernel.Inodes        // virtual inode numbers (sys_inodes.go), made at first use
	leases     *vkernel.Leases        // leases and dnotify masks (sys_lease.go), made at first use
	survey     *survey                // per node and syscall, the calls seen (Config.Survey), or nil
	notes      []Note                 // refused requests, once per node, syscall and request (notes.go)
	// refusals counts each kind of refused call, refusalOrder lists the
	// kinds as they first happened (refusals_linux.go).
	refusals     map[refusalKey]int
	refusalOrder []refusalKey
	// queryReplies are the latest state query replies; queryOpen the
	// query connections open now, by environment socket (query_linux.go).
	queryReplies []QueryReply
	queryOpen    map[int]*queryRun
	queryStale   []bool     // per node: due to be asked (query_linux.go)
	stops        int        // eventfd: a seized node's thread has a stop to collect (tsc_linux.go); -1 none
	lazy         *lazyNodes // a restored world's nodes not given their processes yet (lazy_linux.go), or nil
	// hashed says the world was hashed, in hashMode last; recording, per
	// node, is what a checkpoint's hash of the live nodes fills
	// (Checkpoint.recordHash, lazy_linux.go).
	hashed    bool
	hashMode  HashMode
	recording []*procSlot
	// wakeGen counts the changes that may wake a parked call; skipped
	// counts the retries settle spared, spared those of them only the
	// calls' declared waits spared (waiters_linux.go).
	wakeGen  uint64
	skipped  int
	spared   int
	sparedBy map[string]int // spared, by the calls' syscall names
	// marks holds, for each object a parked call may wait on, the wakeGen
	// of its last change (waiters_linux.go).
	marks map[waitKey]uint64
}

// node is one node process.
type node struct {
	id       int
	pid      int
	pidfd    int
	listener int
	tmpl     *nodeTemplate // the template the node's processes are forks of, held; nil none
	exited   bool
	killed   bool
	status   unixWaitStatus
	reaped   bool             // the main thread's exit status was collected while the node's threads ended
	tasks    []*task          // its threads, by index; tasks[0] is the main thread
	cur      *task            // the thread running now, nil if none
	lastRun  int              // index of the thread resumed last (ThreadsFixed picks the next)
	memo     memMemo          // its main process's memory digest, while it cannot have changed (memhash_linux.go)
	traced   bool             // seized with ptrace (from its exec on; with NativeTSC from its first clone)
	tracer   *launcher        // the thread that forked it, which makes its ptrace requests
	futexQ   *vkernel.Futexes // virtual futex waiters by address, in arrival order; nil: none yet
	procs    []*proc          // its process tree, from its first fork on; procs[0] is the main process
	self     *proc            // the child process whose call is being served, nil otherwise (enterProc)
	fds      *fdTable
	limits   *vkernel.Limits // its virtual resource limits (sys_rlimit.go), made at first use
	memcg    *memCgroup      // its memory cgroup (nodebounds_linux.go), made at its first start
	// memUnbounded: no memory cgroup could be made for it (a refusal says so).
	memUnbounded bool
	sysv         *sysvState         // its SysV IPC namespace and segments (sys_sysv.go), made at first use
	groupsAsked  bool               // a call asked its process groups (sys_sessions.go): from then on the hash takes them
	ptab         *vkernel.ProcTable // its process table (vkernel: parents, zombies, exit statuses, process groups and sessions, the wait rules), made with procs at its first fork
	// sigScan holds the host pids of the node's processes whose signalfd
	// call ran natively: each adopts its descriptor at its own next
	// served call (sys_signalfd.go).
	sigScan  map[int]bool
	unixNs   vkernel.UnixNames // bound AF_UNIX names, abstract and by path (sys_unix.go)
	base     uintptr
	opts     vkernel.InetOptValues // its inet sockets' option values (sys_sockopt.go)
	ran      bool
	restarts int
	started  int64 // virtual time of its launch
	waiting  bool  // not started yet: it waits for NodeSpec.AfterPorts or StartDelay (start_linux.go)
	startDue int64 // while waiting: the virtual time it starts at, -1 until its ports listen
	output   bytes.Buffer
	sig      nodeSignals // signal timers and handlers weft keeps (sys_itimer.go)
	tsc      uint64      // the virtual time-stamp counter's last value (tsc_linux.go)
	vdso     uintptr     // its main process's vDSO clock readings (vdso_linux.go); 0 none
	vclock   vclock      // what that image holds (vdso_linux.go)
	trapTSC  bool        // its main process traps the TSC (PR_SET_TSC) rather than having its reads patched (tscpatch_linux.go)
}

// vfd is a target descriptor weft serves. ours is the supervisor's copy
// of the injected file description (a placeholder: an unconnected unix
// socket, or a pipe end, eventfd or socket pair end of the kind).
type vfd struct {
	// obj is the open file description's state and operations: an inet
	// socket, a random device, a timerfd, an epoll instance, a pipe end,
	// an eventfd, a unix or netlink socket, a signalfd (sys_nodefd.go).
	obj nodeFile
	// file is the description's access mode and status flags, shared by
	// every copy of the vfd (dup, fork, SCM_RIGHTS): weft's, which
	// F_GETFL, F_SETFL, FIONBIO and FIOASYNC serve (sys_fcntl.go) and
	// the world hash reads. The placeholder's O_NONBLOCK follows it.
	file *vkernel.OpenFile
	ours int
}

// call is one intercepted syscall, possibly parked.
type call struct {
	w        *World
	n        *node
	t        *task // the calling thread
	req      notif
	deadline int64 // virtual time at which a parked call times out; -1 none
	timedOut bool
	started  bool // the handler has initialised deadline
	// timeoutAt is the world time a ppoll, pselect6 or select's own
	// timeout ends when deadline is earlier (a polled timerfd's expiry):
	// what the call has left is counted to it; 0 when it is deadline.
	timeoutAt int64
	// sleepEnd is the node's CLOCK_MONOTONIC reading at which a relative
	// sleep past the clock's range (deadline -1) would end, saturated at
	// KTIME_MAX: what it has left when a signal interrupts it; 0 otherwise.
	sleepEnd int64
	// waitStart is the node's CLOCK_MONOTONIC reading when a wait whose
	// own timeout is past the clock's range (deadline -1) began: a ppoll,
	// pselect6 or select counts what it has left from it to Linux's end
	// (writeTimeLeft, vkernel.WaitLeft); 0 otherwise.
	waitStart int64
	progress  int // a blocking call done in parts: bytes moved (sockets, pipes, unix sockets), or messages (sendmmsg, recvmmsg); hashed
	// execShown is the path an exec named, in the node's view, when weft
	// had the exec issued again with a name the host kernel resolves
	// (execForeign); "" otherwise.
	execShown string
	execDirFD int // the descriptor of the program's directory execForeign gave the node
	// reads caches what the handler read from the node's memory: a parked
	// call is retried after every action, and the node, stopped in this
	// call, cannot change its memory meanwhile; a write by the handler
	// clears it, and so does any other thread of the node running.
	reads []memRead
	// intr is the answer of a parked call a signal interrupted, sent when
	// its thread next runs (sys_sigdeliver.go); nil if none.
	intr *result
	// parkedAt is World.wakeGen+1 when a retry last parked the call (or,
	// for a call that declared its waits, when it first parked), 0 before;
	// keyed says its handler declared what it waits for when it last
	// parked, waits lists those objects (waiters_linux.go).
	parkedAt uint64
	keyed    bool
	waits    []waitKey
	// watched lists the descriptors a call that waits on them saw when it
	// parked, and for an epoll wait watchedEp is the instance, epChanges
	// its change count and epEntries its entries (waiters_linux.go).
	watched   []fdWatch
	watchedEp *vepoll
	epChanges uint64
	epEntries []epEntryWatch
	// sigMask is the mask an rt_sigsuspend installs, read from the node's
	// memory once, at the call's first dispatch (maskRead), as Linux copies
	// it in once.
	sigMask  vkernel.SigSet
	maskRead bool
	// rights are the descriptors a sendmsg waiting before its first byte
	// took at its start (SCM_RIGHTS, sys_unix_rights.go): Linux takes
	// them once, before it waits, so they are in flight until the call
	// ends; nil if none.
	rights *rights
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
