//go:build linux && amd64

package supervisor

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// AF_UNIX sockets inside a node (unix(7)): stream, datagram and seqpacket,
// from socket(2) and socketpair(2), served in Go. Queues, connections and
// names are weft's (vkernel.UnixSocket and vkernel.UnixNames hold them and
// their rules; this file and sys_unix_*.go are the edge); the node's descriptor is one end of a real, idle unix
// socket pair of the same type (so SO_TYPE, fstat and F_GETFL answer
// natively). Names live in a namespace of the node's own (node.unixNs):
// an abstract name never reaches the host's abstract namespace, so a node
// cannot reach a host daemon, nor two worlds each other. A path name must
// lie in the node's run directory, where weft creates the socket file
// (unlinking it natively makes the name unreachable, as in Linux); a path
// elsewhere cannot be bound (EACCES) and connects nowhere (ECONNREFUSED).

// unixSock is one AF_UNIX socket's open file description: the socket's
// state and rules are vkernel.UnixSocket's. It is a value: every
// descriptor of the socket holds an equal one, so the socket pointer is
// the description (hashes, references in flight).
type unixSock struct{ *vkernel.UnixSocket }

// sunPathMax is sizeof(sun_path).
const sunPathMax = 108

// unixSocket implements socket(2) for AF_UNIX.
func sysUnixSocket(c *call) result {
	typ, flags, e := vkernel.UnixPairArgs(c.arg(0), c.arg(1), c.arg(2)) // unix_create's checks, socketpair's too
	if e != 0 {
		return errno(unix.Errno(e))
	}
	ph, err := unix.Socketpair(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	unix.Close(ph[1])
	return c.installOne(&vfd{obj: unixSock{vkernel.NewUnixSocket(typ)}}, ph[0], flags&unix.SOCK_NONBLOCK != 0, flags&unix.SOCK_CLOEXEC != 0)
}

// Socketpair implements socketpair(2): AF_UNIX only, as in Linux. The
// type's flags are checked first, then the array the descriptors go to
// (Linux writes their numbers before it creates a socket), then the
// family's own rules (vkernel.SocketpairArgs).
func sysSocketpair(c *call) result {
	if e := vkernel.SocketTypeFlags(c.arg(1)); e != 0 {
		return errno(unix.Errno(e))
	}
	netRaw := uint32(c.arg(0)) != unix.AF_UNIX && c.netRaw()
	typ, typFlags, e := vkernel.SocketpairArgs(c.arg(0), c.arg(1), c.arg(2), netRaw)
	if _, err := c.read(c.arg(3), 8); e != 0 || err != nil {
		return c.pairRefused(unix.Errno(e))
	}
	ph, err := unix.Socketpair(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	a, b := vkernel.NewUnixPair(typ)
	flags := uint64(0)
	if typFlags&unix.SOCK_NONBLOCK != 0 {
		flags |= unix.O_NONBLOCK
	}
	if typFlags&unix.SOCK_CLOEXEC != 0 {
		flags |= unix.O_CLOEXEC
	}
	return c.installPair(&vfd{obj: unixSock{a}}, &vfd{obj: unixSock{b}}, ph[0], ph[1], c.arg(3), flags)
}

// pairRefused answers a socketpair whose array cannot take both numbers
// (e 0) or whose family, type or protocol is refused (e), as Linux does:
// it takes the two lowest free descriptor numbers (EMFILE if there is no
// room for both: nothing written) and writes each to the array before it
// makes the sockets (__sys_socketpair), so the array gets the numbers it
// can hold (EFAULT at the first it cannot) and, all written, the refusal;
// the numbers are free again after.
func (c *call) pairRefused(e unix.Errno) result {
	open, err := c.hostFDs()
	if err != nil {
		return failf("listing the descriptors of process %d: %v", c.n.memPid(), err)
	}
	own, _ := c.limits().Get(vkernel.RlimitNOFILE) // the caller's soft limit; the host's is the bound
	limit := int(min(own.Cur, uint64(c.w.maxFDs())))
	fd1, err := vkernel.LowestFree(func(n int) bool { return open[n] }, 0, limit)
	if err != nil {
		return vkAnswer(err)
	}
	fd2, err := vkernel.LowestFree(func(n int) bool { return open[n] || n == fd1 }, fd1+1, limit)
	if err != nil {
		return vkAnswer(err)
	}
	for i, fd := range []int{fd1, fd2} {
		var b [4]byte
		putU32(b[:], uint32(fd))
		if c.write(c.arg(3)+uint64(4*i), b[:]) != nil {
			return errno(unix.EFAULT)
		}
	}
	if e == 0 {
		return errno(unix.EFAULT) // unreadable yet writable: no such page on x86-64; as the read answered
	}
	return errno(e)
}

// netRaw reports whether the calling thread has CAP_NET_RAW in its
// effective set (the host's: weft passes the credentials of the user who
// runs it).
func (c *call) netRaw() bool {
	sets, err := hostCaps(c.n.memPid(), c.t.tid)
	return err == nil && sets[0]&(1<<unix.CAP_NET_RAW) != 0
}

var unixOps = map[int]fileOp{
	unix.SYS_READ:        func(c *call, v *vfd) result { return unixRecv(c, v, []iovec{{c.arg(1), c.arg(2)}}, 0, 0, 0) },
	unix.SYS_READV:       unixReadv,
	unix.SYS_WRITE:       func(c *call, v *vfd) result { return unixWrite(c, v, false) },
	unix.SYS_WRITEV:      func(c *call, v *vfd) result { return unixWrite(c, v, true) },
	unix.SYS_PREAD64:     espipe,
	unix.SYS_PWRITE64:    espipe,
	unix.SYS_RECVFROM:    unixRecvfrom,
	unix.SYS_SENDTO:      unixSendto,
	unix.SYS_RECVMSG:     unixRecvmsg,
	unix.SYS_SENDMSG:     unixSendmsg,
	unix.SYS_BIND:        unixBind,
	unix.SYS_LISTEN:      unixListen,
	unix.SYS_ACCEPT:      func(c *call, v *vfd) result { return unixAccept(c, v, 0) },
	unix.SYS_ACCEPT4:     func(c *call, v *vfd) result { return unixAccept(c, v, c.arg(3)) },
	unix.SYS_CONNECT:     unixConnect,
	unix.SYS_SHUTDOWN:    unixShutdown,
	unix.SYS_GETSOCKNAME: func(c *call, v *vfd) result { return c.putUnixName(c.arg(1), c.arg(2), sockOf(v).Name(), 2) },
	unix.SYS_GETPEERNAME: unixGetpeername,
	unix.SYS_GETSOCKOPT:  unixGetsockopt,
	unix.SYS_SETSOCKOPT:  unixSetsockopt,
	unix.SYS_IOCTL:       unixIoctl,
}

// unixAnswer is a socket call's answer: 0, or its error (vkAnswer).
func unixAnswer(err error) result {
	if err == nil {
		return ret(0)
	}
	return vkAnswer(err)
}

// sockOf is the socket of an AF_UNIX descriptor.
func sockOf(v *vfd) *vkernel.UnixSocket { return v.obj.(unixSock).UnixSocket }

func (s unixSock) ops() map[int]fileOp { return unixOps }

func (unixSock) Kind() vkernel.FileKind { return socketFileKind }

func (s unixSock) Wake(_ vkernel.FileWorld, x *vkernel.EpollEntry) [2]uint64 {
	return x.WakeOf(s.Gens())
}

func (s unixSock) Events(vkernel.FileWorld) uint32 { return s.UnixSocket.Events() }

// Hash writes s and, once each, the sockets it reaches (its peer, its
// waiting connections), numbered as their descriptions are.
func (s unixSock) Hash(h *vkernel.FileHasher) {
	h.Put(fileTagInNode)
	s.UnixSocket.Hash(vkernel.UnixHasher{
		Put: h.Put,
		Ref: func(t *vkernel.UnixSocket) (uint64, bool) { return h.IDs(unixSock{t}) },
		Right: func(r any) {
			if pf := r.(*passedFD); pf.v != nil {
				hashDesc(h, pf.v)
				return
			}
			h.Put(0)
		},
	})
}

// Release closes the socket (vkernel.UnixSocket.Close) and the
// descriptors in flight on it.
func (s unixSock) Release(w vkernel.FileWorld) { s.Close(w.UnixNames(), w.DropRight) }

// unixName decodes a struct sockaddr_un of length n at addr: the name as
// stored (family, then the path with one NUL, or the abstract bytes), and
// whether it is a path. A bare family (n == 2) is an empty name.
func (c *call) unixName(addr, n uint64) ([]byte, bool, unix.Errno) {
	if n < 2 || n > 2+sunPathMax {
		return nil, false, unix.EINVAL
	}
	b, err := c.read(addr, int(n))
	if err != nil {
		return nil, false, unix.EFAULT
	}
	if binary.LittleEndian.Uint16(b) != unix.AF_UNIX {
		return nil, false, unix.EINVAL
	}
	if n == 2 || b[2] == 0 {
		return b, false, 0
	}
	path := b[2:]
	if i := bytes.IndexByte(path, 0); i >= 0 {
		path = path[:i]
	}
	return append(append(b[:2:2], path...), 0), true, 0
}

// unixHostPath resolves a path name in the node's view (its final
// symlink not followed, as bind and connect do not) and returns its host
// path, and whether it lies in the node's run directory.
func (c *call) unixHostPath(name []byte) (string, bool) {
	p := string(name[2 : len(name)-1])
	start := "/"
	if !strings.HasPrefix(p, "/") {
		var err error
		if start, err = c.startDir(unix.AT_FDCWD); err != nil {
			return "", false
		}
	}
	res, err := c.view().Resolve(hostFS{}, start, p, false)
	if err != nil || res.Kind != vkernel.Host && res.Kind != vkernel.Missing {
		return "", false
	}
	return res.HostPath, res.Writable
}

// pathKey is the namespace key of the socket file at p: its inode.
func pathKey(p string) (string, unix.Errno) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return "", errnoOf(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return "", unix.ECONNREFUSED
	}
	return fmt.Sprintf("p%d:%d", st.Dev, st.Ino), 0
}

// unixBind implements bind(2): a path in the run directory (weft creates
// the socket file), an abstract name, or (a bare family) an automatic
// abstract name (vkernel.UnixNames.Bind).
func unixBind(c *call, v *vfd) result {
	s := sockOf(v)
	name, isPath, e := c.unixName(c.arg(1), c.arg(2))
	if e != 0 {
		return errno(e)
	}
	if s.Name() != nil {
		return errno(unix.EINVAL)
	}
	key := ""
	if isPath {
		p, ok := c.unixHostPath(name)
		if !ok {
			return c.refuseWrite(string(name[2:]))
		}
		if err := atParent(p, func(dir int, name string) error { return unix.Mknodat(dir, name, unix.S_IFSOCK|0o755, 0) }); err != nil {
			if err == unix.EEXIST {
				return errno(unix.EADDRINUSE)
			}
			return errno(errnoOf(err))
		}
		if key, e = pathKey(p); e != 0 {
			return errno(e)
		}
	}
	return unixAnswer(c.n.unixNs.Bind(s, name, key))
}

// lookupName finds the socket of type typ a name designates
// (vkernel.UnixNames.Lookup): a path is ENOENT with no file, ECONNREFUSED
// outside the run directory.
func (c *call) lookupName(name []byte, isPath bool, typ int) (*vkernel.UnixSocket, error) {
	key := ""
	if isPath {
		p, ok := c.unixHostPath(name)
		if !ok {
			return nil, vkernel.ECONNREFUSED
		}
		var e unix.Errno
		if key, e = pathKey(p); e != 0 {
			return nil, vkernel.Errno(e)
		}
	}
	return c.n.unixNs.Lookup(name, key, typ)
}

// unixListen implements listen(2).
func unixListen(c *call, v *vfd) result {
	return unixAnswer(sockOf(v).Listen(int32(c.arg(1))))
}

// unixConnect implements connect(2) (vkernel.UnixSocket.Connect); a
// datagram socket connected to AF_UNSPEC forgets its destination.
func unixConnect(c *call, v *vfd) result {
	s := sockOf(v)
	if s.Dgram() && c.arg(2) >= 2 {
		if b, err := c.read(c.arg(1), 2); err == nil && binary.LittleEndian.Uint16(b) == unix.AF_UNSPEC {
			s.Disconnect()
			return ret(0)
		}
	}
	name, isPath, e := c.unixName(c.arg(1), c.arg(2))
	if e != 0 {
		return errno(e)
	}
	if len(name) == 2 {
		return errno(unix.EINVAL)
	}
	if err := s.CanConnect(); err != nil {
		return vkAnswer(err)
	}
	t, err := c.lookupName(name, isPath, s.Type())
	if err != nil {
		return vkAnswer(err)
	}
	if err := s.Connect(t, c.unixNonblock(v, 0, unix.SO_SNDTIMEO)); err != nil {
		return c.unixErr(v, err, unix.SO_SNDTIMEO) // a full backlog: SO_SNDTIMEO bounds the wait (unix_stream_connect)
	}
	return ret(0)
}

// unixAccept implements accept(2) and accept4(2): the connection leaves
// the backlog once its descriptor is installed.
func unixAccept(c *call, v *vfd, flags uint64) result {
	s := sockOf(v)
	if e := vkernel.Accept4Flags(flags); e != 0 { // an int: the low 32 bits
		return errno(unix.Errno(e))
	}
	srv, err := s.Pending(c.unixNonblock(v, 0, unix.SO_RCVTIMEO))
	if err != nil {
		return c.unixErr(v, err, unix.SO_RCVTIMEO) // SO_RCVTIMEO bounds the wait (unix_accept)
	}
	if e := c.putUnixName(c.arg(1), c.arg(2), srv.PeerNameOf(), 2); e.errno != 0 {
		return e
	}
	ph, perr := unix.Socketpair(unix.AF_UNIX, s.Type()|unix.SOCK_CLOEXEC, 0)
	if perr != nil {
		return errno(errnoOf(perr))
	}
	unix.Close(ph[1])
	r := c.installOne(&vfd{obj: unixSock{srv}}, ph[0], flags&unix.SOCK_NONBLOCK != 0, flags&unix.SOCK_CLOEXEC != 0)
	if r.kind == rReturn && r.errno == 0 {
		s.Accepted()
	}
	return r
}

// putUnixName stores a name with its value-result length at lenp; an
// unnamed socket is a bare family (unnamed 2) or nothing (unnamed 0, as
// recvfrom reports an unnamed sender).
func (c *call) putUnixName(addr, lenp uint64, name []byte, unnamed int) result {
	if addr == 0 || lenp == 0 {
		return ret(0)
	}
	have, err := c.readU32(lenp)
	if err != nil {
		return errno(unix.EFAULT)
	}
	if int32(have) < 0 {
		return errno(unix.EINVAL)
	}
	if name == nil {
		name = []byte{byte(unix.AF_UNIX), 0}[:unnamed]
	}
	if err := c.write(addr, name[:min(int(have), len(name))]); err != nil {
		return errno(unix.EFAULT)
	}
	return errno(errnoOf(c.writeU32(lenp, uint32(len(name)))))
}

// unixGetpeername implements getpeername(2).
func unixGetpeername(c *call, v *vfd) result {
	name, err := sockOf(v).PeerName()
	if err != nil {
		return vkAnswer(err)
	}
	return c.putUnixName(c.arg(1), c.arg(2), name, 2)
}

// unixShutdown implements shutdown(2).
func unixShutdown(c *call, v *vfd) result { return unixAnswer(sockOf(v).Shutdown(c.arg(1))) }

// unixGetsockopt serves the options whose answer the placeholder would
// get wrong: the peer's credentials (the node's virtual pid and the
// user's ids), whether the socket listens, its pending error, its
// timeouts (weft's, in virtual ticks); every other option is read from
// the placeholder.
func unixGetsockopt(c *call, v *vfd) result {
	s := sockOf(v)
	if c.arg(1) != unix.SOL_SOCKET {
		return cont()
	}
	var val []byte
	switch c.arg(2) {
	case unix.SO_PEERCRED:
		if !s.PeerCreds() {
			val = binary.LittleEndian.AppendUint32(nil, 0)
			val = binary.LittleEndian.AppendUint32(val, ^uint32(0))
			val = binary.LittleEndian.AppendUint32(val, ^uint32(0))
		} else {
			val = binary.LittleEndian.AppendUint32(nil, uint32(c.n.vpid()))
			val = binary.LittleEndian.AppendUint32(val, uint32(os.Getuid()))
			val = binary.LittleEndian.AppendUint32(val, uint32(os.Getgid()))
		}
	case unix.SO_ACCEPTCONN:
		val = binary.LittleEndian.AppendUint32(nil, uint32(boolBits(s.Listening())))
	case unix.SO_ERROR:
		val = binary.LittleEndian.AppendUint32(nil, uint32(s.TakeError()))
	case unix.SO_PEERPIDFD, unix.SO_PEERSEC, unix.SO_PEERGROUPS:
		return errno(unix.ENOPROTOOPT)
	case unix.SO_RCVTIMEO, unix.SO_SNDTIMEO, unix.SO_RCVTIMEO_NEW, unix.SO_SNDTIMEO_NEW:
		return c.putOption(s.Timeout(sndTimeoutOpt(c.arg(2))).Timeval()) // sock_get_timeout: cut to *optlen
	default:
		return cont()
	}
	have, err := c.readU32(c.arg(4))
	if err != nil {
		return errno(unix.EFAULT)
	}
	if err := c.write(c.arg(3), val[:min(int(have), len(val))]); err != nil {
		return errno(unix.EFAULT)
	}
	return errno(errnoOf(c.writeU32(c.arg(4), uint32(min(int(have), len(val))))))
}

// unixSetsockopt keeps options on the placeholder, where getsockopt
// reads them, but for SO_RCVTIMEO and SO_SNDTIMEO, which weft keeps
// itself (setTimeout, vkernel.UnixSocket.SetTimeout).
func unixSetsockopt(c *call, v *vfd) result {
	if c.arg(1) != unix.SOL_SOCKET || !sockTimeoutOpts[c.arg(2)] {
		return cont()
	}
	return c.setTimeout(sockOf(v))
}

// timeoutSock is a socket whose SO_RCVTIMEO (snd false) and SO_SNDTIMEO
// weft keeps, in ticks of the virtual HZ: AF_UNIX and netlink (an inet
// socket's are vkernel.InetOptValues').
type timeoutSock interface {
	Timeout(snd bool) vkernel.SockTimeout
	SetTimeout(snd bool, t vkernel.SockTimeout)
}

// setTimeout serves setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO or SO_SNDTIMEO,
// ...) on s: a valid timeval is kept in virtual ticks
// (vkernel.ParseSockTimeout), never on the placeholder, whose kernel
// would round it to the host's tick; tv_usec outside 0..999999 is EDOM.
// A value the kernel would refuse otherwise (optlen below a timeval, an
// unreadable one) goes to the placeholder, which refuses it.
func (c *call) setTimeout(s timeoutSock) result {
	if int32(c.arg(4)) < sizeofTimeval {
		return cont()
	}
	tv, err := c.read(c.arg(3), sizeofTimeval)
	if err != nil {
		return cont()
	}
	t, e := vkernel.ParseSockTimeout(tv)
	if e != 0 {
		return errno(unix.Errno(e))
	}
	s.SetTimeout(sndTimeoutOpt(c.arg(2)), t)
	return ret(0)
}

// sndTimeoutOpt reports whether a SOL_SOCKET timeout option is
// SO_SNDTIMEO (either form), not SO_RCVTIMEO.
func sndTimeoutOpt(opt uint64) bool { return opt == unix.SO_SNDTIMEO || opt == unix.SO_SNDTIMEO_NEW }

// sockTimeoutOpts are the SOL_SOCKET timeout options; on amd64 the _OLD
// and _NEW forms both take a 64-bit struct timeval (sock_set_timeout).
var sockTimeoutOpts = map[uint64]bool{
	unix.SO_RCVTIMEO: true, unix.SO_SNDTIMEO: true, unix.SO_RCVTIMEO_NEW: true, unix.SO_SNDTIMEO_NEW: true,
}

const sizeofTimeval = 16

// unixIoctl serves FIONREAD (SIOCINQ) and SIOCOUTQ; others run on the
// placeholder (FIONBIO sets O_NONBLOCK on the shared description).
func unixIoctl(c *call, v *vfd) result {
	s := sockOf(v)
	switch c.arg(1) {
	case unix.TIOCINQ:
		n, err := s.InQueue()
		if err != nil {
			return vkAnswer(err)
		}
		return errno(errnoOf(c.writeU32(c.arg(2), uint32(n))))
	case unix.TIOCOUTQ:
		return errno(errnoOf(c.writeU32(c.arg(2), uint32(s.OutQueue()))))
	}
	return sysIoctl(c)
}
