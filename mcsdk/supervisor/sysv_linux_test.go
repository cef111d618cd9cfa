//go:build linux && amd64

package supervisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weft-mc/weft/mcsdk/sched"
	"golang.org/x/sys/unix"
)

// TestSysvIPC runs testdata/sysv.c under real seccomp: a shared memory
// segment written by a parent and read by its forked child and back (the
// pages are really shared), semaphores that park a process until another
// posts, SEM_UNDO applied at a child's exit, attach counts through fork,
// exit and shmdt, semtimedop's timeout on the virtual clock, a signal
// ending a semop with EINTR, and a message queue's type selection,
// blocking receive, E2BIG and MSG_NOERROR. Each schedule twice, with the
// same output and the same hashes at every step; the lines are those the
// probe prints natively.
func TestSysvIPC(t *testing.T) {
	bin := buildProbe(t, "sysv", "-O1", "-Wall")
	want := []string{
		"attached: 0\n", "nattch parent: 1\n", "nattch after fork: 2\n",
		"child reads hello\n", "parent reads world\n",
		"nattch after child exit: 1\n", "shmdt: 0\n", "shmdt again: -1 EINVAL\n", "nattch after shmdt: 0\n",
		"rmid: 0\n", "stat after rmid: -1 EINVAL\n",
		"value after undo: 0\n", "nowait: -1 EAGAIN\n", "semtimedop: -1 EAGAIN\n", "semop interrupted: -1 EINTR\n", "sem rmid: 0\n",
		"child got type 2 second\n", "parent got type 1 first\n", "parent got type 3 done\n",
		"too long: -1 E2BIG\n", "truncated sec\n", "empty: -1 ENOMSG\n", "qnum 0 qbytes 16384\n", "msg rmid: 0\n",
	}
	for _, pick := range []func([]sched.Action, int) sched.Action{first, last} {
		out := runTwice(t, "sysv", Config{Nodes: []NodeSpec{{Path: bin}}}, pick)
		for _, s := range want {
			if !strings.Contains(out, s) {
				t.Errorf("output lacks %q:\n%s", s, out)
			}
		}
	}
}

// TestSysvHostUnseen is a hostile probe: the host has a shared memory
// segment with a known key, id and content; a node asking for that key
// gets ENOENT, naming the host's id gets EINVAL (stat and attach), and
// the key it then creates is its own: judged from the host side, the
// host's segment keeps its bytes, is attached by nobody, and the key
// still names it.
func TestSysvHostUnseen(t *testing.T) {
	const key = 0x77656674 // "weft"
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Fatalf("host shmget: %v", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	mem, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	copy(mem, "host secret")
	if err := unix.SysvShmDetach(mem); err != nil {
		t.Fatal(err)
	}
	bin := buildProbe(t, "sysv", "-O1", "-Wall")
	out := runTwice(t, "sysv-probe", Config{Nodes: []NodeSpec{{Path: bin, Args: []string{fmt.Sprint(key), fmt.Sprint(id)}}}}, first)
	for _, s := range []string{"host key: -1 ENOENT\n", "host id stat: -1 EINVAL\n", "host id attach: -1 EINVAL\n", "own segment of the key: 0\n", "own rmid: 0\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if again, err := unix.SysvShmGet(key, 0, 0); err != nil || again != id {
		t.Errorf("the host's key now names %d, %v; want %d", again, err, id)
	}
	var ds unix.SysvShmDesc
	if _, err := unix.SysvShmCtl(id, unix.IPC_STAT, &ds); err != nil || ds.Nattch != 0 {
		t.Errorf("host segment: nattch %d, %v; want 0", ds.Nattch, err)
	}
	mem, err = unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmDetach(mem)
	if got := string(mem[:len("host secret")]); got != "host secret" || mem[len("host secret")] != 0 {
		t.Errorf("host segment holds %q", mem[:32])
	}
}

// TestSysvSegmentHashed: a segment's bytes are part of World.Hash even
// where no process maps them any more. Two worlds whose nodes wrote the
// same byte into a detached segment hash alike, one that wrote another
// byte differently (HashGlobals: the processes' own memory, where argv
// differs, is not hashed).
func TestSysvSegmentHashed(t *testing.T) {
	bin := buildProbe(t, "sysvhash", "-O1", "-Wall")
	hash := func(arg string) [32]byte {
		w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{arg}}}})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if f := w.Failure(); f != nil {
			t.Fatalf("%s: %v", arg, f)
		}
		h, err := w.Hash(HashGlobals, nil)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	a, again, b := hash("a"), hash("a"), hash("b")
	if a != again {
		t.Error("the same segment bytes hash differently")
	}
	if a == b {
		t.Error("different segment bytes hash alike")
	}
}
