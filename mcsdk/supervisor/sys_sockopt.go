//go:build linux && amd64

package supervisor

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// sockopt identifies an option by level and name.
type sockopt struct{ level, name uint64 }

// acceptedOptions are options a program may set that change nothing weft
// models (buffer sizes, Nagle, keep-alive, address reuse), plus the
// timeouts weft honours in virtual time.
var acceptedOptions = map[sockopt]string{
	{unix.SOL_SOCKET, unix.SO_REUSEADDR}:  "SO_REUSEADDR",
	{unix.SOL_SOCKET, unix.SO_REUSEPORT}:  "SO_REUSEPORT",
	{unix.SOL_SOCKET, unix.SO_KEEPALIVE}:  "SO_KEEPALIVE",
	{unix.SOL_SOCKET, unix.SO_RCVBUF}:     "SO_RCVBUF",
	{unix.SOL_SOCKET, unix.SO_SNDBUF}:     "SO_SNDBUF",
	{unix.SOL_SOCKET, unix.SO_LINGER}:     "SO_LINGER",
	{unix.SOL_SOCKET, unix.SO_RCVTIMEO}:   "SO_RCVTIMEO",
	{unix.SOL_SOCKET, unix.SO_SNDTIMEO}:   "SO_SNDTIMEO",
	{unix.SOL_SOCKET, unix.SO_BROADCAST}:  "SO_BROADCAST",
	{unix.IPPROTO_TCP, unix.TCP_NODELAY}:  "TCP_NODELAY",
	{unix.IPPROTO_TCP, unix.TCP_QUICKACK}: "TCP_QUICKACK",
}

// Setsockopt implements setsockopt(2) for the options in acceptedOptions;
// any other option ends the run naming it.
func sysSetsockopt(c *call) result {
	v := c.vsock(c.arg(0))
	if v == nil {
		return notSocket(c, c.arg(0))
	}
	opt := sockopt{c.arg(1), c.arg(2)}
	if _, ok := acceptedOptions[opt]; !ok {
		return failf("setsockopt level %d option %d is not modelled", opt.level, opt.name)
	}
	val, err := c.read(c.arg(3), int(min(c.arg(4), 64)))
	if err != nil {
		return errno(unix.EFAULT)
	}
	if c.n.opts == nil {
		c.n.opts = map[optKey][]byte{}
	}
	c.n.opts[optKey{v.sock.ID, opt}] = val
	return ret(0)
}

type optKey struct {
	sock int
	opt  sockopt
}

// rcvTimeout is SO_RCVTIMEO in nanoseconds (0 = none).
func (n *node) rcvTimeout(v *vfd) int64 {
	b := n.opts[optKey{v.sock.ID, sockopt{unix.SOL_SOCKET, unix.SO_RCVTIMEO}}]
	if len(b) < 16 {
		return 0
	}
	sec := int64(binary.LittleEndian.Uint64(b))
	usec := int64(binary.LittleEndian.Uint64(b[8:]))
	return sec*1e9 + usec*1e3
}

// Getsockopt implements getsockopt(2): SO_ERROR (always 0: errors are
// reported by the calls themselves), SO_TYPE, and options set before.
func sysGetsockopt(c *call) result {
	v := c.vsock(c.arg(0))
	if v == nil {
		return notSocket(c, c.arg(0))
	}
	opt := sockopt{c.arg(1), c.arg(2)}
	var val []byte
	switch {
	case opt == sockopt{unix.SOL_SOCKET, unix.SO_ERROR}:
		val = make([]byte, 4)
	case opt == sockopt{unix.SOL_SOCKET, unix.SO_TYPE}:
		val = binary.LittleEndian.AppendUint32(nil, uint32(map[bool]int{true: unix.SOCK_STREAM, false: unix.SOCK_DGRAM}[v.sock.Kind == 0]))
	default:
		if _, ok := acceptedOptions[opt]; !ok {
			return failf("getsockopt level %d option %d is not modelled", opt.level, opt.name)
		}
		val = c.n.opts[optKey{v.sock.ID, opt}]
		if val == nil {
			val = make([]byte, 4)
		}
	}
	have, err := c.readU32(c.arg(4))
	if err != nil {
		return errno(unix.EFAULT)
	}
	k := min(int(have), len(val))
	if err := c.write(c.arg(3), val[:k]); err != nil {
		return errno(unix.EFAULT)
	}
	return errno(errnoOf(c.writeU32(c.arg(4), uint32(k))))
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(unix.Errno); ok {
		return e
	}
	return unix.EIO
}
