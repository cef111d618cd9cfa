//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"fmt"
	"slices"

	"golang.org/x/sys/unix"
)

// A minimal virtual epoll, enough for language runtimes' pollers (Go's
// netpoller: an eventfd and virtual sockets): the interest list lives in
// weft, readiness is evaluated when a thread waits, and a wait with nothing
// ready parks on the virtual clock. Kernel descriptors in the interest list
// (eventfds, pipes) are polled through a duplicate (pidfd_getfd).

// vepoll is an epoll instance's interest list.
type vepoll struct {
	interest map[int]*epollEntry
}

// epollEntry is one descriptor of an interest list.
type epollEntry struct {
	events uint32
	data   uint64
	last   uint32 // edge-triggered: the readiness last reported
}

// epollEventSize is sizeof(struct epoll_event) on x86-64 (packed).
const epollEventSize = 12

// EpollCreate implements epoll_create(2) and epoll_create1(2).
func sysEpollCreate(c *call) result {
	if c.req.Data.Nr == unix.SYS_EPOLL_CREATE && int32(c.arg(0)) <= 0 {
		return errno(unix.EINVAL)
	}
	flags := uint64(0)
	if c.req.Data.Nr == unix.SYS_EPOLL_CREATE1 {
		if c.arg(0)&^uint64(unix.EPOLL_CLOEXEC) != 0 {
			return errno(unix.EINVAL)
		}
		if c.arg(0)&unix.EPOLL_CLOEXEC != 0 {
			flags |= unix.SOCK_CLOEXEC
		}
	}
	return c.install(&vfd{epoll: &vepoll{interest: map[int]*epollEntry{}}}, flags)
}

// EpollCtl implements epoll_ctl(2).
func sysEpollCtl(c *call) result {
	ep := c.vepoll(c.arg(0))
	if ep == nil {
		return errno(unix.EINVAL)
	}
	fd, op := int(int32(c.arg(2))), int(c.arg(1))
	if fd == int(int32(c.arg(0))) {
		return errno(unix.EINVAL)
	}
	if v := c.n.fds[fd]; v == nil && !c.kernelFD(fd) {
		return errno(unix.EBADF)
	}
	e := ep.interest[fd]
	switch op {
	case unix.EPOLL_CTL_ADD, unix.EPOLL_CTL_MOD:
		if op == unix.EPOLL_CTL_ADD && e != nil {
			return errno(unix.EEXIST)
		}
		if op == unix.EPOLL_CTL_MOD && e == nil {
			return errno(unix.ENOENT)
		}
		b, err := c.read(c.arg(3), epollEventSize)
		if err != nil {
			return errno(unix.EFAULT)
		}
		ep.interest[fd] = &epollEntry{events: binary.LittleEndian.Uint32(b), data: binary.LittleEndian.Uint64(b[4:])}
	case unix.EPOLL_CTL_DEL:
		if e == nil {
			return errno(unix.ENOENT)
		}
		delete(ep.interest, fd)
	default:
		return errno(unix.EINVAL)
	}
	return ret(0)
}

// EpollWait implements epoll_wait(2) and epoll_pwait(2) (the signal mask
// is ignored, as for ppoll).
func sysEpollWait(c *call) result {
	timeout := int64(int32(c.arg(3)))
	if timeout >= 0 {
		timeout *= 1e6
	}
	return c.epollWait(timeout)
}

// EpollPwait2 implements epoll_pwait2(2): a timespec timeout.
func sysEpollPwait2(c *call) result {
	timeout := int64(-1)
	if c.arg(3) != 0 {
		ns, err := c.readTimespec(c.arg(3))
		if err != nil {
			return errno(unix.EFAULT)
		}
		timeout = ns
	}
	return c.epollWait(timeout)
}

func (c *call) epollWait(timeout int64) result {
	ep := c.vepoll(c.arg(0))
	if ep == nil {
		return errno(unix.EINVAL)
	}
	max := int(int32(c.arg(2)))
	if max <= 0 {
		return errno(unix.EINVAL)
	}
	fds := make([]int, 0, len(ep.interest))
	for fd := range ep.interest {
		fds = append(fds, fd)
	}
	slices.Sort(fds)
	var out []byte
	ready := 0
	for _, fd := range fds {
		if ready == max {
			break
		}
		e := ep.interest[fd]
		rev := c.epollReadiness(fd) & (e.events | unix.EPOLLERR | unix.EPOLLHUP)
		if e.events&unix.EPOLLET != 0 {
			fresh := rev &^ e.last
			e.last = rev
			rev = fresh
		}
		if rev == 0 {
			continue
		}
		out = binary.LittleEndian.AppendUint32(out, rev)
		out = binary.LittleEndian.AppendUint64(out, e.data)
		ready++
	}
	if ready == 0 {
		if r, wait := c.wait(timeout); wait {
			return r
		}
		return ret(0)
	}
	if err := c.write(c.arg(1), out); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(int64(ready))
}

// epollReadiness is fd's event mask: a virtual descriptor's from weft's
// state, a kernel descriptor's from poll(2) on a duplicate.
func (c *call) epollReadiness(fd int) uint32 {
	if v := c.n.fds[fd]; v != nil {
		if v.epoll != nil {
			return 0
		}
		return uint32(readiness(v, c.w.now))
	}
	dup, err := unix.PidfdGetfd(c.n.pidfd, fd, 0)
	if err != nil {
		return unix.EPOLLERR
	}
	defer unix.Close(dup)
	p := []unix.PollFd{{Fd: int32(dup), Events: unix.POLLIN | unix.POLLOUT | unix.POLLRDHUP}}
	if _, err := unix.Poll(p, 0); err != nil {
		return 0
	}
	return uint32(p[0].Revents)
}

// vepoll is the epoll instance at the node's fd, or nil.
func (c *call) vepoll(fd uint64) *vepoll {
	if v := c.n.fds[int(int32(fd))]; v != nil {
		return v.epoll
	}
	return nil
}

// kernelFD reports whether the node has fd open (a descriptor weft does
// not serve).
func (c *call) kernelFD(fd int) bool {
	var st unix.Stat_t
	return fd >= 0 && unix.Stat(fmt.Sprintf("/proc/%d/fd/%d", c.n.memPid(), fd), &st) == nil
}
