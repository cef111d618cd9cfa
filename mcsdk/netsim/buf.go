package netsim

// BufSizes are the default socket buffer sizes in bytes, as getsockopt
// reports them (SO_SNDBUF, SO_RCVBUF).
type BufSizes struct {
	StreamSnd, StreamRcv int // tcp_wmem, tcp_rmem (their middle value)
	DgramSnd, DgramRcv   int // net.core.wmem_default, rmem_default
}

// LinuxBufs are Linux 6.x's defaults.
var LinuxBufs = BufSizes{StreamSnd: 16384, StreamRcv: 131072, DgramSnd: 212992, DgramRcv: 212992}

// Linux's bounds on SO_SNDBUF and SO_RCVBUF (net/core/sock.c): the value
// set is doubled "to allow space for bookkeeping", clamped below by
// SOCK_MIN_SNDBUF/SOCK_MIN_RCVBUF and above by wmem_max/rmem_max (default
// sysctls of 212992, taken as the model's).
const (
	minSndBuf = 4608
	minRcvBuf = 2304
	maxBufSet = 212992
)

// SetBuf sets SO_SNDBUF (snd) or SO_RCVBUF to v as setsockopt does.
func (s *Socket) SetBuf(snd bool, v int) {
	v = 2 * min(max(v, 0), maxBufSet)
	if snd {
		s.sndBuf = max(v, minSndBuf)
	} else {
		s.rcvBuf = max(v, minRcvBuf)
	}
}

// SndBuf is SO_SNDBUF as getsockopt reports it.
func (s *Socket) SndBuf() int { return s.sndBuf }

// RcvBuf is SO_RCVBUF as getsockopt reports it.
func (s *Socket) RcvBuf() int { return s.rcvBuf }

// defaultBufs gives a new socket the network's default sizes.
func (n *Network) defaultBufs(s *Socket) {
	s.sndBuf, s.rcvBuf = n.Bufs.StreamSnd, n.Bufs.StreamRcv
	if s.Kind == Dgram {
		s.sndBuf, s.rcvBuf = n.Bufs.DgramSnd, n.Bufs.DgramRcv
	}
}

// Room is how many bytes a stream send on s may queue now: the sender's
// send buffer plus the receiver's receive buffer, less the bytes in flight
// between them and those the receiver has not read. Counting bytes (not
// Linux's skb overhead) makes the bound exact and easy to explain.
func (n *Network) Room(s *Socket) int { return s.room() }

func (s *Socket) room() int {
	if s.Kind != Stream || s.peer == nil {
		return 0
	}
	if s.peer.Node == EnvNode {
		return 1 << 30
	}
	return max(0, s.sndBuf+s.peer.rcvBuf-len(s.peer.rbuf)-s.Outgoing())
}
