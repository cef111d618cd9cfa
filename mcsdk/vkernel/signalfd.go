package vkernel

// SignalfdSiginfoSize is sizeof(struct signalfd_siginfo): a read of a
// signalfd takes one signal per 128 bytes of its buffer.
const SignalfdSiginfoSize = 128

// signalfdUnblockable are SIGKILL (9) and SIGSTOP (19), which a signalfd
// never takes: signalfd(2) drops them from its mask silently. Signal sig
// is bit sig-1 of a set (sigset_t).
const signalfdUnblockable = 1<<(9-1) | 1<<(19-1)

// Signalfd is one signalfd's state (signalfd(2)): the set of signals it
// takes. The signals themselves stay pending in the node's thread and
// process (the host kernel's pending sets, changed only by the node's own
// calls), and a read dequeues them there; Signalfd decides from the
// pending set the caller reads whether a read may run now and what the
// descriptor reports to poll(2) and epoll(7).
type Signalfd struct {
	mask uint64
}

// NewSignalfd is a signalfd taking the signals in mask, but SIGKILL and
// SIGSTOP.
func NewSignalfd(mask uint64) *Signalfd {
	return &Signalfd{mask: mask &^ signalfdUnblockable}
}

// Mask is the set of signals the descriptor takes.
func (s *Signalfd) Mask() uint64 { return s.mask }

// SetMask is signalfd(2) on an existing descriptor: its mask is
// replaced, SIGKILL and SIGSTOP dropped.
func (s *Signalfd) SetMask(mask uint64) { s.mask = mask &^ signalfdUnblockable }

// Events is the poll mask of the descriptor for a caller whose pending
// signals (its thread's and its process's) are pending: readable while
// one of them is in the mask.
func (s *Signalfd) Events(pending uint64) uint32 {
	if pending&s.mask != 0 {
		return PollIn | PollRdNorm
	}
	return 0
}

// Read reports whether read(2) with a buffer of bufLen bytes may run
// now, for a caller whose pending signals are pending: nil when it will
// not block (a buffer under SignalfdSiginfoSize, which the kernel
// refuses with EINVAL; a signal of the mask pending; a non-blocking
// descriptor, which the kernel answers EAGAIN), ErrBlock when a blocking
// reader must wait for one.
func (s *Signalfd) Read(bufLen, pending uint64, nonblock bool) error {
	if bufLen < SignalfdSiginfoSize || pending&s.mask != 0 || nonblock {
		return nil
	}
	return ErrBlock
}

// Hash writes the state for the world hash: the mask.
func (s *Signalfd) Hash(put func(uint64)) { put(s.mask) }
