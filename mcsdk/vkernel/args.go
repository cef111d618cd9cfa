package vkernel

import (
	"path"
	"sort"
	"strconv"
	"strings"
)

// ModelDir is the view's path of the model's directory: a node is shown
// the directory its model lies in there, whatever the host path, so that
// moving a model's folder changes nothing a node sees.
const ModelDir = "/run/weft/model"

// ReadDir is the view's path of the k-th other host directory a node
// reads that is outside the system's directories (its binary's, an
// installation's, one its arguments name): /run/weft/read<k>, k from 1.
// (Its length, with ModelDir's, leaves room for the name the launcher
// executes a binary there by: supervisor's execByFD.)
func ReadDir(k int) string { return "/run/weft/read" + strconv.Itoa(k) }

// ReadMounts shows the host directories dirs (canonical, in the order the
// model hands them to the node: its model's directory first) at virtual
// paths: the first at ModelDir, every other one at ReadDir(k), numbered in
// order; a directory below one already shown, or below a system
// directory, gets no mount of its own (the one above shows it), and
// none below the view's own trees (/proc, /sys, /dev: an argument
// /proc/self/x names the node's own file, not the host's). The
// result is a function of the order and nesting of dirs, not of where
// they lie.
func ReadMounts(dirs []string) []Mount {
	var out []Mount
	shown := func(d string) bool {
		for _, s := range append([]string{"/proc", "/sys", "/dev", "/run/weft"}, SystemDirs...) {
			if under(d, s) {
				return true
			}
		}
		for _, m := range out {
			if under(d, m.Host) {
				return true
			}
		}
		return false
	}
	others := 0
	for i, d := range dirs {
		d = path.Clean(d)
		if !path.IsAbs(d) || d == "/" || shown(d) {
			continue
		}
		p := ModelDir
		if i > 0 {
			others++
			p = ReadDir(others)
		}
		out = append(out, Mount{Path: p, Host: d})
	}
	return out
}

// PathAlias is a host path (as a model may spell it, or canonical) and
// the view's path that stands for it.
type PathAlias struct{ Host, View string }

// Aliases are the host paths of the remapped mounts of ms, as canonical
// and as spelled (spelled maps a canonical host directory to the other
// names the model used for it, e.g. before symlinks were followed), each
// with its view path: what RewritePaths replaces.
func Aliases(ms []Mount, spelled map[string][]string) []PathAlias {
	var out []PathAlias
	for _, m := range ms {
		if m.Host == "" || !m.remapped() {
			continue
		}
		out = append(out, PathAlias{Host: m.Host, View: m.Path})
		for _, s := range spelled[m.Host] {
			if s = path.Clean(s); s != m.Host {
				out = append(out, PathAlias{Host: s, View: m.Path})
			}
		}
	}
	return out
}

// RewritePaths replaces in s every host path of aliases (a whole path
// component sequence: followed by "/", the end, or a character no name
// has in a command line: space, quote, ':', ';', '=', ',') by its view
// path, longest host path first: an argument, or a shell command line,
// that names a file of the model's directory names it as the node sees
// it.
func RewritePaths(s string, aliases []PathAlias) string {
	if len(aliases) == 0 {
		return s
	}
	as := append([]PathAlias(nil), aliases...)
	sort.SliceStable(as, func(i, j int) bool { return len(as[i].Host) > len(as[j].Host) })
	var b strings.Builder
	for i := 0; i < len(s); {
		if a, ok := aliasAt(s, i, as); ok && a.Host != "" {
			b.WriteString(a.View)
			i += len(a.Host)
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// aliasAt is the alias whose host path starts at s[i] as a whole path:
// not inside a longer name before it or after it.
func aliasAt(s string, i int, as []PathAlias) (PathAlias, bool) {
	if i > 0 && !pathBoundary(s[i-1]) {
		return PathAlias{}, false
	}
	for _, a := range as {
		if !strings.HasPrefix(s[i:], a.Host) {
			continue
		}
		if j := i + len(a.Host); j == len(s) || s[j] == '/' || pathBoundary(s[j]) {
			return a, true
		}
	}
	return PathAlias{}, false
}

// pathBoundary reports whether c may stand beside a path in an argument
// without being part of it.
func pathBoundary(c byte) bool {
	return strings.IndexByte(" \t\n'\":;=,(){}[]<>|&", c) >= 0
}

// ReadHost is the host path of the view's path p when p lies below a
// read-only mount the view shows at another path than the host's (the
// model's directory): what weft's own reports name for people, who know
// the model by where it lies; false otherwise (the run directory's paths
// are reported as the node names them).
func (v *View) ReadHost(p string) (string, bool) {
	p = path.Clean(p)
	k, m := v.classify(p)
	if k != placeHost || m.Writable || !m.remapped() {
		return "", false
	}
	return m.host(p), true
}
