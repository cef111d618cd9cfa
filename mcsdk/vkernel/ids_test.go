package vkernel

import (
	"fmt"
	"testing"
)

// node0 is node 0's table: its main process 100 (host 5000) with a
// thread 1001 (host 5001), and a child process 1002 (host 5002) with a
// thread 1003 (host 5003); 1001 is calling.
func node0(t *testing.T) *IDs {
	ids := NewIDs(100, 5000)
	for _, th := range []Thread{{100, 100, 5000}, {1001, 100, 5001}, {1002, 1002, 5002}, {1003, 1002, 5003}} {
		ids.Add(th)
	}
	if !ids.SetCaller(1001) {
		t.Fatal("caller 1001 not found")
	}
	return ids
}

func TestThreadLookup(t *testing.T) {
	cases := []struct {
		arg  int64
		want int
		r    Refusal
	}{
		{0, 5001, OK}, // the caller
		{100, 5000, OK},
		{1001, 5001, OK}, // a thread's own id (the JVM's sched_getaffinity)
		{1003, 5003, OK}, // a thread of another process of the tree
		{5000, 0, NoSuchThread},
		{1, 0, NoSuchThread},
		{-1, 0, Invalid},
	}
	ids := node0(t)
	for _, tc := range cases {
		got, r := ids.Thread(tc.arg)
		if r != tc.r || got.Host != tc.want {
			t.Errorf("Thread(%d) = %d, %v; want %d, %v", tc.arg, got.Host, r, tc.want, tc.r)
		}
	}
}

func TestProcessLookup(t *testing.T) {
	cases := []struct {
		arg  int64
		want string
		r    Refusal
	}{
		{0, "[100 1001]", OK},
		{100, "[100 1001]", OK},
		{1002, "[1002 1003]", OK},
		{1001, "[]", NoSuchThread}, // a thread id is no process id
		{7, "[]", NoSuchThread},
		{-100, "[]", Invalid},
	}
	ids := node0(t)
	for _, tc := range cases {
		ts, r := ids.Process(tc.arg)
		if got := tids(ts); r != tc.r || got != tc.want {
			t.Errorf("Process(%d) = %s, %v; want %s, %v", tc.arg, got, r, tc.want, tc.r)
		}
	}
}

func TestTargets(t *testing.T) {
	cases := []struct {
		which    Who
		who      int64
		sameUser bool
		want     string
		r        Refusal
	}{
		{WhoThread, 0, false, "[1001]", OK},
		{WhoThread, 1003, false, "[1003]", OK},
		{WhoThread, 4242, false, "[]", NoSuchThread},
		{WhoGroup, 0, false, "[100 1001 1002 1003]", OK},
		{WhoGroup, 100, false, "[100 1001 1002 1003]", OK},
		{WhoGroup, 1, false, "[]", NoSuchThread}, // the host's init's group, say
		// PRIO_USER, 0: the caller's user, which on the host owns every
		// process run as root; in the node, only the node's threads.
		{WhoUser, 0, false, "[100 1001 1002 1003]", OK},
		{WhoUser, 1000, true, "[100 1001 1002 1003]", OK},
		{WhoUser, 1000, false, "[]", NoSuchThread},
		{Who(9), 0, false, "[]", Invalid},
	}
	ids := node0(t)
	for _, tc := range cases {
		ts, r := ids.Targets(tc.which, tc.who, tc.sameUser)
		if got := tids(ts); r != tc.r || got != tc.want {
			t.Errorf("Targets(%d, %d, %v) = %s, %v; want %s, %v", tc.which, tc.who, tc.sameUser, got, r, tc.want, tc.r)
		}
	}
}

func TestOwner(t *testing.T) {
	cases := []struct {
		arg  int64
		host int
		r    Refusal
	}{
		{0, 0, OK},
		{100, 5000, OK},
		{1002, 5002, OK},
		{-100, -5000, OK},
		{-1, 0, NoSuchThread},   // a host process group
		{5000, 0, NoSuchThread}, // a host pid
		{-5000, 0, NoSuchThread},
	}
	ids := node0(t)
	for _, tc := range cases {
		host, r := ids.Owner(tc.arg)
		if host != tc.host || r != tc.r {
			t.Errorf("Owner(%d) = %d, %v; want %d, %v", tc.arg, host, r, tc.host, tc.r)
		}
		if r == OK {
			if back := ids.OwnerOf(host); back != tc.arg {
				t.Errorf("OwnerOf(Owner(%d)) = %d", tc.arg, back)
			}
		}
	}
	if got := ids.OwnerOf(77); got != 0 {
		t.Errorf("OwnerOf(a host pid outside the node) = %d, want 0", got)
	}
}

func TestAddReplacesAndCaller(t *testing.T) {
	ids := NewIDs(101, 6000)
	if _, ok := ids.Caller(); ok {
		t.Error("an empty table has a caller")
	}
	if _, r := ids.Thread(0); r != NoSuchThread {
		t.Errorf("Thread(0) without a caller: %v", r)
	}
	ids.Add(Thread{101, 101, 6000})
	ids.Add(Thread{101, 101, 6001}) // exec'd again under a new host id
	if th, _ := ids.Thread(101); th.Host != 6001 {
		t.Errorf("replaced thread has host %d, want 6001", th.Host)
	}
	if ids.SetCaller(2002) {
		t.Error("SetCaller of an unknown thread succeeded")
	}
	if v, ok := ids.Virtual(6001); !ok || v != 101 {
		t.Errorf("Virtual(6001) = %d, %v", v, ok)
	}
	if _, ok := ids.Virtual(6000); ok {
		t.Error("a replaced host id still translates")
	}
	if ids.Group() != 101 || Session != 1 {
		t.Errorf("group %d session %d", ids.Group(), Session)
	}
	if s := Refusal(7).String(); s != "Refusal(7)" {
		t.Errorf("String %q", s)
	}
}

func tids(ts []Thread) string {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t.Tid
	}
	return fmt.Sprint(out)
}

// node0Groups is node0 after child 1002 called setsid: 1002 and its
// thread 1003 are in group 1002, the main process in group 100.
func node0Groups(t *testing.T) *IDs {
	ids := node0(t)
	ids.SetPgid(100, 100)
	ids.SetPgid(1002, 1002)
	return ids
}

// TestTargetsNodeGroups: PRIO_PGRP and IOPRIO_WHO_PGRP name the node's
// virtual groups (0 the caller's), never a host group, and a negative
// PRIO_PROCESS who is ESRCH as Linux answers.
func TestTargetsNodeGroups(t *testing.T) {
	cases := []struct {
		which Who
		who   int64
		want  string
		r     Refusal
	}{
		{WhoGroup, 0, "[100 1001]", OK}, // the caller 1001 is in group 100
		{WhoGroup, 100, "[100 1001]", OK},
		{WhoGroup, 1002, "[1002 1003]", OK},
		{WhoGroup, 1003, "[]", NoSuchThread}, // a thread id names no group
		{WhoGroup, 5000, "[]", NoSuchThread}, // the host group
		{WhoGroup, 5002, "[]", NoSuchThread},
		{WhoGroup, -100, "[]", NoSuchThread},
		{WhoThread, -100, "[]", NoSuchThread},
		{WhoUser, 0, "[100 1001 1002 1003]", OK},
	}
	ids := node0Groups(t)
	for _, tc := range cases {
		ts, r := ids.Targets(tc.which, tc.who, false)
		if got := tids(ts); r != tc.r || got != tc.want {
			t.Errorf("Targets(%d, %d) = %s, %v; want %s, %v", tc.which, tc.who, got, r, tc.want, tc.r)
		}
	}
	ids.SetCaller(1003)
	if ts, r := ids.Targets(WhoGroup, 0, false); r != OK || tids(ts) != "[1002 1003]" {
		t.Errorf("Targets(group, 0) for 1003 = %s, %v; want its own group", tids(ts), r)
	}
}

// TestOwnerNodeGroups: F_SETOWN with a negative id names a virtual group:
// the whole node's is the host group, a group the node made of some of
// its processes is refused (the kernel cannot signal it alone), any
// other names nothing; F_GETOWN reads the host group back as the virtual
// group every thread is in.
func TestOwnerNodeGroups(t *testing.T) {
	cases := []struct {
		ids  func(*testing.T) *IDs
		arg  int64
		host int
		r    Refusal
	}{
		{node0Groups, -100, 0, Unmodelled},
		{node0Groups, -1002, 0, Unmodelled},
		{node0Groups, -1003, 0, NoSuchThread},
		{node0Groups, -5000, 0, NoSuchThread},
		{node0Groups, 1002, 5002, OK},
		{node0, -100, -5000, OK},
		{node0, -1002, 0, NoSuchThread},
	}
	for _, tc := range cases {
		host, r := tc.ids(t).Owner(tc.arg)
		if host != tc.host || r != tc.r {
			t.Errorf("Owner(%d) = %d, %v; want %d, %v", tc.arg, host, r, tc.host, tc.r)
		}
	}
	ids := NewIDs(100, 5000)
	ids.Add(Thread{100, 100, 5000})
	ids.Add(Thread{1002, 1002, 5002})
	ids.SetPgid(100, 1002) // the main process joined its child's group
	ids.SetPgid(1002, 1002)
	if host, r := ids.Owner(-1002); host != -5000 || r != OK {
		t.Errorf("Owner(-1002) holding every thread = %d, %v", host, r)
	}
	if back := ids.OwnerOf(-5000); back != -1002 {
		t.Errorf("OwnerOf(-5000) = %d, want -1002", back)
	}
	if s := Unmodelled.String(); s != "EPERM" {
		t.Errorf("String %q", s)
	}
}
