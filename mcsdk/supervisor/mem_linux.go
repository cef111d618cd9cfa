//go:build linux

package supervisor

import (
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
