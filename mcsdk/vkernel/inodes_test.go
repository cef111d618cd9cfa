package vkernel

import (
	"slices"
	"testing"
)

// TestInodes meets files in sequence: each step's host file and name,
// and which earlier step's number it must show ("" a new number).
func TestInodes(t *testing.T) {
	steps := []struct {
		f    HostFile
		name string
		same int // index of the step whose number it shows; -1 a new one
	}{
		{HostFile{HostIno{2049, 1000}, 5}, "/run/weft/n0/data", -1},
		{HostFile{HostIno{2049, 1000}, 5}, "/run/weft/n0/link", 0},  // a hard link: the same file
		{HostFile{HostIno{2049, 1000}, 5}, "", 0},                   // by descriptor
		{HostFile{HostIno{2049, 1000}, 9}, "/run/weft/n0/data", -1}, // the host reused inode 1000 for a new file: a collision of names, a new number
		{HostFile{HostIno{2049, 77}, 0}, "/etc/passwd", -1},
		{HostFile{HostIno{9, 1}, 0}, "", -1}, // a pipe
		{HostFile{HostIno{9, 2}, 0}, "", -1}, // another
	}
	tab := NewInodes()
	got := make([]uint64, len(steps))
	seen := map[uint64]int{}
	for i, s := range steps {
		got[i] = tab.Ino(s.f, s.name)
		if got[i] == 0 {
			t.Errorf("step %d: inode 0", i)
		}
		if s.same >= 0 && got[i] != got[s.same] {
			t.Errorf("step %d: %d, want step %d's %d", i, got[i], s.same, got[s.same])
		}
		if j, ok := seen[got[i]]; s.same < 0 && ok {
			t.Errorf("step %d: %d is already step %d's", i, got[i], j)
		}
		seen[got[i]] = i
	}
	// Another world meeting the same files in the same order numbers them
	// alike, whatever their host numbers.
	other := NewInodes()
	for i, s := range steps {
		f := HostFile{HostIno{s.f.Dev + 1, s.f.Ino * 3}, s.f.Birth + 1}
		if n := other.Ino(f, s.name); n != got[i] {
			t.Errorf("step %d in another world: %d, want %d", i, n, got[i])
		}
	}
	// A path's number does not depend on what the world met before.
	if a, b := NewInodes().Ino(HostFile{HostIno{1, 1}, 0}, "/etc/passwd"), got[4]; a != b {
		t.Errorf("/etc/passwd met first: %d, met fifth: %d", a, b)
	}
}

// TestInodesMoved: a file copied to a new host inode (a checkpoint's
// copy) keeps its number; a copy whose birth time is unknown takes the
// first one met as its own, and one whose birth time is known tells a
// new file at its inode (the copy removed, the inode reused) from itself;
// the copy of a new file at a numbered file's inode (another birth time),
// met by no one before the copy, is a new file.
func TestInodesMoved(t *testing.T) {
	tab := NewInodes()
	a := tab.Ino(HostFile{HostIno{1, 10}, 100}, "/run/weft/n0/a")
	b := tab.Ino(HostFile{HostIno{1, 11}, 100}, "/run/weft/n0/b")
	c := tab.Ino(HostFile{HostIno{1, 12}, 100}, "/run/weft/n0/c")
	v := tab.Virtual("/etc/hostname")
	f := tab.Ino(HostFile{HostIno{1, 13}, 100}, "/run/weft/n0/f")
	tab.Moved(map[HostIno]Move{{1, 10}: {100, HostFile{HostIno{1, 20}, 0}}, {1, 11}: {100, HostFile{HostIno{1, 10}, 0}},
		{1, 12}: {100, HostFile{HostIno{1, 30}, 300}}, {1, 13}: {150, HostFile{HostIno{1, 40}, 400}}})
	if got := tab.Ino(HostFile{HostIno{1, 20}, 500}, ""); got != a {
		t.Errorf("a after the copy: %d, want %d", got, a)
	}
	if got := tab.Ino(HostFile{HostIno{1, 10}, 501}, ""); got != b {
		t.Errorf("b after the copy (at a's old inode): %d, want %d", got, b)
	}
	if got := tab.Ino(HostFile{HostIno{1, 20}, 600}, "/run/weft/n0/d"); got == a {
		t.Errorf("a new file at a's copy's inode shows a's number %d", got)
	}
	if got := tab.Ino(HostFile{HostIno{1, 30}, 700}, "/run/weft/n0/e"); got == c {
		t.Errorf("a new file at c's copy's inode, met before the copy, shows c's number %d", got)
	}
	if got := tab.Ino(HostFile{HostIno{1, 40}, 400}, "/run/weft/n0/g"); got == f {
		t.Errorf("the copy of a new file at f's inode, which no one met before the copy, shows f's number %d", got)
	}
	if got := tab.Virtual("/etc/hostname"); got != v || v == a || v == b {
		t.Errorf("virtual file: %d then %d (a %d, b %d)", v, got, a, b)
	}
}

// TestInodesDigest: tables that will number the next file differently
// digest differently; a nil table and an empty one alike.
func TestInodesDigest(t *testing.T) {
	digest := func(tab *Inodes) []uint64 {
		var out []uint64
		tab.Digest(func(v uint64) { out = append(out, v) })
		return out
	}
	file := func(ino uint64) HostFile { return HostFile{HostIno: HostIno{Dev: 1, Ino: ino}} }
	var nilTable *Inodes
	if !slices.Equal(digest(nilTable), digest(NewInodes())) {
		t.Errorf("nil %v, empty %v", digest(nilTable), digest(NewInodes()))
	}
	anon := NewInodes()
	anon.Ino(file(7), "")
	named := NewInodes()
	named.Ino(file(7), "/run/weft/n0/a")
	other := NewInodes()
	other.Ino(file(9), "/run/weft/n0/a") // another host file, same path: same number
	for _, c := range []struct {
		name string
		a, b *Inodes
		same bool
	}{
		{"anonymous vs empty", anon, NewInodes(), false},
		{"anonymous vs named", anon, named, false},
		{"same path, other host inode", named, other, true},
	} {
		if got := slices.Equal(digest(c.a), digest(c.b)); got != c.same {
			t.Errorf("%s: equal digests %v, want %v", c.name, got, c.same)
		}
	}
}
