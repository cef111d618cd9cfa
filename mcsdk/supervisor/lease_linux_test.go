//go:build linux && amd64

package supervisor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLeases runs testdata/lease.c as a node: its leases and dnotify
// watches are served virtually (sys_lease.go). Its answers are Linux's
// within the world (the same program run natively gives the same lines,
// but for the lease weft refuses because a later open of the world could
// break it), and, judged from the host while the node holds a read lease
// on a host file and watches a host directory: /proc/locks shows no
// lease, a host writer's non-blocking open succeeds (a real lease would
// make it EWOULDBLOCK and start a lease break), and a file the host makes
// in the directory sends the node no SIGIO.
func TestLeases(t *testing.T) {
	bin := buildProbe(t, "lease", "-O1", "-Wall")
	file := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(file, []byte("host data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w, err := Start(Config{Nodes: []NodeSpec{{Path: bin, Args: []string{file, dir}}}, DataDirs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	out, checked := judgeWhenSaid(t, w, "leased\n", func() { checkNoHostLease(t, file, dir) })
	if !checked {
		t.Fatalf("the node never said it held its lease:\n%s", out)
	}
	want := []string{
		"read lease outside: 0 ", "get outside: 0 ", "get dup: 0 ", "get other open: 2 ",
		"read lease beside a reader: 0 ", "unlock other open: 0 ", "unlock again: -1 EAGAIN",
		"write lease outside: -1 EAGAIN", "lease type 7: -1 EINVAL", "child get inherited: 0 ",
		"lease on a pipe: -1 EINVAL", "lease on a directory: -1 EINVAL",
		"read lease on a writer: -1 EAGAIN", "read lease beside a writer: -1 EAGAIN",
		"write lease beside a writer: -1 EAGAIN",
		"read lease in the run directory: -1 EAGAIN", // Linux grants it; weft could not break it
		"write lease on an unlinked file: 0 ", "get unlinked: 1 ",
		"write lease on a nameless file: 0 ", "downgrade a writer: -1 EAGAIN",
		"notify directory: 0 ", "notify file: -1 ENOTDIR", "notify file none: 0 ",
		"setuid: 0 ", "lease not owner: -1 EACCES",
		"sleep: 0 ", "get after host writer: 0 ", "SIGIO pending: 0 ",
	}
	if got := strings.Split(strings.ReplaceAll(out, "leased\n", ""), "\n"); len(got) != len(want)+1 {
		t.Errorf("%d lines, want %d:\n%s", len(got)-1, len(want), out)
	}
	for _, line := range want {
		if !strings.Contains(out, line+"\n") {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	notes := fmt.Sprint(w.Notes())
	if !strings.Contains(notes, "n0/t0: fcntl request F_SETLEASE (0x400) refused (EAGAIN)") {
		t.Errorf("no note for the lease weft could not break:\n%s", notes)
	}
}

// checkNoHostLease judges from the host, while the node holds a read
// lease on file and watches dir: the host kernel has no lease on file, a
// host writer opens it at once, and making a file in dir is seen by
// nobody.
func checkNoHostLease(t *testing.T, file, dir string) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(file, &st); err != nil {
		t.Fatal(err)
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(locks), "\n") {
		if strings.Contains(l, fmt.Sprintf(":%d ", st.Ino)) {
			t.Errorf("the host kernel holds a lock or lease on the file the node leased: %s", l)
		}
	}
	fd, err := unix.Open(file, unix.O_WRONLY|unix.O_APPEND|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatalf("a host writer's open of the file a node leased: %v (a node's lease blocks host writers)", err)
	}
	unix.Write(fd, []byte("host write\n"))
	unix.Close(fd)
	if err := os.WriteFile(filepath.Join(dir, "made-by-host"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
