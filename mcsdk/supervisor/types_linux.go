//go:build linux

package supervisor

import "golang.org/x/sys/unix"

type unixWaitStatus = unix.WaitStatus
type uintptrErrno = unix.Errno
