//go:build linux && amd64

package supervisor

import (
	"errors"
	"os"
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
		if v, ok := c.viewName(link); ok {
			return v, nil
		}
		return "", unix.ENOENT // a file outside the view: no name the node may see
	case r.Kind == vkernel.Host && r.Type == vkernel.TypeSymlink:
		return hostFS{}.Readlink(r.HostPath)
	}
	return "", unix.EINVAL
}
