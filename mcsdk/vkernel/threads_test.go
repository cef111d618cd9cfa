package vkernel

import "testing"

// TestExitThread follows exit(2) and kernel/exit.c: only the last thread's
// end ends the process (do_exit's group_dead), whichever thread it is; a
// leader that ends before the others stays a zombie thread until the
// group is empty (delay_group_leader: neither parent nor tracer can
// collect it); any other thread is released at once (exit_notify's
// autoreap of a non-leader).
func TestExitThread(t *testing.T) {
	cases := []struct {
		name   string
		leader bool
		others int
		want   ThreadEnd
	}{
		{"the one thread of a process (exit(2) ends the process)", true, 0, GroupDead},
		{"the leader with a thread alive (delay_group_leader)", true, 1, LeaderZombie},
		{"the leader with three threads alive", true, 3, LeaderZombie},
		{"a thread with the leader alive (autoreaped)", false, 1, ThreadReleased},
		{"a thread with others alive, the leader a zombie", false, 2, ThreadReleased},
		{"the last thread after the leader's exit: the group dies with it", false, 0, GroupDead},
		{"a bad count is no thread alive", false, -1, GroupDead},
	}
	for _, tc := range cases {
		if got := ExitThread(tc.leader, tc.others); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
