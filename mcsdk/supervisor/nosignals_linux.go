//go:build linux && amd64

package supervisor

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// withoutSignals runs f on the calling goroutine's OS thread with every
// signal blocked. A host call weft makes for a node must give what the
// node's own call would: some calls stop early when the calling thread
// has a signal pending (getdents stops filling its buffer, fs/readdir.c),
// and weft's threads get signals whenever the host says: Go's runtime
// preempts goroutines with SIGURG, and every stop of a traced node sends
// weft SIGCHLD. Blocked, such a signal is not pending for the call
// (Linux's recalc_sigpending); it arrives when f returns (issue 36 §5:
// a directory listing took more calls in one run than in another).
func withoutSignals(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	all, old := ^uint64(0), uint64(0)
	// It fails only with EFAULT or EINVAL, which these arguments cannot
	// give.
	unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&all)), uintptr(unsafe.Pointer(&old)), 8, 0, 0)
	defer unix.RawSyscall6(unix.SYS_RT_SIGPROCMASK, unix.SIG_SETMASK, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	f()
}
