//go:build linux && amd64

package supervisor

import "golang.org/x/sys/unix"

// syscallArity is the number of arguments each call that can park takes
// (its prototype in the Linux man pages, section 2). The state hash covers
// only these: the kernel leaves whatever the caller's registers held in the
// unused argument slots, and hashing them would split states that no later
// behaviour can tell apart. A call missing here is hashed with all six.
var syscallArity = map[int]int{
	unix.SYS_READ:            3,
	unix.SYS_READV:           3,
	unix.SYS_PREAD64:         4,
	unix.SYS_WRITE:           3,
	unix.SYS_WRITEV:          3,
	unix.SYS_PWRITE64:        4,
	unix.SYS_RECVFROM:        6,
	unix.SYS_RECVMSG:         3,
	unix.SYS_RECVMMSG:        5,
	unix.SYS_SENDTO:          6,
	unix.SYS_SENDMSG:         3,
	unix.SYS_SENDMMSG:        4,
	unix.SYS_ACCEPT:          3,
	unix.SYS_ACCEPT4:         4,
	unix.SYS_CONNECT:         3,
	unix.SYS_POLL:            3,
	unix.SYS_PPOLL:           5,
	unix.SYS_SELECT:          5,
	unix.SYS_PSELECT6:        6,
	unix.SYS_EPOLL_WAIT:      4,
	unix.SYS_EPOLL_PWAIT:     6,
	unix.SYS_EPOLL_PWAIT2:    6,
	unix.SYS_NANOSLEEP:       2,
	unix.SYS_CLOCK_NANOSLEEP: 4,
	unix.SYS_PAUSE:           0,
	unix.SYS_RT_SIGSUSPEND:   2,
	unix.SYS_FUTEX:           6,
	unix.SYS_WAIT4:           4,
	unix.SYS_WAITID:          5,
}

// arity is the number of arguments syscall nr takes, 6 if unknown.
func arity(nr int) int {
	if n, ok := syscallArity[nr]; ok {
		return n
	}
	return 6
}
