//go:build linux && amd64

package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/weft-mc/weft/mcsdk/vkernel"
)

// relocate points the recorded host files that lie in the world's data
// directories (root) at the checkpoint's copies.
func (cp *Checkpoint) relocate(root string) {
	if root == "" {
		return
	}
	roots := []string{root}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		roots = append(roots, r)
	}
	for _, fs := range cp.files {
		for k, f := range fs {
			for _, r := range roots {
				if strings.HasPrefix(f.path, r+"/") {
					fs[k].path = cp.w.dataRoot + strings.TrimPrefix(f.path, r)
					break
				}
			}
		}
	}
}

// hostFiles lists the files and directories the node opened natively,
// with their flags and offsets, to be opened again in each copy; other
// descriptors weft does not serve are refused (pipes and sockets of the
// host would be shared between copies), except character devices (the
// standard streams on /dev/null) and those weft passed on itself.
func (n *node) hostFiles() ([]hostFile, error) {
	dir := fmt.Sprintf("/proc/%d/fd", n.pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []hostFile
	for _, e := range ents {
		var fd int
		if _, err := fmt.Sscan(e.Name(), &fd); err != nil || n.fds.At(fd) != nil {
			continue
		}
		var st unix.Stat_t
		if err := unix.Stat(dir+"/"+e.Name(), &st); err != nil {
			return nil, err
		}
		link, _ := os.Readlink(dir + "/" + e.Name())
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFCHR:
			continue
		case unix.S_IFREG, unix.S_IFDIR:
			if st.Nlink == 0 || !filepath.IsAbs(link) {
				return nil, fmt.Errorf("has a deleted file open, %d (%s)", fd, link)
			}
			f := hostFile{fd: fd, path: link}
			if f.flags, f.pos, err = fdInfo(n.pid, fd); err != nil {
				return nil, err
			}
			out = append(out, f)
			continue
		}
		if !inherited(fd, st) {
			return nil, fmt.Errorf("has a host descriptor, %d (%s)", fd, link)
		}
	}
	return out, nil
}

// fdInfo reads a descriptor's open flags and offset from /proc.
func fdInfo(pid, fd int) (flags int, pos int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", pid, fd))
	if err != nil {
		return 0, 0, err
	}
	seen := 0
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch {
		case !ok:
		case k == "pos":
			_, err = fmt.Sscan(v, &pos)
			seen++
		case k == "flags":
			_, err = fmt.Sscanf(v, "%o", &flags)
			seen++
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if seen != 2 {
		return 0, 0, fmt.Errorf("descriptor %d: no pos or flags in fdinfo", fd)
	}
	return flags, pos, nil
}

// reopen gives n's restored process idx (n's process fields describe
// it: asMember), whose threads are tasks, descriptions of its own for
// the host files the checkpoint recorded for it, in place
// (SECCOMP_ADDFD_FLAG_SETFD, for a parked call's notification, or, if no
// thread is parked, for a call injected in held thread tid at sysIP:
// heldNotif): files in the checkpoint's data directories are opened in
// the world's, others where they are. A description the checkpoint's
// processes shared (hostFile.desc) is opened once, in opened, and
// shared again.
func (w *World) reopen(n *node, idx int, tasks []*task, files []hostFile, cpRoot string, tid int, sysIP uint64, opened map[int]int) error {
	var mine []hostFile
	for _, f := range files {
		if f.proc == idx {
			mine = append(mine, f)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	if c := parkedCall(tasks); c != nil {
		return w.install(n, mine, cpRoot, c.req.ID, opened)
	}
	return onLauncher(n.tracer, func() error {
		return heldNotif(tid, n.listener, sysIP, func(id uint64) error { return w.install(n, mine, cpRoot, id, opened) })
	})
}

// heldNotif gives f a notification of thread tid, held in a ptrace stop:
// tid issues a clone at the syscall instruction sysIP, which weft
// receives, hands to f and answers with EPERM (the clone never runs);
// tid then stops at the call's exit with its registers put back, held as
// before. On the tracer thread.
func heldNotif(tid, listener int, sysIP uint64, f func(id uint64) error) error {
	var saved unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &saved); err != nil {
		return err
	}
	regs := saved
	regs.Rip, regs.Rax, regs.Orig_rax, regs.Rdi = sysIP, cloneNr, ^uint64(0), cloneFlags
	if err := unix.PtraceSetRegs(tid, &regs); err != nil {
		return err
	}
	if err := unix.PtraceSyscall(tid, 0); err != nil { // to the call's entry
		return err
	}
	if _, err := awaitSyscallStop(tid, syscallStop); err != nil {
		return err
	}
	if err := unix.PtraceSyscall(tid, 0); err != nil { // on to its notification
		return err
	}
	nf, err := awaitNotif(tid, listener)
	if err != nil {
		return err
	}
	if nf.Data.Nr != cloneNr || nf.Data.InstructionPointer != sysIP+2 {
		return fmt.Errorf("expected the injected clone, got syscall %d at %#x", nf.Data.Nr, nf.Data.InstructionPointer)
	}
	ferr := f(nf.ID)
	if err := sendResp(listener, &notifResp{ID: nf.ID, Val: -1, Error: -int32(unix.EPERM)}); err != nil {
		return err
	}
	if _, err := awaitSyscallStop(tid, syscallStop); err != nil { // the call's exit
		return err
	}
	if err := unix.PtraceSetRegs(tid, &saved); err != nil {
		return err
	}
	return ferr
}

// install puts the host files in n's process through notification id;
// each description is opened once (opened, by hostFile.desc; the caller
// closes them).
func (w *World) install(n *node, files []hostFile, cpRoot string, id uint64, opened map[int]int) error {
	for _, f := range files {
		ours, ok := opened[f.desc]
		if !ok {
			var err error
			if ours, err = w.openHostFile(f, cpRoot); err != nil {
				return err
			}
			opened[f.desc] = ours
		}
		a := notifAddfd{ID: id, Flags: unix.SECCOMP_ADDFD_FLAG_SETFD, SrcFD: uint32(ours), NewFD: uint32(f.fd)}
		if f.flags&unix.O_CLOEXEC != 0 {
			a.NewFDFlags = unix.O_CLOEXEC
		}
		if _, err := addFD(n.listener, &a); err != nil {
			return fmt.Errorf("installing %s as %d: %v", f.path, f.fd, err)
		}
	}
	return nil
}

// openHostFile opens host file f again at its offset, in the world's
// data directories if it lies in the checkpoint's (cpRoot).
func (w *World) openHostFile(f hostFile, cpRoot string) (int, error) {
	path := f.path
	if cpRoot != "" && strings.HasPrefix(path, cpRoot+"/") {
		path = w.dataRoot + strings.TrimPrefix(path, cpRoot)
	}
	fl := f.flags&^(unix.O_CREAT|unix.O_EXCL|unix.O_TRUNC|unix.O_NOCTTY|unix.O_CLOEXEC) | unix.O_CLOEXEC
	ours, err := unix.Open(path, fl, 0)
	if err != nil {
		return -1, fmt.Errorf("reopening %s: %v", path, err)
	}
	if _, err := unix.Seek(ours, f.pos, 0); err != nil && f.pos != 0 {
		unix.Close(ours)
		return -1, fmt.Errorf("seeking %s: %v", path, err)
	}
	return ours, nil
}

// inherited reports whether descriptor fd, with status st, is one weft
// itself holds at the same number (inherited from weft's own parent
// without close-on-exec): every node shares it with weft already.
func inherited(fd int, st unix.Stat_t) bool {
	var own unix.Stat_t
	return unix.Fstat(fd, &own) == nil && own.Dev == st.Dev && own.Ino == st.Ino
}

// sharedMemory refuses shared writable mappings, which a fork shares.
func (n *node) sharedMemory() error {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", n.pid))
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && len(f[1]) >= 4 && f[1][1] == 'w' && f[1][3] == 's' {
			return fmt.Errorf("has shared writable memory at %s", f[0])
		}
	}
	return nil
}

// copyDataDirs gives cw, a copy of src, data directories of its own with
// src's content; the inode numbers weft keys fsync contents and file
// times by are translated to the copies'. With a pool (a checkpoint's,
// src its state), a root of an earlier copy whose tree is still src's is
// reused, and a fresh one is lent to the pool's later copies
// (datapool_linux.go).
func (cw *World) copyDataDirs(src *World, pool *rootPool) error {
	if src.dataRoot == "" {
		return nil
	}
	var err error
	l := pool.take(src.dataRoot)
	if l == nil {
		root, err := newDataRoot()
		if err != nil {
			return err
		}
		cw.dataRoot = root
		inodes, times := map[fileKey]fileKey{}, map[fileKey][nTimes]int64{}
		if err := copyTree(src.dataRoot, root, inodes, times); err != nil {
			return err
		}
		l = &lentRoot{root: root, inodes: inodes, times: times}
		if pool != nil {
			if mark, err := markTree(root, "", nil); err == nil {
				l.pool, l.mark = pool, mark // else not lent: removed when cw closes
			}
		}
	}
	cw.dataRoot = l.root
	if l.pool != nil {
		lent.Store(l.root, l)
	}
	inodes := l.inodes
	for i := range cw.runDirs {
		if cw.runDirs[i], err = filepath.EvalSymlinks(cw.DataDir(i)); err != nil {
			return err
		}
	}
	if cw.synced != nil {
		synced := map[uint64][]byte{}
		for ino, b := range cw.synced {
			for from, to := range inodes {
				if from.ino == ino {
					ino = to.ino
					break
				}
			}
			synced[ino] = b
		}
		cw.synced = synced
	}
	stamps, err := treeStamps(cw.dataRoot)
	if err != nil {
		return err
	}
	// Only files of the copied trees keep their clocks: an entry of a
	// file gone before the copy (unlinked) names a host inode the copy
	// may reuse for another file, whose clock it would then overwrite.
	clocks := map[fileKey]*fileClock{}
	for k, v := range cw.fileClocks {
		if to, ok := inodes[k]; ok {
			if c := v.rebased(l.times[k], stamps[to]); c != nil {
				clocks[to] = c
			}
		}
	}
	cw.fileClocks = clocks
	if cw.inodes != nil {
		moves := map[vkernel.HostIno]vkernel.Move{}
		for from, to := range inodes {
			moves[vkernel.HostIno{Dev: from.dev, Ino: from.ino}] = vkernel.Move{Birth: l.times[from][btime],
				To: vkernel.HostFile{HostIno: vkernel.HostIno{Dev: to.dev, Ino: to.ino}, Birth: stamps[to][btime]}}
		}
		cw.inodes.Moved(moves)
	}
	return nil
}

// treeStamps are the host times (atime, mtime, ctime, birth; 0 where
// the host keeps none) of every file of the tree at root, as they are
// now: a copy's own, which its files' virtual times and numbers must be
// keyed by, or the first stat of a restored node would take the copy's
// making for a change (new virtual times where the branch replayed to
// the same state keeps those the node saw or set) and a file made at a
// removed copy's inode for the copy. (The access time is recorded, never
// used: virtualTimes.)
func treeStamps(root string) (map[fileKey][nTimes]int64, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[fileKey][nTimes]int64, len(paths))
	for _, p := range paths {
		k, t, err := hostTimes(p, unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			return nil, err
		}
		out[k] = t
	}
	return out, nil
}

// rebased is fc for a copy of its file: orig are the original's host
// times when it was copied, copy the copy's (treeStamps). The virtual
// times stay, and the copy's host times are what a later change is told
// by; a change the original had that no stat saw yet (orig's time is
// not the one fc last saw) stays one the copy's next stat sees, as the
// original's would, whatever the host clock's tick made of the copy's
// times. nil if the original is no longer the file fc was made for (a
// new birth time at its inode): its first stat makes a new clock.
func (fc *fileClock) rebased(orig, copy [nTimes]int64) *fileClock {
	if orig[btime] != fc.host[btime] {
		return nil
	}
	c := *fc
	c.host = copy
	c.host[atime] = 0 // never read (noatime: virtualTimes)
	for _, i := range [...]int{mtime, ctime} {
		if orig[i] != fc.host[i] {
			c.host[i] = unseen
		}
	}
	return &c
}

// unseen is a fileClock's host time for a change no stat saw: no host
// time is negative, so the next stat takes the virtual clock.
const unseen = -1

// copyData copies the regular file from to the new file to, whose size
// is size: only the ranges that hold data (SEEK_DATA, SEEK_HOLE), so that
// a hole stays a hole and the copy's st_blocks are the original's. The
// original is read without moving its host access time (O_NOATIME, where
// the file is weft's own): no world reads that time (virtualTimes), but
// a copy then leaves the host's tree as it was.
func copyData(from, to string, size int64) error {
	src, err := unix.Open(from, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOATIME, 0)
	if err == unix.EPERM {
		src, err = unix.Open(from, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: from, Err: err}
	}
	defer unix.Close(src)
	dst, err := unix.Open(to, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &fs.PathError{Op: "open", Path: to, Err: err}
	}
	defer unix.Close(dst)
	buf := make([]byte, 1<<16)
	for off := int64(0); off < size; {
		data, err := unix.Seek(src, off, unix.SEEK_DATA)
		if err == unix.ENXIO {
			break // only a hole to the end
		}
		if err != nil {
			return err
		}
		hole, err := unix.Seek(src, data, unix.SEEK_HOLE)
		if err != nil {
			return err
		}
		for off = data; off < hole; {
			n, err := unix.Pread(src, buf[:min(int64(len(buf)), hole-off)], off)
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("%s: shorter than its size", from)
			}
			if _, err := unix.Pwrite(dst, buf[:n], off); err != nil {
				return err
			}
			off += int64(n)
		}
	}
	return unix.Ftruncate(dst, size)
}

// growDir makes the copied directory dir as large as its original, size
// bytes: a directory on ext4 keeps the blocks it grew to when its
// entries go, and a node sees that size (and, once it spans more than a
// block, the offsets of an indexed directory) in stat and getdents. It
// makes and removes long-named entries until dir is as large; a file
// system whose directories shrink again (tmpfs) ends where it started.
func growDir(dir string, size int64) error {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil || st.Size >= size {
		return err
	}
	var made []string
	defer func() {
		for _, p := range made {
			unix.Unlink(p)
		}
	}()
	name := strings.Repeat("w", 240)
	for k := 0; st.Size < size && k < 1<<16; k++ {
		p := filepath.Join(dir, fmt.Sprintf("%s%05d", name, k))
		fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		unix.Close(fd)
		made = append(made, p)
		if err := unix.Lstat(dir, &st); err != nil {
			return err
		}
	}
	return nil
}

// copyTree copies the directory tree src into the existing directory dst
// as a node could observe it, recording each copied entry's inode
// against its original's:
//   - the entries of each directory are made in the order the directory
//     lists them: where a file system lists entries in the order they
//     were made (tmpfs, ext4 without dir_index), the copy then lists as
//     the original does, so a node reading it (getdents) meets the same
//     order after a restore as in the branch replayed to the same state;
//     where it lists by a hash of the name (ext4's dir_index), any order
//     of making does;
//   - each entry keeps its owner and its mode bits, setuid, setgid and
//     sticky included (set by chmod, which no umask masks), and so does
//     the root (a node run as a user is let through it: giveRunDirs);
//   - the names of one file (hard links) stay names of one file;
//   - a file's holes stay holes (copyData) and a directory is as large
//     as its original (growDir), so st_blocks, a directory's st_size
//     and an indexed directory's offsets read the same.
func copyTree(src, dst string, inodes map[fileKey]fileKey, times map[fileKey][nTimes]int64) error {
	c := treeCopy{inodes: inodes, times: times, links: map[fileKey]string{}}
	if err := c.dir(src, dst, true); err != nil {
		return err
	}
	return c.attrs(src, dst)
}

// treeCopy is copyTree's state: the inode map it fills, and the copy of
// each file with several names met so far.
type treeCopy struct {
	inodes map[fileKey]fileKey
	times  map[fileKey][nTimes]int64 // each original's host times (hostTimes)
	links  map[fileKey]string
}

// dir copies the entries of directory src into the existing directory
// dst, in src's listing order; the root's lock file is left out (the
// copy has its own: datadirs_linux.go).
func (c treeCopy) dir(src, dst string, root bool) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1) // the directory's own order, not sorted
	f.Close()
	if err != nil {
		return err
	}
	for _, name := range names {
		if root && name == dataLockName {
			continue
		}
		if err := c.entry(filepath.Join(src, name), filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	return nil
}

// entry copies one entry of the tree, then its owner and mode.
func (c treeCopy) entry(from, to string) error {
	var st unix.Stat_t
	if err := unix.Lstat(from, &st); err != nil {
		return err
	}
	key := fileKey{st.Dev, st.Ino}
	if first, ok := c.links[key]; ok {
		return os.Link(first, to) // another name of a file copied already
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if err := os.Mkdir(to, 0o700); err != nil {
			return err
		}
		if err := c.dir(from, to, false); err != nil {
			return err
		}
		if err := growDir(to, st.Size); err != nil {
			return err
		}
	case unix.S_IFREG:
		if err := copyData(from, to, st.Size); err != nil {
			return err
		}
		if st.Nlink > 1 {
			c.links[key] = to
		}
	case unix.S_IFLNK:
		link, err := os.Readlink(from)
		if err != nil {
			return err
		}
		if err := os.Symlink(link, to); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s: cannot copy a %v", from, fs.FileMode(st.Mode&unix.S_IFMT))
	}
	return c.attrs(from, to)
}

// attrs gives the copy to its original's owner and mode bits (a
// symbolic link's owner only), and records the pair of inodes.
func (c treeCopy) attrs(from, to string) error {
	var a, b unix.Stat_t
	if err := unix.Lstat(from, &a); err != nil {
		return err
	}
	if err := unix.Lchown(to, int(a.Uid), int(a.Gid)); err != nil && !errors.Is(err, unix.EPERM) {
		return err // EPERM: weft is not root and the original is its own
	}
	if a.Mode&unix.S_IFMT != unix.S_IFLNK {
		if err := unix.Chmod(to, a.Mode&0o7777); err != nil {
			return err
		}
	}
	if unix.Lstat(to, &b) == nil {
		c.inodes[fileKey{a.Dev, a.Ino}] = fileKey{b.Dev, b.Ino}
	}
	if _, t, err := hostTimes(from, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		c.times[fileKey{a.Dev, a.Ino}] = t
	}
	return nil
}
