//go:build linux && amd64

package supervisor

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompData mirrors struct seccomp_data (linux/seccomp.h).
type seccompData struct {
	Nr                 int32
	Arch               uint32
	InstructionPointer uint64
	Args               [6]uint64
}

// notif mirrors struct seccomp_notif (80 bytes).
type notif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

// notifResp mirrors struct seccomp_notif_resp (24 bytes).
type notifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// notifAddfd mirrors struct seccomp_notif_addfd (24 bytes).
type notifAddfd struct {
	ID         uint64
	Flags      uint32
	SrcFD      uint32
	NewFD      uint32
	NewFDFlags uint32
}

func init() {
	if unsafe.Sizeof(notif{}) != 80 || unsafe.Sizeof(notifResp{}) != 24 || unsafe.Sizeof(notifAddfd{}) != 24 {
		panic("supervisor: seccomp struct sizes do not match the kernel ABI")
	}
}

func ioctlPtr(fd int, req uintptr, p unsafe.Pointer) error {
	for {
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(p))
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

// recvNotif receives one notification from listener fd.
func recvNotif(fd int, n *notif) error {
	*n = notif{} // the kernel requires a zeroed struct
	return ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(n))
}

// sendResp answers notification id. A vanished target (ENOENT) is not an
// error for the caller: the node's death is observed through the listener.
func sendResp(fd int, r *notifResp) error {
	err := ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(r))
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	return err
}

// addFD performs SECCOMP_IOCTL_NOTIF_ADDFD as given and returns the
// target's fd number.
func addFD(fd int, a *notifAddfd) (int, error) {
	for {
		r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_ADDFD, uintptr(unsafe.Pointer(a)))
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return -1, e
		}
		return int(r), nil
	}
}

// injectFD installs a duplicate of the supervisor's srcfd into the target
// for notification id and returns the target's fd number; the caller then
// answers the notification with it.
//
// SECCOMP_ADDFD_FLAG_SEND would do both in one ioctl, but it marks the
// notification replied before waiting for the target, and that wait is
// interruptible: a signal to the supervisor's thread (the Go runtime's
// preemption signal, SIGCHLD) then makes the target's syscall return 0
// without a descriptor, and the restarted ioctl fails with EINPROGRESS
// (kernel/seccomp.c, seccomp_notify_addfd). Without SEND an interrupted
// ioctl is simply retried.
func injectFD(fd int, id uint64, srcfd int, cloexec bool) (int, error) {
	a := notifAddfd{ID: id, SrcFD: uint32(srcfd)}
	if cloexec {
		a.NewFDFlags = unix.O_CLOEXEC
	}
	return addFD(fd, &a)
}

// setSyncWakeUp asks the kernel to wake the target on the responding CPU:
// without it a round trip that crosses CPUs costs 31–42 µs instead of 4–5 µs
// (ARCHITECTURE.md, measured on this machine kind).
func setSyncWakeUp(fd int) error {
	// The flags travel by value, not through a pointer (kernel/seccomp.c,
	// seccomp_notify_ioctl).
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_SET_FLAGS, unix.SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
	if e != 0 {
		return e
	}
	return nil
}
