package vkernel

import (
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
)

// Virtual inode and device numbers (issue 36 §2). A node never sees a
// host inode or device number: every file it stats or lists shows Dev
// (one virtual device) and the inode number Inodes gives it. That number
// is a hash of the file's path in the view (below RunDir for a file of
// the node's run directory) when the world first meets the file, kept for
// the file's life by its host identity (HostFile), so a hard link, a
// rename or a descriptor all show the file's one number and same-file
// checks (tar's links, sqlite's lock table, a rename over a file) work as
// on Linux. Files with no path in the view (pipes, sockets, other
// anonymous files) are numbered in the order the world meets them. Host
// inode numbers never reach the number: the same model, variant and
// choices give the same numbers wherever and whenever they run (on a file
// system that records birth times; on one that does not, a host inode
// number reused for a new file may keep the old file's number).

// RunDir is the virtual path of node i's run directory: a file there is
// numbered by its path below it, wherever the run directory lies on the
// host.
func RunDir(i int) string { return "/run/weft/n" + strconv.Itoa(i) }

// DevMajor and DevMinor are every file's virtual device (st_dev).
const (
	DevMajor = 0
	DevMinor = 42
)

// Dev is the virtual device as stat's st_dev encodes it (makedev).
const Dev = DevMajor<<8 | DevMinor

// HostIno is a host file's device and inode number.
type HostIno struct{ Dev, Ino uint64 }

// HostFile identifies a file on the host for the life of the file: its
// device and inode number, and its birth time where the host records it
// (statx's btime, 0 if none), so that an inode number the host reuses
// for a new file is a new file.
type HostFile struct {
	HostIno
	Birth int64
}

// Inodes is a world's table of virtual inode numbers. The zero value is
// not usable; use NewInodes.
type Inodes struct {
	byHost map[HostIno]inode
	used   map[uint64]bool
	anon   int // anonymous files numbered so far
}

// inode is a host inode's virtual number and the birth time of the file
// it was given to (unknown after Moved: the next one met is the file's).
type inode struct {
	n         uint64
	birth     int64
	birthKnow bool
}

// NewInodes returns an empty table.
func NewInodes() *Inodes {
	return &Inodes{byHost: map[HostIno]inode{}, used: map[uint64]bool{}}
}

// Ino returns the virtual inode number of the host file f, whose path in
// the view is name ("" for a file with none). A file met before keeps its
// number whatever name it is met by now.
func (t *Inodes) Ino(f HostFile, name string) uint64 {
	e, ok := t.byHost[f.HostIno]
	switch {
	case ok && !e.birthKnow:
		e.birth, e.birthKnow = f.Birth, true
		t.byHost[f.HostIno] = e
		return e.n
	case ok && e.birth == f.Birth:
		return e.n
	}
	key := "path:" + name
	if name == "" {
		t.anon++
		key = "anon:" + strconv.Itoa(t.anon)
	}
	return t.add(f, key)
}

// Virtual returns the inode number of the view's virtual file at path.
func (t *Inodes) Virtual(path string) uint64 {
	f := HostFile{HostIno: HostIno{Dev: virtualFiles, Ino: inoHash("virtual:" + path)}}
	if e, ok := t.byHost[f.HostIno]; ok {
		return e.n
	}
	return t.add(f, "virtual:"+path)
}

// virtualFiles is the host device the table files virtual files under:
// no host device has this number.
const virtualFiles = ^uint64(0)

// add gives f the number of key, or the next free one after it.
func (t *Inodes) add(f HostFile, key string) uint64 {
	n := inoHash(key)
	for t.used[n] {
		n = n%inoMax + 1 // a collision: the next free number, in the order met
	}
	t.used[n] = true
	t.byHost[f.HostIno] = inode{n: n, birth: f.Birth, birthKnow: true}
	return n
}

// Move is one host file of a copy (Moved): the birth time its original
// had when it was copied, and the copy.
type Move struct {
	Birth int64
	To    HostFile
}

// Moved tells the table that host files were copied (a checkpoint's copy
// of the run directories): each file of moves now lives at its new host
// inode, with the number it had. The new file's birth time is the copy's
// (0: unknown, then the first one met is taken), so that a file made at
// the copy's inode after the copy was removed, before anyone met the
// copy, gets a number of its own. An original whose birth time is not
// the one its number was given to is a new file at a reused inode that
// no one met yet: its copy gets a number of its own when met, as the
// original would.
func (t *Inodes) Moved(moves map[HostIno]Move) {
	next := make(map[HostIno]inode, len(t.byHost))
	for k, e := range t.byHost {
		if _, ok := moves[k]; !ok {
			next[k] = e
		}
	}
	for from, m := range moves {
		if e, ok := t.byHost[from]; ok && (!e.birthKnow || e.birth == m.Birth) {
			e.birth, e.birthKnow = m.To.Birth, m.To.Birth != 0
			next[m.To.HostIno] = e
		}
	}
	t.byHost = next
}

// Digest puts what later numbers depend on, for the world's state hash:
// how many anonymous files were numbered (the next one's key) and the
// numbers in use, in order (a collision takes the next free one). Which
// host file holds which number is not put: host inode numbers differ from
// run to run, and a file's number follows from the path it was met by,
// which the hashed history of the run decides. A nil table puts what an
// empty one does.
func (t *Inodes) Digest(put func(uint64)) {
	if t == nil {
		put(0)
		put(0)
		return
	}
	put(uint64(t.anon))
	put(uint64(len(t.used)))
	for _, n := range slices.Sorted(maps.Keys(t.used)) {
		put(n)
	}
}

// inoMax bounds virtual inode numbers to 32 bits, so that a program built
// without large-file support (stat, not stat64) still reads them.
const inoMax = 1<<32 - 1

// inoHash is key's inode number: 1 to inoMax, never 0 (no file), 1 or 2
// (the root's on many file systems) by a collision's wrap alone.
func inoHash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()%(inoMax-2) + 3
}
