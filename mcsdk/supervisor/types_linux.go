//go:build linux && amd64

package supervisor

import "golang.org/x/sys/unix"

type unixWaitStatus = unix.WaitStatus
type uintptrErrno = unix.Errno

// enosys is the answer for a number the table does not name.
const enosys = unix.ENOSYS
