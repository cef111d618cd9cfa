//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Readlink implements readlink(2): the path resolves in the node's view
// (its final symlink not followed); a host symlink is read by weft, /proc
// and /sys links through the table (procHostPath), /dev's links from the
// view; anything else is not a link (EINVAL).
func sysReadlink(c *call) result { return readlinkAt(c, fsPath(0, false), c.arg(1), c.arg(2)) }

// Readlinkat implements readlinkat(2).
func sysReadlinkat(c *call) result { return readlinkAt(c, fsAt(0, 1, false, -1), c.arg(2), c.arg(3)) }

func readlinkAt(c *call, a fsArg, buf, size uint64) result {
	wh, err := c.resolveArg(a)
	switch {
	case err != nil:
		return errno(pathErrno(err))
	case wh.fd:
		return errno(unix.ENOENT) // an empty path names no link here
	case int64(size) <= 0:
		return errno(unix.EINVAL)
	}
	link, err := c.readlinkIn(wh.res)
	if err != nil {
		return errno(pathErrno(err))
	}
	b := []byte(link)[:min(uint64(len(link)), size)]
	if err := c.write(buf, b); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(len(b)))
}

// readlinkIn reads the link at r.
func (c *call) readlinkIn(r vkernel.Result) (string, error) {
	switch {
	case r.Kind == vkernel.Missing:
		return "", unix.ENOENT
	case r.Kind == vkernel.Proc && strings.HasPrefix(r.Path, "/dev/"):
		return vkernel.DevLink(r.Path), nil
	case r.Kind == vkernel.Proc:
		if link, ok := vkernel.ProcSelfLink(r.Path, c.procCaller()); ok {
			return link, nil
		}
		link, err := os.Readlink(c.procHostPath(r.Path))
		var e *os.PathError
		if errors.As(err, &e) {
			return "", e.Err
		}
		if err != nil {
			return "", err
		}
		if l, ok := c.fdLink(r.Path, link); ok {
			return l, nil
		}
		if v, ok := c.viewName(link); ok {
			return v, nil
		}
		return "", unix.ENOENT // a file outside the view: no name the node may see
	case r.Kind == vkernel.Host && r.Type == vkernel.TypeSymlink:
		return hostFS{}.Readlink(r.HostPath)
	}
	return "", unix.EINVAL
}

// fdPath matches a descriptor's link in the caller's own /proc directory.
var fdPath = regexp.MustCompile(`^/proc/(?:self|thread-self)(?:/task/[0-9]+)?/fd/([0-9]+)$`)

// hostObject matches the link of a kernel object without a path: its
// type and the host's inode number ("socket:[10925983]", "pipe:[77]").
var hostObject = regexp.MustCompile(`^([a-z_]+):\[([0-9]+)\]$`)

// fdLink is the link of a descriptor as Linux would show it in the
// node's world, for a descriptor weft serves or a kernel object the host
// numbers: a served kind names itself (its placeholder is a socket), and
// a host inode number becomes a virtual one, stable across runs.
func (c *call) fdLink(path, link string) (string, bool) {
	if m := fdPath.FindStringSubmatch(path); m != nil {
		fd, _ := strconv.Atoi(m[1])
		if v := c.n.fds.At(fd); v != nil {
			switch o := v.obj.(type) {
			case anonInode:
				return o.anonName(), true
			case *randomDev:
				return o.path(), true
			}
		}
	}
	if m := hostObject.FindStringSubmatch(link); m != nil {
		// Numbered as the table numbers every file without a path: in the
		// order the world meets it, by its host identity (under a device
		// no host file has, one per object type).
		ino, _ := strconv.ParseUint(m[2], 10, 64)
		h := fnv.New64a()
		h.Write([]byte("link:" + m[1]))
		f := vkernel.HostFile{HostIno: vkernel.HostIno{Dev: h.Sum64() | 1<<63, Ino: ino}}
		return fmt.Sprintf("%s:[%d]", m[1], c.w.inodeTable().Ino(f, "")), true
	}
	return "", false
}
