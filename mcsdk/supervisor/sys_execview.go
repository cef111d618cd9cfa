//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// isExec reports whether nr is execve or execveat.
func isExec(nr int32) bool { return nr == unix.SYS_EXECVE || nr == unix.SYS_EXECVEAT }

// execForeign serves an exec of a program that the node's view shows at
// another path than the host's (a model's own program, at
// /run/weft/model/...): the host kernel resolves execve's path itself and
// would not find it there. weft gives the node a descriptor of the
// program's host directory (closed at the exec) and writes over the path
// in the node's memory a name of the same length that the host kernel
// resolves to the same file through it, "/proc/self/fd/N/<name>" after
// padding slashes; the node is stopped in the call, and no other thread
// of it runs until the call ends. After the exec, AT_EXECFN's copy of
// that name is overwritten with the view's path (showExecPath), so the
// new image sees what an exec by the view's path shows; if the exec
// fails, the path is written back (restoreExecPath: weft learns of the
// failure from the thread's next call, so the code the thread runs before
// that call still reads weft's name there), and the descriptor,
// which the node never opened, is closed at the thread's next call
// (closeExecDir), before that call is served: the node's descriptors are
// those it had before the exec.
// Only an ELF program whose path is absolute and long enough for the
// name: a "#!" script's interpreter would be given the descriptor's name,
// which the exec closes; anything else is refused, as before.
func (c *call) execForeign(a fsArg, r vkernel.Result, next handler) result {
	if a.path < 0 || r.Type != vkernel.TypeRegular || !isELF(r.HostPath) {
		return c.refuseForeign(r)
	}
	addr := c.arg(a.path)
	orig, err := c.readPath(addr)
	if err != nil || !strings.HasPrefix(orig, "/") {
		return c.refuseForeign(r)
	}
	if _, ok := hostExecName(lowestFreeFD(c.t.tid), filepath.Base(r.HostPath), len(orig)); !ok {
		return c.refuseForeign(r) // no room for the name: checked before the node is given a descriptor
	}
	dfd, err := unix.Open(filepath.Dir(r.HostPath), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0) // ADDFD takes no O_PATH file
	if err != nil {
		return errno(errnoOf(err))
	}
	defer unix.Close(dfd)
	fd, err := injectFD(c.n.listener, c.req.ID, dfd, true)
	if err != nil {
		return injectFailed(err)
	}
	name, ok := hostExecName(fd, filepath.Base(r.HostPath), len(orig))
	if !ok {
		return failf("exec of %s: the descriptor weft gave the node is %d, past the name's room", r.Path, fd)
	}
	if err := forceWrite(c.t.tid, uintptr(addr), []byte(name)); err != nil {
		return failf("exec of %s: writing the host's name for it: %v", r.Path, err)
	}
	c.execShown, c.execAt, c.execDirFD = orig, addr, fd
	return next(c)
}

// hostExecName is a name of exactly size bytes by which the host kernel
// reaches the file base in the directory open at descriptor fd of the
// caller: "/proc/self/fd/<fd>/<base>" after padding slashes; false if it
// does not fit. (Not the shorter "/dev/fd/...": under the filter, an exec
// through that link fails EACCES.) The view's names leave room for one
// digit: /run/weft/model/x and /proc/self/fd/N/x have one length.
func hostExecName(fd int, base string, size int) (string, bool) {
	name := fmt.Sprintf("/proc/self/fd/%d/%s", fd, base)
	if len(name) > size {
		return "", false
	}
	return strings.Repeat("/", size-len(name)) + name, true
}

// lowestFreeFD is the lowest descriptor number process pid does not use:
// the one SECCOMP_IOCTL_NOTIF_ADDFD gives it next (the process is stopped
// in a call, and so are its other threads).
func lowestFreeFD(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0
	}
	used := map[int]bool{}
	for _, e := range ents {
		var k int
		if _, err := fmt.Sscan(e.Name(), &k); err == nil {
			used[k] = true
		}
	}
	k := 0
	for used[k] {
		k++
	}
	return k
}

// showExecPath writes the exec's path as the node named it over the
// name weft had the kernel resolve (execForeign), where the new image's
// AT_EXECFN is, at execfnAt.
func (c *call) showExecPath(tid int, execfnAt uintptr) error {
	if c.execShown == "" {
		return nil
	}
	if execfnAt == 0 {
		return fmt.Errorf("exec of %s: no AT_EXECFN", c.execShown)
	}
	if _, err := writeMem(tid, execfnAt, []byte(c.execShown)); err != nil {
		return fmt.Errorf("exec of %s: writing AT_EXECFN: %v", c.execShown, err)
	}
	return nil
}

// restoreExecPath writes back the path a failed exec named (execForeign).
func (c *call) restoreExecPath() error {
	if c.execShown == "" {
		return nil
	}
	if err := forceWrite(c.t.tid, uintptr(c.execAt), []byte(c.execShown)); err != nil {
		return fmt.Errorf("exec of %s failed, and its path could not be written back: %v", c.execShown, err)
	}
	c.t.execDirFD = c.execDirFD + 1
	return nil
}

// closeExecDir closes the descriptor a failed foreign exec left the
// caller's process (restoreExecPath), at the caller's first call after
// it: weft takes the thread out of its notification (PTRACE_INTERRUPT,
// then an answer, as injectCalls does), has it run close on the
// descriptor, and points it back at its syscall instruction, so that it
// issues its call again, which the world receives under a new
// notification and serves as if nothing had happened. It reports whether
// it did so (the call c is then dropped).
func (c *call) closeExecDir() (bool, error) {
	t := c.t
	if t.execDirFD == 0 {
		return false, nil
	}
	fd := uint64(t.execDirFD - 1)
	t.execDirFD = 0
	n := c.n
	sysIP := c.req.Data.InstructionPointer - 2
	err := onLauncher(n.tracer, func() error {
		saved, err := c.holdOutOfCall(t)
		if err != nil {
			return err
		}
		if _, err := injectOne(t.tid, n.listener, saved, sysIP, injected{nr: unix.SYS_CLOSE, args: [6]uint64{fd}}); err != nil {
			return fmt.Errorf("injected close: %v", err)
		}
		saved.Rax = uint64(c.req.Data.Nr)
		return reissue(t.tid, saved, sysIP)
	})
	if err != nil {
		return true, fmt.Errorf("closing the descriptor a failed exec left (%d): %v", fd, err)
	}
	return true, nil
}

// isELF reports whether the host file at p starts with the ELF magic.
func isELF(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	k, _ := f.Read(b[:])
	return k == 4 && string(b[:]) == "\x7fELF"
}
