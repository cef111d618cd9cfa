// Package vkernel is weft's virtual kernel: the kernel objects weft models
// for a node, as plain Go. It imports no syscall, golang.org/x/sys/unix or
// os (TestImportsNoHost checks), so its tests run without seccomp, ptrace
// or root; whatever it needs of the host it reads through a small
// interface the supervisor implements (HostFS), and tests use a fake.
//
// It begins with the node's view of the file system (View): a composed
// namespace of the node's run directory (writable), the system's
// read-only directories, virtual /proc and /sys (served by the /proc
// table), /dev as an allow-list, and virtual host-identity files. View.Resolve walks a path in that view component by component
// with Linux's semantics (path_resolution(7)): symlinks followed inside
// the view (at most MaxSymlinks), PATH_MAX and NAME_MAX, ".." clamped at
// the view's root, magic links of /proc refused. Its answer is a host
// location to open beneath the root (already canonical: no symlink left
// in it), a virtual file, or an errno; never "let the host kernel decide".
//
// Beside the view: virtual ids (IDs: pids, tids, process groups), the
// processes' virtual process groups and sessions (ProcTable, sessions.go),
// virtual resource limits (Limits), virtual inode and device numbers
// (Inodes), and each node's SysV IPC namespace (IPC: semaphore sets,
// message queues, shared memory segments' identities and counts),
// and the world's leases and dnotify masks (Leases: granted by Linux's
// rules within the world, never held on the host).
//
// /proc and /sys (procfs.go): the table of every file a node may open
// there (ProcFiles: absent, virtual, random or native, and what each
// holds), its lookup, the mapping of every spelling of the caller's own
// process directory to /proc/self (OwnProcPath), and each virtual file's
// content as a pure function of a ProcSnapshot the supervisor fills
// (sys_procfs.go: it reads the host's files of the caller's own process
// for the rows whose Needs name them, and opens native rows). The
// machine's constants (machine.go) are shared with uname and sysinfo.
//
// In-node file objects and futexes (issue 36 §1): an eventfd's counter
// (Eventfd), a pipe's buffer (Pipe), a timerfd's count of expirations
// and TFD_TIMER_CANCEL_ON_SET (Timerfd), a node's futex wait queues
// with FUTEX_WAKE_OP's arithmetic (Futexes, FutexOp), and an epoll
// instance (Epoll): its interest list keyed by (file, fd number),
// EPOLL_CTL's errno rules, the level, edge and one-shot rules and the
// ready order. Each answers with a value, an Errno, or ErrBlock when a
// blocking caller must wait (the supervisor parks the call and retries
// it when the world changes), and writes its state for the world hash
// (Hash: the same words, in the same order, as the supervisor wrote
// before the move). The supervisor (sys_eventfd.go, sys_pipe.go,
// sys_timerfd.go, sys_futex.go, sys_epoll.go) keeps the edge: it
// decodes arguments, moves bytes to and from the node's memory, makes
// the placeholder descriptors, parks calls, raises SIGPIPE, arms a
// timerfd's timer on the node's clock (NodeTimer), and tells an epoll instance
// what each watched file reports now (EpollProbe: its poll mask and
// wake key), a kernel descriptor's by a host poll of weft's duplicate,
// and whether the host's epoll accepts one (EPERM). A signalfd's mask
// (SIGKILL and SIGSTOP dropped), its poll mask and whether a read may run
// are Signalfd's, from the pending set the supervisor reads in /proc; the
// signals stay pending in the host kernel and a read the supervisor lets
// run dequeues them there, so which signals a read takes, in what order,
// and the siginfo records are still the kernel's (sys_signalfd.go).
//
// Clocks and signal timers (clock.go, timers.go): what each clock id
// reads on a node under its clock fault (ClockNow), where a node's
// relative or absolute deadline falls in world time (After, Until,
// WorldAt), an armed timer counted in node time (NodeTimer: timerfds,
// ITIMER_REAL and the POSIX timers share it), and each process's signal
// timers (SigTimers: alarm, setitimer/getitimer, timer_create and the
// rest, overrun counting, exec's deletion; kept in its record of the
// process table, none at fork, gone at its end; the timer events' task
// numbers, which name the process).
// The supervisor (sys_itimer.go, sys_time.go, clock.go) decodes the
// calls, moves the bytes, and turns the timer events into the
// scheduler's actions and the fired timer into a raised signal.
//
// Descriptor tables (fdtable.go): a process's table of numbers naming
// open file descriptions (FDTable, generic over the description's
// handle), with Linux's rules for dup, dup2, dup3, F_DUPFD, close,
// close_range, FD_CLOEXEC, fork's copy and exec's closing, and
// RLIMIT_NOFILE. The supervisor keeps one per process for the
// descriptors it serves and does the host's part (ADDFD, its own
// duplicate of each description, closing it); where the host kernel
// chose a number, the table records that choice.
//
// AF_UNIX sockets (unix.go): a node's namespace of bound names
// (UnixNames: abstract names, automatic names, and path names by the key
// the supervisor makes of the socket file it created), and each socket
// (UnixSocket): listen backlog, connect and accept, the stream's bytes or
// the messages with their boundaries, each carrying its descriptors in
// flight and its credentials as opaque values, shutdown, close, the poll
// mask and the EOF, EPIPE, ECONNRESET, ECONNREFUSED and EAGAIN decisions.
// The supervisor (sys_unix*.go) resolves path names in the node's view
// and creates their files, moves bytes and addresses to and from the
// node's memory, captures and installs descriptors (SCM_RIGHTS), states
// and encodes credentials with virtual pids, raises SIGPIPE, and reads
// SO_PASSCRED and the timeouts from its placeholder socket.
//
// Inet sockets (inet.go, sockopt.go): the rules of socket calls that do
// not depend on the virtual network's state (socket(2)'s TCP or UDP,
// accept4's flags, accept's EINVAL/EAGAIN/wait, connect's EINPROGRESS and
// SO_SNDTIMEO, a stream send's partial count, EAGAIN or wait, MSG_WAITALL,
// shutdown's how, getpeername's ENOTCONN), the poll mask, and the socket
// options (which are served, their values, defaults and ranges, and every
// errno of setsockopt and getsockopt). The virtual network
// (mcsdk/netsim) keeps each socket's binding, ports, connection state,
// buffers, pending error and the messages in flight; the supervisor
// (sys_net.go, sys_sockopt.go, sys_mmsg.go) moves addresses, bytes and
// option values to and from the node's memory.
//
// Why an inet socket's binding and connection state stay in netsim and
// are not copied here: they change exactly when the scheduler delivers,
// drops or duplicates a message (a SYN makes a pending connection, a FIN
// ends a direction, a reset sets SO_ERROR), and netsim is the one store
// of in-flight messages that every mode's World.Apply acts on
// (ARCHITECTURE.md, "One action path"). A second copy of a connection's
// state here would be two stores to keep in step. netsim is held to this
// package's rules: it imports nothing of the host (TestImportsNoHost
// checks both packages), its tests pass as an unprivileged user
// (scripts/test.sh), and the world hash and checkpoints cover it.
//
// Signal semantics (signals.go): the kernel still keeps each thread's
// pending sets, masks and actions and runs handlers natively, and the
// supervisor reads them from /proc (ThreadSig, ParseTaskStatus takes the
// status text); what they mean is decided here: default actions and
// dispositions (signal(7)), the thread a process-directed signal goes to
// (SignalTarget), the mask a parked call waits under (EffectiveMask),
// which pending signals interrupt it (Deliverable) and what it then
// answers (Interrupt: a restart code, EINTR, or the kernel performs it;
// RestartOutcome: what SA_RESTART makes of it), the siginfo layout weft
// writes (NewSiginfo, TimerSiginfo, ChildSiginfo), sigaltstack(2)'s rules
// (AltStack.Set) and the words each writes to the world hash. The
// supervisor (sys_sigdeliver.go, sys_signal.go, sys_sigwait.go,
// sys_sigtree.go, sys_sigchld.go) reads /proc and memory and queues the
// signals.
//
// The process tree (procs.go): ProcTable records each process a node's
// fork, vfork or clone without CLONE_THREAD made, with its parent and
// exit signal, and decides what an end makes of it (a zombie, or reaped
// at once with no parent in the node or an auto-reaping one; its
// children orphaned to init outside the node), what wait4 and waitid
// answer (which child matches, ECHILD, EINVAL, parking, WNOHANG,
// WNOWAIT, __WALL and __WCLONE), the status word's CLD_* code, waitid's
// siginfo, and its words in the world hash. The supervisor (sys_fork.go,
// proctree.go, sys_sigchld.go) forks, collects ends with ptrace, learns
// from the host whether the kernel auto-reaped a child, resolves
// pidfds, writes the answers and queues weft's SIGCHLD.
//
// A node's run directory has a virtual name, RunDir(i)
// (/run/weft/n<i>), by which inode numbers of its files are made; the
// paths a node is shown are still the host's (issue 36 §5: getcwd,
// /proc/self/{cwd,exe} and argv[0] are not yet virtual).
package vkernel
