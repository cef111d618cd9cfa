//go:build linux && amd64

package supervisor

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// readMem reads len(buf) bytes at addr in process pid.
func readMem(pid int, addr uintptr, buf []byte) (int, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	local := []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}
	remote := []unix.RemoteIovec{{Base: addr, Len: len(buf)}}
	return unix.ProcessVMReadv(pid, local, remote, 0)
}

// writeMem writes buf at addr in process pid.
func writeMem(pid int, addr uintptr, buf []byte) (int, error) {
	if len(buf) == 0 {
		return 0, nil
	}
	local := []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}
	remote := []unix.RemoteIovec{{Base: addr, Len: len(buf)}}
	return unix.ProcessVMWritev(pid, local, remote, 0)
}

// pidfdSendSiginfo is pidfd_send_signal(2) with a raw siginfo.
func pidfdSendSiginfo(pidfd, sig int, info []byte) error {
	_, _, e := unix.Syscall6(unix.SYS_PIDFD_SEND_SIGNAL, uintptr(pidfd), uintptr(sig), uintptr(unsafe.Pointer(&info[0])), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// structBytes returns a copy of the bytes of *v, a kernel ABI struct from
// x/sys (whose Go layout is the kernel's).
func structBytes[T any](v *T) []byte {
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))...)
}
