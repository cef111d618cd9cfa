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
// program's host directory (closed at the exec) and has the thread issue
// its exec again with the path argument pointing at a name the host
// kernel resolves to the same file through it, "/proc/self/fd/N/<name>"
// (padded with slashes to at least the path's length), which weft writes
// below the thread's stack pointer and red zone, memory the thread does
// not use (execReissue). The path the node named stays as it was in its
// memory, whatever follows it there: an argument that is that very
// string (argv[0], as execv callers pass it) reaches the new image
// unchanged, and a vfork parent sharing the memory finds its string
// intact; the descriptor's number may have any length. After the exec,
// AT_EXECFN's copy of weft's name is overwritten with the view's path
// (showExecPath), so the new image sees what an exec by the view's path
// shows; if the exec fails, the thread's path register still points at
// weft's copy (the calling conventions weft meets, C's and Go's, treat it
// as clobbered by the call), and the descriptor, which the node never
// opened, is closed at the thread's next call (closeExecDir), before that
// call is served: the node's descriptors are those it had before the
// exec. Only an ELF program: a "#!" script's interpreter would be given
// the descriptor's name, which the exec closes; anything else is refused,
// as before.
func (c *call) execForeign(a fsArg, r vkernel.Result, next handler) result {
	if a.path < 0 || r.Type != vkernel.TypeRegular || !isELF(r.HostPath) {
		return c.refuseForeign(r)
	}
	orig, err := c.readPath(c.arg(a.path))
	if err != nil || orig == "" {
		return c.refuseForeign(r)
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
	name := hostExecName(fd, filepath.Base(r.HostPath), len(orig))
	if err := c.execReissue(a.path, name); err != nil {
		return failf("exec of %s: issuing it again by the host's name for it: %v", r.Path, err)
	}
	c.execShown, c.execDirFD = orig, fd
	return next(c)
}

// hostExecName is a name by which the host kernel reaches the file base
// in the directory open at descriptor fd of the caller,
// "/proc/self/fd/<fd>/<base>", padded with leading slashes to at least
// size bytes, so that a path of size bytes fits where the kernel copies
// it (AT_EXECFN). (Not "/dev/fd/...": under the filter, an exec through
// that link fails EACCES.)
func hostExecName(fd int, base string, size int) string {
	name := fmt.Sprintf("/proc/self/fd/%d/%s", fd, base)
	return strings.Repeat("/", max(0, size-len(name))) + name
}

// execReissue takes the calling thread out of its exec's notification
// (holdOutOfCall), writes name below its stack pointer and red zone, and
// has it issue the same call again with argument arg (its path) pointing
// there; the call's notification becomes the new one's. The thread's
// other registers are as it issued the call.
func (c *call) execReissue(arg int, name string) error {
	t := c.t
	sysIP := c.req.Data.InstructionPointer - 2
	old := c.req.Data
	return onLauncher(c.n.tracer, func() error {
		regs, err := c.holdOutOfCall(t)
		if err != nil {
			return err
		}
		at := (regs.Rsp - 128 - uint64(len(name)) - 1) &^ 15
		if err := forceWrite(t.tid, uintptr(at), append([]byte(name), 0)); err != nil {
			return fmt.Errorf("writing the name below the stack pointer %#x: %v", regs.Rsp, err)
		}
		regs.Rax = uint64(old.Nr)
		*[6]*uint64{&regs.Rdi, &regs.Rsi, &regs.Rdx, &regs.R10, &regs.R8, &regs.R9}[arg] = at
		if err := reissue(t.tid, regs, sysIP); err != nil {
			return err
		}
		nf, err := awaitNotif(t.tid, c.n.listener)
		if err != nil {
			return err
		}
		want := old.Args
		want[arg] = at
		if nf.Data.Nr != old.Nr || nf.Data.Args != want || nf.Data.InstructionPointer != old.InstructionPointer {
			return fmt.Errorf("the exec came back as syscall %d at %#x", nf.Data.Nr, nf.Data.InstructionPointer)
		}
		c.req = nf
		return nil
	})
}

// showExecPath writes the exec's path as the node named it, with its
// end, over the name weft had the kernel resolve (execForeign, never
// shorter), where the new image's AT_EXECFN is, at execfnAt.
func (c *call) showExecPath(tid int, execfnAt uintptr) error {
	if c.execShown == "" {
		return nil
	}
	if execfnAt == 0 {
		return fmt.Errorf("exec of %s: no AT_EXECFN", c.execShown)
	}
	if _, err := writeMem(tid, execfnAt, append([]byte(c.execShown), 0)); err != nil {
		return fmt.Errorf("exec of %s: writing AT_EXECFN: %v", c.execShown, err)
	}
	return nil
}

// failedForeignExec has the descriptor a failed exec by execForeign gave
// the node closed at the thread's next call (closeExecDir).
func (c *call) failedForeignExec() {
	if c.execShown != "" {
		c.t.execDirFD = c.execDirFD + 1
	}
}

// closeExecDir closes the descriptor a failed foreign exec left the
// caller's process (failedForeignExec), at the caller's first call after
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
		mask, err := blockSignals(t.tid)
		if err != nil {
			return err
		}
		if _, err := injectOne(t.tid, n.listener, saved, sysIP, injected{nr: unix.SYS_CLOSE, args: [6]uint64{fd}}); err != nil {
			return fmt.Errorf("injected close: %v", err)
		}
		if err := setSignalMask(t.tid, mask); err != nil {
			return err
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
