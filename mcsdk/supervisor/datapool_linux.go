//go:build linux && amd64

package supervisor

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// A restore needs data directories with its checkpoint's content. Making
// them afresh (a root, its lock, a directory per node, each file copied)
// and removing them when the restore closes costs a journalled metadata
// operation per entry, on every restore. Instead a checkpoint keeps the
// roots of its closed restores (rootPool) and lends one to its next
// restore, if nothing a node could observe of the tree changed since it
// was lent: the tree is marked (markTree) when lent and again when taken
// back, and reused only if both marks are equal byte for byte, every
// regular file still holds the checkpoint's content and no host process
// holds a lock on any of its files (lockedAny). Anything else (a
// file written, made, removed or renamed, a mode or link count changed,
// a directory's listing order or size changed) and the root is removed
// and a fresh copy made, as before: a node never sees what a sibling
// branch wrote. A reused tree has the inode numbers it had when first
// copied, so the translation recorded then (lentRoot.inodes) still holds.

// rootPool holds the data roots of a checkpoint's closed restores.
type rootPool struct {
	mu     sync.Mutex
	closed bool
	spare  []*lentRoot
}

// lentRoot is a data root a restore of a checkpoint holds, or its pool
// keeps.
type lentRoot struct {
	pool   *rootPool
	root   string
	inodes map[fileKey]fileKey       // the checkpoint's entries' keys → the root's
	times  map[fileKey][nTimes]int64 // the checkpoint's entries' host times when copied (hostTimes)
	mark   []byte                    // markTree when first copied
}

// lent maps a root a restore holds to its lentRoot: releaseDataRoot gives
// it back to its pool.
var lent sync.Map

// put keeps l for a later restore; false if the pool is closed.
func (p *rootPool) put(l *lentRoot) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.spare = append(p.spare, l)
	return true
}

// take gives a kept root whose tree is still the checkpoint's (pristine:
// the checkpoint's data root), or nil; a kept root that changed is
// removed.
func (p *rootPool) take(pristine string) *lentRoot {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	var l *lentRoot
	if n := len(p.spare); n > 0 {
		l, p.spare = p.spare[n-1], p.spare[:n-1]
	}
	p.mu.Unlock()
	if l == nil {
		return nil
	}
	files := map[fileKey]string{}
	if mark, err := markTree(l.root, pristine, files); err != nil || !bytes.Equal(mark, l.mark) || lockedAny(files) {
		removeDataRoot(l.root)
		return nil
	}
	return l
}

// lockedAny reports whether a host process holds a lock on any of files
// (keyed by device and inode, a path to each), or it cannot tell. A
// frozen process of a checkpoint taken in the restore that held the root
// shares its node's open descriptions, and so the flock and record locks
// the node took in its run directory: they outlive the restore, which a
// fresh copy's files would not see. Each regular file and directory is
// opened and asked (lockedFile); a symbolic link cannot be locked. It
// does not read /proc/locks, whose every read waits for an RCU grace
// period (locks_start takes the lock list's per-CPU semaphore for
// writing): milliseconds, at every reuse of a root.
func lockedAny(files map[fileKey]string) bool {
	for key, path := range files {
		if lockedFile(key, path) {
			return true
		}
	}
	return false
}

// lockedFile reports whether another open file description or process
// than weft's own new one holds a lock on the file at path, or it cannot
// tell (the path is not the file key names, or a call fails). A record
// lock (POSIX or OFD) conflicts with the write lock F_OFD_GETLK tests,
// whoever holds it (an OFD lock's owner is the new description); a flock
// lock, shared or exclusive, makes the new description's non-blocking
// exclusive flock fail, which is then let go at once (nobody waits on a
// kept root: no node has it, and the frozen processes that share its
// descriptions are stopped). Leases are weft's (sys_lease.go), never the
// kernel's. Opening a file changes no time it shows.
func lockedFile(key fileKey, path string) bool {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return true
	}
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return false
	case unix.S_IFDIR:
		flags |= unix.O_DIRECTORY
	case unix.S_IFREG:
	default:
		return true // markTree allows no other kind
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return true
	}
	defer unix.Close(fd)
	if err := unix.Fstat(fd, &st); err != nil || (fileKey{st.Dev, st.Ino}) != key {
		return true
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(uintptr(fd), unix.F_OFD_GETLK, &lk); err != nil || lk.Type != unix.F_UNLCK {
		return true
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return true
	}
	return unix.Flock(fd, unix.LOCK_UN) != nil
}

// close removes the kept roots; roots given back later are removed too.
// Safe on nil and more than once.
func (p *rootPool) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	spare := p.spare
	p.spare, p.closed = nil, true
	p.mu.Unlock()
	for _, l := range spare {
		removeDataRoot(l.root)
	}
}

// errTreeChanged is markTree's answer for a file whose content is not the
// pristine tree's.
var errTreeChanged = errors.New("a file's content changed")

// markTree describes what a node could observe of the tree at root:
// for every entry, in the order the directory lists it, its name, its
// host status (type and permissions, owner, link count, size, blocks,
// inode and device, extended attributes' size; not its times, which
// nodes see virtually), a symbolic link's target and each directory's
// raw listing (names, types, inode numbers and offsets, in order). With
// pristine set, each regular file's content is compared with the file of
// the same name there (errTreeChanged if it differs); the lock file is
// not compared. Each entry's key is added to files with its path, if
// files is not nil.
func markTree(root, pristine string, files map[fileKey]string) ([]byte, error) {
	var out bytes.Buffer
	if err := markEntry(&out, root, ".", pristine, files); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func markEntry(out *bytes.Buffer, root, rel, pristine string, files map[fileKey]string) error {
	path := filepath.Join(root, rel)
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return err
	}
	xattrs, err := unix.Llistxattr(path, nil)
	if err != nil && !errors.Is(err, unix.ENOTSUP) {
		return err
	}
	if files != nil && rel != dataLockName { // weft's own lock
		files[fileKey{st.Dev, st.Ino}] = path
	}
	out.WriteString(rel)
	out.WriteByte(0)
	for _, v := range []uint64{uint64(st.Mode), uint64(st.Uid), uint64(st.Gid), st.Nlink, uint64(st.Size), uint64(st.Blocks), st.Ino, st.Dev, st.Rdev, uint64(xattrs)} {
		out.Write(binary.LittleEndian.AppendUint64(nil, v))
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		link, err := os.Readlink(path)
		if err != nil {
			return err
		}
		out.WriteString(link)
		out.WriteByte(0)
	case unix.S_IFREG:
		if pristine == "" || rel == dataLockName {
			return nil
		}
		a, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(pristine, rel))
		if err != nil || !bytes.Equal(a, b) {
			return errTreeChanged
		}
	case unix.S_IFDIR:
		listing, err := readDirRaw(path)
		if err != nil {
			return err
		}
		out.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(listing))))
		out.Write(listing)
		for off := 0; off+19 < len(listing); {
			reclen := int(binary.LittleEndian.Uint16(listing[off+16:]))
			if reclen == 0 || off+reclen > len(listing) {
				return fmt.Errorf("%s: a malformed directory record", path)
			}
			name := cString(listing[off+19 : off+reclen])
			off += reclen
			if name == "." || name == ".." {
				continue
			}
			if err := markEntry(out, root, filepath.Join(rel, name), pristine, files); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%s: a %o in a data directory", path, st.Mode&unix.S_IFMT)
	}
	return nil
}

// readDirRaw reads directory path's whole listing as getdents64 gives it.
func readDirRaw(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var out []byte
	buf := make([]byte, 8192)
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
}
