package vkernel

import "strconv"

// Errno is a Linux error number (x86-64 and every other Linux
// architecture share these), which the supervisor returns as it is.
type Errno int

// The error numbers path resolution, SysV IPC, sessions, eventfds,
// pipes, futexes and timerfds answer (errno(3)).
const (
	EPERM        Errno = 1
	ENOENT       Errno = 2
	ESRCH        Errno = 3
	E2BIG        Errno = 7
	EBADF        Errno = 9
	ECHILD       Errno = 10
	EAGAIN       Errno = 11
	ENOMEM       Errno = 12
	EACCES       Errno = 13
	EEXIST       Errno = 17
	EXDEV        Errno = 18
	ENOTDIR      Errno = 20
	EISDIR       Errno = 21
	EINVAL       Errno = 22
	EMFILE       Errno = 24
	ENOSPC       Errno = 28
	EROFS        Errno = 30
	EDOM         Errno = 33
	ERANGE       Errno = 34
	ENAMETOOLONG Errno = 36
	ENOMSG       Errno = 42
	EIDRM        Errno = 43
	ELOOP        Errno = 40
	EFBIG        Errno = 27
	EBUSY        Errno = 16
	EPIPE        Errno = 32
	ENOSYS       Errno = 38
	ETIMEDOUT    Errno = 110
	ECANCELED    Errno = 125
)

var errnoNames = map[Errno]string{
	EPERM: "EPERM", ENOENT: "ENOENT", ESRCH: "ESRCH", EBADF: "EBADF", ECHILD: "ECHILD", EACCES: "EACCES", EEXIST: "EEXIST", EXDEV: "EXDEV",
	ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", EMFILE: "EMFILE", EROFS: "EROFS", ENAMETOOLONG: "ENAMETOOLONG", ELOOP: "ELOOP",
	E2BIG: "E2BIG", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", ENOSPC: "ENOSPC", EDOM: "EDOM", ERANGE: "ERANGE", ENOMSG: "ENOMSG", EIDRM: "EIDRM", EFBIG: "EFBIG",
	EBUSY: "EBUSY", EPIPE: "EPIPE", ENOSYS: "ENOSYS", ETIMEDOUT: "ETIMEDOUT", ECANCELED: "ECANCELED",
}

func (e Errno) Error() string {
	if s, ok := errnoNames[e]; ok {
		return s
	}
	return "errno " + strconv.Itoa(int(e))
}
