//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// fcntl(2) is served by command from an allow-list (fcntlTable), as
// ioctl(2) is (sys_ioctl.go): a command on the list runs natively, or is
// served by weft, for the kinds it names; everything else is EINVAL with
// a note. Owners are virtual (F_SETOWN names only the node's own
// processes, through the id table); locks on files outside the node's run
// directory are served virtually, so no host process ever waits on a
// node's lock; leases and directory notifications are weft state
// (sys_lease.go), never the host kernel's.

// fcntl commands x/sys/unix lacks (linux/fcntl.h, asm-generic/fcntl.h).
const (
	fSetsig        = 10
	fGetsig        = 11
	fSetownEx      = 15
	fGetownEx      = 16
	fGetownerUIDs  = 17
	fSetlease      = 1024
	fGetlease      = 1025
	fNotify        = 1026
	fDupfdQuery    = 1027
	fCreatedQuery  = 1028
	fCancellk      = 1029
	fAddSeals      = 1033
	fGetSeals      = 1034
	fGetRWHint     = 1035
	fSetRWHint     = 1036
	fGetFileRWHint = 1037
	fSetFileRWHint = 1038
)

// fcntlRule is a row of fcntl's allow-list: requestRule, and the handler
// that serves it (nil: native).
type fcntlRule struct {
	requestRule
	serve func(c *call, fd int) result
}

func fcntlNative(name string, ks kinds, why string) fcntlRule {
	return fcntlRule{requestRule: allow(name, ks, why)}
}
func fcntlServed(name string, ks kinds, h func(*call, int) result, why string) fcntlRule {
	return fcntlRule{requestRule: allow(name, ks, why), serve: h}
}
func fcntlDenied(name string, e uintptrErrno, why string) fcntlRule {
	return fcntlRule{requestRule: deny(name, e, why)}
}

const (
	lockWhy   = "a lock on a file in the run directory is the kernel's; elsewhere weft serves it virtually (granted, never held on the host), so no host process waits on it"
	ownerWhy  = "the owner is a virtual pid, tid or process group of the node, translated by the id table (sys_ids.go)"
	statusWhy = "the description's own status flags: the kernel's, and weft's for its descriptors (vkernel.OpenFile), where O_ASYNC on a kind that sends SIGIO and O_DIRECT on a pipe are refused"
	leaseWhy  = "a lease is weft state (vkernel.Leases), never the host kernel's, so no host process that opens the file is blocked; granted only where no open of the world could break it"
)

// fcntlTable is fcntl(2)'s allow-list, by command.
var fcntlTable = map[uint64]fcntlRule{
	unix.F_DUPFD:         fcntlServed("F_DUPFD", anyFD, fcntlDup, "weft's descriptors are duplicated by weft (at the lowest free number at or above the argument, vkernel's rule), others natively"),
	unix.F_DUPFD_CLOEXEC: fcntlServed("F_DUPFD_CLOEXEC", anyFD, fcntlDup, "as F_DUPFD"),
	unix.F_GETFD:         fcntlNative("F_GETFD", anyFD, "the descriptor's own flags"),
	unix.F_SETFD:         fcntlServed("F_SETFD", anyFD, fcntlSetfd, "the descriptor's own flags: the kernel sets them, and weft's table follows for its descriptors"),
	unix.F_GETFL:         fcntlServed("F_GETFL", anyFD, fcntlGetfl, statusWhy),
	unix.F_SETFL:         fcntlServed("F_SETFL", anyFD, fcntlSetfl, statusWhy),
	unix.F_GETLK:         fcntlServed("F_GETLK", anyFD, fcntlLock, lockWhy),
	unix.F_SETLK:         fcntlServed("F_SETLK", anyFD, fcntlLock, lockWhy),
	unix.F_SETLKW:        fcntlServed("F_SETLKW", anyFD, fcntlLock, lockWhy),
	unix.F_OFD_GETLK:     fcntlServed("F_OFD_GETLK", anyFD, fcntlLock, lockWhy),
	unix.F_OFD_SETLK:     fcntlServed("F_OFD_SETLK", anyFD, fcntlLock, lockWhy),
	unix.F_OFD_SETLKW:    fcntlServed("F_OFD_SETLKW", anyFD, fcntlLock, lockWhy),
	unix.F_SETOWN:        fcntlServed("F_SETOWN", anyFD, fcntlOwner, ownerWhy),
	unix.F_GETOWN:        fcntlServed("F_GETOWN", anyFD, fcntlOwner, ownerWhy),
	fSetownEx:            fcntlServed("F_SETOWN_EX", anyFD, fcntlOwnerEx, ownerWhy),
	fGetownEx:            fcntlServed("F_GETOWN_EX", anyFD, fcntlOwnerEx, ownerWhy),
	fSetsig:              fcntlNative("F_SETSIG", anyFD, "the signal sent to the owner, which F_SETOWN confines to the node"),
	fGetsig:              fcntlNative("F_GETSIG", anyFD, "the signal sent to the owner"),
	fGetownerUIDs:        fcntlDenied("F_GETOWNER_UIDS", unix.EINVAL, "host credentials of the owner"),
	fSetlease:            fcntlServed("F_SETLEASE", anyFD, fcntlSetLease, leaseWhy),
	fGetlease:            fcntlServed("F_GETLEASE", fileFD, fcntlGetLease, leaseWhy),
	fNotify:              fcntlServed("F_NOTIFY", anyFD, fcntlNotify, "the mask is weft state (vkernel.Leases); nothing is delivered, so a node learns nothing of the host's activity"),
	fDupfdQuery:          fcntlNative("F_DUPFD_QUERY", anyFD, "compares two of the node's own descriptors"),
	fCreatedQuery:        fcntlNative("F_CREATED_QUERY", anyFD, "whether the node's own open created the file"),
	fCancellk:            fcntlDenied("F_CANCELLK", unix.EINVAL, "used only inside the kernel"),
	unix.F_GETPIPE_SZ:    fcntlNative("F_GETPIPE_SZ", kindsOf(kindFIFO, kindInNode), "the pipe's own capacity (weft's for its pipes)"),
	unix.F_SETPIPE_SZ:    fcntlNative("F_SETPIPE_SZ", kindsOf(kindFIFO, kindInNode), "the pipe's own capacity (weft's for its pipes)"),
	fAddSeals:            fcntlNative("F_ADD_SEALS", kindsOf(kindFile), "seals of the node's own memfd"),
	fGetSeals:            fcntlNative("F_GET_SEALS", kindsOf(kindFile), "seals of the node's own memfd"),
	fGetRWHint:           fcntlNative("F_GET_RW_HINT", fileFD, "a write-lifetime hint, advisory"),
	fSetRWHint:           fcntlNative("F_SET_RW_HINT", fileFD, "a write-lifetime hint, advisory"),
	fGetFileRWHint:       fcntlNative("F_GET_FILE_RW_HINT", fileFD, "a write-lifetime hint, advisory"),
	fSetFileRWHint:       fcntlNative("F_SET_FILE_RW_HINT", fileFD, "a write-lifetime hint, advisory"),
}

// Fcntl implements fcntl(2) from fcntlTable.
func sysFcntl(c *call) result {
	fd := int(int32(c.arg(0)))
	cmd := uint64(uint32(c.arg(1)))
	kind := c.fdKind(fd)
	if kind == kindNone {
		return errno(unix.EBADF)
	}
	rule, ok := fcntlTable[cmd]
	if r, refused := c.judgeRequest("fcntl", cmd, rule.requestRule, ok, kind, unix.EINVAL); refused {
		return r
	}
	if rule.serve != nil {
		return rule.serve(c, fd)
	}
	return cont()
}

// fcntlDup serves F_DUPFD and F_DUPFD_CLOEXEC on weft's descriptors with
// the table's rules: an argument below 0 or not below RLIMIT_NOFILE is
// EINVAL; the new number is the lowest free one at or above it among
// every descriptor of the process (vkernel.LowestFree over the host's
// list, which holds the ones weft does not serve too), installed there.
func fcntlDup(c *call, fd int) result {
	v := c.n.fds.At(fd)
	if v == nil {
		return cont()
	}
	min, cloexec := int64(c.arg(2)), c.arg(1) == unix.F_DUPFD_CLOEXEC
	if min < 0 || min >= int64(c.fdTable().Limit()) {
		return errno(unix.EINVAL)
	}
	if min == 0 {
		return c.dupTo(v, -1, cloexec) // the kernel picks the lowest free number
	}
	open, err := c.hostFDs()
	if err != nil {
		return failf("listing the descriptors of process %d: %v", c.n.memPid(), err)
	}
	nfd, err := vkernel.LowestFree(func(n int) bool { return open[n] }, int(min), c.n.fds.Limit())
	if err != nil {
		return vkAnswer(err)
	}
	return c.dupTo(v, nfd, cloexec)
}

// hostFDs are the caller's process's open descriptors, served or not, as
// the host kernel lists them (/proc/PID/fd).
func (c *call) hostFDs() (map[int]bool, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", c.n.memPid()))
	if err != nil {
		return nil, err
	}
	open := make(map[int]bool, len(ents))
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			open[n] = true
		}
	}
	return open, nil
}

// fcntlSetfd is F_SETFD: the kernel sets the descriptor's close-on-exec
// flag, and a served descriptor's entry in the table follows
// (vkernel.FDTable.SetFD: the flag is the descriptor's, not its
// duplicates').
func fcntlSetfd(c *call, fd int) result {
	c.n.fds.SetFD(fd, int(int32(c.arg(2))))
	return cont()
}

// fdInRunDir reports whether the caller's descriptor fd is a file inside
// the node's run directory.
func (c *call) fdInRunDir(fd int) bool {
	target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", c.n.memPid(), fd))
	return err == nil && c.inRunDir(target)
}

// fcntlLock serves the record locks: natively on the node's own files
// (in its run directory), pipes and sockets; virtually on any other file
// (a system file opened for reading), where a lock is granted and never
// held, and a test finds the range unlocked.
func fcntlLock(c *call, fd int) result {
	if k := c.fdKind(fd); k != kindFile && k != kindDir || c.fdInRunDir(fd) {
		return cont()
	}
	switch c.arg(1) {
	case unix.F_GETLK, unix.F_OFD_GETLK:
		b, err := c.read(c.arg(2), 2)
		if err != nil {
			return errno(unix.EFAULT)
		}
		binary.LittleEndian.PutUint16(b, unix.F_UNLCK) // struct flock's l_type
		return errno(errnoOf(c.write(c.arg(2), b)))
	}
	if _, err := c.read(c.arg(2), 32); err != nil {
		return errno(unix.EFAULT)
	}
	return ret(0)
}

// nodeDup is weft's duplicate of the caller's descriptor fd, to act on
// its open file description (owners are per description).
func (c *call) nodeDup(fd int) (int, result, bool) {
	dup, err := unix.PidfdGetfd(c.n.pidfd, fd, 0)
	if err != nil {
		return -1, errno(unix.EBADF), false
	}
	return dup, result{}, true
}

// fcntlOwner serves F_SETOWN and F_GETOWN with virtual ids: a process
// (or, negative, the process group) of the node.
func fcntlOwner(c *call, fd int) result {
	dup, r, ok := c.nodeDup(fd)
	if !ok {
		return r
	}
	defer unix.Close(dup)
	ids := c.ids()
	if c.arg(1) == unix.F_GETOWN {
		host, err := unix.FcntlInt(uintptr(dup), unix.F_GETOWN, 0)
		if err != nil {
			return errno(errnoOf(err))
		}
		return ret(ids.OwnerOf(host))
	}
	host, rf := ids.Owner(int64(int32(c.arg(2))))
	if rf != vkernel.OK {
		return c.refuseOwner(unix.F_SETOWN, "F_SETOWN", rf)
	}
	_, err := unix.FcntlInt(uintptr(dup), unix.F_SETOWN, host)
	return errno(errnoOf(err))
}

// refuseOwner refuses an owner the id table did not translate, with a
// note: ESRCH for one that names nothing of the node, EPERM for a process
// group the node made of some of its processes (no host group holds just
// them, so the kernel could not signal them alone).
func (c *call) refuseOwner(cmd uint64, name string, rf vkernel.Refusal) result {
	if rf == vkernel.Unmodelled {
		return c.refuseRequest("fcntl", cmd, name, unix.EPERM, "the owner is a process group the node made of some of its processes, which the host kernel cannot signal alone")
	}
	return c.refuseRequest("fcntl", cmd, name, unix.ESRCH, "the owner names no thread, process or group of the node")
}

// f_owner_ex's types (linux/fcntl.h).
const (
	fOwnerTID  = 0
	fOwnerPID  = 1
	fOwnerPGRP = 2
)

// fcntlOwnerEx serves F_SETOWN_EX and F_GETOWN_EX (struct f_owner_ex:
// int type; pid_t pid) with virtual ids.
func fcntlOwnerEx(c *call, fd int) result {
	dup, r, ok := c.nodeDup(fd)
	if !ok {
		return r
	}
	defer unix.Close(dup)
	ids := c.ids()
	var ex [2]int32
	if c.arg(1) == fGetownEx {
		if _, _, e := unix.Syscall(unix.SYS_FCNTL, uintptr(dup), fGetownEx, uintptr(unsafe.Pointer(&ex))); e != 0 {
			return errno(e)
		}
		ex[1] = int32(ownerExVirtual(ids, ex[0], int(ex[1])))
		b := binary.LittleEndian.AppendUint32(nil, uint32(ex[0]))
		return errno(errnoOf(c.write(c.arg(2), binary.LittleEndian.AppendUint32(b, uint32(ex[1])))))
	}
	b, err := c.read(c.arg(2), 8)
	if err != nil {
		return errno(unix.EFAULT)
	}
	ex[0], ex[1] = int32(binary.LittleEndian.Uint32(b)), int32(binary.LittleEndian.Uint32(b[4:]))
	host, rf := ownerExHost(ids, ex[0], int64(ex[1]))
	switch rf {
	case vkernel.Invalid:
		return errno(unix.EINVAL)
	case vkernel.NoSuchThread, vkernel.Unmodelled:
		return c.refuseOwner(fSetownEx, "F_SETOWN_EX", rf)
	}
	ex[1] = int32(host)
	if _, _, e := unix.Syscall(unix.SYS_FCNTL, uintptr(dup), fSetownEx, uintptr(unsafe.Pointer(&ex))); e != 0 {
		return errno(e)
	}
	return ret(0)
}

// ownerExHost translates an f_owner_ex to the host id of its owner.
func ownerExHost(ids *vkernel.IDs, typ int32, pid int64) (int, vkernel.Refusal) {
	if pid == 0 {
		return 0, vkernel.OK
	}
	switch typ {
	case fOwnerTID:
		th, r := ids.Thread(pid)
		return th.Host, r
	case fOwnerPID:
		ts, r := ids.Process(pid)
		if r != vkernel.OK {
			return 0, r
		}
		return ts[0].Host, vkernel.OK
	case fOwnerPGRP:
		host, r := ids.Owner(-pid)
		return -host, r
	}
	return 0, vkernel.Invalid
}

// ownerExVirtual translates the host id of an f_owner_ex back.
func ownerExVirtual(ids *vkernel.IDs, typ int32, host int) int64 {
	if typ == fOwnerPGRP {
		return -ids.OwnerOf(-host)
	}
	return ids.OwnerOf(host)
}

// Flock implements flock(2): natively on the node's own files (in its run
// directory) and on pipes and sockets; on any other file weft grants the
// lock virtually, so no host process waits on a node's lock.
func sysFlock(c *call) result {
	fd := int(int32(c.arg(0)))
	switch c.arg(1) &^ unix.LOCK_NB {
	case unix.LOCK_SH, unix.LOCK_EX, unix.LOCK_UN:
	default:
		return errno(unix.EINVAL)
	}
	switch k := c.fdKind(fd); {
	case k == kindNone:
		return errno(unix.EBADF)
	case k != kindFile && k != kindDir || c.fdInRunDir(fd):
		return cont()
	}
	return ret(0)
}

// fcntlGetfl is F_GETFL: the kernel's answer, but weft's description's
// (vkernel.OpenFile) for a served descriptor.
func fcntlGetfl(c *call, fd int) result {
	v := c.n.fds.At(fd)
	if v == nil {
		return cont()
	}
	return ret(int64(v.file.Flags()))
}

// fcntlSetfl is F_SETFL: the kernel's, but weft's description's
// (vkernel.OpenFile.SetFlags) for a served descriptor. O_ASYNC on a kind
// whose Linux file sends SIGIO (pipes, sockets) and O_DIRECT on a pipe
// (packet mode) are refused with EINVAL and a note: weft delivers no
// SIGIO and has no packet pipes, and a flag recorded but never honoured
// would half-work silently. O_ASYNC on the other kinds behaves as on
// Linux: ignored where the file has no fasync (eventfd, timerfd,
// signalfd, epoll), recorded on a random device, which has nothing left
// to signal.
func fcntlSetfl(c *call, fd int) result {
	v := c.n.fds.At(fd)
	if v == nil {
		return cont()
	}
	arg := int(int32(c.arg(2)))
	var who vkernel.Caller
	if arg&unix.O_NOATIME != 0 {
		who = c.fileCaller()
	}
	if err := v.file.SetFlags(arg, who); err != nil {
		return c.statusRefused("fcntl", unix.F_SETFL, "F_SETFL", err)
	}
	v.followStatus()
	return ret(0)
}

// fileCaller is what F_SETFL's O_NOATIME check needs of the calling
// thread: its file-system uid and whether it has CAP_FOWNER (from
// /proc/PID/task/TID/status). A status weft cannot read grants nothing.
func (c *call) fileCaller() vkernel.Caller {
	s, err := taskStatus(c.n.memPid(), c.t.tid)
	if err != nil || !s.HasIDs {
		return vkernel.Caller{FSUID: ^uint32(0)}
	}
	return vkernel.Caller{FSUID: s.UID[3], CapFowner: s.CapEff&(1<<capFowner) != 0}
}

// capFowner is CAP_FOWNER's bit in /proc/PID/status's CapEff.
const capFowner = 3

// statusRefused answers a status flag change vkernel.OpenFile did not
// make: its errno, or EINVAL with a note for what weft does not model.
func (c *call) statusRefused(sys string, req uint64, name string, err error) result {
	if errors.Is(err, vkernel.ErrPacketUnmodelled) {
		return c.refuseRequest(sys, req, name, unix.EINVAL, err.Error())
	}
	return vkAnswer(err)
}

// followStatus keeps the placeholder's O_NONBLOCK as weft's description
// has it: nothing of weft reads it, but a call the kernel runs on the
// placeholder (the signalfd's read once a signal is pending, a call no
// kind serves) then blocks or not as the node asked, and the node's
// /proc/PID/fdinfo shows it. The other flags stay weft's alone.
func (v *vfd) followStatus() {
	if v.ours >= 0 {
		unix.SetNonblock(v.ours, v.nonblocking())
	}
}
