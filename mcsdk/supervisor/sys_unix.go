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
// names are weft's; the node's descriptor is one end of a real, idle unix
// socket pair of the same type (so SO_TYPE, fstat and F_GETFL answer
// natively). Names live in a namespace of the node's own (node.unixNs):
// an abstract name never reaches the host's abstract namespace, so a node
// cannot reach a host daemon, nor two worlds each other. A path name must
// lie in the node's run directory, where weft creates the socket file
// (unlinking it natively makes the name unreachable, as in Linux); a path
// elsewhere cannot be bound (EACCES) and connects nowhere (ECONNREFUSED).

// unixSock is one AF_UNIX socket.
type unixSock struct {
	typ       int
	name      []byte // bound address as getsockname reports it (family first); nil unbound
	key       string // its key in node.unixNs, "" if none
	listening bool
	backlog   []*unixSock // connections waiting for accept (their server ends)
	maxQueue  int         // listen backlog
	peer      *unixSock   // the other end (stream, seqpacket) or the default destination (datagram)
	connected bool        // stream or seqpacket: has (had) a peer
	queue     []unixMsg   // received, unread
	queued    int         // bytes in queue
	shut      uint8       // shutRcv, shutSend
	err       unix.Errno  // a pending error (SO_ERROR): ECONNRESET when the peer closed with unread data
	closed    bool
	creds     bool   // the peer's credentials are known (socketpair, a stream or seqpacket connection)
	readCred  *ucred // the credentials of what the current read takes (unixTake), for its SCM_CREDENTIALS
	genIn     uint64
	genOut    uint64
}

// unixMsg is one queued message (a stream's bytes may span several).
type unixMsg struct {
	data []byte
	from []byte      // the sender's name (datagrams)
	fds  []*passedFD // descriptors in flight (SCM_RIGHTS)
	cred *ucred      // the sender's credentials (sys_unix_creds.go)
}

const (
	shutRcv  = 1
	shutSend = 2
	// unixCapacity bounds a socket's unread bytes (net.core.wmem_default).
	unixCapacity = 212992
	// unixDgramQlen bounds a datagram socket's unread messages from
	// others (net.unix.max_dgram_qlen, 10, plus the one the kernel admits
	// beyond it).
	unixDgramQlen = 11
	// sunPathMax is sizeof(sun_path).
	sunPathMax = 108
)

func (s *unixSock) stream() bool { return s.typ == unix.SOCK_STREAM }
func (s *unixSock) dgram() bool  { return s.typ == unix.SOCK_DGRAM }

// unixType is a socket type argument without its flags; SOCK_RAW is
// SOCK_DGRAM, as af_unix makes it.
func unixType(arg uint64) uint64 {
	typ := arg &^ uint64(unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	if typ == unix.SOCK_RAW {
		return unix.SOCK_DGRAM
	}
	return typ
}

// unixTypes are the socket types modelled.
var unixTypes = map[uint64]bool{unix.SOCK_STREAM: true, unix.SOCK_DGRAM: true, unix.SOCK_SEQPACKET: true}

// unixSocket implements socket(2) for AF_UNIX.
func sysUnixSocket(c *call) result {
	typ := unixType(c.arg(1))
	if !unixTypes[typ] {
		return errno(unix.ESOCKTNOSUPPORT)
	}
	if c.arg(2) != 0 {
		return errno(unix.EPROTONOSUPPORT)
	}
	ph, err := unix.Socketpair(unix.AF_UNIX, int(typ)|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	unix.Close(ph[1])
	return c.installOne(&vfd{obj: &unixSock{typ: int(typ)}}, ph[0], c.arg(1)&unix.SOCK_NONBLOCK != 0, c.arg(1)&unix.SOCK_CLOEXEC != 0)
}

// Socketpair implements socketpair(2): AF_UNIX only, as in Linux.
func sysSocketpair(c *call) result {
	typ := unixType(c.arg(1))
	switch {
	case c.arg(0) != unix.AF_UNIX:
		return errno(unix.EOPNOTSUPP)
	case !unixTypes[typ]:
		return errno(unix.ESOCKTNOSUPPORT)
	case c.arg(2) != 0:
		return errno(unix.EPROTONOSUPPORT)
	}
	ph, err := unix.Socketpair(unix.AF_UNIX, int(typ)|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	a, b := &unixSock{typ: int(typ)}, &unixSock{typ: int(typ)}
	a.peer, b.peer = b, a
	a.connected, b.connected = !a.dgram(), !b.dgram()
	a.creds, b.creds = true, true
	flags := uint64(0)
	if c.arg(1)&unix.SOCK_NONBLOCK != 0 {
		flags |= unix.O_NONBLOCK
	}
	if c.arg(1)&unix.SOCK_CLOEXEC != 0 {
		flags |= unix.O_CLOEXEC
	}
	return c.installPair(&vfd{obj: a}, &vfd{obj: b}, ph[0], ph[1], c.arg(3), flags)
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
	unix.SYS_GETSOCKNAME: func(c *call, v *vfd) result { return c.putUnixName(c.arg(1), c.arg(2), v.obj.(*unixSock).name, 2) },
	unix.SYS_GETPEERNAME: unixGetpeername,
	unix.SYS_GETSOCKOPT:  unixGetsockopt,
	unix.SYS_SETSOCKOPT:  func(*call, *vfd) result { return cont() }, // kept on the placeholder (timeouts are read back from it)
	unix.SYS_IOCTL:       unixIoctl,
}

func (s *unixSock) ops() map[int]fileOp { return unixOps }

func (s *unixSock) wake(_ *call, x *vkernel.EpollEntry) [2]uint64 { return x.WakeOf(s.genIn, s.genOut) }

// events follows unix_poll and unix_dgram_poll.
func (s *unixSock) events(*call) uint32 {
	var ev uint32
	if s.listening {
		if len(s.backlog) > 0 {
			ev |= unix.EPOLLIN | unix.EPOLLRDNORM
		}
		return ev
	}
	if len(s.queue) > 0 || s.shut&shutRcv != 0 {
		ev |= unix.EPOLLIN | unix.EPOLLRDNORM
	}
	if s.shut&shutRcv != 0 {
		ev |= unix.EPOLLRDHUP
	}
	if s.shut == shutRcv|shutSend || !s.dgram() && !s.connected {
		ev |= unix.EPOLLHUP
	}
	if s.err != 0 {
		ev |= unix.EPOLLERR
	}
	if s.writable() {
		ev |= unix.EPOLLOUT | unix.EPOLLWRNORM
	}
	return ev
}

// writable reports room in the peer's queue (a quarter of the capacity
// free, as unix_writable asks of the sender's buffer).
func (s *unixSock) writable() bool {
	p := s.peer
	if p == nil || p.closed {
		return true
	}
	if s.dgram() && p.peer != s && len(p.queue) >= unixDgramQlen {
		return false
	}
	return p.queued*4 <= unixCapacity*3
}

// hash writes s and, once each, the sockets it reaches (its peer, its
// waiting connections). The namespace key is not written: it holds the
// host's inode number, and the name covers it.
func (s *unixSock) hash(h *fileHasher) {
	h.put(fileTagInNode)
	s.hashState(h)
}

// hashState writes the socket's state (a peer's without the kind's tag).
func (s *unixSock) hashState(h *fileHasher) {
	put := h.put
	put(uint64(s.typ))
	vkernel.PutBytes(put, s.name)
	put(boolBits(s.listening, s.connected, s.closed, s.creds) | uint64(s.shut)<<8 | uint64(s.err)<<16)
	put(uint64(s.maxQueue))
	put(s.genIn)
	put(s.genOut)
	put(uint64(len(s.queue)))
	for _, m := range s.queue {
		vkernel.PutBytes(put, m.data)
		vkernel.PutBytes(put, m.from)
		m.cred.hash(put)
		put(uint64(len(m.fds)))
		for _, pf := range m.fds {
			if pf.v == nil {
				put(0)
				continue
			}
			h.desc(pf.v)
		}
	}
	s.peer.hashRef(h)
	put(uint64(len(s.backlog)))
	for _, b := range s.backlog {
		b.hashRef(h)
	}
}

// hashRef writes another socket's canonical number and, the first time,
// its state.
func (s *unixSock) hashRef(h *fileHasher) {
	if s == nil {
		h.put(0)
		return
	}
	id, old := h.ids(s)
	h.put(id)
	if !old {
		s.hashState(h)
	}
}

// release closes the socket: its name goes, waiting connections are
// reset, and a connected peer sees the end (ECONNRESET first if this end
// left data unread).
func (s *unixSock) release(w *World, n *node) {
	s.closed = true
	if s.key != "" && n.unixNs[s.key] == s {
		delete(n.unixNs, s.key)
	}
	for _, b := range s.backlog {
		b.release(w, n)
	}
	s.backlog = nil
	if p := s.peer; p != nil && !s.dgram() {
		p.shut = shutRcv | shutSend
		if len(s.queue) > 0 || s.listening {
			p.err = unix.ECONNRESET
		}
		p.genIn++
		p.genOut++
	}
	queue := s.queue
	s.queue, s.queued = nil, 0
	for _, m := range queue {
		for _, pf := range m.fds {
			pf.close(w, n)
		}
	}
}

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
// abstract name, five hex digits, the first free in order.
func unixBind(c *call, v *vfd) result {
	s := v.obj.(*unixSock)
	name, isPath, e := c.unixName(c.arg(1), c.arg(2))
	if e != 0 {
		return errno(e)
	}
	if s.name != nil {
		return errno(unix.EINVAL)
	}
	if c.n.unixNs == nil {
		c.n.unixNs = map[string]*unixSock{}
	}
	var key string
	switch {
	case len(name) == 2:
		for i := 0; ; i++ {
			name = append([]byte{byte(unix.AF_UNIX), 0, 0}, fmt.Sprintf("%05x", i)...)
			if key = "a" + string(name[2:]); c.n.unixNs[key] == nil {
				break
			}
		}
	case !isPath:
		key = "a" + string(name[2:])
		if c.n.unixNs[key] != nil {
			return errno(unix.EADDRINUSE)
		}
	default:
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
		key, e = pathKey(p)
		if e != 0 {
			return errno(e)
		}
	}
	s.name, s.key = name, key
	c.n.unixNs[key] = s
	return ret(0)
}

// lookupName finds the socket of type typ a name designates: ENOENT for
// a path with no file, ECONNREFUSED for one outside the run directory or
// with no socket bound to it; a socket of another type is EPROTOTYPE by
// path, and no match by abstract name (ECONNREFUSED), as in af_unix.
func (c *call) lookupName(name []byte, isPath bool, typ int) (*unixSock, unix.Errno) {
	key := "a" + string(name[2:])
	if isPath {
		p, ok := c.unixHostPath(name)
		if !ok {
			return nil, unix.ECONNREFUSED
		}
		var e unix.Errno
		if key, e = pathKey(p); e != 0 {
			return nil, e
		}
	}
	if t := c.n.unixNs[key]; t != nil && !t.closed {
		if t.typ == typ {
			return t, 0
		}
		if isPath {
			return nil, unix.EPROTOTYPE
		}
	}
	return nil, unix.ECONNREFUSED
}

// unixListen implements listen(2).
func unixListen(c *call, v *vfd) result {
	s := v.obj.(*unixSock)
	switch {
	case s.dgram():
		return errno(unix.EOPNOTSUPP)
	case s.name == nil || s.connected:
		return errno(unix.EINVAL)
	}
	s.listening = true
	s.maxQueue = min(max(int(int32(c.arg(1))), 0), 4096)
	return ret(0)
}

// unixConnect implements connect(2): a stream or seqpacket connection is
// queued on the listener at once (or, with its backlog full, waits); a
// datagram socket records its destination (AF_UNSPEC forgets it).
func unixConnect(c *call, v *vfd) result {
	s := v.obj.(*unixSock)
	if s.dgram() && c.arg(2) >= 2 {
		if b, err := c.read(c.arg(1), 2); err == nil && binary.LittleEndian.Uint16(b) == unix.AF_UNSPEC {
			s.peer = nil
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
	if !s.dgram() && (s.connected || s.listening) {
		if s.listening {
			return errno(unix.EINVAL)
		}
		return errno(unix.EISCONN)
	}
	t, e := c.lookupName(name, isPath, s.typ)
	if e != 0 {
		return errno(e)
	}
	if s.dgram() {
		if t.peer != nil && t.peer != s && !t.peer.closed {
			return errno(unix.EPERM)
		}
		s.peer = t
		return ret(0)
	}
	if !t.listening {
		return errno(unix.ECONNREFUSED)
	}
	if len(t.backlog) > t.maxQueue {
		if v.nonblocking() {
			return errno(unix.EAGAIN)
		}
		return park()
	}
	srv := &unixSock{typ: s.typ, name: t.name, peer: s, connected: true, creds: true}
	s.peer, s.connected, s.creds = srv, true, true
	t.backlog = append(t.backlog, srv)
	t.genIn++
	s.genOut++
	return ret(0)
}

// unixAccept implements accept(2) and accept4(2).
func unixAccept(c *call, v *vfd, flags uint64) result {
	s := v.obj.(*unixSock)
	if flags&^uint64(unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC) != 0 {
		return errno(unix.EINVAL)
	}
	switch {
	case s.dgram():
		return errno(unix.EOPNOTSUPP)
	case !s.listening:
		return errno(unix.EINVAL)
	case len(s.backlog) == 0 && v.nonblocking():
		return errno(unix.EAGAIN)
	case len(s.backlog) == 0:
		return park()
	}
	srv := s.backlog[0]
	if e := c.putUnixName(c.arg(1), c.arg(2), srv.peer.name, 2); e.errno != 0 {
		return e
	}
	ph, err := unix.Socketpair(unix.AF_UNIX, s.typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errno(errnoOf(err))
	}
	unix.Close(ph[1])
	r := c.installOne(&vfd{obj: srv}, ph[0], flags&unix.SOCK_NONBLOCK != 0, flags&unix.SOCK_CLOEXEC != 0)
	if r.kind == rReturn && r.errno == 0 {
		s.backlog = s.backlog[1:]
		s.genOut++
		if srv.peer != nil {
			srv.peer.genOut++ // a connect waiting for room may go on
		}
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
	s := v.obj.(*unixSock)
	if s.peer == nil || !s.dgram() && s.shut == shutRcv|shutSend && s.peer.closed {
		return errno(unix.ENOTCONN)
	}
	return c.putUnixName(c.arg(1), c.arg(2), s.peer.name, 2)
}

// unixShutdown implements shutdown(2); on a connection the peer sees the
// mirror image (SHUT_WR here is end of file there).
func unixShutdown(c *call, v *vfd) result {
	s := v.obj.(*unixSock)
	how := c.arg(1)
	if how > unix.SHUT_RDWR {
		return errno(unix.EINVAL)
	}
	if !s.dgram() && !s.connected {
		return errno(unix.ENOTCONN)
	}
	mode := uint8(how + 1) // SHUT_RD 0 → shutRcv, SHUT_WR 1 → shutSend, SHUT_RDWR 2 → both
	s.shut |= mode
	s.genIn++
	s.genOut++
	if p := s.peer; p != nil && !s.dgram() && !p.closed {
		p.shut |= mode>>1 | (mode&1)<<1
		p.genIn++
		p.genOut++
	}
	return ret(0)
}

// unixGetsockopt serves the options whose answer the placeholder would
// get wrong: the peer's credentials (the node's virtual pid and the
// user's ids), whether the socket listens, its pending error; every other
// option is read from the placeholder.
func unixGetsockopt(c *call, v *vfd) result {
	s := v.obj.(*unixSock)
	if c.arg(1) != unix.SOL_SOCKET {
		return cont()
	}
	var val []byte
	switch c.arg(2) {
	case unix.SO_PEERCRED:
		if !s.creds {
			val = binary.LittleEndian.AppendUint32(nil, 0)
			val = binary.LittleEndian.AppendUint32(val, ^uint32(0))
			val = binary.LittleEndian.AppendUint32(val, ^uint32(0))
		} else {
			val = binary.LittleEndian.AppendUint32(nil, uint32(c.n.vpid()))
			val = binary.LittleEndian.AppendUint32(val, uint32(os.Getuid()))
			val = binary.LittleEndian.AppendUint32(val, uint32(os.Getgid()))
		}
	case unix.SO_ACCEPTCONN:
		val = binary.LittleEndian.AppendUint32(nil, uint32(boolBits(s.listening)))
	case unix.SO_ERROR:
		val = binary.LittleEndian.AppendUint32(nil, uint32(s.err))
		s.err = 0
	case unix.SO_PEERPIDFD, unix.SO_PEERSEC, unix.SO_PEERGROUPS:
		return errno(unix.ENOPROTOOPT)
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

// unixIoctl serves FIONREAD (SIOCINQ) and SIOCOUTQ; others run on the
// placeholder (FIONBIO sets O_NONBLOCK on the shared description).
func unixIoctl(c *call, v *vfd) result {
	s := v.obj.(*unixSock)
	switch c.arg(1) {
	case unix.TIOCINQ:
		n := s.queued
		if !s.stream() && len(s.queue) > 0 {
			n = len(s.queue[0].data)
		}
		if s.listening {
			return errno(unix.EINVAL)
		}
		return errno(errnoOf(c.writeU32(c.arg(2), uint32(n))))
	case unix.TIOCOUTQ:
		n := 0
		if s.peer != nil && !s.peer.closed && !s.dgram() {
			n = s.peer.queued
		}
		return errno(errnoOf(c.writeU32(c.arg(2), uint32(n))))
	}
	return sysIoctl(c)
}
