package vkernel

import (
	"iter"
	"slices"
)

// Descriptor tables (issue 36 §1): a process's table of descriptor
// numbers, each naming an open file description, with Linux's rules for
// making, copying and closing them (dup(2), fcntl(2), close(2),
// close_range(2), fork(2), execve(2)). FDTable holds the rules only: the
// description behind a number is an opaque handle F chosen by the caller
// (the supervisor's vfd), and descriptors that share a description hold
// equal handles, so whatever state the description carries (the offset,
// the status flags F_SETFL changes: SetStatusFlags) is shared between
// duplicates and between a parent and its forked child, and not between
// two separate opens of one file.
//
// The close-on-exec flag is the descriptor's own, not the description's:
// a duplicate starts without it (dup, dup2, F_DUPFD) or with the caller's
// choice (dup3's O_CLOEXEC, F_DUPFD_CLOEXEC), and F_SETFD on one
// descriptor leaves its duplicates alone.
//
// The numbers are the ones the process sees. In weft they are the host
// kernel's: weft installs a served descriptor itself
// (SECCOMP_IOCTL_NOTIF_ADDFD, with or without a chosen number) or lets a
// call run, and the host kernel picks the number among every descriptor
// the process has, served or not. There the supervisor records what the
// kernel chose (Record, Forget) and the table's numbering rules (Lowest)
// answer for the served descriptors alone; a table that holds every
// descriptor of a process (the tests, and a node whose table weft owns
// whole) decides the numbers itself, as the kernel would.

// Descriptor flags and fcntl(2)/close_range(2) constants the table's
// rules take, numbered as on Linux x86-64 (asm-generic/fcntl.h,
// linux/close_range.h).
const (
	FDCloexec = 1 // FD_CLOEXEC, F_GETFD/F_SETFD's only flag

	OCloexec  = 0o2000000
	ONonblock = 0o4000
	OAppend   = 0o2000
	OAsync    = 0o20000
	ODirect   = 0o40000
	ONoatime  = 0o1000000
	OAccmode  = 0o3

	CloseRangeUnshare = 1 << 1
	CloseRangeCloexec = 1 << 2
)

// NofileMax is the largest number of descriptors a table may hold whatever
// RLIMIT_NOFILE says: Linux's default fs.nr_open (1 << 20).
const NofileMax = 1 << 20

// FDTable is one process's descriptor table: numbers to open file
// descriptions (handles of type F) and each number's close-on-exec flag.
// The zero value is not usable: NewFDTable makes one.
type FDTable[F comparable] struct {
	slots map[int]fdSlot[F]
	limit int // RLIMIT_NOFILE's soft limit: numbers are below it
}

type fdSlot[F comparable] struct {
	file    F
	cloexec bool
}

// NewFDTable is an empty table whose numbers stay below limit
// (RLIMIT_NOFILE's soft limit; limit <= 0 or above NofileMax means
// NofileMax).
func NewFDTable[F comparable](limit int) *FDTable[F] {
	t := &FDTable[F]{slots: map[int]fdSlot[F]{}}
	t.SetLimit(limit)
	return t
}

// SetLimit changes the table's RLIMIT_NOFILE soft limit (setrlimit(2)).
// Descriptors already at or above it stay open, as on Linux; new ones
// are made below it.
func (t *FDTable[F]) SetLimit(limit int) {
	if limit <= 0 || limit > NofileMax {
		limit = NofileMax
	}
	t.limit = limit
}

// Limit is the table's RLIMIT_NOFILE soft limit.
func (t *FDTable[F]) Limit() int { return t.limit }

// Len is the number of open descriptors.
func (t *FDTable[F]) Len() int { return len(t.slots) }

// Get is the description fd names, and whether fd is open.
func (t *FDTable[F]) Get(fd int) (F, bool) {
	s, ok := t.slots[fd]
	return s.file, ok
}

// At is the description fd names, or F's zero value if fd is not open.
func (t *FDTable[F]) At(fd int) F { return t.slots[fd].file }

// All is the open descriptors and their descriptions in ascending order;
// the loop may close descriptors of the table (the walk is over the
// numbers open when it began, and skips those closed since).
func (t *FDTable[F]) All() iter.Seq2[int, F] {
	return func(yield func(int, F) bool) {
		for _, fd := range t.Numbers() {
			if s, ok := t.slots[fd]; ok && !yield(fd, s.file) {
				return
			}
		}
	}
}

// Numbers are the open descriptors, in ascending order.
func (t *FDTable[F]) Numbers() []int {
	out := make([]int, 0, len(t.slots))
	for fd := range t.slots {
		out = append(out, fd)
	}
	slices.Sort(out)
	return out
}

// Each calls f for every open descriptor in ascending order; f may close
// descriptors of the table (the walk is over the numbers open when it
// began, and skips those closed since).
func (t *FDTable[F]) Each(f func(fd int, file F)) {
	for _, fd := range t.Numbers() {
		if s, ok := t.slots[fd]; ok {
			f(fd, s.file)
		}
	}
}

// Lowest is the lowest number at or above min that is free, or EMFILE
// when every number from min to the limit is taken (open(2), dup(2) and
// F_DUPFD: "the lowest-numbered file descriptor not currently open").
func (t *FDTable[F]) Lowest(min int) (int, error) {
	return LowestFree(func(fd int) bool { _, ok := t.slots[fd]; return ok }, min, t.limit)
}

// LowestFree is the lowest number at or above min (0 if negative) and
// below limit for which open is false, or EMFILE: Lowest's rule over a
// table the caller holds (the supervisor asks it with the host's list
// of a process's descriptors, served or not, for F_DUPFD's number).
func LowestFree(open func(fd int) bool, min, limit int) (int, error) {
	if min < 0 {
		min = 0
	}
	for fd := min; fd < limit; fd++ {
		if !open(fd) {
			return fd, nil
		}
	}
	return -1, EMFILE
}

// Install gives file a new descriptor, the lowest free number, with the
// close-on-exec flag of flags' O_CLOEXEC (open(2), socket(2), pipe2(2),
// eventfd(2)...): EMFILE if the table is full.
func (t *FDTable[F]) Install(file F, flags int) (int, error) {
	fd, err := t.Lowest(0)
	if err != nil {
		return -1, err
	}
	t.slots[fd] = fdSlot[F]{file: file, cloexec: flags&OCloexec != 0}
	return fd, nil
}

// Record notes that descriptor fd now names file, with the given
// close-on-exec flag: the number the host kernel chose for a call weft
// let run or for an ADDFD without a number. Whatever fd named before is
// returned (as dup2 would have closed it), with whether there was one.
func (t *FDTable[F]) Record(fd int, file F, cloexec bool) (old F, had bool) {
	s, had := t.slots[fd]
	t.slots[fd] = fdSlot[F]{file: file, cloexec: cloexec}
	return s.file, had
}

// Forget drops fd without the rules' checks (the host kernel closed it:
// a call let through, an exec seen from outside), returning what it
// named.
func (t *FDTable[F]) Forget(fd int) (F, bool) {
	s, ok := t.slots[fd]
	delete(t.slots, fd)
	return s.file, ok
}

// Dup implements dup(2): a new descriptor, the lowest free number, for
// oldfd's description, without close-on-exec. EBADF if oldfd is not
// open, EMFILE if the table is full.
func (t *FDTable[F]) Dup(oldfd int) (int, error) {
	return t.DupFD(oldfd, 0, false)
}

// DupFD implements fcntl(2)'s F_DUPFD (F_DUPFD_CLOEXEC with cloexec): the
// lowest free number at or above min for fd's description. EBADF if fd
// is not open; EINVAL if min is negative or not below RLIMIT_NOFILE
// ("arg is negative or is greater than the maximum allowable value");
// EMFILE if no number from min up is free.
func (t *FDTable[F]) DupFD(fd, min int, cloexec bool) (int, error) {
	s, ok := t.slots[fd]
	if !ok {
		return -1, EBADF
	}
	if min < 0 || min >= t.limit {
		return -1, EINVAL
	}
	nfd, err := t.Lowest(min)
	if err != nil {
		return -1, err
	}
	t.slots[nfd] = fdSlot[F]{file: s.file, cloexec: cloexec}
	return nfd, nil
}

// Dup2 implements dup2(2): newfd names oldfd's description, without
// close-on-exec; what newfd named before is closed silently and returned
// (with whether there was one). When oldfd equals newfd and is open,
// nothing changes; EBADF if oldfd is not open, or newfd is negative or
// not below RLIMIT_NOFILE.
func (t *FDTable[F]) Dup2(oldfd, newfd int) (closed F, had bool, err error) {
	if oldfd == newfd {
		if _, ok := t.slots[oldfd]; !ok {
			return closed, false, EBADF
		}
		return closed, false, nil
	}
	return t.Dup3(oldfd, newfd, 0)
}

// Dup3 implements dup3(2): as Dup2, with the close-on-exec flag of
// flags' O_CLOEXEC; EINVAL if flags hold anything else or oldfd equals
// newfd. The checks run in Linux's order (fs/file.c, ksys_dup3): flags,
// equal numbers, newfd's range, then oldfd.
func (t *FDTable[F]) Dup3(oldfd, newfd, flags int) (closed F, had bool, err error) {
	if err := t.DupArgs(oldfd, newfd, flags, false); err != nil {
		return closed, false, err
	}
	s, ok := t.slots[oldfd]
	if !ok {
		return closed, false, EBADF
	}
	closed, had = t.Record(newfd, s.file, flags&OCloexec != 0)
	return closed, had, nil
}

// DupArgs is dup3(2)'s checks of its arguments that come before oldfd's
// (fs/file.c, ksys_dup3): EINVAL for flags other than O_CLOEXEC or for
// oldfd equal to newfd, then EBADF for newfd negative or not below
// RLIMIT_NOFILE. For dup2(2) (dup2 true) flags are 0 and equal numbers
// are not an error (dup2 onto itself answers by oldfd alone). The
// supervisor asks it before acting on a call whose oldfd the host kernel
// holds: a call these refuse changes nothing in the table.
func (t *FDTable[F]) DupArgs(oldfd, newfd, flags int, dup2 bool) error {
	if flags&^OCloexec != 0 || oldfd == newfd && !dup2 {
		return EINVAL
	}
	if oldfd == newfd {
		return nil
	}
	if newfd < 0 || newfd >= t.limit {
		return EBADF
	}
	return nil
}

// Close implements close(2): fd is free again; its description is
// returned (the caller releases it when no other descriptor names it).
// EBADF if fd is not open.
func (t *FDTable[F]) Close(fd int) (F, error) {
	s, ok := t.slots[fd]
	if !ok {
		var zero F
		return zero, EBADF
	}
	delete(t.slots, fd)
	return s.file, nil
}

// CloseRange implements close_range(2) on the descriptors first to last
// (both included; unsigned, as the call's arguments): each open one is
// closed and returned in ascending order, or with CLOSE_RANGE_CLOEXEC
// only marked close-on-exec (none returned). EINVAL for an unknown flag
// or first greater than last; a range past the highest open number is
// not an error. CLOSE_RANGE_UNSHARE changes nothing here: each of weft's
// processes has a table of its own (a clone with CLONE_FILES is not
// modelled), which is what unsharing would give.
func (t *FDTable[F]) CloseRange(first, last uint32, flags int) ([]F, error) {
	if err := CloseRangeArgs(first, last, flags); err != nil {
		return nil, err
	}
	var closed []F
	for _, fd := range t.Numbers() {
		if !InRange(fd, first, last) {
			continue
		}
		if flags&CloseRangeCloexec != 0 {
			s := t.slots[fd]
			s.cloexec = true
			t.slots[fd] = s
			continue
		}
		closed = append(closed, t.slots[fd].file)
		delete(t.slots, fd)
	}
	return closed, nil
}

// CloseRangeArgs is close_range(2)'s checks of its arguments: EINVAL for
// a flag other than CLOSE_RANGE_UNSHARE and CLOSE_RANGE_CLOEXEC, or for
// first greater than last.
func CloseRangeArgs(first, last uint32, flags int) error {
	if flags&^(CloseRangeUnshare|CloseRangeCloexec) != 0 || first > last {
		return EINVAL
	}
	return nil
}

// InRange reports whether fd lies in close_range(2)'s first..last.
func InRange(fd int, first, last uint32) bool {
	return fd >= 0 && uint64(fd) >= uint64(first) && uint64(fd) <= uint64(last)
}

// GetFD implements fcntl(2)'s F_GETFD: FD_CLOEXEC or 0; EBADF if fd is
// not open.
func (t *FDTable[F]) GetFD(fd int) (int, error) {
	s, ok := t.slots[fd]
	if !ok {
		return -1, EBADF
	}
	if s.cloexec {
		return FDCloexec, nil
	}
	return 0, nil
}

// SetFD implements fcntl(2)'s F_SETFD: fd's close-on-exec flag becomes
// flags' FD_CLOEXEC (other bits are ignored, as Linux ignores them); the
// flag is the descriptor's, so duplicates keep theirs. EBADF if fd is
// not open.
func (t *FDTable[F]) SetFD(fd, flags int) error {
	s, ok := t.slots[fd]
	if !ok {
		return EBADF
	}
	s.cloexec = flags&FDCloexec != 0
	t.slots[fd] = s
	return nil
}

// Fork is the child's table after fork(2): "the child inherits copies of
// the parent's set of open file descriptors. Each file descriptor in the
// child refers to the same open file description as the corresponding
// file descriptor in the parent", close-on-exec flags included, under
// the same limit. The two tables change independently afterwards.
func (t *FDTable[F]) Fork() *FDTable[F] {
	c := &FDTable[F]{slots: make(map[int]fdSlot[F], len(t.slots)), limit: t.limit}
	for fd, s := range t.slots {
		c.slots[fd] = s
	}
	return c
}

// Exec implements what a successful execve(2) does to the table: every
// descriptor with close-on-exec is closed ("file descriptors that are
// marked close-on-exec are closed"); the others stay open, with their
// flags. The closed descriptors' numbers and descriptions are returned
// in ascending order (the kernel walks the table upward).
func (t *FDTable[F]) Exec() (fds []int, files []F) {
	fds = t.CloseOnExec()
	for _, fd := range fds {
		files = append(files, t.slots[fd].file)
		delete(t.slots, fd)
	}
	return fds, files
}

// CloseOnExec are the descriptors a successful execve(2) closes (those
// with close-on-exec), in ascending order, the table left as it is: for
// a caller that closes each as close(2) would, one at a time, so that
// what a close does to the others (the last reference to a shared
// description, epoll interest lists) happens in the kernel's order.
func (t *FDTable[F]) CloseOnExec() []int {
	var fds []int
	for _, fd := range t.Numbers() {
		if t.slots[fd].cloexec {
			fds = append(fds, fd)
		}
	}
	return fds
}

// Hash writes the table for the world's hash: its size, then each open
// descriptor in ascending order, its number and close-on-exec flag
// followed by what file writes for its description (the caller numbers
// shared descriptions). The flag is state: two tables that differ only
// in it differ after an exec.
func (t *FDTable[F]) Hash(put func(uint64), file func(F)) {
	fds := t.Numbers()
	put(uint64(len(fds)))
	for _, fd := range fds {
		s := t.slots[fd]
		put(uint64(fd))
		if s.cloexec {
			put(FDCloexec)
		} else {
			put(0)
		}
		file(s.file)
	}
}

// SetStatusFlags is an open file description's status flags after
// fcntl(2)'s F_SETFL with arg: "On Linux, this command can change only
// the O_APPEND, O_ASYNC, O_DIRECT, O_NOATIME, and O_NONBLOCK flags"; the
// access mode and the creation flags in arg are ignored. The flags are
// the description's, so every duplicate (and a forked child's copy)
// sees the change.
func SetStatusFlags(cur, arg int) int {
	const settable = OAppend | OAsync | ODirect | ONoatime | ONonblock
	return cur&^settable | arg&settable
}
