//go:build linux && amd64

package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk"
)

// doctorChecks looks at this machine for what weft needs.
func doctorChecks() []finding {
	return []finding{kernelCheck(), seccompCheck(), ptraceCheck(), cpuidCheck(), tscCheck(), usernsCheck(), coresCheck()}
}

// kernelCheck compares the kernel release with the features weft uses:
// SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (5.19) is required,
// SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (6.6) makes notifications fast.
func kernelCheck() finding {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return finding{Check: "kernel version", Found: err.Error(), Status: statusMissing, Disables: "everything: weft cannot tell what the kernel offers"}
	}
	return kernelFinding(unix.ByteSliceToString(u.Release[:]))
}

// kernelFinding judges the kernel release rel.
func kernelFinding(rel string) finding {
	major, minor := kernelVersion(rel)
	f := finding{Check: "kernel version", Found: rel + " (want 5.19 or later; 6.6 or later for fast notifications)"}
	switch {
	case major < 5 || major == 5 && minor < 19:
		f.Status, f.Disables = statusMissing, "every run: weft needs seccomp's WAIT_KILLABLE_RECV (Linux 5.19) so that a signal does not withdraw a parked call"
	case major == 5 || major == 6 && minor < 6:
		f.Status, f.Disables = statusDegraded, "fast notifications (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6): each intercepted call costs 31–42 µs instead of 4–5 µs"
	default:
		f.Status = statusOK
	}
	return f
}

// kernelVersion reads "6.18.44-…" as (6, 18); (0, 0) when it cannot.
func kernelVersion(rel string) (major, minor int) {
	parts := strings.SplitN(rel, ".", 3)
	if len(parts) < 2 {
		return 0, 0
	}
	major, _ = strconv.Atoi(parts[0])
	digits := strings.IndexFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' })
	if digits >= 0 {
		parts[1] = parts[1][:digits]
	}
	minor, _ = strconv.Atoi(parts[1])
	return major, minor
}

// seccompCheck asks the kernel whether it offers the user-notification
// action (SECCOMP_GET_ACTION_AVAIL) and its structure sizes.
func seccompCheck() finding {
	action := uint32(unix.SECCOMP_RET_USER_NOTIF)
	var sizes [3]uint16 // struct seccomp_notif_sizes
	_, _, avail := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	var sized unix.Errno
	if avail == 0 {
		_, _, sized = unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_NOTIF_SIZES, 0, uintptr(unsafe.Pointer(&sizes)))
	}
	return seccompFinding(avail, sized, sizes)
}

// seccompFinding judges the answers of SECCOMP_GET_ACTION_AVAIL (avail)
// and SECCOMP_GET_NOTIF_SIZES (sized, and the sizes it gave).
func seccompFinding(avail, sized unix.Errno, sizes [3]uint16) finding {
	f := finding{Check: "seccomp user notification", Disables: "every run and check: weft intercepts each node's syscalls with SECCOMP_RET_USER_NOTIF"}
	switch {
	case avail != 0:
		f.Found, f.Status = "SECCOMP_RET_USER_NOTIF not available: "+avail.Error(), statusMissing
	case sized != 0:
		f.Found, f.Status = "SECCOMP_GET_NOTIF_SIZES: "+sized.Error(), statusMissing
	default:
		f.Found = fmt.Sprintf("available (notification %d bytes, response %d, data %d)", sizes[0], sizes[1], sizes[2])
		f.Status = statusOK
	}
	return f
}

// ptraceCheck reads Yama's ptrace scope: weft traces its own children
// (the launcher at exec, every node's threads), which scopes 0 and 1
// allow, 2 only with CAP_SYS_PTRACE (root), 3 never.
func ptraceCheck() finding {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	return ptraceFinding(b, err, os.Geteuid() == 0)
}

// ptraceFinding judges Yama's ptrace scope as read (b, err) by a process
// that is root or not.
func ptraceFinding(b []byte, err error, root bool) finding {
	f := finding{Check: "ptrace scope", Disables: "every run: weft traces each node at launch (vDSO, TSC) and holds its threads one at a time with ptrace"}
	if os.IsNotExist(err) {
		f.Found, f.Status = "no Yama (classic ptrace permissions: a parent may trace its children)", statusOK
		return f
	}
	if err != nil {
		f.Found, f.Status = err.Error(), statusMissing
		return f
	}
	scope := strings.TrimSpace(string(b))
	f.Found = "kernel.yama.ptrace_scope = " + scope
	switch {
	case scope == "0" || scope == "1":
		f.Status = statusOK
	case scope == "2" && root:
		f.Status = statusOK
		f.Found += " (admin only; weft runs as root)"
	default:
		f.Status = statusMissing
	}
	return f
}

// usernsCheck reads whether unprivileged users may create user
// namespaces.
func usernsCheck() finding {
	b, err := os.ReadFile("/proc/sys/user/max_user_namespaces")
	c, cerr := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone")
	return usernsFinding(b, err, c, cerr)
}

// usernsFinding judges user.max_user_namespaces as read (b, err) and
// Debian's kernel.unprivileged_userns_clone (c, cerr; absent elsewhere).
func usernsFinding(b []byte, err error, c []byte, cerr error) finding {
	f := finding{Check: "unprivileged user namespaces", Disables: "running weft without root in a user namespace of its own (not supported yet: weft runs as root); nodes never get one (CLONE_NEWUSER is refused)"}
	if err != nil {
		f.Found, f.Status = err.Error(), statusInfo
		return f
	}
	n := strings.TrimSpace(string(b))
	f.Found = "user.max_user_namespaces = " + n
	if cerr == nil {
		f.Found += ", kernel.unprivileged_userns_clone = " + strings.TrimSpace(string(c))
		if strings.TrimSpace(string(c)) == "0" {
			n = "0"
		}
	}
	f.Status = statusOK
	if n == "0" {
		f.Status = statusInfo
	}
	return f
}

// coresCheck counts the cores weft may use: campaigns run 1.5 runs per
// core by default.
func coresCheck() finding { return coresFinding(runtime.NumCPU(), mcsdk.DefaultJobs()) }

// coresFinding judges n cores on which campaigns run jobs at once.
func coresFinding(n, jobs int) finding {
	f := finding{Check: "cores", Found: fmt.Sprintf("%d (campaigns run %d at once by default)", n, jobs), Status: statusOK}
	if n < 2 {
		f.Status, f.Disables = statusDegraded, "parallel campaigns and check -j: one run at a time"
	}
	return f
}
