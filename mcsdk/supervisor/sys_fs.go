//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// A node writes only inside its run directory: its data directory, else
// its working directory (NodeSpec.Dir) unless Config.ReadOnlyWorkDir. Every call that would create,
// change or remove a file elsewhere is refused with EACCES and counted
// (World.RefusedWrites); reads stay possible in the node's view
// (sys_view.go). Descriptor-based writes (write, ftruncate, fallocate…)
// need a descriptor opened for writing, which the open guard has already
// confined.
//
// Paths are resolved by weft in the node's view (vkernel), component by
// component, then the call is performed by weft on the canonical host
// path (sys_fsops.go), beneath the root (openat2, RESOLVE_NO_SYMLINKS):
// nothing of the node's path string reaches the host kernel, and a path
// that does not resolve is the errno Linux would give, never a pass.
// Nothing of the node runs between the resolution and the call: the node
// is stopped in it and every other node is stopped too.

// fsArg says where one path a syscall acts on is found in its arguments.
type fsArg struct {
	dirfd      int    // argument index of the directory fd; -1: relative to the cwd
	path       int    // argument index of the path; -1: the descriptor dirfd itself
	follow     bool   // a final symlink is followed
	flags      int    // argument index of AT_* flags; -1: none
	followFlag uint64 // with flags: the flag that turns following on (linkat's AT_SYMLINK_FOLLOW)
}

func fsPath(path int, follow bool) fsArg {
	return fsArg{dirfd: -1, path: path, follow: follow, flags: -1}
}
func fsAt(dirfd, path int, follow bool, flags int) fsArg {
	return fsArg{dirfd: dirfd, path: path, follow: follow, flags: flags}
}
func fsAtFollow(dirfd, path, flags int, flag uint64) fsArg {
	return fsArg{dirfd: dirfd, path: path, flags: flags, followFlag: flag}
}
func fsFD(fd int) fsArg { return fsArg{dirfd: fd, path: -1, follow: true, flags: -1} }

// guardFD serves a call that changes the file an open descriptor (or
// dirfd with AT_EMPTY_PATH) names: refused with EACCES unless the file is
// in the node's run directory, run natively otherwise (the kernel acts on
// the descriptor, not on a path).
func guardFD(fd int) handler {
	return func(c *call) result {
		host := c.fdHost(int32(c.arg(fd)))
		if _, err := os.Readlink(host); err != nil {
			return errno(unix.EBADF) // not a descriptor of the node
		}
		if !c.mayWrite(host, true, false) {
			return c.refuseWrite(host)
		}
		return cont()
	}
}

// procSelf rewrites /proc/self and /proc/thread-self for process pid.
func procSelf(path string, pid int) string {
	for _, p := range [...]struct{ from, to string }{
		{"/proc/self", fmt.Sprintf("/proc/%d", pid)},
		{"/proc/thread-self", fmt.Sprintf("/proc/%d/task/%d", pid, pid)},
	} {
		if path == p.from || strings.HasPrefix(path, p.from+"/") {
			return p.to + path[len(p.from):]
		}
	}
	return path
}

// readPath reads a NUL-terminated path (at most PATH_MAX bytes) from the
// node, page by page so that a short string at the end of a mapping reads.
func (c *call) readPath(addr uint64) (string, error) {
	var out []byte
	for len(out) < unix.PathMax {
		chunk := 4096 - int((addr+uint64(len(out)))%4096)
		buf := make([]byte, chunk)
		k, err := readMem(c.n.memPid(), uintptr(addr)+uintptr(len(out)), buf)
		if k <= 0 || err != nil {
			return "", unix.EFAULT
		}
		if i := strings.IndexByte(string(buf[:k]), 0); i >= 0 {
			return string(append(out, buf[:i]...)), nil
		}
		out = append(out, buf[:k]...)
	}
	return "", unix.ENAMETOOLONG
}

// mayWrite reports whether the node may change the file at the host
// path host, one of its own descriptors or /proc files (weft's own name
// for it, which the host kernel resolves): its names, metadata or, with
// data, its content. A name that does not resolve is refused.
func (c *call) mayWrite(host string, follow, data bool) bool {
	if host == absentProcPath || strings.HasPrefix(host, absentProcPath+"/") {
		return false // a /proc or /sys file the node may not see (sys_procfs.go)
	}
	p, err := canonicalTarget(host, follow)
	return err == nil && (data && writableDevices[p] || c.inRunDir(p))
}

// inRunDir reports whether the canonical path p is in the node's run
// directory.
func (c *call) inRunDir(p string) bool {
	dir := c.w.runDirs[c.n.id]
	return dir != "" && (p == dir || strings.HasPrefix(p, dir+"/"))
}

// writableDevices may be opened for writing from anywhere: they keep
// nothing. Their metadata (modes, owners, times) stays the host's.
var writableDevices = map[string]bool{"/dev/null": true, "/dev/zero": true, "/dev/full": true}

// refuseWrite answers a write at host (a canonical path in the node's
// view) outside the run directory, counts it and records it
// (World.Refusals).
func (c *call) refuseWrite(host string) result {
	c.w.refused[c.n.id]++
	c.w.refuseKey(refusalKey{node: c.n.id, nr: int(c.req.Data.Nr), what: host, answer: "EACCES", rule: ruleRunDir})
	return errno(unix.EACCES)
}

// canonicalTarget returns the canonical path of the file a call on host
// acts on: host itself with its symlinks resolved when follow (or when it
// names a directory by "." or ".."), else its resolved parent joined with
// its last name.
func canonicalTarget(host string, follow bool) (string, error) {
	trimmed := strings.TrimRight(host, "/")
	if trimmed == "" {
		return "/", nil
	}
	dir, base := filepath.Split(trimmed)
	if follow || base == "." || base == ".." || trimmed != host {
		p, err := canonical(host)
		if err == nil || err != unix.ENOENT {
			return p, err
		}
	}
	d, err := canonical(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, base), nil
}

// canonical asks the kernel where path leads.
func canonical(path string) (string, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
}

// openWrites reports whether open flags create, change or truncate.
// O_TMPFILE includes O_DIRECTORY's bit, so it is tested whole.
func openWrites(flags uint64) bool {
	return flags&unix.O_ACCMODE != unix.O_RDONLY || flags&(unix.O_CREAT|unix.O_TRUNC) != 0 ||
		flags&unix.O_TMPFILE == unix.O_TMPFILE
}

// RefusedWrites is how many writes outside its run directory node i
// attempted (and weft refused), over all its restarts.
func (w *World) RefusedWrites(i int) int { return w.refused[i] }

// RunDir is node i's run directory, the only place it may write, in
// canonical form ("" when it has none and may write nowhere).
func (w *World) RunDir(i int) string { return w.runDirs[i] }

// initRunDirs resolves each node's run directory once.
func (w *World) initRunDirs() error {
	w.refused = make([]int, len(w.cfg.Nodes))
	w.runDirs = make([]string, len(w.cfg.Nodes))
	for i, spec := range w.cfg.Nodes {
		dir := spec.Dir
		switch {
		case w.dataRoot != "":
			dir = w.DataDir(i)
		case w.cfg.ReadOnlyWorkDir:
			continue // no run directory: writes refused everywhere
		}
		if dir == "" {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		if w.runDirs[i], err = filepath.EvalSymlinks(abs); err != nil {
			return fmt.Errorf("node %d: run directory: %w", i, err)
		}
	}
	return nil
}
