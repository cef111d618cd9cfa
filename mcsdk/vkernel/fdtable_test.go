package vkernel

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// ofd is a test open file description: a name and status flags.
type ofd struct {
	name   string
	status int
}

// std is a table of 8 numbers (RLIMIT_NOFILE 8) holding 0, 1 and 2 (in,
// out, err) and 4 (f, close-on-exec).
func std() (*FDTable[*ofd], map[string]*ofd) {
	files := map[string]*ofd{"in": {name: "in"}, "out": {name: "out"}, "err": {name: "err"}, "f": {name: "f"}, "g": {name: "g"}}
	t := NewFDTable[*ofd](8)
	t.Install(files["in"], 0)
	t.Install(files["out"], 0)
	t.Install(files["err"], 0)
	t.Record(4, files["f"], true)
	return t, files
}

// show is a table as "fd:name" in fd order, "*" after a close-on-exec one.
func show(t *FDTable[*ofd]) string {
	var b []string
	t.Each(func(fd int, f *ofd) {
		s := fmt.Sprintf("%d:%s", fd, f.name)
		if fl, _ := t.GetFD(fd); fl == FDCloexec {
			s += "*"
		}
		b = append(b, s)
	})
	return strings.Join(b, " ")
}

// TestFDTableRules checks each numbering, EBADF, EINVAL and EMFILE rule of
// the calls that make and close descriptors against the man page that
// states it (man-pages 6.x: dup(2), fcntl(2), close(2), close_range(2),
// open(2)).
func TestFDTableRules(t *testing.T) {
	cases := []struct {
		name, cite string
		do         func(tb *FDTable[*ofd], f map[string]*ofd) (int, error)
		want       int // the call's answer, when it succeeds
		err        error
		after      string // the table afterwards
	}{
		{"install takes the lowest free number", "open(2): the lowest-numbered file descriptor not currently open",
			func(tb *FDTable[*ofd], f map[string]*ofd) (int, error) { return tb.Install(f["g"], 0) },
			3, nil, "0:in 1:out 2:err 3:g 4:f*"},
		{"install with O_CLOEXEC", "open(2): O_CLOEXEC enables the close-on-exec flag for the new file descriptor",
			func(tb *FDTable[*ofd], f map[string]*ofd) (int, error) { return tb.Install(f["g"], OCloexec|ONonblock) },
			3, nil, "0:in 1:out 2:err 3:g* 4:f*"},
		{"install after a close reuses the number", "close(2): the descriptor can be reused",
			func(tb *FDTable[*ofd], f map[string]*ofd) (int, error) { tb.Close(1); return tb.Install(f["g"], 0) },
			1, nil, "0:in 1:g 2:err 4:f*"},
		{"dup takes the lowest free number without cloexec", "dup(2): uses the lowest-numbered unused file descriptor; the close-on-exec flag for the duplicate descriptor is off",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.Dup(4) },
			3, nil, "0:in 1:out 2:err 3:f 4:f*"},
		{"dup of a closed number", "dup(2): EBADF oldfd isn't an open file descriptor",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.Dup(3) },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"dup of a negative number", "dup(2): EBADF oldfd isn't an open file descriptor",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.Dup(-1) },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"dup in a full table", "dup(2): EMFILE the per-process limit on the number of open file descriptors has been reached",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				for range 4 {
					tb.Dup(0)
				}
				return tb.Dup(0)
			},
			0, EMFILE, "0:in 1:out 2:err 3:in 4:f* 5:in 6:in 7:in"},
		{"dup2 onto an open number closes it silently", "dup(2): if newfd was previously open, it is closed before being reused; the close is performed silently",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				_, had, err := tb.Dup2(4, 1)
				return boolInt(had), err
			},
			1, nil, "0:in 1:f 2:err 4:f*"},
		{"dup2 onto a free number", "dup(2): newfd is adjusted so that it now refers to the same open file description as oldfd",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				_, had, err := tb.Dup2(0, 6)
				return boolInt(had), err
			},
			0, nil, "0:in 1:out 2:err 4:f* 6:in"},
		{"dup2 onto itself does nothing", "dup(2): if oldfd is a valid file descriptor, and newfd has the same value as oldfd, then dup2() does nothing",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				_, had, err := tb.Dup2(4, 4)
				return boolInt(had), err
			},
			0, nil, "0:in 1:out 2:err 4:f*"},
		{"dup2 onto itself of a closed number", "dup(2): if oldfd is not a valid file descriptor, then the call fails, and newfd is not closed",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { _, _, err := tb.Dup2(5, 5); return 0, err },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"dup2 of a closed number leaves newfd open", "dup(2): if oldfd is not a valid file descriptor, then the call fails, and newfd is not closed",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { _, _, err := tb.Dup2(5, 1); return 0, err },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"dup2 onto a number past the limit", "dup(2): EBADF newfd is out of the allowed range for file descriptors",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { _, _, err := tb.Dup2(0, 8); return 0, err },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"dup2 onto a negative number", "dup(2): EBADF newfd is out of the allowed range for file descriptors",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { _, _, err := tb.Dup2(0, -1); return 0, err },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"dup2 of a cloexec descriptor clears it on the copy", "dup(2): the close-on-exec flag for the duplicate descriptor is off",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { _, _, err := tb.Dup2(4, 5); return 0, err },
			0, nil, "0:in 1:out 2:err 4:f* 5:f"},
		{"dup3 with O_CLOEXEC", "dup(2): the caller can force the close-on-exec flag to be set for the new file descriptor by specifying O_CLOEXEC in flags",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				_, _, err := tb.Dup3(0, 5, OCloexec)
				return 0, err
			},
			0, nil, "0:in 1:out 2:err 4:f* 5:in*"},
		{"dup3 onto itself", "dup(2): EINVAL (dup3()) oldfd was equal to newfd",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { _, _, err := tb.Dup3(4, 4, 0); return 0, err },
			0, EINVAL, "0:in 1:out 2:err 4:f*"},
		{"dup3 onto itself of a closed number", "dup(2): EINVAL (dup3()) oldfd was equal to newfd; fs/file.c checks it before oldfd",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { _, _, err := tb.Dup3(5, 5, 0); return 0, err },
			0, EINVAL, "0:in 1:out 2:err 4:f*"},
		{"dup3 with an invalid flag", "dup(2): EINVAL (dup3()) flags contain an invalid value",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				_, _, err := tb.Dup3(0, 5, ONonblock)
				return 0, err
			},
			0, EINVAL, "0:in 1:out 2:err 4:f*"},
		{"F_DUPFD takes the lowest free number at or above arg", "fcntl(2): F_DUPFD uses the lowest-numbered available file descriptor greater than or equal to arg",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.DupFD(0, 4, false) },
			5, nil, "0:in 1:out 2:err 4:f* 5:in"},
		{"F_DUPFD below a gap", "fcntl(2): F_DUPFD uses the lowest-numbered available file descriptor greater than or equal to arg",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.DupFD(4, 1, false) },
			3, nil, "0:in 1:out 2:err 3:f 4:f*"},
		{"F_DUPFD_CLOEXEC", "fcntl(2): F_DUPFD_CLOEXEC additionally sets the close-on-exec flag for the duplicate file descriptor",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.DupFD(1, 0, true) },
			3, nil, "0:in 1:out 2:err 3:out* 4:f*"},
		{"F_DUPFD with arg at the limit", "fcntl(2): EINVAL the argument was negative or was greater than the maximum allowable value",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.DupFD(0, 8, false) },
			0, EINVAL, "0:in 1:out 2:err 4:f*"},
		{"F_DUPFD with a negative arg", "fcntl(2): EINVAL the argument was negative",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.DupFD(0, -3, false) },
			0, EINVAL, "0:in 1:out 2:err 4:f*"},
		{"F_DUPFD of a closed number", "fcntl(2): EBADF fd is not an open file descriptor",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.DupFD(3, 0, false) },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"F_DUPFD with every number from arg taken", "fcntl(2): EMFILE the per-process limit on the number of open file descriptors has been reached",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { tb.Dup2(0, 7); return tb.DupFD(0, 7, false) },
			0, EMFILE, "0:in 1:out 2:err 4:f* 7:in"},
		{"close", "close(2): closes a file descriptor, so that it no longer refers to any file",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { _, err := tb.Close(4); return 0, err },
			0, nil, "0:in 1:out 2:err"},
		{"close of a closed number", "close(2): EBADF fd isn't a valid open file descriptor",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { _, err := tb.Close(3); return 0, err },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"F_SETFD on one duplicate", "fcntl(2): file descriptor flags are associated with a single file descriptor",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				tb.Dup2(1, 5)
				return 0, tb.SetFD(5, FDCloexec)
			},
			0, nil, "0:in 1:out 2:err 4:f* 5:out*"},
		{"F_SETFD clears", "fcntl(2): F_SETFD sets the file descriptor flags to the value specified by arg",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return 0, tb.SetFD(4, 0) },
			0, nil, "0:in 1:out 2:err 4:f"},
		{"F_GETFD", "fcntl(2): F_GETFD returns (as the function result) the file descriptor flags",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.GetFD(4) },
			FDCloexec, nil, "0:in 1:out 2:err 4:f*"},
		{"F_GETFD of a closed number", "fcntl(2): EBADF fd is not an open file descriptor",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return tb.GetFD(5) },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"F_SETFD of a closed number", "fcntl(2): EBADF fd is not an open file descriptor",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) { return 0, tb.SetFD(5, FDCloexec) },
			0, EBADF, "0:in 1:out 2:err 4:f*"},
		{"close_range closes both bounds", "close_range(2): closes all open file descriptors from first to last (included)",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				cl, err := tb.CloseRange(1, 4, 0)
				return len(cl), err
			},
			3, nil, "0:in"},
		{"close_range past the highest open number", "close_range(2): last may be ~0U, all descriptors from first up",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				cl, err := tb.CloseRange(3, ^uint32(0), 0)
				return len(cl), err
			},
			1, nil, "0:in 1:out 2:err"},
		{"close_range of one number", "close_range(2): first equal to last closes that descriptor",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				cl, err := tb.CloseRange(2, 2, 0)
				return len(cl), err
			},
			1, nil, "0:in 1:out 4:f*"},
		{"close_range with first above last", "close_range(2): EINVAL first is greater than last",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				cl, err := tb.CloseRange(3, 2, 0)
				return len(cl), err
			},
			0, EINVAL, "0:in 1:out 2:err 4:f*"},
		{"close_range with an unknown flag", "close_range(2): EINVAL flags is not valid",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				cl, err := tb.CloseRange(0, 7, 1)
				return len(cl), err
			},
			0, EINVAL, "0:in 1:out 2:err 4:f*"},
		{"close_range CLOSE_RANGE_CLOEXEC marks and keeps", "close_range(2): CLOSE_RANGE_CLOEXEC sets the close-on-exec flag instead of immediately closing",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				cl, err := tb.CloseRange(1, 2, CloseRangeCloexec)
				return len(cl), err
			},
			0, nil, "0:in 1:out* 2:err* 4:f*"},
		{"close_range CLOSE_RANGE_UNSHARE on an unshared table", "close_range(2): CLOSE_RANGE_UNSHARE unshares the table first, as unshare(CLONE_FILES)",
			func(tb *FDTable[*ofd], _ map[string]*ofd) (int, error) {
				cl, err := tb.CloseRange(4, 4, CloseRangeUnshare)
				return len(cl), err
			},
			1, nil, "0:in 1:out 2:err"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb, files := std()
			got, err := tc.do(tb, files)
			if !errors.Is(err, tc.err) || err == nil && tc.err != nil {
				t.Fatalf("%s: error %v, want %v", tc.cite, err, tc.err)
			}
			if err == nil && got != tc.want {
				t.Errorf("%s: answer %d, want %d", tc.cite, got, tc.want)
			}
			if s := show(tb); s != tc.after {
				t.Errorf("%s: table %q, want %q", tc.cite, s, tc.after)
			}
		})
	}
}

// TestFDTableDescriptions checks what duplicates share and what they do
// not: fcntl(2) "duplicated file descriptors refer to the same open file
// description, and thus share file status flags", while "file
// descriptor flags are associated with a single file descriptor"; open(2)
// makes a new description each time.
func TestFDTableDescriptions(t *testing.T) {
	tb, _ := std()
	d, _ := tb.DupFD(4, 0, false)
	f4, _ := tb.Get(4)
	fd, _ := tb.Get(d)
	if f4 != fd {
		t.Fatalf("dup(2): descriptor %d names %p, its original %p: not the same description", d, fd, f4)
	}
	fd.status = SetStatusFlags(fd.status, ONonblock|OCloexec|0o100 /* O_CREAT */ |2 /* O_RDWR */)
	if f4.status != ONonblock {
		t.Errorf("fcntl(2) F_SETFL through the duplicate: original's status %#o, want O_NONBLOCK only", f4.status)
	}
	if c4, _ := tb.GetFD(4); c4 != FDCloexec {
		t.Errorf("fcntl(2): F_SETFL changed the descriptor flags of 4 (%d)", c4)
	}
	if cd, _ := tb.GetFD(d); cd != 0 {
		t.Errorf("dup(2): the duplicate has FD_CLOEXEC (%d)", cd)
	}
	other := &ofd{name: "f"} // open(2) of the same file again
	n, _ := tb.Install(other, 0)
	other.status = SetStatusFlags(other.status, OAppend)
	if f4.status&OAppend != 0 {
		t.Errorf("open(2): a separate open's F_SETFL (fd %d) reached fd 4's description", n)
	}
}

// TestSetStatusFlags checks F_SETFL's rule: fcntl(2) "can change only the
// O_APPEND, O_ASYNC, O_DIRECT, O_NOATIME, and O_NONBLOCK flags".
func TestSetStatusFlags(t *testing.T) {
	cases := []struct{ cur, arg, want int }{
		{2 /* O_RDWR */, ONonblock, 2 | ONonblock},
		{2 | ONonblock, 0, 2},
		{0, OAppend | OAsync | ODirect | ONoatime, OAppend | OAsync | ODirect | ONoatime},
		{1 /* O_WRONLY */, 2 | 0o100 | 0o1000 | OCloexec /* O_RDWR|O_CREAT|O_TRUNC|O_CLOEXEC */, 1},
	}
	for _, tc := range cases {
		if got := SetStatusFlags(tc.cur, tc.arg); got != tc.want {
			t.Errorf("SetStatusFlags(%#o, %#o) = %#o, want %#o", tc.cur, tc.arg, got, tc.want)
		}
	}
}

// TestFDTableForkExec checks fork(2) and execve(2): the child "inherits
// copies of the parent's set of open file descriptors" referring to "the
// same open file description", close-on-exec flags included, and the
// tables change independently afterwards; execve closes "file
// descriptors marked close-on-exec" and keeps the rest.
func TestFDTableForkExec(t *testing.T) {
	parent, files := std()
	parent.Dup3(0, 6, OCloexec)
	child := parent.Fork()
	if s, want := show(child), show(parent); s != want {
		t.Fatalf("fork(2): child's table %q, parent's %q", s, want)
	}
	for _, fd := range parent.Numbers() {
		p, _ := parent.Get(fd)
		c, _ := child.Get(fd)
		if p != c {
			t.Errorf("fork(2): fd %d names another description in the child", fd)
		}
	}
	child.Close(1)
	parent.Install(files["g"], 0)
	if s, want := show(parent), "0:in 1:out 2:err 3:g 4:f* 6:in*"; s != want {
		t.Errorf("fork(2): parent's table after changes in both %q, want %q", s, want)
	}
	if s, want := show(child), "0:in 2:err 4:f* 6:in*"; s != want {
		t.Errorf("fork(2): child's table after changes in both %q, want %q", s, want)
	}
	if child.Limit() != parent.Limit() {
		t.Errorf("fork(2): child's limit %d, parent's %d", child.Limit(), parent.Limit())
	}
	if got := fmt.Sprint(child.CloseOnExec()); got != "[4 6]" {
		t.Errorf("execve(2) would close %v, want [4 6]", got)
	}
	if s, want := show(child), "0:in 2:err 4:f* 6:in*"; s != want {
		t.Errorf("CloseOnExec changed the table: %q, want %q", s, want)
	}
	fds, closed := child.Exec()
	if fmt.Sprint(fds) != "[4 6]" || len(closed) != 2 || closed[0] != files["f"] || closed[1] != files["in"] {
		t.Errorf("execve(2): closed %v (%d descriptions), want [4 6] naming f and in", fds, len(closed))
	}
	if s, want := show(child), "0:in 2:err"; s != want {
		t.Errorf("execve(2): table after exec %q, want %q", s, want)
	}
	if s, want := show(parent), "0:in 1:out 2:err 3:g 4:f* 6:in*"; s != want {
		t.Errorf("execve(2) in the child changed the parent's table: %q, want %q", s, want)
	}
}

// TestFDTableLimit checks RLIMIT_NOFILE: getrlimit(2) "a value one
// greater than the maximum file descriptor number that can be opened";
// lowering it closes nothing.
func TestFDTableLimit(t *testing.T) {
	tb, files := std()
	tb.SetLimit(3)
	if _, err := tb.Install(files["g"], 0); !errors.Is(err, EMFILE) {
		t.Errorf("open(2) with every number below RLIMIT_NOFILE taken: %v, want EMFILE", err)
	}
	if _, ok := tb.Get(4); !ok {
		t.Errorf("setrlimit(2) lowering RLIMIT_NOFILE closed fd 4")
	}
	if _, _, err := tb.Dup2(0, 3); !errors.Is(err, EBADF) {
		t.Errorf("dup2(2) onto RLIMIT_NOFILE: %v, want EBADF", err)
	}
	for _, l := range []int{0, -1, NofileMax + 1} {
		if tb.SetLimit(l); tb.Limit() != NofileMax {
			t.Errorf("SetLimit(%d): limit %d, want NofileMax", l, tb.Limit())
		}
	}
}

// TestFDTableRecord checks the entries for numbers the host kernel chose:
// Record replaces silently and reports what it replaced, Forget drops.
func TestFDTableRecord(t *testing.T) {
	tb, files := std()
	if old, had := tb.Record(1, files["g"], true); !had || old != files["out"] {
		t.Errorf("Record over fd 1: replaced %v (%v), want out", old, had)
	}
	if _, had := tb.Record(7, files["g"], false); had {
		t.Errorf("Record at a free number reported a replaced description")
	}
	if f, ok := tb.Forget(4); !ok || f != files["f"] {
		t.Errorf("Forget(4) = %v, %v; want f", f, ok)
	}
	if _, ok := tb.Forget(4); ok {
		t.Errorf("Forget of a free number reported a description")
	}
	if s, want := show(tb), "0:in 1:g* 2:err 7:g"; s != want {
		t.Errorf("table %q, want %q", s, want)
	}
}

// TestFDTableHash checks the hash's shape: the size, then each number,
// its close-on-exec flag and its description in ascending order, whatever
// order they were made in; a table that differs only in a close-on-exec
// flag hashes differently (it differs after an exec).
func TestFDTableHash(t *testing.T) {
	hash := func(tb *FDTable[*ofd]) []uint64 {
		var out []uint64
		put := func(v uint64) { out = append(out, v) }
		tb.Hash(put, func(f *ofd) { put(uint64(len(f.name))) })
		return out
	}
	a, files := std()
	b := NewFDTable[*ofd](8)
	b.Record(4, files["f"], true)
	b.Record(2, files["err"], false)
	b.Record(0, files["in"], false)
	b.Record(1, files["out"], false)
	want := []uint64{4, 0, 0, 2, 1, 0, 3, 2, 0, 3, 4, FDCloexec, 1}
	if got := hash(a); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hash %v, want %v", got, want)
	}
	if got := hash(b); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hash of the same table made in another order %v, want %v", got, want)
	}
	b.SetFD(4, 0)
	if fmt.Sprint(hash(b)) == fmt.Sprint(want) {
		t.Errorf("clearing fd 4's close-on-exec flag left the hash unchanged")
	}
	b.SetFD(4, FDCloexec)
	b.SetFD(0, FDCloexec)
	if fmt.Sprint(hash(b)) == fmt.Sprint(want) {
		t.Errorf("setting fd 0's close-on-exec flag left the hash unchanged")
	}
	b.SetFD(0, 0)
	b.Close(1)
	if fmt.Sprint(hash(b)) == fmt.Sprint(want) {
		t.Errorf("closing fd 1 left the hash unchanged")
	}
}

// TestFDTableAll checks the ordered walk and that closing during it is
// safe (exit closes every descriptor in fd order, as the kernel does).
func TestFDTableAll(t *testing.T) {
	tb, files := std()
	var seen []int
	for fd, f := range tb.All() {
		seen = append(seen, fd)
		if fd == 1 {
			tb.Close(2) // closed before the walk reaches it
		}
		if tb.At(fd) != f {
			t.Errorf("At(%d) differs from the walk's description", fd)
		}
	}
	if fmt.Sprint(seen) != "[0 1 4]" {
		t.Errorf("walk %v, want [0 1 4]", seen)
	}
	if tb.At(2) != nil || tb.At(4) != files["f"] {
		t.Errorf("At: closed fd 2 gives %v, open fd 4 %v", tb.At(2), tb.At(4))
	}
}

// TestFDTableDupArgs checks the argument checks the supervisor asks
// before a dup whose oldfd the host holds (dup(2), fs/file.c's order):
// they change nothing in the table.
func TestFDTableDupArgs(t *testing.T) {
	tb, _ := std()
	cases := []struct {
		old, new, flags int
		dup2            bool
		want            error
	}{
		{3, 3, 0, true, nil},     // dup2 onto itself: oldfd alone answers
		{3, 3, 0, false, EINVAL}, // dup3: oldfd was equal to newfd
		{0, 5, ONonblock, false, EINVAL},
		{0, 8, 0, true, EBADF}, // newfd out of the allowed range
		{0, -2, OCloexec, false, EBADF},
		{9, 5, OCloexec, false, nil}, // oldfd is not the arguments' business
	}
	for _, tc := range cases {
		if err := tb.DupArgs(tc.old, tc.new, tc.flags, tc.dup2); !errors.Is(err, tc.want) || err != nil && tc.want == nil {
			t.Errorf("DupArgs(%d, %d, %#o, dup2 %v) = %v, want %v", tc.old, tc.new, tc.flags, tc.dup2, err, tc.want)
		}
	}
	if s := show(tb); s != "0:in 1:out 2:err 4:f*" {
		t.Errorf("DupArgs changed the table: %q", s)
	}
	for _, tc := range []struct {
		fd          int
		first, last uint32
		want        bool
	}{{3, 3, 3, true}, {2, 3, 9, false}, {10, 3, 9, false}, {1 << 20, 0, ^uint32(0), true}, {-1, 0, ^uint32(0), false}} {
		if got := InRange(tc.fd, tc.first, tc.last); got != tc.want {
			t.Errorf("InRange(%d, %d, %d) = %v, want %v", tc.fd, tc.first, tc.last, got, tc.want)
		}
	}
}

// TestLowestFree checks the numbering rule over a caller's list (fcntl(2)
// F_DUPFD: "the lowest-numbered available file descriptor greater than or
// equal to arg").
func TestLowestFree(t *testing.T) {
	open := map[int]bool{0: true, 1: true, 2: true, 10: true, 11: true, 13: true}
	for _, tc := range []struct{ min, limit, want int }{{0, 64, 3}, {10, 64, 12}, {12, 64, 12}, {13, 64, 14}, {-5, 64, 3}, {10, 12, -1}} {
		got, err := LowestFree(func(fd int) bool { return open[fd] }, tc.min, tc.limit)
		if tc.want < 0 {
			if !errors.Is(err, EMFILE) {
				t.Errorf("LowestFree(min %d, limit %d) = %d, %v; want EMFILE", tc.min, tc.limit, got, err)
			}
			continue
		}
		if got != tc.want || err != nil {
			t.Errorf("LowestFree(min %d, limit %d) = %d, %v; want %d", tc.min, tc.limit, got, err, tc.want)
		}
	}
}
