package vkernel

import "errors"

// Open file descriptions (issue 36 §1): what every open file description
// holds whatever its kind, its access mode and its status flags
// (open(2), fcntl(2) F_GETFL/F_SETFL, ioctl(2) FIONBIO/FIOASYNC). One
// OpenFile is shared by every descriptor naming the description (dup,
// fork, SCM_RIGHTS), so a change through one is seen through all; a
// second open makes a second one. The kind's own state (a pipe's buffer,
// a socket's queues) lives beside it, in the kind's object.

// Flags of an open file description not in fdtable.go (asm-generic/fcntl.h,
// x86-64).
const (
	OLargefile = 0o100000  // every open on a 64-bit kernel has it; F_GETFL shows it on files and devices
	ODsync     = 0o10000   // O_DSYNC
	OSync      = 0o4010000 // O_SYNC: __O_SYNC|O_DSYNC
	ORdonly    = 0
	OWronly    = 1
	ORdwr      = 2
)

// ENOTTY is FIOASYNC's answer on a file whose kind cannot signal.
const ENOTTY Errno = 25

// setflMask is what F_SETFL stores itself (fs/fcntl.c's SETFL_MASK); the
// kind's fasync, not F_SETFL, sets O_ASYNC.
const setflMask = OAppend | ONonblock | ODirect | ONoatime

// Async is what a kind of file does with O_ASYNC (fcntl(2) "Signal-driven
// I/O"), as its Linux file operations do.
type Async uint8

const (
	// AsyncNone: Linux's file has no fasync (eventfd, timerfd, signalfd,
	// epoll): F_SETFL leaves O_ASYNC clear without an error, and
	// FIOASYNC is ENOTTY.
	AsyncNone Async = iota
	// AsyncQuiet: the file has a fasync that can no longer signal (the
	// random devices, whose one SIGIO is the entropy pool's first
	// readiness, long past once a node runs): O_ASYNC is recorded, as
	// Linux records it, and nothing is ever sent, as on Linux.
	AsyncQuiet
	// AsyncSignals: Linux sends SIGIO to the description's owner when the
	// file becomes readable or writable (pipes, sockets). weft records
	// O_ASYNC, as Linux does, but delivers no SIGIO (README, LIMITATIONS):
	// refusing it stopped nginx, whose master sets FIOASYNC on each
	// worker's channel and gives up the worker when that fails.
	AsyncSignals
)

// FileKind is what the status flags' rules need to know of a kind of file.
type FileKind struct {
	// Mode is what F_GETFL shows of the access mode and the fixed flags:
	// O_RDONLY or O_WRONLY for a pipe's ends, O_RDWR for sockets and
	// anonymous inodes, the open's access mode with O_LARGEFILE for a
	// device.
	Mode  int
	Async Async
	// Pipe: O_DIRECT selects packet mode (pipe(7)), which weft does not
	// model (F_SETFL refuses it: ErrPacketUnmodelled). On every other
	// served kind O_DIRECT is EINVAL: none can do direct I/O.
	Pipe bool
	// RootOwned: the inode is root's (an anonymous inode, a device node),
	// not the creator's (a pipe, a socket), so setting O_NOATIME takes a
	// file-system uid of 0 or CAP_FOWNER.
	RootOwned bool
}

// The refusal of F_SETFL: behaviour Linux has that weft does not model,
// which the supervisor answers with EINVAL and a note.
var (
	ErrPacketUnmodelled = errors.New("O_DIRECT on a pipe (packet mode): not modelled")
)

// OpenFile is an open file description's access mode and status flags.
// Its readers (Flags, Nonblocking, HashWord) take a nil OpenFile as a
// description with none.
type OpenFile struct {
	kind  FileKind
	flags int
}

// NewOpenFile is a new description of kind k made with the open or
// creation flags oflags: of them it keeps O_NONBLOCK, O_APPEND,
// O_NOATIME, O_ASYNC and O_SYNC/O_DSYNC, as open(2) does (O_NONBLOCK is
// SOCK_NONBLOCK, EFD_NONBLOCK, TFD_NONBLOCK, SFD_NONBLOCK); the access
// mode is k.Mode's.
func NewOpenFile(k FileKind, oflags int) *OpenFile {
	const kept = ONonblock | OAppend | ONoatime | OAsync | OSync
	return &OpenFile{kind: k, flags: k.Mode | oflags&kept}
}

// Flags is F_GETFL's answer.
func (f *OpenFile) Flags() int {
	if f == nil {
		return 0
	}
	return f.flags
}

// Nonblocking reports O_NONBLOCK.
func (f *OpenFile) Nonblocking() bool { return f.Flags()&ONonblock != 0 }

// Caller is what F_SETFL's permission check needs of the calling thread.
type Caller struct {
	FSUID     uint32
	CapFowner bool // CAP_FOWNER in its effective set
}

// SetFlags is F_SETFL with arg, in fs/fcntl.c setfl()'s order: O_NOATIME
// newly set on a file the caller does not own is EPERM; O_DIRECT is
// EINVAL but on a pipe (refused there: ErrPacketUnmodelled); O_ASYNC goes
// to the kind (Async); then O_APPEND, O_NONBLOCK, O_DIRECT and O_NOATIME
// are stored, and nothing else of arg is looked at.
func (f *OpenFile) SetFlags(arg int, c Caller) error {
	if arg&ONoatime != 0 && f.flags&ONoatime == 0 && f.kind.RootOwned && c.FSUID != 0 && !c.CapFowner {
		return EPERM
	}
	if arg&ODirect != 0 {
		if !f.kind.Pipe {
			return EINVAL
		}
		return ErrPacketUnmodelled
	}
	if (arg^f.flags)&OAsync != 0 {
		if err := f.setAsync(arg&OAsync != 0); err != nil && err != ENOTTY {
			return err
		}
	}
	f.flags = f.flags&^setflMask | arg&setflMask
	return nil
}

// SetNonblock is FIONBIO: O_NONBLOCK on or off, with no other check.
func (f *OpenFile) SetNonblock(on bool) {
	f.flags &^= ONonblock
	if on {
		f.flags |= ONonblock
	}
}

// SetAsync is FIOASYNC: ENOTTY when it would change O_ASYNC on a kind
// that cannot signal (AsyncNone); a request that changes nothing
// succeeds.
func (f *OpenFile) SetAsync(on bool) error {
	if on == (f.flags&OAsync != 0) {
		return nil
	}
	return f.setAsync(on)
}

// setAsync is the kind's fasync: it changes O_ASYNC.
func (f *OpenFile) setAsync(on bool) error {
	switch {
	case f.kind.Async == AsyncNone:
		return ENOTTY
	}
	f.flags &^= OAsync
	if on {
		f.flags |= OAsync
	}
	return nil
}

// HashWord is the description's flags for the world hash: 1 for
// O_NONBLOCK, with the other status flags (O_APPEND, O_ASYNC, O_DIRECT,
// O_NOATIME, O_SYNC) at their own bits. The access mode is the kind's and
// is not written; a description with O_NONBLOCK alone or nothing writes
// 1 or 0, as the world hash did when it held that flag only.
func (f *OpenFile) HashWord() uint64 {
	var w uint64
	if f.Nonblocking() {
		w = 1
	}
	return w | uint64(f.Flags()&(OAppend|OAsync|ODirect|ONoatime|OSync))
}

// ServedFile is the state behind one open file description of a kind weft
// serves (issue 36 §1: one file interface): inet sockets of the virtual
// network, random devices, timerfds, epoll instances, pipe ends,
// eventfds, unix and netlink sockets, signalfds. Its methods take no
// supervisor type: what a kind needs of the world beyond its own state
// comes through FileWorld. The supervisor's kinds implement it, each
// with its table of syscalls (the one dispatch by kind); the
// description's status flags are its OpenFile, beside it.
type ServedFile interface {
	// Kind is what the status flags' rules need to know of the kind.
	Kind() FileKind
	// Events is the description's poll(2) mask now.
	Events(w FileWorld) uint32
	// Wake counts the wake-ups an edge-triggered epoll entry e watching
	// the description can see (it reports a ready descriptor again after
	// a new one): readers' and writers' wake-ups for the kinds that count
	// them, the state a wake-up changes for the others.
	Wake(w FileWorld, e *EpollEntry) [2]uint64
	// Hash writes the kind's tag and its state (shared objects through
	// h, once each).
	Hash(h *FileHasher)
	// Release runs when the description's last descriptor closes.
	Release(w FileWorld)
}

// TimedFile is a ServedFile whose readiness changes at a time of the virtual
// clock without any call (a timerfd; an epoll instance watching one): a
// poll on it must wake then.
type TimedFile interface {
	// NextTimer is the next such world time, 0 none.
	NextTimer(w FileWorld) int64
}

// FileWorld is what a ServedFile needs of the world beyond its own state, as
// plain values or the world's own services; the supervisor implements it
// for the calling thread (or for the node, outside a call).
type FileWorld interface {
	// Now is the world's virtual time (timerfds).
	Now() int64
	// PendingSignals is the set pending for the calling thread, its own
	// and its process's (signalfds); 0 outside a call.
	PendingSignals() uint64
	// Probe answers what the files an epoll instance watches report now.
	Probe() EpollProbe
	// UnixNames are the node's bound AF_UNIX names, which a closed
	// socket gives up.
	UnixNames() *UnixNames
	// DropRight closes a descriptor in flight (SCM_RIGHTS) on a socket
	// that closed.
	DropRight(r any)
	// CloseInet closes the socket of the virtual network that an inet
	// socket's description holds (its handle, netsim's socket).
	CloseInet(handle any)
}

// FileHasher writes descriptor state for the world hash: objects are
// numbered in the order met (descriptors first, in fd order), and each
// one's state is written once.
type FileHasher struct {
	Put     func(uint64)
	Opts    InetOptValues // the node's inet sockets' option values
	seen    map[any]uint64
	written map[any]bool
}

// NewFileHasher is a hasher writing to put.
func NewFileHasher(put func(uint64), opts InetOptValues) *FileHasher {
	return &FileHasher{Put: put, Opts: opts, seen: map[any]uint64{}, written: map[any]bool{}}
}

// Ref is o's canonical number.
func (h *FileHasher) Ref(o any) uint64 {
	if _, ok := h.seen[o]; !ok {
		h.seen[o] = uint64(len(h.seen) + 1)
	}
	return h.seen[o]
}

// IDs writes nothing: it numbers o and reports whether its state was
// written already, marking it written.
func (h *FileHasher) IDs(o any) (uint64, bool) {
	old := h.written[o]
	h.written[o] = true
	return h.Ref(o), old
}
