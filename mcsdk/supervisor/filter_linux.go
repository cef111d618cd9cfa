//go:build linux

package supervisor

import (
	"fmt"
	"io"
	"os"
	"unsafe"

	seccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// buildFilter builds, with libseccomp, the filter every node runs under:
// allow by default, and send a user notification for every syscall the
// table names. The program is exported rather than loaded, so it can be
// loaded on one thread without TSYNC.
func buildFilter() ([]unix.SockFilter, error) {
	f, err := seccomp.NewFilter(seccomp.ActAllow)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	if err := f.SetNoNewPrivsBit(false); err != nil {
		return nil, err
	}
	for _, nr := range interceptedNumbers() {
		if err := f.AddRule(seccomp.ScmpSyscall(nr), seccomp.ActNotify); err != nil {
			return nil, fmt.Errorf("rule for %s: %w", sysName(nr), err)
		}
	}
	mfd, err := unix.MemfdCreate("weft-filter", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	file := os.NewFile(uintptr(mfd), "weft-filter")
	defer file.Close()
	if err := f.ExportBPF(file); err != nil {
		return nil, err
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(file)
	if err != nil {
		return nil, err
	}
	const insn = int(unsafe.Sizeof(unix.SockFilter{}))
	if len(raw) == 0 || len(raw)%insn != 0 {
		return nil, fmt.Errorf("exported BPF has %d bytes", len(raw))
	}
	prog := make([]unix.SockFilter, len(raw)/insn)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(raw)), raw)
	return prog, nil
}
