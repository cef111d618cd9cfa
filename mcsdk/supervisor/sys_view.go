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

// A node's paths are resolved by weft in the node's own view
// (vkernel.View): the system's directories and the node's working and
// binary directories read-only, its run directory writable, /proc and
// /sys by vkernel's table (procfs.go, served by sys_procfs.go), /dev an
// allow-list, and virtual host-identity files. The view's paths of a host directory are the
// host's own, so a path a model hands a node means the same to both.
// Resolution is vkernel's; hostFS reads the host for it, and every call
// then acts on the canonical host path it returns (opened with openat2's
// RESOLVE_NO_SYMLINKS, so nothing is followed that resolution did not
// see), or is served from the view, or fails with the errno Linux would
// give. A path that does not resolve never reaches the host kernel.

// nodeView is a node's view and the run directory it was made for (a
// checkpoint's copy moves the run directories).
type nodeView struct {
	runDir  string
	v       *vkernel.View
	aliases []vkernel.PathAlias // the host names of its remapped read directories (shownArgs)
}

// view is the calling node's view.
func (c *call) view() *vkernel.View { return c.w.view(c.n.id) }

// view is node i's view, composed at first use and again when its run
// directory moved (a checkpoint's copy).
func (w *World) view(i int) *vkernel.View {
	if len(w.views) != len(w.cfg.Nodes) {
		w.views = make([]nodeView, len(w.cfg.Nodes))
	}
	if nv := w.views[i]; nv.v != nil && nv.runDir == w.runDirs[i] {
		return nv.v
	}
	v, as := w.makeView(i)
	w.views[i] = nodeView{runDir: w.runDirs[i], v: v, aliases: as}
	return v
}

// makeView composes node i's view, and the host names of the directories
// it shows at virtual paths, for rewriting what the node is given.
func (w *World) makeView(i int) (*vkernel.View, []vkernel.PathAlias) {
	var mounts []vkernel.Mount
	for _, d := range vkernel.SystemDirs {
		mounts = append(mounts, vkernel.Mount{Path: d})
	}
	run := w.runDirs[i]
	dirs, spelled := readDirs(w.cfg.Nodes[i], w.dataRoot != "")
	for k, d := range dirs {
		if run != "" && (d == run || strings.HasPrefix(d, run+"/")) {
			dirs[k] = "" // shown as the run directory
		}
	}
	mounts = append(mounts, vkernel.ReadMounts(dirs)...)
	if run != "" {
		mounts = append(mounts, vkernel.Mount{Path: vkernel.RunDir(i), Host: run, Writable: true})
	}
	v := vkernel.NewView(mounts, vkernel.Identity(i, vkernel.NodeNames(len(w.cfg.Nodes))))
	if w.dataRoot != "" {
		v.DirsAt(filepath.Join(w.dataRoot, viewDirs))
	}
	return v, vkernel.Aliases(v.Mounts(), spelled)
}

// shownArgs are what node i is started as: the host path of the program
// to execute, its argv[0], its arguments and its environment, as the node
// is shown them: every host path of a directory its view shows at a
// virtual path (the model's, its binary's) replaced by that path, so that
// nothing of where the model lies reaches the node. A "#!" script is
// started as the kernel would start it, its interpreter given the
// script's path in the view (the kernel would give it the host path).
func (w *World) shownArgs(i int) (path, argv0 string, args, env []string) {
	spec := w.cfg.Nodes[i]
	w.view(i) // composes the view and its aliases
	as := w.views[i].aliases
	shown := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			return vkernel.RewritePaths(abs, as)
		}
		return p
	}
	path, argv0 = spec.Path, shown(spec.Path)
	for _, a := range spec.Args {
		args = append(args, vkernel.RewritePaths(a, as))
	}
	if interp, arg, ok := scriptInterpreter(spec.Path); ok {
		pre := []string{}
		if arg != "" {
			pre = append(pre, arg)
		}
		args = append(append(pre, argv0), args...)
		path, argv0 = interp, shown(interp)
	}
	env = make([]string, len(spec.Env))
	for k, e := range spec.Env {
		env[k] = vkernel.RewritePaths(e, as)
	}
	return path, argv0, args, env
}

// scriptInterpreter is the interpreter of the "#!" script at path and its
// one optional argument, as the kernel reads them (binfmt_script: the
// first line, at most 255 bytes, split at the first blank); false when
// path is no such script.
func scriptInterpreter(path string) (interp, arg string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	buf := make([]byte, 256)
	k, _ := f.Read(buf)
	line := buf[:k]
	if !strings.HasPrefix(string(line), "#!") {
		return "", "", false
	}
	if j := strings.IndexByte(string(line), '\n'); j >= 0 {
		line = line[:j]
	}
	fields := strings.TrimSpace(strings.ReplaceAll(string(line[2:]), "\t", " "))
	interp, arg, _ = strings.Cut(fields, " ")
	return interp, strings.TrimSpace(arg), interp != ""
}

// viewDirs is the directory of a world's data root whose tree stands for
// the views' virtual directories on the host (vkernel.View.DirsAt): a
// node's descriptor or working directory there is the virtual directory
// of the same path.
const viewDirs = ".view"

// hostOf is the host path weft's own calls use for the place r: a host
// file's or missing name's host path; for a virtual directory the
// skeleton's directory that stands for it, made on first use (its own
// path when the view has no skeleton: a model without run directories,
// whose views show every mount at its host path); a device's own path.
func (c *call) hostOf(r vkernel.Result) string {
	switch r.Kind {
	case vkernel.Host, vkernel.Missing:
		return r.HostPath
	case vkernel.Dir:
		d, ok := c.skeletonDir(r)
		if !ok {
			return r.Path
		}
		return d
	}
	return r.Path // a device: the host's own
}

// skeletonDir is the skeleton's directory that stands for the virtual
// directory r, made on first use: what a node opens or makes its working
// directory there, listing only the virtual directories below it. It is
// false when the view has no skeleton (no run directories), where such a
// descriptor would list the host's directory of the same path: refused.
func (c *call) skeletonDir(r vkernel.Result) (string, bool) {
	d, ok := c.view().HostDir(r.Path)
	if !ok {
		return "", false
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return absentProcPath, true // a name no file has: the call fails ENOENT
	}
	return d, true
}

// readDirs are the host directories a node reads besides the system's,
// canonical, in the order the model hands them over: the model's
// directory (NodeSpec.Dir; the supervisor's own working directory, where
// a node without a data directory starts, when it is ""), its binary's
// directory and, for a binary in a "bin" directory, the installation it
// belongs to (an interpreter's library: pyenv's, nvm's), and every host
// file or directory its arguments name by an absolute path (a script, an
// input file): what the model hands the node, and nothing else. The view
// shows them at virtual paths (vkernel.ReadMounts). spelled maps each to
// the other names the model gave it (before symlinks were followed), for
// rewriting arguments (nodeArgs).
func readDirs(spec NodeSpec, dataDirs bool) (dirs []string, spelled map[string][]string) {
	named := []string{spec.Dir, filepath.Dir(spec.Path)}
	if bin := filepath.Dir(spec.Path); filepath.Base(bin) == "bin" {
		named = append(named, filepath.Dir(bin))
	}
	for _, a := range spec.Args {
		if !filepath.IsAbs(a) {
			continue
		}
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			named = append(named, a)
		} else if err == nil {
			named = append(named, filepath.Dir(a))
		}
	}
	spelled = map[string][]string{}
	for k, d := range named {
		if d == "" && dataDirs {
			if k == 0 {
				dirs = append(dirs, "") // the model's place stays first
			}
			continue
		}
		if d == "" || d == "." {
			d, _ = os.Getwd()
		}
		abs, err := filepath.Abs(d)
		p, err2 := filepath.EvalSymlinks(abs)
		switch {
		case err == nil && err2 == nil && p != "/":
			dirs = append(dirs, p)
			spelled[p] = append(spelled[p], abs)
		case k == 0:
			dirs = append(dirs, "") // the model's place stays first
		}
	}
	return dirs, spelled
}

// hostFS reads the host's file system for vkernel's resolution. Its
// paths are canonical (resolution followed every symlink above them).
type hostFS struct{}

func (hostFS) Lstat(p string) (vkernel.FileType, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return vkernel.TypeNone, vkErrno(err)
	}
	return fileType(st.Mode), nil
}

func (hostFS) Readlink(p string) (string, error) {
	buf := make([]byte, vkernel.PathMax)
	k, err := unix.Readlink(p, buf)
	if err != nil {
		return "", vkErrno(err)
	}
	return string(buf[:k]), nil
}

func fileType(mode uint32) vkernel.FileType {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return vkernel.TypeRegular
	case unix.S_IFDIR:
		return vkernel.TypeDir
	case unix.S_IFLNK:
		return vkernel.TypeSymlink
	}
	return vkernel.TypeOther
}

// vkErrno is a host error as vkernel's.
func vkErrno(err error) error {
	if e, ok := err.(unix.Errno); ok {
		return vkernel.Errno(e)
	}
	return vkernel.EACCES
}

// pathErrno is the errno for an error of resolution or of a host call.
func pathErrno(err error) unix.Errno {
	if e, ok := err.(vkernel.Errno); ok {
		return unix.Errno(e)
	}
	return errnoOf(err)
}

// where is what a path argument names: a place in the view, or the
// descriptor dirfd itself (an empty path with AT_EMPTY_PATH, or none).
type where struct {
	res   vkernel.Result
	fd    bool
	dirfd int32
}

// resolveArg resolves the path of a in the calling node's view.
func (c *call) resolveArg(a fsArg) (where, error) {
	dirfd := int32(unix.AT_FDCWD)
	if a.dirfd >= 0 {
		dirfd = int32(c.arg(a.dirfd))
	}
	follow := a.follow
	var flags uint64
	if a.flags >= 0 {
		flags = c.arg(a.flags)
		switch {
		case a.followFlag != 0:
			follow = flags&a.followFlag != 0
		case flags&unix.AT_SYMLINK_NOFOLLOW != 0:
			follow = false
		}
	}
	if a.path < 0 || c.arg(a.path) == 0 {
		return where{fd: true, dirfd: dirfd}, nil
	}
	name, err := c.readPath(c.arg(a.path))
	if err != nil {
		return where{}, err
	}
	if name == "" {
		if flags&unix.AT_EMPTY_PATH == 0 {
			return where{}, unix.ENOENT
		}
		return where{fd: true, dirfd: dirfd}, nil
	}
	start := "/"
	if !strings.HasPrefix(name, "/") {
		if start, err = c.startDir(dirfd); err != nil {
			return where{}, err
		}
	}
	res, err := c.view().Resolve(hostFS{}, start, name, follow)
	return where{res: res, dirfd: dirfd}, err
}

// startDir is the view's path of the directory a relative path starts
// from: the node's working directory, or its descriptor dirfd.
func (c *call) startDir(dirfd int32) (string, error) {
	link := fmt.Sprintf("/proc/%d/cwd", c.n.memPid())
	if dirfd != unix.AT_FDCWD {
		if dirfd < 0 {
			return "", unix.EBADF
		}
		link = fmt.Sprintf("/proc/%d/fd/%d", c.n.memPid(), dirfd)
	}
	host, err := os.Readlink(link)
	switch {
	case err != nil && dirfd != unix.AT_FDCWD:
		return "", unix.EBADF
	case err != nil:
		return "", unix.ENOENT
	}
	if v, ok := c.view().Locate(host); ok {
		return v, nil
	}
	if !strings.HasPrefix(host, "/") {
		return "", unix.ENOTDIR // a socket, pipe or virtual file
	}
	return "", unix.ENOENT // a directory outside the view
}

// fdHost is the supervisor's name for the node's descriptor fd.
func (c *call) fdHost(fd int32) string {
	return fmt.Sprintf("/proc/%d/fd/%d", c.n.memPid(), fd)
}

// hashCwds writes the working directory of each live process of node n
// as its view names it ("" outside the view): a later relative path, and
// getcwd, read it, and a process need not keep it in its memory.
func (w *World) hashCwds(n *node, h interface{ Write([]byte) (int, error) }) {
	h, carried := w.cwdsWriter(n, h) // or a restore's record (lazy_linux.go)
	if carried {
		return
	}
	pids := []int{n.memPid()}
	for _, p := range n.procs {
		if !p.ended() && p.pid != pids[0] {
			pids = append(pids, p.pid)
		}
	}
	for _, pid := range pids {
		cwd := ""
		if host, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid)); err == nil {
			cwd, _ = w.view(n.id).Locate(host)
		}
		h.Write(append([]byte(cwd), 0))
	}
}

// umask is the calling thread's file creation mask.
func (c *call) umask() uint32 {
	s, err := taskStatus(c.n.memPid(), c.t.tid)
	if err != nil || !s.HasUmask {
		return 0o022
	}
	return s.Umask
}

// openBeneath opens the canonical host path p for weft with openat2,
// following no symlink (resolution followed them all).
func openBeneath(p string, flags uint64, mode uint32) (int, error) {
	how := unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	if flags&unix.O_CREAT != 0 || flags&unix.O_TMPFILE == unix.O_TMPFILE {
		how.Mode = uint64(mode & 0o7777)
	}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, p, &how)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
