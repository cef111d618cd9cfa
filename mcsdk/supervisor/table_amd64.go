//go:build linux && amd64

package supervisor

import "golang.org/x/sys/unix"

// syscallTable is the syscall table for x86-64, as data: every syscall the
// filter intercepts and what weft does with it. Syscalls not listed here run
// natively (memory management, file I/O on real files, exit, signals…).
var syscallTable = map[int]entry{
	// Network (sys_net.go): every socket is virtual; none reaches the host.
	unix.SYS_SOCKET:      served("socket", sysSocket),
	unix.SYS_BIND:        served("bind", sysBind),
	unix.SYS_LISTEN:      served("listen", sysListen),
	unix.SYS_ACCEPT:      served("accept", sysAccept),
	unix.SYS_ACCEPT4:     served("accept4", sysAccept4),
	unix.SYS_CONNECT:     servedPartly("connect", sysConnect, "connections establish at once; a non-blocking connect returns 0"),
	unix.SYS_SENDTO:      served("sendto", sysSendto),
	unix.SYS_RECVFROM:    served("recvfrom", sysRecvfrom),
	unix.SYS_SENDMSG:     servedPartly("sendmsg", sysSendmsg, "ancillary data is not supported"),
	unix.SYS_RECVMSG:     servedPartly("recvmsg", sysRecvmsg, "no ancillary data is returned"),
	unix.SYS_SHUTDOWN:    served("shutdown", sysShutdown),
	unix.SYS_GETSOCKNAME: served("getsockname", sysGetsockname),
	unix.SYS_GETPEERNAME: served("getpeername", sysGetpeername),
	unix.SYS_SETSOCKOPT:  servedPartly("setsockopt", sysSetsockopt, "options that change delivery are refused"),
	unix.SYS_GETSOCKOPT:  served("getsockopt", sysGetsockopt),
	unix.SYS_SOCKETPAIR:  notModelled("socketpair", "in-node socket pairs are not modelled"),
	unix.SYS_SENDMMSG:    notModelled("sendmmsg", "batched socket calls are not modelled"),
	unix.SYS_RECVMMSG:    notModelled("recvmmsg", "batched socket calls are not modelled"),

	// Descriptors (sys_fd.go): data calls on virtual sockets are served,
	// everything else runs natively.
	unix.SYS_READ:      served("read", sysRead),
	unix.SYS_WRITE:     served("write", sysWrite),
	unix.SYS_READV:     served("readv", sysReadv),
	unix.SYS_WRITEV:    served("writev", sysWritev),
	unix.SYS_PREAD64:   served("pread64", sysPread),
	unix.SYS_PWRITE64:  served("pwrite64", sysPread),
	unix.SYS_CLOSE:     served("close", sysClose),
	unix.SYS_DUP:       served("dup", sysDup),
	unix.SYS_DUP2:      served("dup2", sysDup2),
	unix.SYS_DUP3:      served("dup3", sysDup3),
	unix.SYS_FCNTL:     served("fcntl", sysFcntl),
	unix.SYS_IOCTL:     servedPartly("ioctl", sysIoctl, "FIONREAD and FIONBIO on sockets"),
	unix.SYS_FSYNC:     servedPartly("fsync", sysFsync, "runs natively; with LoseUnsynced the file's content is remembered as durable"),
	unix.SYS_FDATASYNC: servedPartly("fdatasync", sysFsync, "runs natively; with LoseUnsynced the file's content is remembered as durable"),
	unix.SYS_SENDFILE:  notModelled("sendfile", "zero-copy transfers are not modelled"),
	unix.SYS_SPLICE:    notModelled("splice", "zero-copy transfers are not modelled"),

	// Readiness (sys_poll.go).
	unix.SYS_POLL:           served("poll", sysPoll),
	unix.SYS_PPOLL:          served("ppoll", sysPpoll),
	unix.SYS_SELECT:         served("select", sysSelect),
	unix.SYS_PSELECT6:       served("pselect6", sysPselect6),
	unix.SYS_EPOLL_CREATE:   notModelled("epoll_create", "epoll is not modelled; use poll or select"),
	unix.SYS_EPOLL_CREATE1:  notModelled("epoll_create1", "epoll is not modelled; use poll or select"),
	unix.SYS_EPOLL_CTL:      notModelled("epoll_ctl", "epoll is not modelled; use poll or select"),
	unix.SYS_EPOLL_WAIT:     notModelled("epoll_wait", "epoll is not modelled; use poll or select"),
	unix.SYS_EPOLL_PWAIT:    notModelled("epoll_pwait", "epoll is not modelled; use poll or select"),
	unix.SYS_EPOLL_PWAIT2:   notModelled("epoll_pwait2", "epoll is not modelled; use poll or select"),
	unix.SYS_IO_URING_SETUP: notModelled("io_uring_setup", "io_uring is not modelled"),
	unix.SYS_IO_URING_ENTER: notModelled("io_uring_enter", "io_uring is not modelled"),

	// Time (sys_time.go): one virtual clock, moved only by the scheduler.
	unix.SYS_CLOCK_GETTIME:   served("clock_gettime", sysClockGettime),
	unix.SYS_CLOCK_GETRES:    served("clock_getres", sysClockGetres),
	unix.SYS_GETTIMEOFDAY:    served("gettimeofday", sysGettimeofday),
	unix.SYS_TIME:            served("time", sysTime),
	unix.SYS_NANOSLEEP:       served("nanosleep", sysNanosleep),
	unix.SYS_CLOCK_NANOSLEEP: served("clock_nanosleep", sysClockNanosleep),
	unix.SYS_TIMERFD_CREATE:  served("timerfd_create", sysTimerfdCreate),
	unix.SYS_TIMERFD_SETTIME: served("timerfd_settime", sysTimerfdSettime),
	unix.SYS_TIMERFD_GETTIME: served("timerfd_gettime", sysTimerfdGettime),
	unix.SYS_ALARM:           notModelled("alarm", "signal-based timers are not modelled; use poll timeouts or timerfd"),
	unix.SYS_SETITIMER:       notModelled("setitimer", "signal-based timers are not modelled; use poll timeouts or timerfd"),
	unix.SYS_TIMER_CREATE:    notModelled("timer_create", "signal-based timers are not modelled; use poll timeouts or timerfd"),

	// Randomness (sys_random.go).
	unix.SYS_GETRANDOM: served("getrandom", sysGetrandom),
	unix.SYS_OPENAT:    servedPartly("openat", sysOpenat, "/dev/urandom and /dev/random are virtual; other paths run natively"),
	unix.SYS_OPEN:      servedPartly("open", sysOpen, "/dev/urandom and /dev/random are virtual; other paths run natively"),

	// Waiting for a signal (sys_proc.go): weft delivers none, so the node
	// parks for good.
	unix.SYS_PAUSE:         served("pause", sysPause),
	unix.SYS_RT_SIGSUSPEND: served("rt_sigsuspend", sysPause),

	// Process identity and structure (sys_proc.go).
	unix.SYS_GETPID:          served("getpid", sysGetpid),
	unix.SYS_GETTID:          served("gettid", sysGetpid),
	unix.SYS_GETPPID:         served("getppid", sysGetppid),
	unix.SYS_SET_TID_ADDRESS: servedPartly("set_tid_address", sysSetTidAddress, "single-threaded: the clear-child-tid address is not registered"),
	unix.SYS_RSEQ:            servedPartly("rseq", sysRseq, "refused with ENOSYS: the kernel would write the CPU id into node memory"),
	unix.SYS_CLONE:           notModelled("clone", "threads and child processes are not scheduled yet: targets must be single-threaded and must not fork"),
	unix.SYS_CLONE3:          notModelled("clone3", "threads and child processes are not scheduled yet: targets must be single-threaded and must not fork"),
	unix.SYS_FORK:            notModelled("fork", "child processes are not scheduled yet: targets must not fork"),
	unix.SYS_VFORK:           notModelled("vfork", "child processes are not scheduled yet: targets must not fork"),
	unix.SYS_EXECVE:          notModelled("execve", "a node may not exec another program"),
	unix.SYS_EXECVEAT:        notModelled("execveat", "a node may not exec another program"),
}
