//go:build linux && amd64

package supervisor

import (
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// File times are virtual. weft stats the file itself (through the node's
// /proc entries, see hostPath) and rewrites every time field before the
// node sees it. A file outside the node's run directory, which no node
// can change, always reads fileEpoch: its host times (changed by the
// host, not by the run) never show. A file in the run directory reads
// the virtual clock at the first stat that saw its current host
// modification or change time (or what utimensat asked for): its virtual
// times change exactly when the node changes it, so "has this file
// changed" still works, and a run is still a function of its choices.
//
// Access times behave as on a noatime mount (mount(8)), which is what
// the node's /proc/self/mountinfo and statfs's f_flags say: a file's
// access time is the virtual time weft first met it (its first stat,
// when its modification and change times take theirs too), or a new
// file's at the same host inode (a new birth time), and then changes
// only when the node sets it (utimensat, futimens, utimes, futimesat,
// utime); reads, writes, getdents, exec and mmap never move it. The
// host's access time is never read: it moves by the host's mount
// options (relatime) and by its clock's tick, so a restored copy of a
// data directory, whose host times are the copy's, would read a new
// access time where the branch replayed to the same state does not.
// relatime computed on virtual times was the alternative; it would need
// every read of a file (read, pread, mmap faults, sendfile, exec) to be
// seen and matched to an inode, which weft does not do for a mapped
// file's pages, and would still be a rule of this host's configuration.
// A file system that records no birth time (statx without STATX_BTIME)
// cannot tell a file made at a reused inode from the old one: it keeps
// the old one's access time.
//
// Inode and device numbers are virtual (sys_inodes.go).

// fileEpoch is the virtual time of every file outside the run directory:
// one virtual day before the run starts.
const fileEpoch = Epoch - 86400*int64(1e9)

// fileKey identifies a file on the host.
type fileKey struct{ dev, ino uint64 }

// Indexes of fileClock's times.
const (
	atime = iota
	mtime
	ctime
	btime
	nTimes
)

// fileClock maps one file's host times to virtual ones: host is what
// virtualTimes last saw of its modification, change and birth times
// (host[atime] is unused: 0), virt the times the node reads.
type fileClock struct {
	host, virt [nTimes]int64
}

// virtualTimes returns the virtual times for a file's host times (ns;
// host[atime] is not used, host[btime] is its birth time, 0 if the host
// records none); inside says whether the file is in the node's run
// directory. A file met for the first time, or a new file at its inode
// (another birth time), takes the virtual clock for every time; after
// that its modification and change times take the clock when their host
// times change, and its access time never does (noatime).
func (w *World) virtualTimes(k fileKey, host [nTimes]int64, inside bool) [nTimes]int64 {
	if !inside {
		return [nTimes]int64{fileEpoch, fileEpoch, fileEpoch, fileEpoch}
	}
	fc := w.fileClocks[k]
	if fc == nil || fc.host[btime] != host[btime] {
		fc = &fileClock{host: host, virt: [nTimes]int64{w.now, w.now, w.now, w.now}}
		fc.host[atime] = 0
		w.fileClocks[k] = fc
		return fc.virt
	}
	for _, i := range [...]int{mtime, ctime} {
		if fc.host[i] != host[i] {
			fc.host[i], fc.virt[i] = host[i], w.now
		}
	}
	return fc.virt
}

// hostTimes are the host identity and times of file path
// (AT_SYMLINK_NOFOLLOW in flags: of a symlink itself), with its birth
// time, 0 where the host records none, for virtualTimes.
func hostTimes(path string, flags int) (fileKey, [nTimes]int64, error) {
	var stx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, flags, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &stx); err != nil {
		return fileKey{}, [nTimes]int64{}, err
	}
	return fileKey{unix.Mkdev(stx.Dev_major, stx.Dev_minor), stx.Ino}, statxTimes(&stx), nil
}

// statxTimes are stx's times, the birth time 0 where stx has none.
func statxTimes(stx *unix.Statx_t) [nTimes]int64 {
	t := [nTimes]int64{stxNs(stx.Atime), stxNs(stx.Mtime), stxNs(stx.Ctime), 0}
	if stx.Mask&unix.STATX_BTIME != 0 {
		t[btime] = stxNs(stx.Btime)
	}
	return t
}

// statPlace is where a stat-like call looks: the host name weft stats
// (canonical, or weft's name for a descriptor or /proc file), whether it
// follows a final symlink there, whether it is in the run directory, and
// a virtual file's content (then host is "").
type statPlace struct {
	host    string
	follow  bool
	fd      bool
	inside  bool
	content []byte
	name    string // the view's path ("" for a descriptor: see statName)
	anon    bool   // a served kind Linux makes an anonymous inode of (anonInode)
}

// anonInode is a served kind whose descriptor Linux backs with an
// anonymous inode ("anon_inode:[eventpoll]"): fstat shows mode 0600 and
// no file type, where weft's placeholder is a socket.
type anonInode interface{ anonName() string }

func (*vepoll) anonName() string { return "anon_inode:[eventpoll]" }
func (*vtimer) anonName() string { return "anon_inode:[timerfd]" }

// stat is the stat of the place when it is not a host file (host ""):
// a virtual file with content, or an anonymous inode.
func (sp statPlace) stat() unix.Stat_t {
	st := virtualStat(sp.content)
	if sp.anon {
		st.Mode, st.Size, st.Blocks = 0o600, 0, 0
	}
	return st
}

// statTarget resolves a for a call that reads a file's metadata.
func (c *call) statTarget(a fsArg) (statPlace, error) {
	wh, err := c.resolveArg(a)
	if err != nil {
		return statPlace{}, err
	}
	if wh.fd {
		if v := c.n.fds.At(int(wh.dirfd)); v != nil {
			if r, ok := v.obj.(*randomDev); ok { // not weft's placeholder
				return statPlace{host: r.path(), name: r.path()}, nil
			}
			if a, ok := v.obj.(anonInode); ok {
				return statPlace{name: a.anonName(), anon: true}, nil
			}
		}
		host := c.fdHost(wh.dirfd)
		if wh.dirfd == unix.AT_FDCWD {
			host = fmt.Sprintf("/proc/%d/cwd", c.n.memPid())
		}
		p, err := canonicalTarget(host, true)
		return statPlace{host: host, follow: true, fd: true, inside: err == nil && c.inRunDir(p)}, nil
	}
	r := wh.res
	switch r.Kind {
	case vkernel.Missing:
		return statPlace{}, unix.ENOENT
	case vkernel.File:
		return statPlace{content: r.Content, name: r.Path}, nil
	case vkernel.Proc:
		if strings.HasPrefix(r.Path, "/dev/") {
			return statPlace{host: r.Path, name: r.Path}, nil // the host's own /dev link, not followed
		}
		return statPlace{host: c.procHostPath(r.Path), follow: a.follow, name: r.Path}, nil
	}
	return statPlace{host: c.hostOf(r), inside: r.Writable, name: r.Path}, nil
}

// virtualStat is the stat of a virtual file with content: a read-only
// regular file, times fileEpoch.
func virtualStat(content []byte) unix.Stat_t {
	ts := nsTs(fileEpoch)
	return unix.Stat_t{Mode: unix.S_IFREG | 0o444, Nlink: 1, Size: int64(len(content)), Blksize: 4096,
		Blocks: (int64(len(content)) + 511) / 512, Atim: ts, Mtim: ts, Ctim: ts}
}

func nsTs(ns int64) unix.Timespec       { return unix.Timespec{Sec: ns / 1e9, Nsec: ns % 1e9} }
func stxNs(t unix.StatxTimestamp) int64 { return t.Sec*1e9 + int64(t.Nsec) }
func nsStx(ns int64) unix.StatxTimestamp {
	return unix.StatxTimestamp{Sec: ns / 1e9, Nsec: uint32(ns % 1e9)}
}

// Stat implements stat(2).
func sysStat(c *call) result {
	return statAt(c, fsArg{dirfd: -1, path: 0, follow: true, flags: -1}, c.arg(1))
}

// Lstat implements lstat(2).
func sysLstat(c *call) result {
	return statAt(c, fsArg{dirfd: -1, path: 0, flags: -1}, c.arg(1))
}

// Fstat implements fstat(2).
func sysFstat(c *call) result { return statAt(c, fsFD(0), c.arg(1)) }

// Newfstatat implements newfstatat(2) (glibc's fstatat and, with
// AT_EMPTY_PATH, its fstat).
func sysNewfstatat(c *call) result { return statAt(c, fsAt(0, 1, true, 3), c.arg(2)) }

func statAt(c *call, a fsArg, buf uint64) result {
	sp, err := c.statTarget(a)
	if err != nil {
		return errno(pathErrno(err))
	}
	st := sp.stat()
	if sp.host == "" { // a file of the view's own (a host file's numbers: virtualizeStat)
		st.Dev, st.Ino = vkernel.Dev, c.w.inodeTable().Virtual(sp.name)
	} else {
		if err := unix.Fstatat(unix.AT_FDCWD, sp.host, &st, sp.atFlags()); err != nil {
			return errno(sp.errno(err))
		}
		_, host, err := hostTimes(sp.host, sp.atFlags()) // with the birth time stat lacks
		if err != nil {
			return errno(sp.errno(err))
		}
		v := c.w.virtualTimes(fileKey{st.Dev, st.Ino}, host, sp.inside)
		st.Atim, st.Mtim, st.Ctim = nsTs(v[atime]), nsTs(v[mtime]), nsTs(v[ctime])
		c.virtualizeStat(&st, sp, host[btime])
	}
	return errno(errnoOf(c.write(buf, structBytes(&st))))
}

// errno maps the error of a call through /proc/PID/fd/N: a descriptor
// the node does not have is EBADF, as the node's own call would answer.
func (sp statPlace) errno(err error) unix.Errno {
	if sp.fd && err == unix.ENOENT {
		return unix.EBADF
	}
	return errnoOf(err)
}

// atFlags is AT_SYMLINK_NOFOLLOW unless the place follows symlinks.
func (sp statPlace) atFlags() int {
	if sp.follow {
		return 0
	}
	return unix.AT_SYMLINK_NOFOLLOW
}

// Statx implements statx(2).
func sysStatx(c *call) result {
	sp, err := c.statTarget(fsAt(0, 1, true, 2))
	if err != nil {
		return errno(pathErrno(err))
	}
	var stx unix.Statx_t
	if sp.host == "" {
		st := sp.stat()
		stx = unix.Statx_t{Mask: unix.STATX_BASIC_STATS, Blksize: uint32(st.Blksize), Nlink: 1, Mode: uint16(st.Mode),
			Size: uint64(st.Size), Blocks: uint64(st.Blocks)}
		stx.Atime, stx.Mtime, stx.Ctime = nsStx(fileEpoch), nsStx(fileEpoch), nsStx(fileEpoch)
		stx.Dev_major, stx.Dev_minor, stx.Ino = vkernel.DevMajor, vkernel.DevMinor, c.w.inodeTable().Virtual(sp.name)
		return errno(errnoOf(c.write(c.arg(4), structBytes(&stx))))
	}
	flags := int(c.arg(2))&^(unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW) | sp.atFlags()
	mask := int(c.arg(3))
	// The birth time, which virtualTimes needs, is asked for always and
	// shown only when the node asked (a file system fills it only then).
	if err := unix.Statx(unix.AT_FDCWD, sp.host, flags, mask|unix.STATX_BTIME, &stx); err != nil {
		return errno(sp.errno(err))
	}
	host := statxTimes(&stx)
	if mask&unix.STATX_BTIME == 0 {
		stx.Mask &^= unix.STATX_BTIME
		stx.Btime = unix.StatxTimestamp{}
	}
	v := c.w.virtualTimes(fileKey{unix.Mkdev(stx.Dev_major, stx.Dev_minor), stx.Ino}, host, sp.inside)
	stx.Atime, stx.Mtime, stx.Ctime = nsStx(v[atime]), nsStx(v[mtime]), nsStx(v[ctime])
	c.virtualizeStatx(&stx, sp, host[btime])
	if stx.Mask&unix.STATX_BTIME != 0 {
		stx.Btime = nsStx(v[btime])
	}
	return errno(errnoOf(c.write(c.arg(4), structBytes(&stx))))
}

// Statfs implements statfs(2): the file system's type and limits are the
// host's, a disk file system's size and free counts fixed (they change
// with the host's use); a pseudo file system (pipes, sockets, /proc) has
// none, as on Linux. A disk file system, or one the host mounts relatime,
// says ST_NOATIME and not ST_RELATIME: its files' access times are
// virtual and behave as noatime (virtualTimes).
func sysStatfs(c *call) result { return statfsAt(c, fsPath(0, true), c.arg(1)) }

// Fstatfs implements fstatfs(2).
func sysFstatfs(c *call) result { return statfsAt(c, fsFD(0), c.arg(1)) }

// anonInodeStatfs is what fstatfs says of an anonymous inode's
// descriptor (epoll, timerfd: fs/anon_inodes.c's pseudo file system,
// simple_statfs): its magic, a page as block size, no blocks or files,
// NAME_MAX, ST_VALID.
var anonInodeStatfs = unix.Statfs_t{Type: 0x09041934, Bsize: 4096, Namelen: 255, Frsize: 4096, Flags: stValid}

// Flags of statfs's f_flags (statfs(2)): ST_VALID (f_flags is filled
// in), ST_NOATIME, ST_RELATIME.
const (
	stValid    = 0x20
	stNoatime  = 0x400
	stRelatime = 0x1000
)

func statfsAt(c *call, a fsArg, buf uint64) result {
	sp, err := c.statTarget(a)
	if err != nil {
		return errno(pathErrno(err))
	}
	if sp.anon {
		st := anonInodeStatfs
		return errno(errnoOf(c.write(buf, structBytes(&st))))
	}
	if sp.host == "" {
		sp.host = "/etc" // a virtual file: the system's file system
	}
	var st unix.Statfs_t
	if err := unix.Statfs(sp.host, &st); err != nil {
		return errno(sp.errno(err))
	}
	if st.Blocks != 0 || st.Flags&stRelatime != 0 {
		st.Flags = st.Flags&^stRelatime | stNoatime
	}
	if st.Blocks != 0 {
		st.Blocks, st.Bfree, st.Bavail = 1<<24, 1<<23, 1<<23
		st.Files, st.Ffree = 1<<20, 1<<19
	}
	st.Fsid = unix.Fsid{}
	return errno(errnoOf(c.write(buf, structBytes(&st))))
}

// utimeOmit and utimeNow are UTIME_OMIT and UTIME_NOW (utimensat(2)).
const (
	utimeOmit = (1 << 30) - 2
	utimeNow  = (1 << 30) - 1
)

// Utimensat implements utimensat(2) (and futimens, with a NULL path).
func sysUtimensat(c *call) result {
	var times *[2]int64
	if c.arg(2) != 0 {
		b, err := c.read(c.arg(2), 32)
		if err != nil {
			return errno(unix.EFAULT)
		}
		times = &[2]int64{}
		for i := range times {
			sec, nsec := int64(binary.LittleEndian.Uint64(b[16*i:])), int64(binary.LittleEndian.Uint64(b[16*i+8:]))
			switch {
			case nsec == utimeOmit || nsec == utimeNow:
				times[i] = -nsec
			case nsec < 0 || nsec >= 1e9:
				return errno(unix.EINVAL)
			default:
				times[i] = sec*1e9 + nsec
			}
		}
	}
	return setTimes(c, fsAt(0, 1, true, 3), times)
}

// Utimes implements utimes(2).
func sysUtimes(c *call) result { return timevals(c, fsPath(0, true), c.arg(1)) }

// Futimesat implements futimesat(2).
func sysFutimesat(c *call) result { return timevals(c, fsAt(0, 1, true, -1), c.arg(2)) }

func timevals(c *call, a fsArg, addr uint64) result {
	if addr == 0 {
		return setTimes(c, a, nil)
	}
	b, err := c.read(addr, 32)
	if err != nil {
		return errno(unix.EFAULT)
	}
	var times [2]int64
	for i := range times {
		sec, usec := int64(binary.LittleEndian.Uint64(b[16*i:])), int64(binary.LittleEndian.Uint64(b[16*i+8:]))
		if usec < 0 || usec >= 1e6 {
			return errno(unix.EINVAL)
		}
		times[i] = sec*1e9 + usec*1e3
	}
	return setTimes(c, a, &times)
}

// Utime implements utime(2).
func sysUtime(c *call) result {
	a := fsPath(0, true)
	if c.arg(1) == 0 {
		return setTimes(c, a, nil)
	}
	b, err := c.read(c.arg(1), 16)
	if err != nil {
		return errno(unix.EFAULT)
	}
	return setTimes(c, a, &[2]int64{int64(binary.LittleEndian.Uint64(b)) * 1e9, int64(binary.LittleEndian.Uint64(b[8:])) * 1e9})
}

// setTimes sets a file's access and modification times to virtual times
// (nil: now; -utimeNow: now; -utimeOmit: unchanged). weft sets the host
// times to the host's now (so the host's change time moves exactly when
// Linux's would) and remembers the virtual ones against them, so later
// stats show what the node asked for. Refused outside the run directory,
// like every other write.
func setTimes(c *call, a fsArg, times *[2]int64) result {
	var host string
	flags := unix.AT_SYMLINK_NOFOLLOW
	if a.path < 0 || c.arg(a.path) == 0 { // futimens: the descriptor's file
		if a.dirfd < 0 {
			return errno(unix.EFAULT)
		}
		fd := int32(c.arg(a.dirfd))
		if !c.mayWrite(c.fdHost(fd), true, false) {
			return c.refuseWrite(c.fdHost(fd))
		}
		host, flags = c.fdHost(fd), 0
	} else {
		p, _, fail := c.writePlace(a, needFile)
		if fail != nil {
			return *fail
		}
		host = p
	}
	want := [2]int64{c.w.now, c.w.now}
	hostTs := []unix.Timespec{{Nsec: utimeNow}, {Nsec: utimeNow}}
	for i := range want {
		switch {
		case times == nil || times[i] == -utimeNow:
		case times[i] == -utimeOmit:
			want[i], hostTs[i].Nsec = -1, utimeOmit
		default:
			want[i] = times[i]
		}
	}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, host, hostTs, flags); err != nil {
		return errno(statPlace{fd: flags == 0}.errno(err))
	}
	k, t, err := hostTimes(host, flags)
	if err != nil {
		return errno(errnoOf(err))
	}
	c.w.virtualTimes(k, t, true)
	fc := c.w.fileClocks[k]
	for i, t := range want {
		if t >= 0 {
			fc.virt[i] = t // atime, mtime are indexes 0 and 1
		}
	}
	return ret(0)
}
