package vkernel

import (
	"path"
	"sort"
	"strings"
)

// Mount is a host directory shown in a node's view: at Path, which is
// its host path Host for the system's directories and those a model
// names (a path the node is given means the same in both), and a virtual
// path for the node's run directory (RunDir), so that no host path of a
// run reaches the node and every run of a model shows it the same names.
type Mount struct {
	Path     string // the view's path: clean and absolute
	Host     string // the host directory shown at Path, canonical ("": Path itself)
	Writable bool   // the node's run directory; every other mount is read-only
}

// remapped reports whether m shows its host directory at another path.
func (m Mount) remapped() bool { return m.Host != m.Path }

// host is the host path of the view's path p below m.
func (m Mount) host(p string) string { return m.Host + p[len(m.Path):] }

// SystemDirs are the host's read-only system directories every view
// shows (where a merged /usr makes /bin or /lib a symlink, the view
// follows it into /usr as the host does).
var SystemDirs = []string{"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt"}

// Devices are the files of /dev a node may open: they keep nothing and
// name nothing of the host (random and urandom are served from the run's
// seed by the supervisor). Every other name below /dev is absent:
// terminals, the kernel log, userfaultfd, block and raw devices.
var Devices = map[string]bool{"/dev/null": true, "/dev/zero": true, "/dev/full": true, "/dev/random": true, "/dev/urandom": true}

// devLinks are the symlinks of /dev every Linux system has, into the
// caller's own descriptors.
var devLinks = map[string]string{
	"/dev/fd": "/proc/self/fd", "/dev/stdin": "/proc/self/fd/0",
	"/dev/stdout": "/proc/self/fd/1", "/dev/stderr": "/proc/self/fd/2",
}

// View is one node's file system: host mounts, virtual files (which hide
// the host file of the same path), /proc and /sys (virtual: the
// /proc table serves them, procfs.go), /dev (Devices), and the virtual
// directories that lead to all of them. Nothing else exists.
type View struct {
	mounts []Mount           // longest path first
	byHost []Mount           // longest host path first
	files  map[string][]byte // virtual files by path
	dirs   map[string]bool   // virtual directories: "/" and every ancestor of a mount or file
	skel   string            // the host directory whose tree stands for the virtual directories ("": none)
}

// NewView composes a view of mounts (paths are cleaned; a later mount of
// the same path wins) and the virtual files files (absolute paths to
// their content).
func NewView(mounts []Mount, files map[string][]byte) *View {
	v := &View{files: map[string][]byte{}, dirs: map[string]bool{"/": true, "/dev": true}}
	seen := map[string]int{}
	for _, m := range mounts {
		m.Path = path.Clean(m.Path)
		if m.Host == "" {
			m.Host = m.Path
		}
		m.Host = path.Clean(m.Host)
		if i, ok := seen[m.Path]; ok {
			v.mounts[i] = m
			continue
		}
		seen[m.Path] = len(v.mounts)
		v.mounts = append(v.mounts, m)
	}
	sort.SliceStable(v.mounts, func(i, j int) bool { return len(v.mounts[i].Path) > len(v.mounts[j].Path) })
	v.byHost = append([]Mount(nil), v.mounts...)
	sort.SliceStable(v.byHost, func(i, j int) bool { return len(v.byHost[i].Host) > len(v.byHost[j].Host) })
	for p, c := range files {
		v.files[path.Clean(p)] = c
	}
	for _, m := range v.mounts {
		v.addAncestors(m.Path)
	}
	for p := range v.files {
		v.addAncestors(p)
	}
	return v
}

func (v *View) addAncestors(p string) {
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		v.dirs[d] = true
	}
}

// Mounts returns the view's host mounts, longest path first.
func (v *View) Mounts() []Mount { return append([]Mount(nil), v.mounts...) }

// place is what a clean absolute path is in a view, before the host is
// asked.
type place uint8

const (
	placeNone   place = iota // not in the view
	placeHost                // below a mount
	placeFile                // a virtual file
	placeDir                 // a virtual directory
	placeProc                // below /proc or /sys
	placeDevice              // an allowed device
	placeLink                // a symlink of /dev
)

// classify says what the clean absolute path p is in the view, and for a
// host path its mount.
func (v *View) classify(p string) (place, Mount) {
	for _, root := range [...]string{"/proc", "/sys"} {
		if under(p, root) {
			return placeProc, Mount{} // virtual files there are the /proc table's
		}
	}
	if _, ok := v.files[p]; ok {
		return placeFile, Mount{}
	}
	if under(p, "/dev") && p != "/dev" {
		switch {
		case Devices[p]:
			return placeDevice, Mount{}
		case devLinks[p] != "":
			return placeLink, Mount{}
		}
		return placeNone, Mount{}
	}
	for _, m := range v.mounts {
		if under(p, m.Path) {
			return placeHost, m
		}
	}
	if v.dirs[p] {
		return placeDir, Mount{}
	}
	return placeNone, Mount{}
}

// under reports whether the clean path p is dir or below it.
func under(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// Locate returns the view's path of the canonical host path host (a
// node's working directory, a descriptor or its binary, as the host
// kernel names them), and false when the view does not show it: a file
// below a mount's host directory, or a virtual directory, by the
// skeleton's directory that stands for it (DirsAt) or by its own path.
func (v *View) Locate(host string) (string, bool) {
	if !strings.HasPrefix(host, "/") {
		return "", false
	}
	h := path.Clean(host)
	for _, m := range v.byHost {
		if under(h, m.Host) {
			p := m.Path + h[len(m.Host):]
			if k, got := v.classify(p); k == placeHost && got == m {
				return p, true // not hidden by a deeper mount or a virtual file
			}
			return "", false
		}
	}
	p := h // a virtual directory that is a host directory of the same path
	if v.skel != "" && under(h, v.skel) {
		p = path.Clean("/" + h[len(v.skel):])
	}
	if k, _ := v.classify(p); k == placeDir {
		return p, true
	}
	return "", false
}

// DirsAt makes the host directory skel stand for the view's virtual
// directories: the virtual directory /a/b is skel/a/b on the host
// (HostDir), a directory weft creates, empty but for the directories
// below it, which a node may open or make its working directory.
func (v *View) DirsAt(skel string) { v.skel = path.Clean(skel) }

// HostDir is the host directory that stands for the virtual directory p
// of the view (DirsAt), and false when p is none or there is no skeleton.
func (v *View) HostDir(p string) (string, bool) {
	if k, _ := v.classify(p); k != placeDir || v.skel == "" {
		return "", false
	}
	return path.Join(v.skel, p), true
}

// DevLink is the target of the /dev symlink p ("" if p is none).
func DevLink(p string) string { return devLinks[p] }
