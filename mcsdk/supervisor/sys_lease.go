//go:build linux && amd64

package supervisor

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// Leases (F_SETLEASE, F_GETLEASE) and directory notifications (F_NOTIFY)
// are served virtually: weft state in the world's table
// (vkernel.Leases, which says what is granted and what is not), never a
// host kernel lease or dnotify watch, so no host process that opens a
// file a node leased is blocked, and no node learns what the host does
// in a directory. This file is the edge: it names the caller's open file
// description, finds the world's opens of the file (every live process
// of every node, from /proc, grouped by kcmp) and the caller's rights.

// leaseTable returns the world's leases and dnotify masks, made at first
// use.
func (w *World) leaseTable() *vkernel.Leases {
	if w.leases == nil {
		w.leases = vkernel.NewLeases()
	}
	return w.leases
}

// worldProc is one live process of the world.
type worldProc struct {
	node int
	life int // the node's restarts so far
	vpid int64
	pid  int // host pid
}

// worldProcs lists the live processes of every running node.
func (w *World) worldProcs() []worldProc {
	var out []worldProc
	for _, n := range w.nodes {
		w.need(n) // their host pids (lazy_linux.go)
		switch {
		case n.exited:
		case len(n.procs) == 0:
			out = append(out, worldProc{n.id, n.restarts, virtualPidBase + int64(n.id), n.pid})
		default:
			for _, p := range n.procs {
				if !p.ended() {
					out = append(out, worldProc{n.id, n.restarts, p.vpid, p.pid})
				}
			}
		}
	}
	return out
}

// hostPidOf returns the host pid of d's process, if it is live.
func hostPidOf(procs []worldProc, d vkernel.Desc) (int, bool) {
	for _, p := range procs {
		if p.node == d.Node && p.life == d.Life && p.vpid == d.Proc {
			return p.pid, true
		}
	}
	return 0, false
}

// fdFile is what statx says of a descriptor's file.
type fdFile struct {
	file  vkernel.HostFile
	mode  uint16
	uid   uint32
	nlink uint32
}

// fdStat stats descriptor fd of host process pid.
func fdStat(pid, fd int) (fdFile, error) {
	var stx unix.Statx_t
	p := fmt.Sprintf("/proc/%d/fd/%d", pid, fd)
	if err := unix.Statx(unix.AT_FDCWD, p, 0, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &stx); err != nil {
		return fdFile{}, err
	}
	f := vkernel.HostFile{HostIno: vkernel.HostIno{Dev: unix.Mkdev(stx.Dev_major, stx.Dev_minor), Ino: stx.Ino}}
	if stx.Mask&unix.STATX_BTIME != 0 {
		f.Birth = stxNs(stx.Btime)
	}
	return fdFile{file: f, mode: stx.Mode, uid: stx.Uid, nlink: stx.Nlink}, nil
}

// fdWrites reports whether descriptor fd of host process pid is open for
// writing, from its fdinfo's flags; a descriptor weft cannot read the
// flags of is taken to write (the answer that grants less).
func fdWrites(pid, fd int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", pid, fd))
	if err != nil {
		return true
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("flags:")); ok {
			fl, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 64)
			return err != nil || fl&unix.O_ACCMODE != unix.O_RDONLY
		}
	}
	return true
}

// knownDesc returns the name the world's table knows the caller's
// descriptor fd's description by: a description the table holds
// something for that fd is a descriptor of (kcmp), or fd itself. It
// first forgets descriptions that were closed (their process ended,
// their descriptor closed or now naming another file).
func (c *call) knownDesc(fd int) vkernel.Desc {
	t := c.w.leaseTable()
	procs := c.w.worldProcs()
	vpid := virtualPidBase + int64(c.n.id) // the main process, before any fork
	if c.t != nil && c.t.p != nil {
		vpid = c.t.p.vpid
	}
	self, pid := vkernel.Desc{Node: c.n.id, Life: c.n.restarts, Proc: vpid, FD: fd}, c.n.memPid()
	var found *vkernel.Desc
	for _, d := range t.Descs() {
		hp, ok := hostPidOf(procs, d)
		ff, err := fdStat(hp, d.FD)
		leased, held := t.File(d)
		if !ok || err != nil || held && leased != ff.file {
			t.Drop(d)
			continue
		}
		if found == nil && sameFile(hp, d.FD, pid, fd) {
			found = &d
		}
	}
	if found != nil {
		return *found
	}
	return self
}

// worldOpens lists the world's opens of file other than the caller's
// description (descriptor fd of host process pid).
func (c *call) worldOpens(file vkernel.HostFile, pid, fd int) []vkernel.LeaseOpen {
	var out []vkernel.LeaseOpen
	for _, p := range c.w.worldProcs() {
		ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.pid))
		if err != nil {
			continue // ended since
		}
		for _, e := range ents {
			n, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if ff, err := fdStat(p.pid, n); err != nil || ff.file != file || sameFile(pid, fd, p.pid, n) {
				continue
			}
			out = append(out, vkernel.LeaseOpen{Write: fdWrites(p.pid, n)})
		}
	}
	return out
}

// inAnyRunDir reports whether host path p lies in a node's run
// directory, where that node may open it for writing.
func (w *World) inAnyRunDir(p string) bool {
	for _, dir := range w.runDirs {
		if dir != "" && (p == dir || strings.HasPrefix(p, dir+"/")) {
			return true
		}
	}
	return false
}

// capLease is CAP_LEASE's bit in /proc/PID/status's CapEff.
const capLease = 28

// mayLease reports whether the calling thread may take a lease on a file
// owned by uid: its file-system uid owns it, or it has CAP_LEASE
// (fs/locks.c's generic_setlease). A status weft cannot read grants
// nothing.
func (c *call) mayLease(uid uint32) bool {
	s, err := taskStatus(c.n.memPid(), c.t.tid)
	if err != nil {
		return false
	}
	return s.HasIDs && s.UID[3] == uid || s.CapEff&(1<<capLease) != 0
}

// leaseType is F_SETLEASE's argument as a lease type; one that is none
// stays none (vkernel answers EINVAL).
func leaseType(arg uint64) int {
	if arg > vkernel.LeaseUnlock {
		return -1
	}
	return int(arg)
}

// fcntlSetLease serves F_SETLEASE virtually (vkernel.Leases.Set).
func fcntlSetLease(c *call, fd int) result {
	if k := c.fdKind(fd); k == kindInNode || k == kindVSocket {
		return errno(unix.EINVAL) // weft's own objects: no regular file
	}
	pid := c.n.memPid()
	ff, err := fdStat(pid, fd)
	if err != nil {
		return errno(unix.EBADF)
	}
	link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
	lf := vkernel.LeaseFile{
		File:      ff.file,
		Regular:   ff.mode&unix.S_IFMT == unix.S_IFREG,
		Owner:     c.mayLease(ff.uid),
		SelfWrite: fdWrites(pid, fd),
		Opens:     c.worldOpens(ff.file, pid, fd),
		Names:     uint64(ff.nlink),
		InRunDir:  err != nil || c.w.inAnyRunDir(link), // a file weft cannot place could be writable
	}
	typ := leaseType(c.arg(2))
	err = c.w.leaseTable().Set(c.knownDesc(fd), typ, lf)
	if errors.Is(err, vkernel.ErrUnbreakable) {
		return c.refuseRequest("fcntl", fSetlease, "F_SETLEASE", unix.EAGAIN,
			lf.Breakable(typ)+"; weft does not deliver lease breaks, so it grants only leases no open of the world can break")
	}
	if err != nil {
		return vkAnswer(err)
	}
	return ret(0)
}

// fcntlGetLease serves F_GETLEASE from the world's table: the lease the
// caller's description holds, F_UNLCK if none.
func fcntlGetLease(c *call, fd int) result {
	return ret(int64(c.w.leaseTable().Get(c.knownDesc(fd))))
}

// fcntlNotify serves F_NOTIFY virtually (vkernel.Leases.Notify): the mask
// is recorded, nothing is delivered.
func fcntlNotify(c *call, fd int) result {
	err := c.w.leaseTable().Notify(c.knownDesc(fd), c.fdKind(fd) == kindDir, uint32(c.arg(2)))
	if err != nil {
		return vkAnswer(err)
	}
	return ret(0)
}
