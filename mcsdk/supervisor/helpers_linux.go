//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"fmt"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/netsim"
)

// Shared helpers for handlers: target memory, descriptors, addresses.

func (c *call) read(addr uint64, n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if n < 0 || n > 64<<20 {
		return nil, unix.EINVAL
	}
	for _, r := range c.reads {
		if r.addr == addr && len(r.b) == n {
			return slices.Clone(r.b), nil // callers may modify what they get
		}
	}
	buf := make([]byte, n)
	k, err := readMem(c.n.memPid(), uintptr(addr), buf)
	if err != nil || k != n {
		return nil, unix.EFAULT
	}
	if n <= maxCachedRead {
		c.reads = append(c.reads, memRead{addr, slices.Clone(buf)})
	}
	return buf, nil
}

// maxCachedRead bounds what call.read keeps (pollfd arrays, sockaddrs,
// timespecs, select sets; not message payloads).
const maxCachedRead = 4096 * 8

func (c *call) write(addr uint64, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	c.reads = nil
	c.n.forgetMemory()
	k, err := writeMem(c.n.memPid(), uintptr(addr), b)
	if err != nil || k != len(b) {
		return unix.EFAULT
	}
	return nil
}

func (c *call) readU32(addr uint64) (uint32, error) {
	b, err := c.read(addr, 4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (c *call) writeU32(addr uint64, v uint32) error {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return c.write(addr, b[:])
}

// nonblocking reports O_NONBLOCK on the shared file description.
func (v *vfd) nonblocking() bool { return v.file.Nonblocking() }

// installSocket gives the target a new descriptor for sock: a placeholder
// unix socket, never connected, injected with SECCOMP_ADDFD_FLAG_SEND as
// the call's result. close, fcntl and fstat then behave natively; weft
// serves the data calls. (One socket costs half a socketpair, of which
// the placeholder used to be one end; unconnected, it has no peer whose
// credentials, weft's, SO_PEERCRED could report.)
func (c *call) installSocket(sock *netsim.Socket, flags uint64) result {
	return c.install(&vfd{obj: &inetSock{sock}}, flags)
}

// install injects a new descriptor for v (see installSocket).
func (c *call) install(v *vfd, flags uint64) result {
	opened(v, flags&unix.SOCK_NONBLOCK)
	ours, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|int(flags&unix.SOCK_NONBLOCK), 0)
	if err != nil {
		return errno(unix.ENFILE)
	}
	fd, err := injectFD(c.n.listener, c.req.ID, ours, flags&unix.SOCK_CLOEXEC != 0)
	if err != nil {
		unix.Close(ours)
		return injectFailed(err)
	}
	if old := c.n.fds.At(fd); old != nil { // cannot happen: the fd was free
		unix.Close(old.ours)
	}
	v.ours = ours
	c.n.fds.Record(fd, v, flags&unix.SOCK_CLOEXEC != 0) // the number the kernel chose
	return ret(int64(fd))
}

// readSockaddr decodes a struct sockaddr_in (ip(7)) or sockaddr_in6
// (ipv6(7)); which addresses weft models is netsim's business.
func (c *call) readSockaddr(addr, length uint64) (netsim.Addr, unix.Errno) {
	if length < 2 {
		return netsim.Addr{}, unix.EINVAL
	}
	fam, err := c.read(addr, 2)
	if err != nil {
		return netsim.Addr{}, unix.EFAULT
	}
	switch binary.LittleEndian.Uint16(fam) {
	case unix.AF_INET:
		if length < 16 {
			return netsim.Addr{}, unix.EINVAL
		}
		b, err := c.read(addr, 16)
		if err != nil {
			return netsim.Addr{}, unix.EFAULT
		}
		a := netsim.Addr{Port: binary.BigEndian.Uint16(b[2:])}
		copy(a.IP[:], b[4:8])
		return a, 0
	case unix.AF_INET6:
		if length < 24 { // SIN6_LEN_RFC2133: without sin6_scope_id
			return netsim.Addr{}, unix.EINVAL
		}
		b, err := c.read(addr, 24)
		if err != nil {
			return netsim.Addr{}, unix.EFAULT
		}
		return decodeIn6(b)
	}
	return netsim.Addr{}, unix.EAFNOSUPPORT
}

// decodeIn6 reads the address of a sockaddr_in6: ::, ::1 or an
// IPv4-mapped address; any other IPv6 address is not on weft's host.
func decodeIn6(b []byte) (netsim.Addr, unix.Errno) {
	a := netsim.Addr{Port: binary.BigEndian.Uint16(b[2:])}
	ip := b[8:24]
	var zero [10]byte
	switch {
	case [16]byte(ip) == [16]byte{}:
		a.Six = netsim.Any6
	case [16]byte(ip) == [16]byte{15: 1}:
		a.Six = netsim.Loop6
	case [10]byte(ip[:10]) == zero && ip[10] == 0xff && ip[11] == 0xff:
		a.Six = netsim.Mapped
		copy(a.IP[:], ip[12:])
	default:
		return netsim.Addr{}, unix.EADDRNOTAVAIL
	}
	return a, 0
}

// writeSockaddr stores a at addr with the value-result length at lenp, as
// accept(2), getsockname(2) and recvfrom(2) do: truncate to the caller's
// buffer, report the full length (16 for AF_INET, 28 for AF_INET6).
func (c *call) writeSockaddr(addr, lenp uint64, a netsim.Addr) unix.Errno {
	if addr == 0 || lenp == 0 {
		return 0
	}
	have, err := c.readU32(lenp)
	if err != nil {
		return unix.EFAULT
	}
	b := encodeSockaddr(a)
	if err := c.write(addr, b[:min(int(have), len(b))]); err != nil {
		return unix.EFAULT
	}
	if err := c.writeU32(lenp, uint32(len(b))); err != nil {
		return unix.EFAULT
	}
	return 0
}

// encodeSockaddr is a as a sockaddr_in or sockaddr_in6.
func encodeSockaddr(a netsim.Addr) []byte {
	if !a.V6() {
		b := make([]byte, 16)
		binary.LittleEndian.PutUint16(b, unix.AF_INET)
		binary.BigEndian.PutUint16(b[2:], a.Port)
		copy(b[4:8], a.IP[:])
		return b
	}
	b := make([]byte, 28)
	binary.LittleEndian.PutUint16(b, unix.AF_INET6)
	binary.BigEndian.PutUint16(b[2:], a.Port)
	switch a.Six {
	case netsim.Loop6:
		b[23] = 1
	case netsim.Mapped:
		b[18], b[19] = 0xff, 0xff
		copy(b[20:24], a.IP[:])
	}
	return b
}

// linuxErrno maps netsim's errors to Linux errnos.
var linuxErrno = map[netsim.Errno]unix.Errno{
	netsim.OK: 0, netsim.EADDRINUSE: unix.EADDRINUSE, netsim.EINVAL: unix.EINVAL,
	netsim.ENOTCONN: unix.ENOTCONN, netsim.EISCONN: unix.EISCONN, netsim.ECONNREFUSED: unix.ECONNREFUSED,
	netsim.ECONNRESET: unix.ECONNRESET, netsim.EPIPE: unix.EPIPE, netsim.EAGAIN: unix.EAGAIN,
	netsim.EDESTADDRREQ: unix.EDESTADDRREQ, netsim.EOPNOTSUPP: unix.EOPNOTSUPP,
	netsim.EINPROGRESS: unix.EINPROGRESS, netsim.EALREADY: unix.EALREADY,
	netsim.EAFNOSUPPORT: unix.EAFNOSUPPORT, netsim.EADDRNOTAVAIL: unix.EADDRNOTAVAIL,
}

// sysErrno maps a netsim error to the Linux errno.
func sysErrno(e netsim.Errno) unix.Errno {
	le, ok := linuxErrno[e]
	if !ok {
		panic(fmt.Sprintf("supervisor: unmapped netsim errno %d", e))
	}
	return le
}

// iovec is struct iovec.
type iovec struct{ base, len uint64 }

func (c *call) readIovecs(addr, count uint64) ([]iovec, error) {
	if count > 1024 {
		return nil, unix.EINVAL
	}
	b, err := c.read(addr, int(count)*16)
	if err != nil {
		return nil, err
	}
	v := make([]iovec, count)
	for i := range v {
		v[i] = iovec{binary.LittleEndian.Uint64(b[16*i:]), binary.LittleEndian.Uint64(b[16*i+8:])}
	}
	return v, nil
}

// maxGather bounds the bytes one vectored write takes (weft copies them
// into its own memory): 64 MiB, as call.read bounds one buffer and the
// plain writes take at most (a short write, which Linux makes too past
// MAX_RW_COUNT). Without it 1024 iovecs each naming the same 64 MiB had
// weft allocate 64 GiB for one writev (redteam hang-gather).
const maxGather = 64 << 20

// gather reads the bytes an iovec array describes, up to maxGather: the
// rest is left unwritten.
func (c *call) gather(v []iovec) ([]byte, error) {
	var out []byte
	for _, e := range v {
		n := min(e.len, uint64(maxGather-len(out)))
		if n == 0 && e.len != 0 {
			break
		}
		b, err := c.read(e.base, int(n))
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

// scatter writes data across an iovec array.
func (c *call) scatter(v []iovec, data []byte) error {
	for _, e := range v {
		if len(data) == 0 {
			return nil
		}
		k := min(int(e.len), len(data))
		if err := c.write(e.base, data[:k]); err != nil {
			return err
		}
		data = data[k:]
	}
	return nil
}

func iovLen(v []iovec) int {
	n := 0
	for _, e := range v {
		n += int(e.len)
	}
	return n
}
