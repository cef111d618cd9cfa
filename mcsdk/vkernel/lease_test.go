package vkernel

import (
	"errors"
	"slices"
	"testing"
)

// TestLeases runs sequences of F_SETLEASE requests on one table and
// checks each answer and what F_GETLEASE then returns, against fcntl(2)
// and fs/locks.c (generic_setlease, check_conflicting_open), within the
// world, and against the limit weft keeps (no lease a later open of the
// world could break).
func TestLeases(t *testing.T) {
	a := Desc{Node: 0, Proc: 100, FD: 3}
	b := Desc{Node: 1, Proc: 101, FD: 4}
	sys := HostFile{HostIno: HostIno{Dev: 8, Ino: 40}}
	other := HostFile{HostIno: HostIno{Dev: 8, Ino: 41}}
	// ro is a system file (one name, outside every run directory) the
	// caller has open read-only and nobody else has open.
	ro := LeaseFile{File: sys, Regular: true, Owner: true, Names: 1}
	with := func(f LeaseFile, edit func(*LeaseFile)) LeaseFile { edit(&f); return f }
	type step struct {
		d    Desc
		typ  int
		f    LeaseFile
		err  error
		want int // F_GETLEASE on d afterwards
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"a read lease on a file nobody may write is granted, then given up", []step{
			{d: a, typ: LeaseRead, f: ro, want: LeaseRead},
			{d: a, typ: LeaseUnlock, f: ro, want: LeaseUnlock},
		}},
		{"F_UNLCK with no lease is EAGAIN", []step{
			{d: a, typ: LeaseUnlock, f: ro, err: EAGAIN, want: LeaseUnlock},
		}},
		{"a type that is not a lock type is EINVAL", []step{
			{d: a, typ: 3, f: ro, err: EINVAL, want: LeaseUnlock},
			{d: a, typ: -1, f: ro, err: EINVAL, want: LeaseUnlock},
		}},
		{"a caller that does not own the file and lacks CAP_LEASE: EACCES", []step{
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.Owner = false }), err: EACCES, want: LeaseUnlock},
		}},
		{"a file that is not regular: EINVAL", []step{
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.Regular = false }), err: EINVAL, want: LeaseUnlock},
		}},
		{"a read lease while the caller's own description writes: EAGAIN", []step{
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.SelfWrite = true }), err: EAGAIN, want: LeaseUnlock},
		}},
		{"a read lease while another process of the world writes: EAGAIN", []step{
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.Opens = []LeaseOpen{{}, {Write: true}} }), err: EAGAIN, want: LeaseUnlock},
		}},
		{"a read lease beside other readers is granted to each", []step{
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.Opens = []LeaseOpen{{}} }), want: LeaseRead},
			{d: b, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.Opens = []LeaseOpen{{}} }), want: LeaseRead},
		}},
		{"a read lease on a file of a run directory could be broken: refused", []step{
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.InRunDir = true }), err: ErrUnbreakable, want: LeaseUnlock},
		}},
		{"a read lease on a file with other names could be broken: refused", []step{
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.Names = 2 }), err: ErrUnbreakable, want: LeaseUnlock},
		}},
		{"a write lease on a named file could be broken by any open: refused", []step{
			{d: a, typ: LeaseWrite, f: ro, err: ErrUnbreakable, want: LeaseUnlock},
		}},
		{"a write lease on an unlinked file nobody else has open is granted", []step{
			{d: a, typ: LeaseWrite, f: with(ro, func(f *LeaseFile) { f.Names = 0; f.SelfWrite = true; f.InRunDir = true }), want: LeaseWrite},
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.Names = 0; f.SelfWrite = true }), err: EAGAIN, want: LeaseWrite},
		}},
		{"a write lease while another description reads: EAGAIN", []step{
			{d: a, typ: LeaseWrite, f: with(ro, func(f *LeaseFile) { f.Names = 0; f.Opens = []LeaseOpen{{}} }), err: EAGAIN, want: LeaseUnlock},
		}},
		{"a conflict is EAGAIN before the limit is", []step{
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.InRunDir = true; f.Opens = []LeaseOpen{{Write: true}} }), err: EAGAIN, want: LeaseUnlock},
		}},
		{"a held read lease is downgraded from write and kept on conflict", []step{
			{d: a, typ: LeaseWrite, f: with(ro, func(f *LeaseFile) { f.Names = 0 }), want: LeaseWrite},
			{d: a, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.Names = 0 }), want: LeaseRead},
			{d: a, typ: LeaseWrite, f: with(ro, func(f *LeaseFile) { f.Names = 0; f.Opens = []LeaseOpen{{}} }), err: EAGAIN, want: LeaseRead},
		}},
		{"leases are per description", []step{
			{d: a, typ: LeaseRead, f: ro, want: LeaseRead},
			{d: b, typ: LeaseUnlock, f: ro, err: EAGAIN, want: LeaseUnlock},
			{d: b, typ: LeaseRead, f: with(ro, func(f *LeaseFile) { f.File = other }), want: LeaseRead},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLeases()
			for i, s := range tc.steps {
				if err := l.Set(s.d, s.typ, s.f); !errors.Is(err, s.err) {
					t.Fatalf("step %d: Set(%v, %d) = %v, want %v", i, s.d, s.typ, err, s.err)
				}
				if got := l.Get(s.d); got != s.want {
					t.Fatalf("step %d: Get(%v) = %d, want %d", i, s.d, got, s.want)
				}
			}
		})
	}
}

// TestLeasesOnDrop checks that On finds the holders of one file in order,
// and that Drop (a closed description) forgets a lease and a mask.
func TestLeasesOnDrop(t *testing.T) {
	f := HostFile{HostIno: HostIno{Dev: 1, Ino: 2}}
	g := HostFile{HostIno: HostIno{Dev: 1, Ino: 3}}
	lf := LeaseFile{File: f, Regular: true, Owner: true, Names: 1}
	l := NewLeases()
	d1, d2, d3 := Desc{Node: 1, Proc: 101, FD: 5}, Desc{Node: 0, Proc: 100, FD: 7}, Desc{Node: 0, Proc: 100, FD: 3}
	for _, d := range []Desc{d1, d2} {
		if err := l.Set(d, LeaseRead, lf); err != nil {
			t.Fatal(err)
		}
	}
	lf.File = g
	if err := l.Set(d3, LeaseRead, lf); err != nil {
		t.Fatal(err)
	}
	if err := l.Notify(d3, true, 4); err != nil {
		t.Fatal(err)
	}
	if got, want := l.On(f), []Desc{d2, d1}; !slices.Equal(got, want) {
		t.Fatalf("On(f) = %v, want %v", got, want)
	}
	if got, want := l.Descs(), []Desc{d3, d2, d1}; !slices.Equal(got, want) {
		t.Fatalf("Descs() = %v, want %v", got, want)
	}
	l.Drop(d3)
	if l.Get(d3) != LeaseUnlock || l.Notifying(d3) != 0 || len(l.On(g)) != 0 {
		t.Fatalf("after Drop(%v): lease %d, mask %#x, On(g) %v", d3, l.Get(d3), l.Notifying(d3), l.On(g))
	}
}

// TestNotify checks F_NOTIFY's answers (fs/notify/dnotify/dnotify.c's
// fcntl_dirnotify): a mask is recorded on a directory, ENOTDIR
// elsewhere, and a mask with no event bit removes it, on any file.
func TestNotify(t *testing.T) {
	const create, multi = 0x4, DnotifyMulti
	d := Desc{Node: 0, Proc: 100, FD: 3}
	cases := []struct {
		name string
		dir  bool
		mask uint32
		err  error
		want uint32
	}{
		{"a mask on a directory is recorded", true, create | multi, nil, create | multi},
		{"a mask on a file is ENOTDIR", false, create, ENOTDIR, 0},
		{"no event bit removes, even on a file", false, multi, nil, 0},
		{"0 removes", true, 0, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLeases()
			if tc.mask&^multi == 0 {
				l.Notify(d, true, create) // something to remove
			}
			if err := l.Notify(d, tc.dir, tc.mask); !errors.Is(err, tc.err) {
				t.Fatalf("Notify(%v, %#x) = %v, want %v", tc.dir, tc.mask, err, tc.err)
			}
			if got := l.Notifying(d); got != tc.want {
				t.Fatalf("mask %#x, want %#x", got, tc.want)
			}
		})
	}
}

// TestLeasesHash checks that the hash tells tables apart by what they
// hold and is the same for the same content set in another order.
func TestLeasesHash(t *testing.T) {
	lf := LeaseFile{File: HostFile{HostIno: HostIno{Dev: 1, Ino: 2}}, Regular: true, Owner: true, Names: 1}
	a, b := Desc{Node: 0, Proc: 100, FD: 3}, Desc{Node: 1, Proc: 101, FD: 3}
	sum := func(l *Leases) []uint64 {
		var out []uint64
		l.Hash(func(v uint64) { out = append(out, v) })
		return out
	}
	x, y, z := NewLeases(), NewLeases(), NewLeases()
	x.Set(a, LeaseRead, lf)
	x.Set(b, LeaseRead, lf)
	y.Set(b, LeaseRead, lf)
	y.Set(a, LeaseRead, lf)
	z.Set(a, LeaseRead, lf)
	z.Notify(b, true, 1)
	if !slices.Equal(sum(x), sum(y)) {
		t.Fatalf("same leases, set in another order, hash apart: %v %v", sum(x), sum(y))
	}
	if slices.Equal(sum(x), sum(z)) || slices.Equal(sum(NewLeases()), sum(z)) {
		t.Fatalf("different tables hash alike: %v %v", sum(x), sum(z))
	}
}
