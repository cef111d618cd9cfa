package vkernel

import "testing"

// TestInetEvents checks the poll mask of a virtual network socket in each
// state poll(2) and epoll(7) tell apart.
func TestInetEvents(t *testing.T) {
	cases := []struct {
		name string
		r    InetReadiness
		want uint32
	}{
		{"new socket", InetReadiness{}, 0},
		{"connected, idle", InetReadiness{Writable: true}, PollOut | PollWrNorm},
		{"data to read", InetReadiness{Readable: true, Writable: true}, PollIn | PollRdNorm | PollOut | PollWrNorm},
		{"peer shut its side", InetReadiness{Readable: true, Writable: true, RdHup: true}, PollIn | PollRdNorm | PollOut | PollWrNorm | PollRdHup},
		{"both sides shut", InetReadiness{Readable: true, Hup: true}, PollIn | PollRdNorm | PollHup | PollRdHup},
		{"refused connect", InetReadiness{Readable: true, Writable: true, Hup: true, Err: true}, PollIn | PollRdNorm | PollOut | PollWrNorm | PollHup | PollRdHup | PollErr},
		{"error only", InetReadiness{Err: true}, PollErr},
	}
	for _, c := range cases {
		if got := c.r.Events(); got != c.want {
			t.Errorf("%s: events %#x, want %#x", c.name, got, c.want)
		}
	}
}
