//go:build linux && amd64

package supervisor

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestVirtualInodes runs testdata/inodes.c under real seccomp in two
// worlds: every stat-like call shows device 0:42 and no host inode
// number (the test stats the same files from the host), statx no mount
// id; a hard link, a rename, a descriptor and a directory listing's d_ino
// show the file's one number;
// and both worlds print the same numbers, though their run directories'
// files are different host files.
func TestVirtualInodes(t *testing.T) {
	bin := buildProbe(t, "inodes", "-O1", "-Wall")
	var outs []string
	for run := 0; run < 2; run++ {
		w, err := Start(Config{Nodes: []NodeSpec{{Path: bin}}, DataDirs: true})
		if err != nil {
			t.Fatal(err)
		}
		out := runToEnd(t, w)
		var hostA syscall.Stat_t
		if err := syscall.Stat(filepath.Join(w.DataDir(0), "a"), &hostA); err != nil {
			t.Errorf("run %d: no file a in the run directory: %v\n%s", run, err, out)
		}
		w.Close()
		for _, want := range []string{"passwd: 0:42 ", "root: 0:42 ", "passwd fstat: same\n", "passwd fstatat: same\n",
			"statx: 0:42 same mnt_id 0 mask_mnt_id 0\n", "hard link: same\n", "renamed: same\n", "by descriptor: same\n",
			"a vs passwd: differs\n", "pipe: 0:42 ", "hostname: 0:42 ", "a: 0:42 ",
			"listed passwd: same\n", "listed c: same\n", "listed dot: same\n", "listed etc: same\n", "done\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("run %d: output lacks %q:\n%s", run, want, out)
			}
		}
		for _, host := range []string{"/etc/passwd", "/", "/etc/hostname"} {
			var st syscall.Stat_t
			if syscall.Stat(host, &st) == nil && strings.Contains(out, fmt.Sprintf(" %d\n", st.Ino)) {
				t.Errorf("run %d: the host inode number of %s (%d) in the output:\n%s", run, host, st.Ino, out)
			}
		}
		if strings.Contains(out, fmt.Sprintf(" %d\n", hostA.Ino)) {
			t.Errorf("run %d: the host inode number of the run directory's a (%d) in the output:\n%s", run, hostA.Ino, out)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Errorf("two worlds differ:\n%s\n---\n%s", outs[0], outs[1])
	}
}
