package vkernel

// Pipe is one pipe's buffer (pipe(7)): the bytes written and not yet
// read, its capacity, how many open descriptions each end has, and how
// many times its readers and its writers were woken.
type Pipe struct {
	data    []byte
	size    int // capacity in bytes (F_GETPIPE_SZ)
	readers int // open read descriptions
	writers int
	genIn   uint64 // wake-ups of readers: a write, the last writer leaving
	genOut  uint64 // wake-ups of writers: a read of a full pipe, a new size, the last reader leaving
}

// Pipe sizes (pipe(7)).
const (
	PipeDefaultSize = 16 * 4096 // a new pipe's capacity
	PipeBuf         = 4096      // PIPE_BUF: the largest write never interleaved
	PipeMaxSize     = 1 << 20   // /proc/sys/fs/pipe-max-size
	pageSize        = 4096
)

// NewPipe is an empty pipe of the default capacity with one read and one
// write description (pipe(2)).
func NewPipe() *Pipe { return &Pipe{size: PipeDefaultSize, readers: 1, writers: 1} }

// Len is the number of bytes in the pipe.
func (p *Pipe) Len() int { return len(p.data) }

// Size is the pipe's capacity (F_GETPIPE_SZ).
func (p *Pipe) Size() int { return p.size }

// SetSize is F_SETPIPE_SZ: the capacity becomes want rounded up to a
// power of two pages (at least one page), which it returns. A size
// below zero or above PipeMaxSize is EINVAL; one smaller than the bytes
// the pipe holds is EBUSY. Writers are woken.
func (p *Pipe) SetSize(want int64) (int, error) {
	if want < 0 || want > PipeMaxSize {
		return 0, EINVAL
	}
	size := pageSize
	for int64(size) < want {
		size *= 2
	}
	if size < len(p.data) {
		return 0, EBUSY
	}
	p.size = size
	p.genOut++
	return size, nil
}

// Read is read(2) of at most max bytes by a reader: the bytes, oldest
// first, or none for max 0 and at the end of file (empty, no writer
// left). An empty pipe with a writer is EAGAIN for a non-blocking
// reader and ErrBlock for a blocking one. A read from a full pipe wakes
// its writers.
func (p *Pipe) Read(max int, nonblock bool) ([]byte, error) {
	switch {
	case max == 0 || len(p.data) == 0 && p.writers == 0:
		return nil, nil
	case len(p.data) == 0:
		return nil, wouldBlock(nonblock)
	}
	k := min(max, len(p.data))
	out := append([]byte(nil), p.data[:k]...)
	if len(p.data) > p.size-PipeBuf {
		p.genOut++ // a full pipe wakes its writers
	}
	p.data = append(p.data[:0:0], p.data[k:]...)
	return out, nil
}

// Write is write(2) of data by a writer that has already moved done of
// its bytes (a blocking write that waited); it returns the bytes moved
// in all. A write of at most PipeBuf bytes is atomic: all of it, or
// EAGAIN (non-blocking) or ErrBlock (blocking) while it does not fit. A
// larger one moves what fits: a non-blocking writer returns as soon as
// it has moved something (EAGAIN if nothing), a blocking one waits
// (ErrBlock, with the count so far) until all is moved. With no reader
// left the answer is EPIPE (the caller raises SIGPIPE), or the count
// if some bytes were moved before the last reader left.
func (p *Pipe) Write(data []byte, done int, nonblock bool) (int, error) {
	if p.readers == 0 {
		if done > 0 {
			return done, nil
		}
		return 0, EPIPE
	}
	if len(data) == 0 {
		return 0, nil
	}
	free := p.size - len(p.data)
	if len(data) <= PipeBuf {
		if free < len(data) {
			return 0, wouldBlock(nonblock)
		}
		p.push(data)
		return len(data), nil
	}
	k := min(free, len(data)-done)
	if k > 0 {
		p.push(data[done : done+k])
		done += k
	}
	switch {
	case done == len(data) || nonblock && done > 0:
		return done, nil
	case nonblock:
		return 0, EAGAIN
	}
	return done, ErrBlock
}

func (p *Pipe) push(b []byte) {
	p.data = append(p.data, b...)
	p.genIn++
}

// Close is the close of an end's last descriptor: the last writer
// leaving wakes readers (they see the end of file), the last reader
// leaving wakes writers (they get EPIPE).
func (p *Pipe) Close(writeEnd bool) {
	if writeEnd {
		p.writers--
		p.genIn++
		return
	}
	p.readers--
	p.genOut++
}

// Events is the poll mask of the pipe's read end or write end: the read
// end is readable with bytes in the pipe and hung up with no writer;
// the write end is writable with room for PipeBuf bytes and in error
// with no reader.
func (p *Pipe) Events(writeEnd bool) uint32 {
	var ev uint32
	if !writeEnd {
		if len(p.data) > 0 {
			ev |= PollIn | PollRdNorm
		}
		if p.writers == 0 {
			ev |= PollHup
		}
		return ev
	}
	if p.size-len(p.data) >= PipeBuf {
		ev |= PollOut | PollWrNorm
	}
	if p.readers == 0 {
		ev |= PollErr
	}
	return ev
}

// Gens counts the wake-ups of readers and of writers.
func (p *Pipe) Gens() (in, out uint64) { return p.genIn, p.genOut }

// Hash writes the state for the world hash: the capacity, the readers
// and writers (one word), the wake-ups of each, and the bytes
// (PutBytes).
func (p *Pipe) Hash(put func(uint64)) {
	put(uint64(p.size))
	put(uint64(p.readers)<<32 | uint64(p.writers))
	put(p.genIn)
	put(p.genOut)
	PutBytes(put, p.data)
}

// PutBytes writes a byte string for a hash: its length, then its bytes
// in little-endian 64-bit words, the last one padded with zeros (an
// empty string writes a zero word after its length).
func PutBytes(put func(uint64), b []byte) {
	put(uint64(len(b)))
	for len(b) >= 8 {
		put(uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56)
		b = b[8:]
	}
	var last uint64
	for i, x := range b {
		last |= uint64(x) << (8 * i)
	}
	put(last)
}
