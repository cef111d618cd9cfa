package vkernel

// InetReadiness is what the poll mask of a socket of the virtual network
// (mcsdk/netsim, which holds the socket's state) depends on.
type InetReadiness struct {
	Readable bool // data, a pending connection or EOF to take
	Writable bool // a send would not block
	Hup      bool // both directions are shut
	Err      bool // an error is pending (SO_ERROR)
	RdHup    bool // the peer has shut its sending side
}

// Events is the socket's poll mask, as tcp_poll and udp_poll report it:
// POLLHUP always comes with POLLRDHUP.
func (r InetReadiness) Events() uint32 {
	var ev uint32
	if r.Readable {
		ev |= PollIn | PollRdNorm
	}
	if r.Writable {
		ev |= PollOut | PollWrNorm
	}
	if r.Hup {
		ev |= PollHup | PollRdHup
	}
	if r.Err {
		ev |= PollErr
	}
	if r.RdHup {
		ev |= PollRdHup
	}
	return ev
}

// RandomEvents is the poll mask of /dev/random and /dev/urandom: always
// readable and writable (reads come from the run's seeded stream).
const RandomEvents = PollIn | PollRdNorm | PollOut | PollWrNorm
