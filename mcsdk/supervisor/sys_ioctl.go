//go:build linux && amd64

package supervisor

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// ioctl(2) is served by request number and kind of descriptor from an
// allow-list (ioctlTable), as gVisor's: a request on the list runs for
// the kinds it names (natively on the node's own descriptor, or served by
// weft for its own kinds); a request refused on purpose gets its errno;
// everything else is ENOTTY, the kernel's answer for a request a driver
// does not know, and a note naming the syscall, request, node and thread
// (World.Notes). So no request reaches the host kernel unjudged: no
// FS_IOC_SETFLAGS, no TIOCSTI, nothing that reads host state.

// fdKind is what a node's descriptor refers to, for the allow-lists.
type fdKind int

const (
	kindNone    fdKind = iota // no such descriptor
	kindFile                  // a regular file (memfds too)
	kindDir                   // a directory
	kindChar                  // a character device (/dev/null, a tty)
	kindBlock                 // a block device
	kindFIFO                  // a kernel pipe or FIFO
	kindSocket                // a kernel socket
	kindAnon                  // an anonymous inode: eventfd, epoll, signalfd, timerfd, pidfd… made by the kernel
	kindVSocket               // a socket weft serves (netsim)
	kindInNode                // a descriptor weft serves inside the node: pipe, unix socket, eventfd, timerfd, epoll, random device
	numKinds
)

var kindNames = [numKinds]string{"none", "file", "directory", "character device", "block device", "pipe", "socket",
	"anonymous inode", "virtual socket", "in-node descriptor"}

func (k fdKind) String() string { return kindNames[k] }

// kinds is a set of fdKinds.
type kinds uint32

func kindsOf(ks ...fdKind) kinds {
	var s kinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s kinds) has(k fdKind) bool { return s&(1<<k) != 0 }

func (s kinds) String() string {
	var names []string
	for k := fdKind(1); k < numKinds; k++ {
		if s.has(k) {
			names = append(names, k.String())
		}
	}
	return strings.Join(names, ", ")
}

var (
	anyFD  = kindsOf(kindFile, kindDir, kindChar, kindBlock, kindFIFO, kindSocket, kindAnon, kindVSocket, kindInNode)
	fileFD = kindsOf(kindFile, kindDir)
)

// fdKind classifies the caller's descriptor fd.
func (c *call) fdKind(fd int) fdKind {
	if v := c.n.fds.At(fd); v != nil {
		if v.sock() != nil {
			return kindVSocket
		}
		return kindInNode
	}
	var st unix.Stat_t
	if unix.Stat(fmt.Sprintf("/proc/%d/fd/%d", c.n.memPid(), fd), &st) != nil {
		return kindNone
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return kindFile
	case unix.S_IFDIR:
		return kindDir
	case unix.S_IFCHR:
		return kindChar
	case unix.S_IFBLK:
		return kindBlock
	case unix.S_IFIFO:
		return kindFIFO
	case unix.S_IFSOCK:
		return kindSocket
	}
	return kindAnon
}

// requestRule is one row of an allow-list: the request's name, the kinds
// it is served for, or the errno it is refused with, and why.
type requestRule struct {
	name  string
	kinds kinds
	errno uintptrErrno // refused on purpose (kinds empty)
	why   string
}

// judgeRequest refuses request req of syscall sys on a descriptor of kind
// unless rule (listed: ok) allows it there; unlisted is the errno of a
// request off the list or listed for other kinds. One place for ioctl's
// and fcntl's allow-lists.
func (c *call) judgeRequest(sys string, req uint64, rule requestRule, ok bool, kind fdKind, unlisted uintptrErrno) (result, bool) {
	switch {
	case !ok:
		return c.refuseRequest(sys, req, "", unlisted, "not on weft's "+sys+" allow-list"), true
	case rule.kinds == 0:
		return c.refuseRequest(sys, req, rule.name, rule.errno, rule.why), true
	case !rule.kinds.has(kind):
		return c.refuseRequest(sys, req, rule.name, unlisted, fmt.Sprintf("allowed only on: %s; not on: %s", rule.kinds, kind)), true
	}
	return result{}, false
}

func allow(name string, ks kinds, why string) requestRule {
	return requestRule{name: name, kinds: ks, why: why}
}
func deny(name string, e uintptrErrno, why string) requestRule {
	return requestRule{name: name, errno: e, why: why}
}

// Requests not in x/sys/unix.
const (
	fioclex       = 0x5451
	fionclex      = 0x5450
	fioasync      = 0x5452
	fioqsize      = 0x5460
	figetbsz      = 2
	fibmap        = 1
	ficlone       = 0x40049409
	ficlonerange  = 0x4020940d
	fideduperange = 0xc0189436
	fsIocGetflags = 0x80086601
	fsIocSetflags = 0x40086602
	fsIocGetvers  = 0x80087601
	fsIocFiemap   = 0xc020660b
)

// ioctlTable is ioctl(2)'s allow-list, by request number.
var ioctlTable = map[uint64]requestRule{
	fionbio:            allow("FIONBIO", anyFD, "the description's own O_NONBLOCK (weft's for its descriptors: statusIoctl)"),
	fioclex:            allow("FIOCLEX", anyFD, "the descriptor's own close-on-exec flag"),
	fionclex:           allow("FIONCLEX", anyFD, "the descriptor's own close-on-exec flag"),
	fioasync:           allow("FIOASYNC", anyFD, "O_ASYNC: SIGIO goes to the owner, which F_SETOWN confines to the node; on weft's descriptors, statusIoctl"),
	unix.TIOCINQ:       allow("FIONREAD", kindsOf(kindFile, kindFIFO, kindSocket, kindVSocket, kindInNode), "bytes readable now (weft's count for its own kinds)"),
	unix.TIOCOUTQ:      allow("TIOCOUTQ", kindsOf(kindSocket, kindVSocket, kindInNode), "bytes not yet sent (a virtual socket hands every write to the network at once: 0)"),
	fioqsize:           allow("FIOQSIZE", fileFD, "the file's own size"),
	figetbsz:           allow("FIGETBSZ", fileFD, "the file system's block size"),
	unix.TCGETS:        allow("TCGETS", anyFD, "isatty(3): ENOTTY for anything but a terminal"),
	unix.TIOCGWINSZ:    allow("TIOCGWINSZ", anyFD, "a terminal's size: ENOTTY for anything but a terminal"),
	unix.SIOCATMARK:    allow("SIOCATMARK", kindsOf(kindSocket), "the socket's own urgent-data mark"),
	fsIocGetflags:      allow("FS_IOC_GETFLAGS", fileFD, "the file's own attribute flags"),
	fsIocSetflags:      deny("FS_IOC_SETFLAGS", unix.EPERM, "would change a file's attributes (immutable, append-only) whatever the descriptor's access mode"),
	fsIocGetvers:       deny("FS_IOC_GETVERSION", unix.ENOTTY, "the inode generation is host state"),
	fibmap:             deny("FIBMAP", unix.EPERM, "block numbers are host state"),
	fsIocFiemap:        deny("FS_IOC_FIEMAP", unix.EOPNOTSUPP, "extent maps are host state"),
	ficlone:            deny("FICLONE", unix.EOPNOTSUPP, "reflinks are not modelled; cp and friends fall back to copying"),
	ficlonerange:       deny("FICLONERANGE", unix.EOPNOTSUPP, "reflinks are not modelled"),
	fideduperange:      deny("FIDEDUPERANGE", unix.EOPNOTSUPP, "reflinks are not modelled"),
	unix.TIOCSTI:       deny("TIOCSTI", unix.EPERM, "would push input into a terminal that others read"),
	unix.TIOCGPGRP:     deny("TIOCGPGRP", unix.ENOTTY, "a terminal's host process group"),
	unix.TIOCGSID:      deny("TIOCGSID", unix.ENOTTY, "a terminal's host session"),
	unix.TIOCSPGRP:     deny("TIOCSPGRP", unix.ENOTTY, "a terminal's host process group"),
	unix.TIOCSCTTY:     deny("TIOCSCTTY", unix.EPERM, "would take a host terminal"),
	unix.SIOCGIFCONF:   deny("SIOCGIFCONF", unix.ENOTTY, "host network interfaces"),
	unix.SIOCGIFADDR:   deny("SIOCGIFADDR", unix.ENOTTY, "host network interfaces"),
	unix.SIOCGIFHWADDR: deny("SIOCGIFHWADDR", unix.ENOTTY, "host network interfaces"),
	unix.SIOCGIFINDEX:  deny("SIOCGIFINDEX", unix.ENOTTY, "host network interfaces"),
	unix.SIOCGIFFLAGS:  deny("SIOCGIFFLAGS", unix.ENOTTY, "host network interfaces"),
}

// Ioctl implements ioctl(2) from ioctlTable.
func sysIoctl(c *call) result {
	fd := int(int32(c.arg(0)))
	req := uint64(uint32(c.arg(1))) // the kernel takes the request as an unsigned int
	kind := c.fdKind(fd)
	if kind == kindNone {
		return errno(unix.EBADF)
	}
	rule, ok := ioctlTable[req]
	if r, refused := c.judgeRequest("ioctl", req, rule, ok, kind, unix.ENOTTY); refused {
		return r
	}
	if req == fioclex || req == fionclex {
		// The flag is the descriptor's: the kernel sets it, and a served
		// descriptor's table entry follows (vkernel.FDTable.SetFD).
		c.n.fds.SetFD(fd, boolInt(req == fioclex))
	}
	if v := c.n.fds.At(fd); v != nil && (req == fionbio || req == fioasync) {
		return statusIoctl(c, v, req)
	}
	if kind == kindVSocket {
		return vsockIoctl(c, c.n.fds.At(fd), req)
	}
	return cont()
}

// statusIoctl serves FIONBIO and FIOASYNC (an int at the argument: on if
// not 0) on a served descriptor, as fs/ioctl.c does, on weft's
// description (vkernel.OpenFile): FIONBIO sets or clears O_NONBLOCK;
// FIOASYNC is the kind's (vkernel.Async: ENOTTY where Linux's file has no
// fasync, refused with EINVAL and a note where it would send SIGIO, which
// weft does not deliver).
func statusIoctl(c *call, v *vfd, req uint64) result {
	on, err := c.readU32(c.arg(2))
	if err != nil {
		return errno(unix.EFAULT)
	}
	if req == fionbio {
		v.file.SetNonblock(on != 0)
		v.followStatus()
		return ret(0)
	}
	if err := v.file.SetAsync(on != 0); err != nil {
		return c.statusRefused("ioctl", req, "FIOASYNC", err)
	}
	return ret(0)
}

// vsockIoctl serves an allowed request on a virtual socket.
func vsockIoctl(c *call, v *vfd, req uint64) result {
	switch req {
	case unix.TIOCINQ:
		return errno(errnoOf(c.writeU32(c.arg(2), uint32(v.sock().Pending()))))
	case unix.TIOCOUTQ:
		return errno(errnoOf(c.writeU32(c.arg(2), 0)))
	}
	return cont()
}

// fionbio is FIONBIO (asm-generic/ioctls.h).
const fionbio = 0x5421
