package vkernel

import (
	"strings"
	"testing"
)

func TestLimitsDefaults(t *testing.T) {
	cases := []struct {
		r    Resource
		want Rlimit
	}{
		{RlimitNPROC, Rlimit{512, 512}},
		{RlimitNOFILE, Rlimit{NofileDefault, NofileDefault}},
		{RlimitSTACK, Rlimit{8 << 20, Infinity}},
		{RlimitCORE, Rlimit{0, Infinity}},
		{RlimitSIGPENDING, Rlimit{SigPendingMax, SigPendingMax}},
		{RlimitAS, Rlimit{Infinity, Infinity}},
	}
	l := NewLimits(512)
	for _, tc := range cases {
		got, err := l.Get(tc.r)
		if err != nil || got != tc.want {
			t.Errorf("Get(%d) = %v, %v; want %v", tc.r, got, err, tc.want)
		}
	}
	for _, r := range []Resource{-1, NumResources, 1000} {
		if _, err := l.Get(r); err != EINVAL {
			t.Errorf("Get(%d) error %v, want EINVAL", r, err)
		}
	}
}

// TestLimitsSet sets limits in sequence on one table: each step's error
// and the limits read back after it.
func TestLimitsSet(t *testing.T) {
	steps := []struct {
		r     Resource
		nw    Rlimit
		err   error
		after Rlimit
	}{
		{RlimitNOFILE, Rlimit{1024, 1 << 16}, nil, Rlimit{1024, 1 << 16}},      // lower soft
		{RlimitNOFILE, Rlimit{4096, 1 << 16}, nil, Rlimit{4096, 1 << 16}},      // raise soft up to hard
		{RlimitNOFILE, Rlimit{1 << 21, 1 << 21}, EPERM, Rlimit{4096, 1 << 16}}, // raise hard
		{RlimitNOFILE, Rlimit{2048, 1024}, EINVAL, Rlimit{4096, 1 << 16}},      // soft above hard
		{RlimitNOFILE, Rlimit{64, 128}, nil, Rlimit{64, 128}},                  // lower both
		{RlimitNOFILE, Rlimit{128, 128}, nil, Rlimit{128, 128}},                // soft back up to the new hard
		{RlimitNOFILE, Rlimit{129, 129}, EPERM, Rlimit{128, 128}},              // hard lowered for good
		{RlimitNPROC, Rlimit{8, 8}, nil, Rlimit{8, 8}},
		{RlimitNPROC, Rlimit{9, 9}, EPERM, Rlimit{8, 8}},
		{RlimitCORE, Rlimit{Infinity, Infinity}, nil, Rlimit{Infinity, Infinity}},
		{NumResources, Rlimit{1, 1}, EINVAL, Rlimit{}},
	}
	l := NewLimits(32)
	for i, s := range steps {
		_, err := l.Set(s.r, s.nw)
		got, _ := l.Get(s.r)
		if err != s.err || got != s.after {
			t.Errorf("step %d: Set(%d, %v) = %v, then %v; want %v, then %v", i, s.r, s.nw, err, got, s.err, s.after)
		}
	}
}

func TestProcLimits(t *testing.T) {
	got := string(NewLimits(512).ProcLimits())
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != NumResources+1 {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), NumResources+1, got)
	}
	for _, want := range []string{
		"Limit                     Soft Limit           Hard Limit           Units     ",
		"Max processes             512                  512                  processes ",
		"Max open files            65536                65536                files     ",
		"Max stack size            8388608              unlimited            bytes     ",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("no line %q in:\n%s", want, got)
		}
	}
}

// TestLimitsClone checks that a fork's copy starts as its parent's
// limits and that each changes on its own afterwards, both ways (a
// process's limits are its own: signal_struct, copied by copy_signal).
func TestLimitsClone(t *testing.T) {
	parent := NewLimits(32)
	if _, err := parent.Set(RlimitNOFILE, Rlimit{100, 1000}); err != nil {
		t.Fatal(err)
	}
	child := parent.Clone()
	if c, _ := child.Get(RlimitNOFILE); c != (Rlimit{100, 1000}) {
		t.Fatalf("the copy has NOFILE %v, want the parent's {100 1000}", c)
	}
	if _, err := parent.Set(RlimitNOFILE, Rlimit{16, 1000}); err != nil {
		t.Fatal(err)
	}
	if _, err := child.Set(RlimitSTACK, Rlimit{1 << 20, 1 << 20}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		l    *Limits
		r    Resource
		want Rlimit
	}{
		{"parent NOFILE", parent, RlimitNOFILE, Rlimit{16, 1000}},
		{"child NOFILE", child, RlimitNOFILE, Rlimit{100, 1000}},
		{"parent STACK", parent, RlimitSTACK, Rlimit{8 << 20, Infinity}},
		{"child STACK", child, RlimitSTACK, Rlimit{1 << 20, 1 << 20}},
	} {
		if got, _ := tc.l.Get(tc.r); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
