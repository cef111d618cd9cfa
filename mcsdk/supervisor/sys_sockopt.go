//go:build linux && amd64

package supervisor

import (
	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// inetSetsockopt implements setsockopt(2) for the options vkernel serves
// (vkernel.SetsockoptLen, InetOptValues.Set); any other option ends the
// run naming it.
func inetSetsockopt(c *call, v *vfd) result {
	opt := vkernel.SockOpt{Level: c.arg(1), Name: c.arg(2)}
	s := netsimSock{v.sock()}
	n, e, modelled := vkernel.SetsockoptLen(s, opt, c.arg(4))
	switch {
	case !modelled:
		return c.unmodelledOption("setsockopt", opt)
	case e != 0:
		return errno(unix.Errno(e))
	}
	val, err := c.read(c.arg(3), n)
	if err != nil {
		return errno(unix.EFAULT)
	}
	if e := c.n.opts.Set(s.ID, s, opt, val, c.netPrivileged); e != 0 {
		return errno(unix.Errno(e))
	}
	return ret(0)
}

// CAP_NET_ADMIN's and CAP_NET_RAW's bits in a capability set.
const capNetAdmin, capNetRaw = 12, 13

// netPrivileged reports whether the calling thread has CAP_NET_ADMIN or
// CAP_NET_RAW in its effective set (the node's credentials are its
// threads' own: setuid and capset pass through). A set weft cannot read
// grants nothing.
func (c *call) netPrivileged() bool {
	caps, err := hostCaps(c.n.memPid(), c.t.tid)
	return err == nil && caps[0]&(1<<capNetAdmin|1<<capNetRaw) != 0
}

// rcvTimeout is SO_RCVTIMEO in nanoseconds (0 = none; negative: zero,
// the call does not wait).
func (n *node) rcvTimeout(v *vfd) int64 { return n.opts.Timeout(v.sock().ID, false) }

// sndTimeout is SO_SNDTIMEO in nanoseconds (0 = none; negative: zero, as
// rcvTimeout): it bounds blocking sends and connects (socket(7)).
func (n *node) sndTimeout(v *vfd) int64 { return n.opts.Timeout(v.sock().ID, true) }

// sockDeadline is the world deadline of a blocking socket call whose
// SO_RCVTIMEO or SO_SNDTIMEO is t ns of the node's time (-1, none, when
// t is not positive).
func (c *call) sockDeadline(t int64) int64 {
	if t <= 0 {
		return -1
	}
	return c.after(t)
}

// inetGetsockopt implements getsockopt(2) (vkernel.InetOptValues.Get).
func inetGetsockopt(c *call, v *vfd) result {
	opt := vkernel.SockOpt{Level: c.arg(1), Name: c.arg(2)}
	s := netsimSock{v.sock()}
	val, e := c.n.opts.Get(s.ID, s, opt)
	if e != 0 {
		return errno(unix.Errno(e))
	}
	if val == nil {
		return c.unmodelledOption("getsockopt", opt)
	}
	return c.putOption(val)
}

// putOption answers a getsockopt(fd, level, name, optval, optlen) with
// val, cut to the caller's *optlen, which it sets.
func (c *call) putOption(val []byte) result {
	have, err := c.readU32(c.arg(4))
	if err != nil {
		return errno(unix.EFAULT)
	}
	k, e := vkernel.GetsockoptLen(have, len(val))
	if e != 0 {
		return errno(unix.Errno(e))
	}
	if err := c.write(c.arg(3), val[:k]); err != nil {
		return errno(unix.EFAULT)
	}
	return errno(errnoOf(c.writeU32(c.arg(4), uint32(k))))
}

// unmodelledOption ends the run at an option weft does not model, naming
// the call, the option and the thread (the node is the failure's).
func (c *call) unmodelledOption(call string, opt vkernel.SockOpt) result {
	return failf("%s: %s %s is not modelled", c.t.name(), call, vkernel.OptionName(opt))
}

// netsimSock is a socket of the virtual network as vkernel's option
// rules see it (vkernel.InetSocket).
type netsimSock struct{ *netsim.Socket }

func (s netsimSock) Stream() bool      { return s.Kind == netsim.Stream }
func (s netsimSock) V6() bool          { return s.Socket.V6 }
func (s netsimSock) Bound() bool       { return s.Local.Port != 0 }
func (s netsimSock) V6Only() bool      { return s.Socket.V6Only }
func (s netsimSock) SetV6Only(on bool) { s.Socket.V6Only = on }
func (s netsimSock) Buf(snd bool) int {
	return map[bool]func() int{true: s.SndBuf, false: s.RcvBuf}[snd]()
}
func (s netsimSock) TakeError() vkernel.Errno { return vkernel.Errno(sysErrno(s.Socket.TakeError())) }

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	if e, ok := err.(unix.Errno); ok {
		return e
	}
	return unix.EIO
}
