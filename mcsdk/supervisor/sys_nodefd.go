//go:build linux && amd64

package supervisor

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Served descriptors: one file model for every kind weft serves (inet
// sockets of the virtual network, /dev/random and /dev/urandom, timerfds,
// epoll instances, and the in-node pipes, eventfds, AF_UNIX and netlink
// sockets and signalfds). Each is a nodeFile; vfd holds one.
//
// The in-node kinds' state lives in weft, in Go, like the virtual
// network's: a read
// that would block parks in weft and is retried whenever something in the
// world can have changed it, and the state is part of the world hash. The
// node's descriptor is a placeholder of the same kind that weft creates
// and injects (a real pipe end, a real eventfd, one end of a real unix
// socket pair of the same type), so that fstat and close behave natively;
// weft keeps its own copy of the description (vfd.ours). The status
// flags (F_GETFL, F_SETFL, FIONBIO, FIOASYNC) are weft's
// (vkernel.OpenFile, vfd.file); the placeholder's O_NONBLOCK follows
// them. No data ever goes through the placeholder: every data call on it
// is served from the object.
//
// The other kinds' placeholder is an unconnected unix socket (install).
//
// Syscalls whose first argument is a served descriptor go to the object's
// own table of operations (fileHandler, called by dispatch): that is the
// one place a call on a served descriptor is dispatched by kind. Calls it
// does not name fall back to the syscall's ordinary row, which answers
// for descriptors weft does not serve (the kernel runs most of them;
// socket calls get ENOTSOCK, sysNotSocket).

// nodeFile is a served kind: the state behind one open file description
// (vkernel.ServedFile: its poll mask, wake counts, hash and release, with
// nothing of the supervisor in their arguments) and the table of
// syscalls the kind serves itself, by number (ops), the one dispatch by
// kind. vfd holds one.
type nodeFile interface {
	vkernel.ServedFile
	ops() map[int]fileOp
}

// The status flags' rules of the kinds that share them: an anonymous
// inode's (eventfd, timerfd, signalfd, epoll: root's, read-write, no
// fasync) and a socket's (the creator's, read-write, SIGIO on I/O).
var (
	anonFileKind   = vkernel.FileKind{Mode: vkernel.ORdwr, Async: vkernel.AsyncNone, RootOwned: true}
	socketFileKind = vkernel.FileKind{Mode: vkernel.ORdwr, Async: vkernel.AsyncSignals}
)

// fileWorld is what a served kind sees of the world
// (vkernel.FileWorld): the node, and the calling thread's call, or nil
// outside one (a process's end closing its descriptors).
type fileWorld struct {
	w *World
	n *node
	c *call
}

// files is the world as the kinds see it during c.
func (c *call) files() vkernel.FileWorld { return fileWorld{w: c.w, n: c.n, c: c} }

func (f fileWorld) Now() int64 { return f.w.now }

func (f fileWorld) PendingSignals() uint64 {
	if f.c == nil {
		return 0
	}
	return f.c.pendingSignals()
}

func (f fileWorld) Probe() vkernel.EpollProbe { return epollProbe{f.c} }

func (f fileWorld) UnixNames() *vkernel.UnixNames { return &f.n.unixNs }

func (f fileWorld) DropRight(r any) { r.(*passedFD).close(f.w, f.n) }

func (f fileWorld) CloseInet(s any) { f.w.net.Close(s.(*netsim.Socket), false) }

// Kind tags written first by each kind's hash. Their values are part of
// the world hash: keep them.
const (
	fileTagInNode = 1 // pipe end, eventfd, unix socket, netlink socket, signalfd
	fileTagTimer  = 2
	fileTagEpoll  = 3
	fileTagRandom = 4
	fileTagInet   = 5
)

// Table notes (table_amd64.go) for the in-node kinds.
const (
	inNodePipe     = "an in-node pipe served by weft (sys_pipe.go): a read of an empty pipe or a write to a full one parks in weft"
	inNodeEventfd  = "an in-node counter served by weft (sys_eventfd.go): EFD_SEMAPHORE, EFD_NONBLOCK; a blocking read or write parks in weft"
	inNodeUnix     = "AF_UNIX stream, datagram and seqpacket sockets inside the node (sys_unix.go); SCM_RIGHTS passes descriptors; SCM_CREDENTIALS carries the virtual pid"
	inNodeSignalfd = "created by the kernel; a read runs natively once a signal of its mask is pending, else parks in weft (sys_signalfd.go)"
)

// fileOp serves one syscall on an in-node descriptor.
type fileOp func(c *call, v *vfd) result

// fileHandler returns the handler for c: the operation of the served
// descriptor its first argument names, if that kind serves the call, a
// creator of in-node descriptors (socket(AF_UNIX), socket(AF_NETLINK)), or h.
func (c *call) fileHandler(h handler) handler {
	nr := int(c.req.Data.Nr)
	if pid := c.n.memPid(); c.n.sigScan[pid] {
		delete(c.n.sigScan, pid)
		c.n.adoptSignalfds()
	}
	if nr == unix.SYS_SOCKET && uint32(c.arg(0)) == unix.AF_UNIX { // an int: the low 32 bits
		return sysUnixSocket
	}
	if nr == unix.SYS_SOCKET && uint32(c.arg(0)) == unix.AF_NETLINK {
		return sysNetlinkSocket
	}
	if !fdFirst[nr] {
		return h
	}
	v := c.n.fds.At(int(int32(c.arg(0))))
	if v == nil || v.obj == nil {
		return h
	}
	if op, ok := v.obj.ops()[nr]; ok {
		return func(c *call) result { return op(c, v) }
	}
	return h
}

// fdFirst lists the syscalls whose first argument is a descriptor that a
// served kind may serve.
var fdFirst = map[int]bool{
	unix.SYS_READ: true, unix.SYS_WRITE: true, unix.SYS_READV: true, unix.SYS_WRITEV: true,
	unix.SYS_PREAD64: true, unix.SYS_PWRITE64: true, unix.SYS_PREADV2: true, unix.SYS_PWRITEV2: true,
	unix.SYS_IOCTL: true, unix.SYS_FCNTL: true,
	unix.SYS_BIND: true, unix.SYS_LISTEN: true, unix.SYS_ACCEPT: true, unix.SYS_ACCEPT4: true,
	unix.SYS_CONNECT: true, unix.SYS_SENDTO: true, unix.SYS_RECVFROM: true, unix.SYS_SENDMSG: true,
	unix.SYS_RECVMSG: true, unix.SYS_SHUTDOWN: true, unix.SYS_GETSOCKNAME: true, unix.SYS_GETPEERNAME: true,
	unix.SYS_SETSOCKOPT: true, unix.SYS_GETSOCKOPT: true, unix.SYS_SIGNALFD4: true, unix.SYS_SIGNALFD: true,
	unix.SYS_TIMERFD_SETTIME: true, unix.SYS_TIMERFD_GETTIME: true,
	unix.SYS_EPOLL_CTL: true, unix.SYS_EPOLL_WAIT: true, unix.SYS_EPOLL_PWAIT: true, unix.SYS_EPOLL_PWAIT2: true,
	unix.SYS_SENDMMSG: true, unix.SYS_RECVMMSG: true, unix.SYS_SENDFILE: true,
}

// opened gives v, a new description, its status flags from the creation
// flags oflags (O_NONBLOCK: SOCK_NONBLOCK, EFD_NONBLOCK, TFD_NONBLOCK),
// unless its maker set them (an open of a random device).
func opened(v *vfd, oflags uint64) {
	if v.file == nil {
		v.file = vkernel.NewOpenFile(v.obj.Kind(), int(oflags))
	}
}

// injectAt installs weft's descriptor ph in the node (not as the call's
// answer) and records v there; v.ours becomes ph.
func (c *call) injectAt(v *vfd, ph int, cloexec bool) (int, error) {
	fd, err := injectFD(c.n.listener, c.req.ID, ph, cloexec)
	if err != nil {
		return -1, err
	}
	v.ours = ph
	c.n.fds.Record(fd, v, cloexec) // the number the kernel chose
	return fd, nil
}

// installPair gives the node two new descriptors, a and b, for weft's
// placeholders pa and pb, and stores their numbers as two C ints at addr
// (pipe2, socketpair). The placeholders are weft's copies from then on.
func (c *call) installPair(a, b *vfd, pa, pb int, addr uint64, flags uint64) result {
	closeBoth := func() { unix.Close(pa); unix.Close(pb) }
	if c.noRoomFor(2) { // the first would stay installed when the second fails
		closeBoth()
		return errno(unix.EMFILE)
	}
	// Linux takes both numbers (EMFILE first), then copies them out and
	// gives them back if it cannot (EFAULT, nothing left open). The array
	// must therefore be writable before anything is installed: checked
	// by writing back what it holds, which no other thread sees (one
	// thread of the node runs at a time).
	if b, err := c.read(addr, 8); err != nil || c.write(addr, b) != nil {
		closeBoth()
		return errno(unix.EFAULT)
	}
	opened(a, flags&unix.O_NONBLOCK)
	opened(b, flags&unix.O_NONBLOCK)
	if flags&unix.O_NONBLOCK != 0 { // the placeholders follow (fcntlSetfl)
		unix.SetNonblock(pa, true)
		unix.SetNonblock(pb, true)
	}
	cloexec := flags&unix.O_CLOEXEC != 0
	fa, err := c.injectAt(a, pa, cloexec)
	if err != nil {
		closeBoth()
		return injectFailed(err)
	}
	fb, err := c.injectAt(b, pb, cloexec)
	if err != nil {
		unix.Close(pb)
		return injectFailed(err)
	}
	var out [8]byte
	putU32(out[:], uint32(fa))
	putU32(out[4:], uint32(fb))
	if err := c.write(addr, out[:]); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(0)
}

// installOne gives the node one new descriptor for weft's placeholder ph
// as the call's answer.
func (c *call) installOne(v *vfd, ph int, nonblock, cloexec bool) result {
	if nonblock {
		opened(v, unix.O_NONBLOCK)
	} else {
		opened(v, 0)
	}
	if nonblock {
		unix.SetNonblock(ph, true)
	}
	fd, err := c.injectAt(v, ph, cloexec)
	if err != nil {
		unix.Close(ph)
		return injectFailed(err)
	}
	return ret(int64(fd))
}

func injectFailed(err error) result {
	if err == unix.ENOENT {
		return done() // the target died meanwhile
	}
	if e, ok := err.(unix.Errno); ok && e == unix.EMFILE {
		return errno(e)
	}
	return failf("injecting a descriptor: %v", err)
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// description identifies the open file description behind v: descriptors
// made by dup share it.
func (v *vfd) description() any {
	if _, ok := v.obj.(*randomDev); ok {
		// Each copy of a random device's descriptor (dup, fork) has
		// always counted as its own description; kept so that the world
		// hash is unchanged (a random device has no state to share).
		return v
	}
	return v.obj
}

// heldElsewhere reports whether another live process of the node has v's
// description at the same descriptor number fd.
func (n *node) heldElsewhere(fd int, v *vfd) bool {
	d := v.description()
	for _, t := range n.tables()[1:] {
		if o := t.At(fd); o != nil && o.description() == d {
			return true
		}
	}
	return false
}

// lastRef reports whether no descriptor of the node but fd, and none in
// flight, refers to v's description.
func (n *node) lastRef(fd int, v *vfd) bool {
	d := v.description()
	for _, t := range n.tables() {
		cur := t == n.fds
		for o, w := range t.All() {
			if (!cur || o != fd) && w.description() == d {
				return false
			}
		}
		for _, w := range t.All() {
			if s, ok := w.obj.(unixSock); ok && s.carries(d, nil) {
				return false // in flight (SCM_RIGHTS)
			}
		}
	}
	return !n.heldBySend(d, nil) // taken by a send that waits
}

// tables are the descriptor tables of the node's live processes: the
// calling process's (n.fds) first, then every other live process's, once
// each (a fork copies the table; the descriptions stay shared).
func (n *node) tables() []*fdTable {
	out := []*fdTable{n.fds}
	for _, p := range n.procs {
		if !p.ended() && p.fds != n.fds {
			out = append(out, p.fds)
		}
	}
	return out
}

// fdTable is a process's descriptor table of served descriptors
// (vkernel.FDTable): its numbers are the host kernel's, which weft
// records as it installs descriptors or sees the kernel's choice; each
// descriptor holds its own vfd (its own copy of weft's end, ours), and
// duplicates share the vfd's object, the open file description.
type fdTable = vkernel.FDTable[*vfd]

// newFDTable is an empty descriptor table of a node's main process. Its
// limit is the default soft RLIMIT_NOFILE (vkernel.NofileDefault), which
// setrlimit and prlimit64 change (sys_rlimit.go) and fork copies.
func newFDTable() *fdTable { return vkernel.NewFDTable[*vfd](vkernel.NofileDefault) }

// closing runs as the node closes fd (v nil for a kernel descriptor):
// epoll interest lists forget it, and an in-node object whose last
// descriptor this is is released.
//
// An epoll entry is the pair (file, fd number), as in Linux: while another
// process of the tree (a fork's parent or child) still has the same file
// at the same number, the entry stays in the interest list, reachable by
// epoll_ctl from that process (the parent that deletes a pipe its forked
// child has closed).
func (n *node) closing(fd int, v *vfd, w *World) {
	last := v == nil || n.lastRef(fd, v)
	if last || !n.heldElsewhere(fd, v) {
		for _, o := range n.fds.All() {
			if ep, ok := o.obj.(*vepoll); ok {
				ep.Forget(fd, watched(v), last)
			}
		}
	}
	if v != nil && last {
		v.obj.Release(fileWorld{w: w, n: n})
	}
}

// hashFiles writes the node's descriptors in fd order: each one's number
// and the state of its description, shared state written once and named
// by a canonical number afterwards.
func (w *World) hashFiles(n *node, put func(uint64)) {
	h := vkernel.NewFileHasher(put, n.opts)
	all := n.tables() // outside a call n.fds is the main process's
	for _, t := range all {
		for _, v := range t.All() {
			h.Ref(v.description())
		}
	}
	for _, t := range all {
		t.Hash(put, func(v *vfd) { hashDesc(h, v) })
	}
	n.hashHeldRights(h)
}

// hashDesc writes v's description: its number and, the first time, its
// kind and state, then its status flags.
func hashDesc(h *vkernel.FileHasher, v *vfd) {
	id, old := h.IDs(v.description())
	h.Put(id)
	if old {
		return
	}
	v.obj.Hash(h)
	h.Put(v.file.HashWord())
}

// sigpipe answers a write to a pipe or stream socket whose reader is gone:
// EPIPE, and SIGPIPE unless the caller asked for none (MSG_NOSIGNAL).
func (c *call) sigpipe(noSignal bool) result {
	if !noSignal {
		c.signalSelf(int(unix.SIGPIPE), nil)
	}
	return errno(unix.EPIPE)
}

// vkAnswer is a vkernel object's error as the call's answer: parked for
// vkernel.ErrBlock (retried when the world changes), the errno for a
// vkernel.Errno.
func vkAnswer(err error) result {
	var e vkernel.Errno
	switch {
	case errors.Is(err, vkernel.ErrBlock):
		return park()
	case errors.As(err, &e):
		return errno(unix.Errno(e))
	}
	return failf("virtual kernel: %v", err)
}
