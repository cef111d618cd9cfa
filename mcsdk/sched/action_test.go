package sched

import "testing"

// TestActionTextRoundTrips: every kind's text form parses back to the
// same action (recordings store actions as text).
func TestActionTextRoundTrips(t *testing.T) {
	for _, a := range []Action{
		{Kind: Deliver, Chan: 3, Index: 1}, {Kind: Drop, Chan: 2}, {Kind: Dup, Chan: 0, Index: 4},
		{Kind: Client, Req: 2}, {Kind: Timer, Node: 1}, {Kind: Timer, Node: 1, Task: 2}, {Kind: Run, Node: 0, Task: 3},
		{Kind: Crash, Node: 2}, {Kind: Restart, Node: 2}, {Kind: Notice, Node: 1, Req: 0},
		{Kind: Partition, Req: 1}, {Kind: Heal, Req: 1}, {Kind: Expire, Req: 2},
	} {
		got, err := ParseAction(a.String())
		if err != nil || got != a {
			t.Errorf("%q parsed as %+v (%v), want %+v", a.String(), got, err, a)
		}
	}
	for _, bad := range []string{"", "deliver", "fly 1", "crash x", "deliver 1"} {
		if _, err := ParseAction(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
