package vkernel

import (
	"errors"
	"testing"
)

var (
	testPipeRead = FileKind{Mode: ORdonly, Async: AsyncSignals, Pipe: true}
	testAnon     = FileKind{Mode: ORdwr, Async: AsyncNone, RootOwned: true}
	testSocket   = FileKind{Mode: ORdwr, Async: AsyncSignals}
	testRandom   = FileKind{Mode: OWronly | OLargefile, Async: AsyncQuiet, RootOwned: true}
)

// TestOpenFileCreation checks what a new description's F_GETFL shows:
// the kind's access mode and the creation flags open(2) keeps.
func TestOpenFileCreation(t *testing.T) {
	cases := []struct {
		name   string
		kind   FileKind
		oflags int
		want   int
	}{
		{"pipe read end", testPipeRead, 0, 0},
		{"pipe2(O_NONBLOCK|O_CLOEXEC)", testPipeRead, ONonblock | OCloexec, ONonblock},
		{"eventfd(EFD_NONBLOCK)", testAnon, ONonblock, ORdwr | ONonblock},
		{"socket(SOCK_STREAM)", testSocket, 0, ORdwr},
		{"open(/dev/urandom, O_WRONLY|O_APPEND|O_SYNC|O_ASYNC|O_NOATIME|O_TRUNC|O_CREAT)", testRandom,
			OWronly | OAppend | OSync | OAsync | ONoatime | 0o1000 | 0o100, OWronly | OLargefile | OAppend | OSync | OAsync | ONoatime},
	}
	for _, tc := range cases {
		if got := NewOpenFile(tc.kind, tc.oflags).Flags(); got != tc.want {
			t.Errorf("%s: F_GETFL %#o, want %#o", tc.name, got, tc.want)
		}
	}
}

// TestOpenFileSetFlags checks F_SETFL (fs/fcntl.c setfl()): only
// O_APPEND, O_NONBLOCK, O_DIRECT and O_NOATIME are stored; O_NOATIME on
// root's inode takes fsuid 0 or CAP_FOWNER; O_DIRECT is EINVAL but on a
// pipe, where weft refuses packet mode; O_ASYNC is the kind's.
func TestOpenFileSetFlags(t *testing.T) {
	user := Caller{FSUID: 1000}
	cases := []struct {
		name    string
		kind    FileKind
		start   int // creation flags
		arg     int
		who     Caller
		want    int
		wantErr error
	}{
		{"O_NONBLOCK", testAnon, 0, ONonblock, user, ORdwr | ONonblock, nil},
		{"clear", testAnon, ONonblock | OAppend, 0, user, ORdwr, nil},
		{"the access mode and creation flags are ignored", testSocket, 0, OWronly | ORdwr | 0o100 | 0o200 | 0o1000 | OCloexec | OSync | OLargefile, user, ORdwr, nil},
		{"O_APPEND|O_NONBLOCK|O_NOATIME on a socket", testSocket, 0, OAppend | ONonblock | ONoatime, user, ORdwr | OAppend | ONonblock | ONoatime, nil},
		{"O_NOATIME on root's inode, as a user", testAnon, 0, ONoatime, user, ORdwr, EPERM},
		{"O_NOATIME on root's inode, as root", testAnon, 0, ONoatime, Caller{}, ORdwr | ONoatime, nil},
		{"O_NOATIME on root's inode, with CAP_FOWNER", testRandom, 0, ONoatime, Caller{FSUID: 1000, CapFowner: true}, OWronly | OLargefile | ONoatime, nil},
		{"O_NOATIME kept, as a user", testAnon, ONoatime, ONoatime | ONonblock, user, ORdwr | ONoatime | ONonblock, nil},
		{"O_DIRECT on an eventfd", testAnon, ONonblock, ODirect, user, ORdwr | ONonblock, EINVAL},
		{"O_DIRECT on a socket", testSocket, 0, ODirect | ONonblock, user, ORdwr, EINVAL},
		{"O_DIRECT on a pipe", testPipeRead, 0, ODirect, user, 0, ErrPacketUnmodelled},
		{"O_ASYNC with no fasync", testAnon, 0, OAsync | ONonblock, user, ORdwr | ONonblock, nil},
		{"O_ASYNC on a socket", testSocket, 0, OAsync | ONonblock, user, ORdwr | OAsync | ONonblock, nil},
		{"O_ASYNC on a pipe", testPipeRead, 0, OAsync, user, OAsync, nil},
		{"O_ASYNC on a random device", testRandom, 0, OAsync, user, OWronly | OLargefile | OAsync, nil},
		{"O_ASYNC cleared on a random device", testRandom, OAsync, 0, user, OWronly | OLargefile, nil},
	}
	for _, tc := range cases {
		f := NewOpenFile(tc.kind, tc.start)
		err := f.SetFlags(tc.arg, tc.who)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: F_SETFL(%#o): %v, want %v", tc.name, tc.arg, err, tc.wantErr)
		}
		if got := f.Flags(); got != tc.want {
			t.Errorf("%s: F_SETFL(%#o): F_GETFL %#o, want %#o", tc.name, tc.arg, got, tc.want)
		}
	}
}

// TestOpenFileIoctls checks FIONBIO (O_NONBLOCK, no check) and FIOASYNC
// (the kind's fasync: ENOTTY without one) from fs/ioctl.c.
func TestOpenFileIoctls(t *testing.T) {
	cases := []struct {
		name    string
		kind    FileKind
		on      bool
		want    int
		wantErr error
	}{
		{"eventfd on", testAnon, true, ORdwr, ENOTTY},
		{"eventfd off", testAnon, false, ORdwr, nil},
		{"socket on", testSocket, true, ORdwr | OAsync, nil},
		{"socket off", testSocket, false, ORdwr, nil},
		{"random device on", testRandom, true, OWronly | OLargefile | OAsync, nil},
	}
	for _, tc := range cases {
		f := NewOpenFile(tc.kind, 0)
		if err := f.SetAsync(tc.on); !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: FIOASYNC: %v, want %v", tc.name, err, tc.wantErr)
		}
		if got := f.Flags(); got != tc.want {
			t.Errorf("%s: FIOASYNC: F_GETFL %#o, want %#o", tc.name, got, tc.want)
		}
	}
	f := NewOpenFile(testPipeRead, OAppend)
	f.SetNonblock(true)
	if f.Flags() != OAppend|ONonblock || !f.Nonblocking() {
		t.Errorf("FIONBIO on: F_GETFL %#o", f.Flags())
	}
	f.SetNonblock(false)
	if f.Flags() != OAppend || f.Nonblocking() {
		t.Errorf("FIONBIO off: F_GETFL %#o", f.Flags())
	}
}

// TestOpenFileHashWord checks the hash word: 0 or 1 for O_NONBLOCK alone
// (what the world hash held before the other flags), the other status
// flags at their own bits, the access mode never.
func TestOpenFileHashWord(t *testing.T) {
	cases := []struct {
		kind   FileKind
		oflags int
		want   uint64
	}{
		{testPipeRead, 0, 0},
		{testRandom, ONonblock, 1},
		{testAnon, OAppend, OAppend},
		{testRandom, OAsync | ONonblock | ONoatime, 1 | OAsync | ONoatime},
	}
	var none *OpenFile
	if none.HashWord() != 0 || none.Flags() != 0 || none.Nonblocking() {
		t.Errorf("a nil OpenFile: hash word %#x, flags %#o", none.HashWord(), none.Flags())
	}
	for _, tc := range cases {
		if got := NewOpenFile(tc.kind, tc.oflags).HashWord(); got != tc.want {
			t.Errorf("HashWord of %#o on mode %#o: %#x, want %#x", tc.oflags, tc.kind.Mode, got, tc.want)
		}
	}
}
