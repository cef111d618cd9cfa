package vkernel

import (
	"errors"
	"path"
	"strings"
)

// Linux's limits on path resolution (limits.h, namei.h).
const (
	PathMax     = 4096 // bytes of a path, with its terminating NUL
	NameMax     = 255  // bytes of one component
	MaxSymlinks = 40   // symlinks followed in one resolution
)

// FileType is the type of a host file, as lstat reports it.
type FileType uint8

// The file types resolution tells apart.
const (
	TypeNone    FileType = iota // no file
	TypeRegular                 // a regular file
	TypeDir                     // a directory
	TypeSymlink                 // a symlink
	TypeOther                   // a device, FIFO or socket
)

// HostFS reads the host's file system for resolution. Every path it is
// given is a host path (a mount's Host, not its view's Path), canonical
// (no symlink in its directories: resolution has followed them),
// absolute and below one of the view's mounts' host directories, so an
// implementation can refuse any symlink but a final one (openat2's
// RESOLVE_NO_SYMLINKS on the parent). Errors are Errnos; ENOENT means
// the file does not exist.
type HostFS interface {
	// Lstat returns the type of the file at p, not following a final symlink.
	Lstat(p string) (FileType, error)
	// Readlink returns the target of the symlink at p.
	Readlink(p string) (string, error)
}

// Kind is what a path resolved to.
type Kind uint8

// The kinds of Result.
const (
	Host    Kind = iota + 1 // a host file at Path (at HostPath on the host), of type Type
	Missing                 // nothing at Path; its directory exists in the view, and may gain it if Writable
	File                    // a virtual file: Content
	Proc                    // below /proc or /sys: the /proc table (procfs.go) serves Path
	Device                  // an allowed device (Devices)
	Dir                     // a virtual directory of the view: it lists nothing
)

var kindNames = [...]string{Host: "host", Missing: "missing", File: "file", Proc: "proc", Device: "device", Dir: "dir"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind?"
}

// Result is where a path leads in a view.
type Result struct {
	Kind     Kind
	Path     string   // the view's: clean and absolute, every symlink resolved (but a final one not followed)
	HostPath string   // Host, and Missing below a mount: the host path of Path, for weft's own calls
	Type     FileType // Host: the file's type
	Writable bool     // Host, Missing: below the node's run directory
	Content  []byte   // File: its content
	DirOnly  bool     // the path ended in "/": it names a directory (or one to make)
	// Native says that the host kernel, given the same name from the
	// node's host working directory (the host directory of its view's
	// one), reaches HostPath too: the walk never crossed into or out of
	// a mount shown away from its host path, nor started in a virtual
	// directory. Only then may a call the host kernel resolves itself
	// (execve) run with the node's own name.
	Native bool
}

// Resolve returns where name leads in the view, as Linux resolves it
// (path_resolution(7)): a relative name starts at the directory start
// (the caller's working directory or directory descriptor, a path of
// the view); a final symlink is followed when follow (or when name ends
// in "/"). Symlinks resolve inside the view, ".." stops at its root, and
// a magic link of /proc is refused (ELOOP, as RESOLVE_NO_MAGICLINKS) but
// as the last component, where the /proc table decides.
func (v *View) Resolve(fs HostFS, start, name string, follow bool) (Result, error) {
	switch {
	case len(name) >= PathMax:
		return Result{}, ENAMETOOLONG
	case name == "":
		return Result{}, ENOENT
	}
	r := resolver{v: v, fs: fs, cur: "/", native: true}
	if !strings.HasPrefix(name, "/") {
		r.cur = path.Clean("/" + start)
		if k, _ := v.classify(r.cur); k != placeHost {
			r.native = false // the host working directory is the skeleton's, or none
		}
	}
	dirOnly := strings.HasSuffix(name, "/")
	r.todo = split(name)
	res, err := r.walk(follow || dirOnly)
	if err != nil {
		return Result{}, err
	}
	if dirOnly {
		res.DirOnly = true
		if res.Kind == Host && res.Type != TypeDir || res.Kind == File || res.Kind == Device {
			return Result{}, ENOTDIR
		}
	}
	return res, nil
}

// resolver is one resolution: the directory reached and the components
// still to walk.
type resolver struct {
	v      *View
	fs     HostFS
	cur    string
	todo   []string
	links  int
	native bool // the host kernel's walk of the same name is where this one is (Result.Native)
}

func split(name string) []string {
	var out []string
	for _, c := range strings.Split(name, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// walk resolves the remaining components; follow says whether a final
// symlink is followed.
func (r *resolver) walk(follow bool) (Result, error) {
	if len(r.todo) == 0 {
		return r.here()
	}
	for len(r.todo) > 0 {
		c := r.todo[0]
		r.todo = r.todo[1:]
		last := len(r.todo) == 0
		if len(c) > NameMax {
			return Result{}, ENAMETOOLONG
		}
		if c == ".." {
			if k, m := r.v.classify(r.cur); k == placeHost && m.remapped() && r.cur == m.Path {
				r.native = false // the host's ".." of the mount's directory is elsewhere
			}
			r.cur = path.Dir(r.cur)
			if last {
				return r.here()
			}
			continue
		}
		next := path.Join(r.cur, c)
		res, done, err := r.step(next, last, follow)
		if done || err != nil {
			return res, err
		}
	}
	return r.here()
}

// here is the result for the directory reached (a path ending in ".."
// or naming the start itself).
func (r *resolver) here() (Result, error) {
	k, m := r.v.classify(r.cur)
	switch k {
	case placeHost:
		t, err := r.lstat(m.host(r.cur))
		return Result{Kind: Host, Path: r.cur, HostPath: m.host(r.cur), Type: t, Writable: m.Writable, Native: r.native}, err
	case placeProc:
		return Result{Kind: Proc, Path: r.cur}, nil
	case placeDir:
		return Result{Kind: Dir, Path: r.cur}, nil
	}
	return Result{}, ENOENT
}

// step walks into next, the directory reached joined with one component;
// done says the walk ended there (at the last component, or with an
// error).
func (r *resolver) step(next string, last, follow bool) (Result, bool, error) {
	k, m := r.v.classify(next)
	switch k {
	case placeNone:
		if last && r.v.dirs[r.cur] || last && under(r.cur, "/dev") {
			return Result{Kind: Missing, Path: next}, true, nil
		}
		return Result{}, true, ENOENT
	case placeFile:
		if !last {
			return Result{}, true, ENOTDIR
		}
		return Result{Kind: File, Path: next, Content: r.v.files[next]}, true, nil
	case placeDevice:
		if !last {
			return Result{}, true, ENOTDIR
		}
		return Result{Kind: Device, Path: next}, true, nil
	case placeLink:
		if last && !follow {
			return Result{Kind: Proc, Path: next}, true, nil // lstat, readlink: served as the table's /dev link
		}
		return Result{}, false, r.follow(devLinks[next])
	case placeDir:
		r.cur = next
		if last {
			return Result{Kind: Dir, Path: next}, true, nil
		}
		return Result{}, false, nil
	case placeProc:
		if magicLink(next) && !last {
			return Result{}, true, ELOOP
		}
		r.cur = next
		if last {
			return Result{Kind: Proc, Path: next}, true, nil
		}
		return Result{}, false, nil
	}
	if m.remapped() && !under(r.cur, m.Path) {
		r.native = false // entering a mount shown away from its host path
	}
	return r.stepHost(next, m, last, follow)
}

// stepHost walks into next below the host mount m.
func (r *resolver) stepHost(next string, m Mount, last, follow bool) (Result, bool, error) {
	host := m.host(next)
	t, err := r.lstat(host)
	switch {
	case err == ENOENT && last:
		return Result{Kind: Missing, Path: next, HostPath: host, Writable: m.Writable, Native: r.native}, true, nil
	case err != nil:
		return Result{}, true, err
	case t == TypeSymlink && (follow || !last):
		target, err := r.fs.Readlink(host)
		if err != nil {
			return Result{}, true, asErrno(err)
		}
		return Result{}, false, r.follow(target)
	case last:
		return Result{Kind: Host, Path: next, HostPath: host, Type: t, Writable: m.Writable, Native: r.native}, true, nil
	case t != TypeDir:
		return Result{}, true, ENOTDIR
	}
	r.cur = next
	return Result{}, false, nil
}

// follow continues the walk through a symlink's target: its components
// come before those still to walk, from the root when it is absolute
// (the view's root: a link never leaves the view).
func (r *resolver) follow(target string) error {
	r.links++
	switch {
	case r.links > MaxSymlinks:
		return ELOOP
	case target == "":
		return ENOENT
	case len(target) >= PathMax:
		return ENAMETOOLONG
	}
	if strings.HasPrefix(target, "/") {
		r.cur = "/"
	}
	rest := split(target)
	if strings.HasSuffix(target, "/") && len(r.todo) == 0 {
		rest = append(rest, ".") // a link to "dir/" still names a directory
	}
	r.todo = append(rest, r.todo...)
	return nil
}

func (r *resolver) lstat(p string) (FileType, error) {
	t, err := r.fs.Lstat(p)
	return t, asErrno(err)
}

// asErrno is err as an Errno (EACCES for an error HostFS should not
// return: never a pass).
func asErrno(err error) error {
	if err == nil {
		return nil
	}
	var e Errno
	if errors.As(err, &e) {
		return e
	}
	return EACCES
}

// magicLink reports whether the clean /proc path p is one of a
// process's magic links (proc(5)), which lead wherever the process's
// descriptor, directory or binary is, not to a path: root, cwd, exe,
// fd/N, map_files/…, ns/…, of a process or one of its tasks.
func magicLink(p string) bool {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	if len(parts) >= 3 && parts[1] == "task" {
		parts = parts[2:] // a task's directory is a process's
	}
	if len(parts) < 2 {
		return false
	}
	switch parts[1] {
	case "root", "cwd", "exe":
		return len(parts) == 2
	case "fd", "map_files", "ns":
		return len(parts) == 3
	}
	return false
}
