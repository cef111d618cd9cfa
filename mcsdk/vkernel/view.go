package vkernel

import (
	"path"
	"sort"
	"strings"
)

// Mount is a host directory shown in a node's view at its own path: the
// view's paths of a mounted tree are the host's, so a path the node is
// given (its run directory, its binary) means the same in both.
type Mount struct {
	Path     string // clean, absolute and canonical on the host
	Writable bool   // the node's run directory; every other mount is read-only
}

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
// supervisor's table serves them), /dev (Devices), and the virtual
// directories that lead to all of them. Nothing else exists.
type View struct {
	mounts []Mount           // longest path first
	files  map[string][]byte // virtual files by path
	dirs   map[string]bool   // virtual directories: "/" and every ancestor of a mount or file
}

// NewView composes a view of mounts (paths are cleaned; a later mount of
// the same path wins) and the virtual files files (absolute paths to
// their content).
func NewView(mounts []Mount, files map[string][]byte) *View {
	v := &View{files: map[string][]byte{}, dirs: map[string]bool{"/": true, "/dev": true}}
	seen := map[string]int{}
	for _, m := range mounts {
		m.Path = path.Clean(m.Path)
		if i, ok := seen[m.Path]; ok {
			v.mounts[i] = m
			continue
		}
		seen[m.Path] = len(v.mounts)
		v.mounts = append(v.mounts, m)
	}
	sort.SliceStable(v.mounts, func(i, j int) bool { return len(v.mounts[i].Path) > len(v.mounts[j].Path) })
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
// host path whether its mount is writable.
func (v *View) classify(p string) (place, bool) {
	for _, root := range [...]string{"/proc", "/sys"} {
		if under(p, root) {
			return placeProc, false // virtual files there are the supervisor's table's
		}
	}
	if _, ok := v.files[p]; ok {
		return placeFile, false
	}
	if under(p, "/dev") && p != "/dev" {
		switch {
		case Devices[p]:
			return placeDevice, false
		case devLinks[p] != "":
			return placeLink, false
		}
		return placeNone, false
	}
	for _, m := range v.mounts {
		if under(p, m.Path) {
			return placeHost, m.Writable
		}
	}
	if v.dirs[p] {
		return placeDir, false
	}
	return placeNone, false
}

// under reports whether the clean path p is dir or below it.
func under(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// Locate returns the view's path of the canonical host path host (a
// node's working directory or a directory descriptor, as the host kernel
// names it), and false when the view does not show it.
func (v *View) Locate(host string) (string, bool) {
	if !strings.HasPrefix(host, "/") {
		return "", false
	}
	p := path.Clean(host)
	switch k, _ := v.classify(p); k {
	case placeHost, placeDir:
		return p, true
	}
	return "", false
}

// DevLink is the target of the /dev symlink p ("" if p is none).
func DevLink(p string) string { return devLinks[p] }
