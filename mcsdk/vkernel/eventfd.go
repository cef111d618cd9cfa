package vkernel

import "encoding/binary"

// Eventfd is one eventfd's state (eventfd(2)): a 64-bit counter, whether
// it was made with EFD_SEMAPHORE, and how many times its readers and its
// writers were woken (edge-triggered epoll reports a ready eventfd again
// after each wake-up).
type Eventfd struct {
	count     uint64
	semaphore bool
	genIn     uint64 // writes (they wake readers)
	genOut    uint64 // reads (they wake writers)
}

// EventfdMax is the largest value an eventfd's counter holds.
const EventfdMax = 1<<64 - 2

// NewEventfd is an eventfd whose counter starts at initval (eventfd's
// first argument is an unsigned int).
func NewEventfd(initval uint32, semaphore bool) *Eventfd {
	return &Eventfd{count: uint64(initval), semaphore: semaphore}
}

// Count is the counter's value.
func (e *Eventfd) Count() uint64 { return e.count }

// Read is read(2) with a buffer of bufLen bytes: the counter, which
// becomes zero, or with EFD_SEMAPHORE 1, which is taken from it. A
// buffer under 8 bytes is EINVAL; a zero counter is EAGAIN for a
// non-blocking reader and ErrBlock for a blocking one.
func (e *Eventfd) Read(bufLen uint64, nonblock bool) (uint64, error) {
	if bufLen < 8 {
		return 0, EINVAL
	}
	if e.count == 0 {
		return 0, wouldBlock(nonblock)
	}
	n := e.count
	if e.semaphore {
		n = 1
	}
	e.count -= n
	e.genOut++
	return n, nil
}

// Write is write(2) of b: its first 8 bytes, a native-endian (x86-64:
// little-endian) 64-bit value, are added to the counter. Fewer than 8
// bytes, or the value 0xffffffffffffffff, is EINVAL; a sum above
// EventfdMax is EAGAIN for a non-blocking writer and ErrBlock for a
// blocking one.
func (e *Eventfd) Write(b []byte, nonblock bool) error {
	if len(b) < 8 {
		return EINVAL
	}
	add := binary.LittleEndian.Uint64(b)
	if add == 1<<64-1 {
		return EINVAL
	}
	if add > EventfdMax-e.count {
		return wouldBlock(nonblock)
	}
	e.count += add
	e.genIn++
	return nil
}

// Events is the eventfd's poll mask: readable while the counter is not
// zero, writable while a write of 1 would not block.
func (e *Eventfd) Events() uint32 {
	var ev uint32
	if e.count > 0 {
		ev |= PollIn | PollRdNorm
	}
	if e.count < EventfdMax {
		ev |= PollOut | PollWrNorm
	}
	return ev
}

// Gens counts the wake-ups of readers and of writers.
func (e *Eventfd) Gens() (in, out uint64) { return e.genIn, e.genOut }

// Hash writes the state for the world hash: the counter, the
// EFD_SEMAPHORE flag, and the wake-ups of readers and writers.
func (e *Eventfd) Hash(put func(uint64)) {
	put(e.count)
	put(bit(e.semaphore))
	put(e.genIn)
	put(e.genOut)
}

// wouldBlock is the answer of an operation that cannot proceed now:
// EAGAIN for a non-blocking caller, ErrBlock for a blocking one.
func wouldBlock(nonblock bool) error {
	if nonblock {
		return EAGAIN
	}
	return ErrBlock
}

// bit is 1 for true, 0 for false.
func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
