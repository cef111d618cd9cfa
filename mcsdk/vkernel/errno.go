package vkernel

import "strconv"

// Errno is a Linux error number (x86-64 and every other Linux
// architecture share these), which the supervisor returns as it is.
type Errno int

// The error numbers path resolution answers (errno(3)).
const (
	EPERM        Errno = 1
	ENOENT       Errno = 2
	EBADF        Errno = 9
	EACCES       Errno = 13
	EEXIST       Errno = 17
	EXDEV        Errno = 18
	ENOTDIR      Errno = 20
	EISDIR       Errno = 21
	EINVAL       Errno = 22
	EROFS        Errno = 30
	ENAMETOOLONG Errno = 36
	ELOOP        Errno = 40
)

var errnoNames = map[Errno]string{
	EPERM: "EPERM", ENOENT: "ENOENT", EBADF: "EBADF", EACCES: "EACCES", EEXIST: "EEXIST", EXDEV: "EXDEV",
	ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", EROFS: "EROFS", ENAMETOOLONG: "ENAMETOOLONG", ELOOP: "ELOOP",
}

func (e Errno) Error() string {
	if s, ok := errnoNames[e]; ok {
		return s
	}
	return "errno " + strconv.Itoa(int(e))
}
