package vkernel

import (
	"slices"
	"strings"
	"testing"
)

// status is a thread's status file as Linux 6.1 writes it, cut to the
// lines around the ones ParseTaskStatus reads.
const status = `Name:	gothreads
Umask:	0027
State:	S (sleeping)
Tgid:	4242
Pid:	4243
PPid:	4200
TracerPid:	0
Uid:	1000	1001	1002	1003
Gid:	2000	2001	2002	2003
FDSize:	64
Groups:	4 24 27 
NStgid:	4242
Threads:	3
SigQ:	1/63448
SigPnd:	0000000000000200
ShdPnd:	0000000100004000
SigBlk:	fffffffe7ffbfeff
SigIgn:	0000000000001000
SigCgt:	ffffffffffc1feff
CapInh:	0000000000000000
CapPrm:	000001ffffffffff
CapEff:	0000000010000000
CapBnd:	000001ffffffffff
NoNewPrivs:	1
Seccomp:	2
`

// TestParseTaskStatus checks the parser of /proc/PID/task/TID/status
// (proc(5): ids in decimal, the capability and signal sets in hex, the
// umask in octal): a full file, one without the lines it reads, and a
// malformed line of each kind, an error naming the line.
func TestParseTaskStatus(t *testing.T) {
	s, err := ParseTaskStatus([]byte(status))
	if err != nil {
		t.Fatal(err)
	}
	wantSig := ThreadSig{Pending: set(SIGUSR1), Shared: set(SIGTERM, 33), Blocked: 0xfffffffe7ffbfeff, Ignored: set(SIGPIPE), Caught: 0xffffffffffc1feff}
	if s.Sig != wantSig {
		t.Errorf("signals %+v, want %+v", s.Sig, wantSig)
	}
	if s.Sig.AllPending() != set(SIGUSR1, SIGTERM, 33) {
		t.Errorf("all pending %#x", s.Sig.AllPending())
	}
	if s.UID != [4]uint32{1000, 1001, 1002, 1003} || s.GID != [4]uint32{2000, 2001, 2002, 2003} || !s.HasIDs {
		t.Errorf("ids %v %v (read %v)", s.UID, s.GID, s.HasIDs)
	}
	if !slices.Equal(s.Groups, []uint32{4, 24, 27}) {
		t.Errorf("groups %v", s.Groups)
	}
	if s.CapInh != 0 || s.CapPrm != 0x1ffffffffff || s.CapEff != 1<<28 {
		t.Errorf("capabilities inh %#x prm %#x eff %#x", s.CapInh, s.CapPrm, s.CapEff)
	}
	if s.Umask != 0o027 || !s.HasUmask {
		t.Errorf("umask %#o (read %v)", s.Umask, s.HasUmask)
	}

	s, err = ParseTaskStatus([]byte("Name:\tx\nGroups:\t\n"))
	if err != nil || s.HasIDs || s.HasUmask || s.Sig != (ThreadSig{}) || len(s.Groups) != 0 {
		t.Errorf("no lines it reads: %+v, %v", s, err)
	}

	for _, c := range []struct{ old, new, line string }{
		{"0000000000001000", "zz", "SigIgn"},
		{"0000000010000000", "-1", "CapEff"},
		{"1000\t1001\t1002\t1003", "1000\t1001", "Uid"},
		{"2003", "x", "Gid"},
		{"4 24 27", "4 a", "Groups"},
		{"0027", "0029", "Umask"},
	} {
		_, err := ParseTaskStatus([]byte(strings.Replace(status, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.line) {
			t.Errorf("malformed %s (%q for %q): %v", c.line, c.new, c.old, err)
		}
	}
}
